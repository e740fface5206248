//! Reading the files of a multi-file description ahead of need, on every core.
//!
//! The model asks for files one at a time, as it meets their `$ref`s. Once the root is
//! loaded, the files its references name are known: each wave of newly named files is
//! read and parsed in parallel, and the references of that wave name the next one. The
//! files wait aside until the model asks for one: a file is committed (given its id,
//! counted against the limits) only when asked for, in the order asked, so ids, output
//! and errors are those of reading one file at a time. A file read ahead that is never
//! asked for is dropped, and so is any error it had.
//!
//! Only references the model may follow are read ahead: those outside schemas and
//! examples, and the `$ref` of a request body's schema. Files outside the root folder are
//! not read ahead at all (unless the user allows references there).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use foldhash::{HashMap, HashSet, HashSetExt};

use super::{LoadOptions, Loader, canonical, join_display, read_resolved};
use crate::error::InputError;
use crate::input::source::{Node, SourceFile, Value, is_deferred_key, pointer};

/// A file named by a reference: its canonical path, the name it is shown by, and its size
/// when resolving its path found it.
type Named = (PathBuf, PathBuf, Option<u64>);

/// Files read ahead, by canonical path (its bytes), with the name they were read under.
pub(super) type ReadAhead = HashMap<OsString, (PathBuf, Result<SourceFile, InputError>)>;

impl Loader {
    /// Reads ahead, wave by wave, every file the references of `first` lead to.
    pub(super) fn read_ahead(&mut self, first: usize) {
        if self.options.revision.is_some() {
            // Files of a revision are written from git as they are asked for.
            return;
        }
        let first = self.files[first].clone();
        let mut wave = self.named_by(&first, file_parts(&first), &mut HashSet::new());
        let mut bytes: u64 = 0;
        loop {
            // In the order of the paths' bytes (comparing `Path`s walks their components);
            // `named_by` names each file once per wave.
            wave.sort_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
            if wave.is_empty() {
                return;
            }
            let room = self
                .options
                .max_files
                .saturating_sub(self.files.len() + self.read_ahead.len());
            wave.truncate(room);
            // A wave is read whole before its bytes are counted: its files' sizes, as their
            // metadata gives them, must fit in what is left of the budget first, so that a
            // description naming many large files is not read ahead past --max-total-bytes.
            let mut left = self
                .options
                .max_total_bytes
                .saturating_sub(bytes.saturating_add(self.bytes_read));
            let fits = wave
                .iter()
                .take_while(|(canonical, _, size)| {
                    // The size the path's resolution saw, else the file's metadata.
                    let size =
                        size.unwrap_or_else(|| std::fs::metadata(canonical).map_or(0, |m| m.len()));
                    let fits = size <= left;
                    left = left.saturating_sub(size);
                    fits
                })
                .count();
            wave.truncate(fits);
            if wave.is_empty() {
                return;
            }
            let read = read_all(&wave, &self.options);
            let mut next = Vec::new();
            let mut named = HashSet::new();
            for ((canonical, display, _), (result, parts)) in wave.into_iter().zip(read) {
                if let Ok(file) = &result {
                    bytes = bytes.saturating_add(file.text.len() as u64);
                    next.extend(self.named_by(file, parts, &mut named));
                }
                self.read_ahead
                    .insert(canonical.into_os_string(), (display, result));
            }
            if bytes > self.options.max_total_bytes {
                return;
            }
            wave = next;
        }
    }

    /// The files (canonical path, display name) that `file`'s followed references name
    /// (`file_parts`, from [`file_parts`]) and that are neither loaded nor read ahead yet,
    /// nor in `named` (the files that the wave named already, under the name they were
    /// first named by).
    fn named_by(
        &mut self,
        file: &SourceFile,
        mut file_parts: Vec<String>,
        named: &mut HashSet<OsString>,
    ) -> Vec<Named> {
        let Some(canonical) = &file.canonical else {
            return Vec::new();
        };
        if file_parts.is_empty() {
            return Vec::new();
        }
        let base = canonical.parent().unwrap_or(Path::new("")).to_path_buf();
        let looked_at = self
            .looked_at
            .entry(base.as_os_str().to_os_string())
            .or_default();
        // What another file of this folder named already is loaded, read ahead, named in
        // this wave, or left out for good (remote, missing, outside the root).
        file_parts.retain(|part| !looked_at.contains(part.as_str()));
        looked_at.extend(file_parts.iter().cloned());
        let mut out = Vec::new();
        for file_part in &file_parts {
            let remote = ["http://", "https://", "file:", "ftp://"].iter().any(|s| {
                file_part
                    .get(..s.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(s))
            });
            if remote {
                continue;
            }
            let Some(decoded) = pointer::percent_decode(file_part) else {
                continue;
            };
            let Some(canonical::Resolved { path: target, size }) =
                self.paths.file_sized(&base.join(&decoded))
            else {
                continue;
            };
            if self.by_canonical.contains_key(target.as_os_str())
                || self.read_ahead.contains_key(target.as_os_str())
                || named.contains(target.as_os_str())
            {
                continue;
            }
            let inside = match &self.root_dir {
                Some(root) => root.holds(&target),
                None => false,
            };
            if !inside && !self.options.allow_outside_refs {
                continue;
            }
            let display = if Path::new(&decoded).is_absolute() {
                PathBuf::from(&decoded)
            } else {
                join_display(&file.display, &decoded)
            };
            named.insert(target.as_os_str().to_os_string());
            out.push((target, display, size));
        }
        out
    }

    /// The file read ahead for `canonical` under the name `display`, if there is one.
    pub(super) fn take_read_ahead(
        &mut self,
        canonical: &Path,
        display: &Path,
    ) -> Option<Result<SourceFile, InputError>> {
        let (shown, result) = self.read_ahead.remove(canonical.as_os_str())?;
        // Read under another name, its messages would name the file otherwise.
        (shown == display).then_some(result)
    }
}

/// Reads and parses files on every core, each with the file parts of its references
/// (see [`file_parts`]); results in the order of `files`.
fn read_all(
    files: &[Named],
    options: &LoadOptions,
) -> Vec<(Result<SourceFile, InputError>, Vec<String>)> {
    let read = |(canonical, display, size): &Named| {
        let file = read_resolved(canonical, display.clone(), options, *size);
        let parts = file.as_ref().map(file_parts).unwrap_or_default();
        (file, parts)
    };
    crate::parallel::map_in_order(files, read)
        .into_iter()
        .zip(files)
        .map(|(result, job)| result.unwrap_or_else(|| read(job)))
        .collect()
}

/// The file parts of the `$ref`s of `file` that the model may follow (see
/// [`references`]), each once, sorted: what names other files, worked out on the core
/// that read the file.
fn file_parts(file: &SourceFile) -> Vec<String> {
    if !file.may_name_other_files() {
        return Vec::new();
    }
    let mut parts: Vec<&str> = references(&file.root)
        .into_iter()
        .map(|reference| reference.split_once('#').map_or(reference, |(f, _)| f))
        .filter(|part| !part.is_empty())
        .collect();
    parts.sort_unstable();
    parts.dedup();
    parts.into_iter().map(str::to_owned).collect()
}

/// The `$ref` texts of a tree that the model may follow: none inside schemas or examples
/// (the keys a JSON description defers, as the model never follows references there) or
/// extensions, and of a `schema`, only the own `$ref` of one in a request body or a
/// parameter (a response's schema is never read).
fn references(root: &Node) -> Vec<&str> {
    let mut out = Vec::new();
    let mut pending = vec![(root, false)];
    while let Some((node, in_request)) = pending.pop() {
        match &node.value {
            Value::Map(map) => {
                for entry in map.entries() {
                    match &*entry.key {
                        "$ref" => out.extend(entry.value.as_str()),
                        "schema" if in_request => {
                            out.extend(entry.value.get("$ref").and_then(Node::as_str));
                        }
                        "requestBody" | "parameters" => pending.push((&entry.value, true)),
                        key if is_deferred_key(key) || key.starts_with("x-") => {}
                        _ => pending.push((&entry.value, in_request)),
                    }
                }
            }
            Value::Seq(items) => pending.extend(items.iter().map(|item| (item, in_request))),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::source::path_text;

    fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("retrylint-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    const ROOT: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a: {$ref: 'paths/a.yaml'}\ncomponents:\n  responses:\n    Unused: {$ref: 'broken.yaml'}\n";

    #[test]
    fn files_read_ahead_count_only_once_asked_for_and_keep_their_errors() {
        let dir = folder(
            "read-ahead",
            &[
                ("openapi.yaml", ROOT),
                (
                    "paths/a.yaml",
                    "get: {responses: {'200': {$ref: '../r.yaml'}}}\n",
                ),
                ("r.yaml", "description: ok\n"),
                ("broken.yaml", "a: [\n"),
            ],
        );
        let mut loader = Loader::new(LoadOptions::default());
        let root = loader.load_root(&dir.join("openapi.yaml")).unwrap();
        // Read ahead: the path item, its response, and the unused (broken) response.
        assert_eq!(loader.read_ahead.len(), 3);
        let api = crate::input::model::build(&mut loader, root).unwrap();
        assert_eq!(api.operations.len(), 1);
        // Only the files the model asked for were loaded, in the order asked for.
        let names: Vec<String> = (0..loader.file_count())
            .map(|id| loader.file(id).name())
            .collect();
        let root_name = path_text(&dir.join("openapi.yaml"));
        let folder_name = path_text(&dir);
        assert_eq!(
            names,
            [
                root_name,
                format!("{folder_name}/paths/a.yaml"),
                format!("{folder_name}/r.yaml")
            ]
        );
        // Asked for, a file read ahead fails as it would have read then.
        let broken = loader.resolve(root, "broken.yaml", crate::input::source::Span::default());
        let message = broken.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("broken.yaml` cannot be parsed"),
            "{message}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_wave_read_ahead_stays_within_the_byte_budget() {
        let big = format!("description: '{}'\n", "x".repeat(4_000));
        let dir = folder(
            "read-ahead-budget",
            &[
                ("openapi.yaml", ROOT),
                ("paths/a.yaml", &big),
                ("broken.yaml", &big),
            ],
        );
        let options = LoadOptions {
            max_total_bytes: (ROOT.len() + big.len() + 100) as u64,
            ..LoadOptions::default()
        };
        let mut loader = Loader::new(options);
        loader.load_root(&dir.join("openapi.yaml")).unwrap();
        // Both files are named by the root, but only one fits in what the root left.
        assert_eq!(loader.read_ahead.len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
