//! Which files a `check` argument names: a file as it is, standard input (`-`), every
//! description under a folder (as git sees the folder: `.gitignore`, `.ignore` and hidden
//! files are skipped), or every description a quoted glob matches.
//!
//! Under a folder or a glob, a file is a description when its top level has an `openapi`
//! or `swagger` key: a retry policy, a mesh's settings or a shared schema file beside the
//! descriptions is not one. A `.proto` file is one when it declares a `service` (one of
//! messages alone holds shared types). Files are found without following symbolic links and only
//! regular files are read, with the usual size limit.

use std::path::{Path, PathBuf};

use super::LoadOptions;
use crate::error::InputError;
use crate::input::source::path_text;

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
                .with_help("a description is a YAML or JSON file whose top level has `openapi:` or `swagger:`, or a `.proto` file that declares a `service`; files .gitignore names are skipped"));
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
        } else if !(skip_others && argument.is_file() && !read_is_description(argument, options)) {
            found.push(argument.clone());
        }
    }
    let mut seen = foldhash::HashSet::default();
    found.retain(|p| seen.insert(p.clone()));
    Ok(found)
}

/// The descriptions under `dir` as a folder argument finds them: at every level, or with
/// `depth` 1 only those directly in it (the ones that would read a policy there).
pub fn under(
    dir: &Path,
    depth: Option<usize>,
    options: &LoadOptions,
) -> Result<Vec<PathBuf>, InputError> {
    walk(dir, depth, options)
}

/// Whether text has `*`, `?`, `[` or `{`: a pattern, not a name.
fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

/// The descriptions under `dir` (to `depth` levels when given), in path order.
///
/// Nothing that may be a description is left out in silence: a file too large to read
/// whole, unreadable, or not UTF-8 is taken when its beginning reads as a description, so
/// that loading refuses it with its reason; and a file git tracks is taken even when a
/// `.gitignore` or `.ignore` names it (git itself still sees it).
fn walk(
    dir: &Path,
    depth: Option<usize>,
    options: &LoadOptions,
) -> Result<Vec<PathBuf>, InputError> {
    let found = data_files(dir, depth, Ignored::AsGitSees, options)?
        .files
        .into_iter();
    Ok(found
        .map(|path| match path.strip_prefix("./") {
            Ok(inside) => inside.to_path_buf(),
            Err(_) => path,
        })
        .filter(|path| may_be_description(path, options))
        .collect())
}

/// What [`data_files`] found under a folder.
#[derive(Debug, Default)]
pub struct DataFiles {
    /// The YAML and JSON files, in the order of the walk (names sorted per folder).
    pub files: Vec<PathBuf>,
    /// The folders at the depth limit, which the walk did not enter.
    pub not_entered: Vec<PathBuf>,
}

/// Which files of a folder a walk leaves out besides hidden ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ignored {
    /// What a `.gitignore` or `.ignore` names, unless git tracks it: a folder searched for
    /// descriptions is seen as git sees it (build output, vendored trees).
    AsGitSees,
    /// Nothing: every file of a `-p` folder is a setting the user pointed at, and one left
    /// out would be skipped in silence.
    Nothing,
}

/// The YAML and JSON files under `dir`, hidden entries left out and, as `ignored` says,
/// what a `.gitignore` or `.ignore` names (a file git tracks is taken whatever they say),
/// regular files only, without following symbolic links, to `depth` levels when given,
/// named as the walk names them (`dir/…`): the one walk of folders, for descriptions and
/// for `-p`.
pub fn data_files(
    dir: &Path,
    depth: Option<usize>,
    ignored: Ignored,
    options: &LoadOptions,
) -> Result<DataFiles, InputError> {
    let mut builder = ignore::WalkBuilder::new(dir);
    builder
        .standard_filters(ignored == Ignored::AsGitSees)
        .hidden(true)
        .require_git(false)
        .follow_links(false)
        .max_depth(depth)
        .sort_by_file_name(std::cmp::Ord::cmp);
    let mut found = DataFiles::default();
    for entry in builder.build() {
        let entry = entry
            .map_err(|e| InputError::new(format!("cannot search `{}`: {e}", path_text(dir))))?;
        let path = entry.path();
        let kind = entry.file_type();
        let wanted = has_data_extension(path)
            || (ignored == Ignored::AsGitSees && crate::input::source::is_proto_path(path));
        if kind.is_some_and(|t| t.is_file()) && wanted {
            found.files.push(path.to_path_buf());
        } else if kind.is_some_and(|t| t.is_dir()) && Some(entry.depth()) == depth {
            found.not_entered.push(path.to_path_buf());
        }
    }
    // Git names tracked files from the folder without a leading `./`.
    let seen: foldhash::HashSet<PathBuf> = found
        .files
        .iter()
        .map(|p| p.strip_prefix("./").unwrap_or(p).to_path_buf())
        .collect();
    let tracked = match ignored {
        Ignored::AsGitSees => super::tracked::ignored_but_tracked(dir, depth, &seen, options),
        Ignored::Nothing => Vec::new(),
    };
    if !tracked.is_empty() {
        let named = |path: PathBuf| {
            if dir.starts_with(".") {
                Path::new(".").join(path)
            } else {
                path
            }
        };
        found.files.extend(
            tracked
                .into_iter()
                .filter(|path| {
                    has_data_extension(path)
                        || (ignored == Ignored::AsGitSees
                            && crate::input::source::is_proto_path(path))
                })
                .map(named),
        );
        found.files.sort();
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

/// Whether a file is named like YAML or JSON (`.yaml`, `.yml`, `.json`, any case): the
/// files a folder search, a `-p` folder walk and a revision's folder read.
pub fn has_data_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"))
}

/// Whether the file reads as a description; a file that cannot be read is not one.
fn read_is_description(path: &Path, options: &LoadOptions) -> bool {
    super::read_text(path, &path_text(path), options.max_file_size)
        .is_ok_and(|text| is_description(&text))
}

/// How much of a file is read to tell whether it may be a description when it cannot be
/// read whole (over `--max-file-size`, or not UTF-8).
const SNIFF_BYTES: u64 = 1 << 20;

/// Whether a file found in a folder may be a description: it reads as one, or it cannot be
/// read whole (too large, unreadable, not UTF-8 text) and its beginning reads as one, or
/// it cannot be read at all. Such a file is then loaded, and refused with its reason,
/// rather than skipped.
fn may_be_description(path: &Path, options: &LoadOptions) -> bool {
    if crate::input::source::is_proto_path(path) {
        return proto_may_be_description(path, options);
    }
    let whole = std::fs::metadata(path).is_ok_and(|m| m.len() <= options.max_file_size);
    let limit = if whole {
        options.max_file_size.saturating_add(1)
    } else {
        SNIFF_BYTES
    };
    match super::open::read_prefix(path, limit) {
        Ok(bytes) => match std::str::from_utf8(&bytes) {
            Ok(text) if bytes.len() as u64 <= options.max_file_size && !text.contains('\0') => {
                is_description(text)
            }
            _ => {
                let cut = &bytes[..bytes.len().min(SNIFF_BYTES as usize)];
                is_description(&String::from_utf8_lossy(cut).replace('\0', " "))
            }
        },
        // Unreadable: loading says why.
        Err(_) => true,
    }
}

/// Whether a `.proto` file found in a folder is a description: it declares a `service`
/// (a file of messages alone is shared types, like a schema file beside descriptions).
/// A file that cannot be read whole is taken, so that loading refuses it with its reason.
fn proto_may_be_description(path: &Path, options: &LoadOptions) -> bool {
    match super::read_text(path, &path_text(path), options.max_file_size) {
        Ok(text) => declares_service(&text),
        Err(_) => true,
    }
}

/// Whether protobuf source text has a line that starts a `service` declaration.
pub fn declares_service(text: &str) -> bool {
    text.lines().any(|line| {
        line.trim_start()
            .strip_prefix("service")
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_whitespace()))
    })
}

/// Whether a document's top level has an `openapi` or `swagger` key, read as the loaders
/// read YAML and JSON: flow style (`{openapi: 3.0.3}`), `openapi : 3.0.3`, `? openapi`,
/// quoted or escaped keys. Only the top level of the first document is looked at, and
/// reading stops at the key. Text that is not valid YAML up to that point is judged by
/// its lines (a top-level line starting with the key), so a broken description is still
/// taken, and refused by the loader with its syntax error.
pub fn is_description(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim_start().starts_with('{') && json_top_level_keys(text) {
        return true;
    }
    match top_level_has_key(text) {
        Some(found) => found,
        None => line_has_key(text),
    }
}

/// Whether a JSON object's own keys include `openapi` or `swagger` (nested keys do not
/// count), read without building the document: JSON that YAML's rules refuse (a key over
/// 1,024 characters) is still read as JSON readers read it.
fn json_top_level_keys(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let quoted = bytes
                    .get(start..=i.min(bytes.len() - 1))
                    .unwrap_or_default();
                if depth == 1 && is_key_named(quoted) {
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

/// Whether a quoted JSON string (quotes included) is `"openapi"` or `"swagger"`, escapes
/// decoded.
fn is_key_named(quoted: &[u8]) -> bool {
    match quoted {
        b"\"openapi\"" | b"\"swagger\"" => true,
        _ if quoted.len() < 64 && quoted.contains(&b'\\') => {
            serde_json::from_slice::<String>(quoted).is_ok_and(|k| k == "openapi" || k == "swagger")
        }
        _ => false,
    }
}

/// Reads YAML (and JSON) events up to the answer: `None` when the text stops parsing first.
fn top_level_has_key(text: &str) -> Option<bool> {
    use saphyr_parser::{Event, Parser};
    // Per open collection: whether it is a mapping whose next scalar is a key.
    let mut open: Vec<Option<bool>> = Vec::new();
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, _) = event.ok()?;
        let in_key = open.last().copied().flatten() == Some(true);
        match event {
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                take_slot(&mut open);
                open.push(matches!(event, Event::MappingStart(..)).then_some(true));
            }
            Event::MappingEnd | Event::SequenceEnd => {
                open.pop();
            }
            Event::Scalar(value, ..) => {
                if in_key && open.len() == 1 && (value == "openapi" || value == "swagger") {
                    return Some(true);
                }
                take_slot(&mut open);
            }
            Event::Alias(_) => take_slot(&mut open),
            Event::DocumentEnd | Event::StreamEnd => return Some(false),
            _ => {}
        }
    }
    Some(false)
}

/// A key or value took the innermost mapping's slot: the next scalar is the other one.
fn take_slot(open: &mut [Option<bool>]) {
    if let Some(Some(key_next)) = open.last_mut() {
        *key_next = !*key_next;
    }
}

/// Whether a line starts with the key, bare or quoted, then spaces and a colon.
fn line_has_key(text: &str) -> bool {
    text.lines().any(|line| {
        [
            "openapi",
            "\"openapi\"",
            "'openapi'",
            "swagger",
            "\"swagger\"",
            "'swagger'",
        ]
        .iter()
        .any(|key| {
            line.strip_prefix(key).is_some_and(|rest| {
                let rest = rest.trim_start_matches([' ', '\t']);
                rest.strip_prefix(':')
                    .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t']))
            })
        })
    })
}

/// How deep a `-p` folder is walked.
pub const MAX_WALK_DEPTH: usize = 16;

/// The YAML and JSON files of a `-p` folder, walked as folders of descriptions are
/// ([`data_files`]: hidden files left out, links not followed) but with every file a
/// `.gitignore` names read too, at most [`MAX_WALK_DEPTH`] folders deep. A file deeper
/// than that is not skipped in silence: it is an error that names it.
pub fn layer_folder(folder: &Path, options: &LoadOptions) -> Result<Vec<PathBuf>, InputError> {
    // Depth 1 is the folder's own entries: its files are read 0 folders deep.
    let walked = data_files(folder, Some(MAX_WALK_DEPTH + 1), Ignored::Nothing, options)?;
    for deeper in &walked.not_entered {
        if let Some(file) = first_data_file(deeper, MAX_HIDDEN_SEARCH) {
            return Err(too_deep(&file));
        }
    }
    Ok(walked.files)
}

/// How many entries below the depth limit are looked through for a file the walk leaves.
const MAX_HIDDEN_SEARCH: usize = 10_000;

/// The error for a YAML or JSON file deeper in a `-p` folder than the walk goes.
pub fn too_deep(path: &Path) -> InputError {
    InputError::new(format!(
        "`{}` lies more than {MAX_WALK_DEPTH} folders deep in a folder given with -p: it was not read",
        path_text(path)
    ))
    .with_help("give its folder with -p, or move it up")
}

/// The first YAML or JSON file in `folder` or below, looking at `budget` entries at most
/// (past them, the folder itself stands for what it may hold).
fn first_data_file(folder: &Path, budget: usize) -> Option<PathBuf> {
    let mut pending = vec![folder.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > budget {
                return Some(folder.to_path_buf());
            }
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            match entry.file_type() {
                Ok(kind) if kind.is_dir() && !hidden => pending.push(path),
                Ok(kind) if kind.is_file() && !hidden && has_data_extension(&path) => {
                    return Some(path);
                }
                _ => {}
            }
        }
    }
    None
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
        // As the loaders read YAML: spaces before the colon, flow style, explicit keys,
        // escapes; a nested key is not a top-level one.
        assert!(is_description("openapi : 3.0.3\ninfo: {}\n"));
        assert!(is_description("{openapi: 3.0.3, info: {}, paths: {}}\n"));
        assert!(is_description("? openapi\n: 3.0.3\n"));
        assert!(is_description(r#"{"open\u0061pi": "3.0.0"}"#));
        assert!(is_description("info: {title: x}\nswagger: '2.0'\n"));
        assert!(!is_description("a:\n  b: {openapi: 3}\nc: [openapi]\n"));
        assert!(!is_description("- openapi\n- swagger\n"));
        // JSON that YAML refuses (an implicit key over 1,024 characters) is read as JSON.
        let long_key = format!(
            "{{\"components\": {{\"{}\": 1}},\n  \"openapi\": \"3.0.1\"}}",
            "k".repeat(2000)
        );
        assert!(is_description(&long_key));
        // Broken YAML is judged by its lines.
        assert!(is_description("openapi: 3.0.3\ninfo: [unclosed\n"));
        assert!(!is_description("{{- if .Values.x }}\nkind: x\n"));
    }

    #[test]
    fn globs_are_told_from_names() {
        assert!(is_glob("specs/*.yaml"));
        assert!(is_glob("**/openapi.{yaml,json}"));
        assert!(!is_glob("specs/openapi.yaml"));
    }
}
