//! A git revision's files, for `check --base REF`: read from the repository on demand
//! into a scratch folder, under the same limits as the work tree's files.
//!
//! Nothing is copied up front: a file is written when the loader is about to read it (the
//! description, each file its `$ref`s reach, the policy beside it, the `-p` files), and a
//! folder is listed one level at a time when a path goes through it. A repository of
//! trees nested within each other, each reused ten times, lists a million paths from a
//! few kilobytes; here each listing is bounded, every file written counts against
//! `--max-files`, `--max-file-size` and the run's total byte budget, and a file over its
//! limit is refused by its size without being read. Symbolic links and submodules are
//! never followed: they stand as files that do not exist. The working tree, the index
//! and the repository are never written.

mod blobs;

use std::io::{BufRead, BufReader};
use std::path::{Component, Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;

use blobs::BlobReader;
use foldhash::HashMap;

use super::git::{Git, failed};
use crate::error::InputError;
use crate::input::source::path_text;

/// What a revision may cost: the loader's limits, for the whole run.
#[derive(Debug, Clone, Copy)]
pub struct RevisionLimits {
    /// Largest file, in bytes (`--max-file-size`).
    pub max_file_size: u64,
    /// Most files written and folder entries listed (`--max-files`).
    pub max_files: usize,
    /// Most bytes written in all (`--max-total-bytes`).
    pub max_total_bytes: u64,
}

/// A revision's files, written to a scratch folder as they are needed.
#[derive(Debug)]
pub struct Revision {
    git: Git,
    /// The revision as given (`HEAD~1`, `origin/main`).
    pub revision: String,
    /// The commit it names.
    commit: String,
    /// Where the repository's root stands, for this revision.
    pub dir: PathBuf,
    limits: RevisionLimits,
    state: Mutex<State>,
}

/// One entry of a listed folder.
#[derive(Debug, Clone)]
enum Entry {
    /// A regular file: its object.
    File {
        object: String,
    },
    Folder,
    /// A symbolic link or a submodule: never followed.
    Other,
}

#[derive(Debug, Default)]
struct State {
    /// Listed folders (by their path in the repository, `""` for the root).
    folders: HashMap<String, HashMap<String, Entry>>,
    /// Files written, by path in the repository.
    written: foldhash::HashSet<String>,
    entries_listed: usize,
    bytes_written: u64,
    reader: Option<BlobReader>,
}

impl Drop for Revision {
    fn drop(&mut self) {
        if let Ok(state) = self.state.get_mut() {
            state.reader = None;
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Revision {
    /// Opens `revision` of the repository around the trusted root (`--root`, else the
    /// current folder), with an empty scratch folder.
    pub fn open(
        root: &Path,
        revision: &str,
        limits: RevisionLimits,
    ) -> Result<Revision, InputError> {
        let git = Git::around(root)?;
        if revision.starts_with('-') || revision.contains(['\n', '\0']) {
            return Err(InputError::new(format!(
                "`{}` is not a revision",
                crate::escape::terminal(revision)
            )));
        }
        let verified = git
            .command()
            .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
            .arg(format!("{revision}^{{commit}}"))
            .output()
            .map_err(|e| failed("run git", e))?;
        if !verified.status.success() {
            return Err(InputError::new(format!(
                "`{}` is not a commit of the repository at `{}`",
                crate::escape::terminal(revision),
                path_text(&git.work_tree)
            )));
        }
        let commit = String::from_utf8_lossy(&verified.stdout).trim().to_string();
        if commit.is_empty() || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(failed("read the revision", "git named no commit"));
        }
        let dir = scratch_folder(&commit)?;
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        let revision = Revision {
            git,
            revision: revision.to_string(),
            commit,
            dir,
            limits,
            state: Mutex::new(State::default()),
        };
        // The scratch folder is a work tree of its own, so files are named from its root.
        std::fs::write(revision.dir.join(".git"), "")
            .map_err(|e| failed("create a scratch folder", e))?;
        Ok(revision)
    }

    /// The repository's work tree.
    pub fn repository(&self) -> &Path {
        &self.git.work_tree
    }

    /// The path at this revision of a file of the work tree.
    pub fn path_of(&self, file: &Path) -> Result<PathBuf, InputError> {
        let canonical = std::fs::canonicalize(file).or_else(|_| {
            // A file the change adds does not exist at the revision; its name still does.
            std::env::current_dir().map(|c| crate::input::source::fold_dots(&c.join(file)))
        });
        let relative = canonical
            .ok()
            .and_then(|c| {
                c.strip_prefix(&self.git.work_tree)
                    .ok()
                    .map(Path::to_path_buf)
            })
            .ok_or_else(|| {
                InputError::new(format!(
                    "`{}` is not in the git repository at `{}`",
                    path_text(file),
                    path_text(&self.git.work_tree)
                ))
            })?;
        Ok(self.dir.join(relative))
    }

    /// Makes `path` ready to be read: when it lies in the scratch folder, the file (or
    /// the folder, with everything in it) is written from the revision, once. A path the
    /// revision does not have is left absent, for the reader to report.
    pub fn prepare(&self, path: &Path, whole_folder: bool) -> Result<(), InputError> {
        let Some(parts) = self.parts_of(path) else {
            return Ok(());
        };
        let mut state = self
            .state
            .lock()
            .map_err(|_| failed("read the revision", "an earlier read failed"))?;
        if parts.is_empty() && whole_folder {
            return self.write_folder(&mut state, "", &self.dir);
        }
        let mut folder = String::new();
        let mut on_disk = self.dir.clone();
        for (index, part) in parts.iter().enumerate() {
            let entry = self.entry(&mut state, &folder, part)?;
            let inner = join(&folder, part);
            on_disk.push(part);
            let last = index + 1 == parts.len();
            match entry {
                Some(Entry::Folder) => {
                    create_folder(&on_disk)?;
                    if last && whole_folder {
                        self.write_folder(&mut state, &inner, &on_disk)?;
                    }
                }
                Some(Entry::File { object }) if last => {
                    self.write_file(&mut state, &inner, &on_disk, &object)?;
                }
                _ => return Ok(()),
            }
            folder = inner;
        }
        Ok(())
    }

    /// The parts of a path inside the scratch folder, or `None` for a path elsewhere.
    fn parts_of(&self, path: &Path) -> Option<Vec<String>> {
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir().ok()?.join(path)
        };
        let relative = crate::input::source::fold_dots(&absolute)
            .strip_prefix(&self.dir)
            .ok()?
            .to_path_buf();
        relative
            .components()
            .map(|c| match c {
                Component::Normal(part) => part.to_str().map(str::to_string),
                _ => None,
            })
            .collect()
    }

    /// The entry `name` of `folder` at the revision, listing the folder once.
    fn entry(
        &self,
        state: &mut State,
        folder: &str,
        name: &str,
    ) -> Result<Option<Entry>, InputError> {
        if !state.folders.contains_key(folder) {
            let listing = self.list(state, folder)?;
            state.folders.insert(folder.to_string(), listing);
        }
        Ok(state
            .folders
            .get(folder)
            .and_then(|listing| listing.get(name))
            .cloned())
    }

    /// Lists one folder of the revision (not its subfolders), counting every entry.
    fn list(&self, state: &mut State, folder: &str) -> Result<HashMap<String, Entry>, InputError> {
        Ok(self
            .list_records(state, folder, false)?
            .into_iter()
            .collect())
    }

    /// The entries of a folder (with `recursive`, of everything below it, by their paths
    /// from it), streamed from one `git ls-tree` and counted against `--max-files`: past
    /// the limit git is stopped, so trees nested within each other cost no more.
    fn list_records(
        &self,
        state: &mut State,
        folder: &str,
        recursive: bool,
    ) -> Result<Vec<(String, Entry)>, InputError> {
        let mut child = self
            .git
            .command()
            .args(["ls-tree", "-z", "--full-tree"])
            .args(recursive.then_some("-r"))
            .arg("--end-of-options")
            .arg(format!("{}:{folder}", self.commit))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| failed("run git ls-tree", e))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| failed("run git ls-tree", "no output"))?;
        let mut listing = Vec::new();
        let mut refused = None;
        for record in BufReader::new(stdout).split(0) {
            let record = record.map_err(|e| failed("list the revision's files", e))?;
            state.entries_listed += 1;
            if state.entries_listed > self.limits.max_files {
                refused = Some(self.too_many(folder));
                break;
            }
            if let Some((name, entry)) = parse_entry(&record, recursive) {
                listing.push((name, entry));
            }
        }
        if let Some(error) = refused {
            // Past the limit the rest is not read: git is stopped.
            let _ = child.kill();
            let _ = child.wait();
            return Err(error);
        }
        let listed = child.wait().is_ok_and(|status| status.success());
        if !listed {
            return Err(failed(
                "list the revision's files",
                format!(
                    "git could not list `{}:{folder}`",
                    crate::escape::terminal(&self.revision)
                ),
            ));
        }
        Ok(listing)
    }

    fn too_many(&self, folder: &str) -> InputError {
        InputError::new(format!(
            "`{}:{folder}` and the folders read before it hold more than {} entries; refusing to read more of the revision",
            crate::escape::terminal(&self.revision),
            self.limits.max_files
        ))
        .with_help("raise the limit with --max-files N")
    }

    /// Writes every YAML and JSON file of a folder and of its subfolders, as deep as a
    /// `-p` folder is walked (hidden entries left out, as the walk leaves them); a file
    /// deeper than that is refused as the walk refuses it.
    fn write_folder(
        &self,
        state: &mut State,
        folder: &str,
        on_disk: &Path,
    ) -> Result<(), InputError> {
        let mut records = self.list_records(state, folder, true)?;
        records.sort_by(|a, b| a.0.cmp(&b.0));
        for (relative, entry) in records {
            let Entry::File { object } = entry else {
                continue;
            };
            let parts: Vec<&str> = relative.split('/').collect();
            if parts.iter().any(|part| part.starts_with('.'))
                || !super::discover::has_data_extension(Path::new(&relative))
            {
                continue;
            }
            let target = on_disk.join(&relative);
            if parts.len() - 1 > super::discover::MAX_WALK_DEPTH {
                return Err(super::discover::too_deep(&target));
            }
            if let Some(parent) = target.parent() {
                create_folder(parent)?;
            }
            self.write_file(state, &join(folder, &relative), &target, &object)?;
        }
        Ok(())
    }

    /// Writes one file of the revision at `target`, within the limits.
    fn write_file(
        &self,
        state: &mut State,
        inner: &str,
        target: &Path,
        object: &str,
    ) -> Result<(), InputError> {
        if state.written.contains(inner) {
            return Ok(());
        }
        let shown = format!("{}:{inner}", crate::escape::terminal(&self.revision));
        if state.reader.is_none() {
            state.reader = Some(BlobReader::start(&self.git)?);
        }
        let reader = state
            .reader
            .as_mut()
            .ok_or_else(|| failed("run git cat-file", "it did not start"))?;
        let size = reader.size(object, &shown)?;
        if size > self.limits.max_file_size {
            return Err(super::open::over_limit(
                &shown,
                Some(size),
                self.limits.max_file_size,
            ));
        }
        if state.written.len() >= self.limits.max_files {
            return Err(InputError::new(format!(
                "more than {} files of {} are read; refusing to read `{shown}`",
                self.limits.max_files,
                crate::escape::terminal(&self.revision),
            ))
            .with_help("raise the limit with --max-files N"));
        }
        if state.bytes_written.saturating_add(size) > self.limits.max_total_bytes {
            return Err(InputError::new(format!(
                "the files read from {} would exceed {} bytes in all; refusing to read `{shown}`",
                crate::escape::terminal(&self.revision),
                self.limits.max_total_bytes
            ))
            .with_help("raise the limit with --max-total-bytes BYTES"));
        }
        let reader = state
            .reader
            .as_mut()
            .ok_or_else(|| failed("run git cat-file", "it did not start"))?;
        let mut file =
            std::fs::File::create(target).map_err(|e| failed("write the revision", e))?;
        reader.copy(object, size, &mut file, &shown)?;
        state.bytes_written = state.bytes_written.saturating_add(size);
        state.written.insert(inner.to_string());
        Ok(())
    }
}

/// `folder/name`, or `name` at the root.
fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_string()
    } else {
        format!("{folder}/{name}")
    }
}

fn create_folder(path: &Path) -> Result<(), InputError> {
    std::fs::create_dir_all(path).map_err(|e| failed("write the revision", e))
}

/// One record of `git ls-tree -z`: `mode type object\tname`, the name a path of several
/// parts when `recursive`.
fn parse_entry(record: &[u8], recursive: bool) -> Option<(String, Entry)> {
    let tab = record.iter().position(|&b| b == b'\t')?;
    let meta = std::str::from_utf8(&record[..tab]).ok()?;
    // A name that is not UTF-8 cannot be named by a path retrylint reads.
    let name = std::str::from_utf8(&record[tab + 1..]).ok()?.to_string();
    let parts_ok = |part: &str| !part.is_empty() && part != "." && part != "..";
    if !(if recursive {
        name.split('/').all(parts_ok)
    } else {
        parts_ok(&name) && !name.contains('/')
    }) {
        return None;
    }
    let mut parts = meta.split_whitespace();
    let (mode, kind, object) = (parts.next()?, parts.next()?, parts.next()?);
    if !object.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let entry = match (mode, kind) {
        ("100644" | "100755", "blob") => Entry::File {
            object: object.to_string(),
        },
        ("040000", "tree") => Entry::Folder,
        _ => Entry::Other,
    };
    Some((name, entry))
}

/// A new, empty folder under the temporary folder. It is created, never reused: a name
/// that exists (left over, or put there by someone else) is passed over.
fn scratch_folder(commit: &str) -> Result<PathBuf, InputError> {
    let short = &commit[..commit.len().min(12)];
    let mut last = None;
    for attempt in 0..100u32 {
        let dir = std::env::temp_dir().join(format!(
            "retrylint-base-{}-{short}-{attempt}",
            std::process::id()
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(failed("create a scratch folder", e)),
        }
    }
    Err(failed(
        "create a scratch folder",
        last.map_or_else(|| "no free name".to_string(), |e| e.to_string()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_entry_at(record: &[u8]) -> Option<(String, Entry)> {
        parse_entry(record, false)
    }

    #[test]
    fn ls_tree_records_are_read_by_mode() {
        let file = parse_entry_at(b"100644 blob abc123\topenapi.yaml").unwrap();
        assert!(matches!(file, (ref n, Entry::File { .. }) if n == "openapi.yaml"));
        let folder = parse_entry_at(b"040000 tree def456\tapi").unwrap();
        assert!(matches!(folder.1, Entry::Folder));
        let link = parse_entry_at(b"120000 blob 0123\tlink.yaml").unwrap();
        assert!(matches!(link.1, Entry::Other));
        let submodule = parse_entry_at(b"160000 commit 0123\tvendor").unwrap();
        assert!(matches!(submodule.1, Entry::Other));
        assert!(parse_entry_at(b"100644 blob abc\t..").is_none());
        assert!(parse_entry_at(b"100644 blob --upload-pack\tx.yaml").is_none());
        assert!(parse_entry_at(b"100644 blob abc\ta/b.yaml").is_none());
        assert!(parse_entry(b"100644 blob abc\ta/b.yaml", true).is_some());
        assert!(parse_entry(b"100644 blob abc\ta/../b.yaml", true).is_none());
        assert!(parse_entry_at(b"no tab here").is_none());
    }
}
