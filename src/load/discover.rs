//! Which files a `check` argument names: a file as it is, standard input (`-`), every
//! description under a folder (as git sees the folder: `.gitignore`, `.ignore` and hidden
//! files are skipped), or every description a quoted glob matches.
//!
//! Under a folder or a glob, a file is a description when its top level has an `openapi`
//! or `swagger` key: a retry policy, a mesh's settings or a shared schema file beside the
//! descriptions is not one. Files are found without following symbolic links and only
//! regular files are read, with the usual size limit.

use std::path::{Path, PathBuf};

use super::LoadOptions;
use crate::error::InputError;
use crate::source::path_text;

/// The argument that reads a description from standard input.
pub const STDIN: &str = "-";

/// The descriptions `arguments` name, in the order given, each folder's and glob's in
/// path order. With `skip_others`, a named file that is not a description is left out
/// instead of being checked (and refused).
pub fn descriptions(
    arguments: &[PathBuf],
    skip_others: bool,
    options: &LoadOptions,
) -> Result<Vec<PathBuf>, InputError> {
    let mut found: Vec<PathBuf> = Vec::new();
    for argument in arguments {
        let shown = path_text(argument);
        if argument.as_os_str() == STDIN {
            found.push(argument.clone());
        } else if argument.is_dir() {
            let walked = walk(argument, None, options)?;
            if walked.is_empty() {
                return Err(InputError::new(format!(
                    "no OpenAPI or Swagger description under `{shown}`"
                ))
                .with_help("a description is a YAML or JSON file whose top level has `openapi:` or `swagger:`; files .gitignore names are skipped"));
            }
            found.extend(walked);
        } else if !argument.exists() && is_glob(&shown) {
            let matched = glob(&shown, options)?;
            if matched.is_empty() {
                return Err(InputError::new(format!(
                    "the pattern `{shown}` matches no OpenAPI or Swagger description"
                )));
            }
            found.extend(matched);
        } else if skip_others && argument.is_file() && !read_is_description(argument, options) {
            continue;
        } else {
            found.push(argument.clone());
        }
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|p| seen.insert(p.clone()));
    Ok(found)
}

/// Whether text has `*`, `?`, `[` or `{`: a pattern, not a name.
fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

/// The descriptions under `dir` (to `depth` levels when given), in path order.
fn walk(
    dir: &Path,
    depth: Option<usize>,
    options: &LoadOptions,
) -> Result<Vec<PathBuf>, InputError> {
    let mut builder = ignore::WalkBuilder::new(dir);
    builder
        .standard_filters(true)
        .require_git(false)
        .follow_links(false)
        .max_depth(depth)
        .max_filesize(Some(options.max_file_size))
        .sort_by_file_name(|a, b| a.cmp(b));
    let mut found = Vec::new();
    for entry in builder.build() {
        let entry = entry
            .map_err(|e| InputError::new(format!("cannot search `{}`: {e}", path_text(dir))))?;
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_file())
            && has_description_extension(path)
            && read_is_description(path, options)
        {
            found.push(path.strip_prefix("./").unwrap_or(path).to_path_buf());
        }
    }
    Ok(found)
}

/// The descriptions a glob matches: the folder before its first wildcard is searched.
fn glob(pattern: &str, options: &LoadOptions) -> Result<Vec<PathBuf>, InputError> {
    let bad = |e: globset::Error| {
        InputError::new(format!("`{pattern}` is not a valid glob: {}", e.kind()))
    };
    let trimmed = pattern.strip_prefix("./").unwrap_or(pattern);
    let matcher = globset::GlobBuilder::new(trimmed)
        .literal_separator(true)
        .build()
        .map_err(bad)?
        .compile_matcher();
    let parts: Vec<&str> = trimmed.split('/').collect();
    let literal = parts.iter().take_while(|p| !is_glob(p)).count();
    let base = if literal == 0 {
        PathBuf::from(".")
    } else {
        PathBuf::from(parts[..literal].join("/"))
    };
    // Without `**`, a pattern reaches only as deep as it has parts.
    let depth = (!trimmed.contains("**")).then(|| parts.len() - literal);
    if !base.is_dir() {
        return Ok(Vec::new());
    }
    Ok(walk(&base, depth, options)?
        .into_iter()
        .filter(|p| matcher.is_match(p))
        .collect())
}

fn has_description_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"))
}

/// Whether the file reads as a description; a file that cannot be read is not one.
fn read_is_description(path: &Path, options: &LoadOptions) -> bool {
    super::read_text(path, &path_text(path), options.max_file_size)
        .is_ok_and(|text| is_description(&text))
}

/// Whether a document's top level has an `openapi` or `swagger` key.
pub fn is_description(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim_start().starts_with('{') {
        json_top_level_keys(text)
    } else {
        // A top-level key starts its line, bare or quoted.
        const KEYS: [&str; 6] = [
            "openapi:",
            "\"openapi\":",
            "'openapi':",
            "swagger:",
            "\"swagger\":",
            "'swagger':",
        ];
        text.lines().any(|line| {
            KEYS.iter().any(|key| {
                line.strip_prefix(key)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
            })
        })
    }
}

/// Whether a JSON object's own keys include `openapi` or `swagger` (nested keys do not
/// count), read without building the document.
fn json_top_level_keys(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let key = bytes.get(start..i.min(bytes.len())).unwrap_or_default();
                if depth == 1 && (key == b"openapi" || key == b"swagger") {
                    let rest = bytes.get(i + 1..).unwrap_or_default();
                    if rest.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b':') {
                        return true;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_has_openapi_or_swagger_at_its_top_level() {
        assert!(is_description("openapi: 3.1.0\ninfo: {}\n"));
        assert!(is_description("# comment\nswagger: '2.0'\n"));
        assert!(is_description("\u{feff}\"openapi\": 3.0.0\n"));
        assert!(is_description(
            r#"{"info": {"openapi": 1}, "openapi": "3.0.0"}"#
        ));
        assert!(!is_description(r#"{"info": {"openapi": "3.0.0"}}"#));
        assert!(!is_description(r#"{"x": "openapi", "y": 1}"#));
        assert!(!is_description("version: 1\ndefaults: {}\n"));
        assert!(!is_description("info:\n  openapi: 3.0.0\n"));
        assert!(!is_description("openapiVersion: 3\n"));
        assert!(!is_description(r#"{"a": "\"openapi\":"}"#));
    }

    #[test]
    fn globs_are_told_from_names() {
        assert!(is_glob("specs/*.yaml"));
        assert!(is_glob("**/openapi.{yaml,json}"));
        assert!(!is_glob("specs/openapi.yaml"));
    }
}
