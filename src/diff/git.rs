//! A git revision's files, read with `git` into a scratch folder: the base of
//! `check --base REF`. Nothing in the working tree, the index or the repository changes.
//!
//! Only YAML and JSON files are written (what descriptions, their `$ref`s, policies and
//! layer files are); symbolic links and submodules are left out. The folder is marked as
//! a work tree of its own, so that files in it are named as in the repository, and it is
//! removed when the checkout is dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::InputError;

/// A revision's files in a scratch folder.
#[derive(Debug)]
pub struct Checkout {
    /// Where the repository's root is, for this revision.
    pub dir: PathBuf,
    /// The repository's root in the working tree.
    pub repository: PathBuf,
    /// The revision as given (`HEAD~1`, `main`).
    pub revision: String,
}

impl Drop for Checkout {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Checkout {
    /// The path in this checkout of a file of the working tree.
    pub fn path_of(&self, file: &Path) -> Result<PathBuf, InputError> {
        let canonical = std::fs::canonicalize(file).or_else(|_| {
            // A file the change adds does not exist in the base; its name still does.
            std::env::current_dir().map(|c| c.join(file))
        });
        let relative = canonical
            .ok()
            .and_then(|c| c.strip_prefix(&self.repository).ok().map(Path::to_path_buf))
            .ok_or_else(|| {
                InputError::new(format!(
                    "`{}` is not in the git repository at `{}`",
                    crate::source::path_text(file),
                    crate::source::path_text(&self.repository)
                ))
            })?;
        Ok(self.dir.join(relative))
    }
}

fn git(repository: &Path) -> Command {
    let mut command = Command::new("git");
    command.current_dir(repository).stdin(Stdio::null());
    command
}

fn failed(what: &str, e: impl std::fmt::Display) -> InputError {
    InputError::new(format!("cannot {what}: {e}"))
        .with_help("--base needs the `git` command and a git repository around the descriptions")
}

/// Writes the YAML and JSON files of `revision` of the repository holding `near`. A
/// file over `max_size` bytes is not copied: it stands as an empty file of its size, for
/// the loader to refuse as too large.
pub fn checkout(near: &Path, revision: &str, max_size: u64) -> Result<Checkout, InputError> {
    let folder = if near.is_dir() {
        near
    } else {
        near.parent().unwrap_or(Path::new("."))
    };
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let top = git(folder)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .map_err(|e| failed("run git", e))?;
    if !top.status.success() {
        return Err(failed(
            "find the git repository",
            String::from_utf8_lossy(&top.stderr).trim(),
        ));
    }
    let repository = std::fs::canonicalize(String::from_utf8_lossy(&top.stdout).trim())
        .map_err(|e| failed("find the git repository", e))?;
    if revision.starts_with('-') {
        return Err(InputError::new(format!("`{revision}` is not a revision")));
    }
    let verified = git(&repository)
        .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
        .arg(format!("{revision}^{{commit}}"))
        .output()
        .map_err(|e| failed("run git", e))?;
    if !verified.status.success() {
        return Err(InputError::new(format!(
            "`{revision}` is not a commit of the repository at `{}`",
            crate::source::path_text(&repository)
        )));
    }
    let commit = String::from_utf8_lossy(&verified.stdout).trim().to_string();
    let listing = git(&repository)
        .args(["ls-tree", "-r", "-z", "--full-tree", &commit])
        .output()
        .map_err(|e| failed("list the revision's files", e))?;
    // `mode type object\tpath`, NUL-terminated.
    let mut files: Vec<(String, String)> = Vec::new();
    for entry in listing.stdout.split(|&b| b == 0) {
        let entry = String::from_utf8_lossy(entry);
        let Some((meta, path)) = entry.split_once('\t') else {
            continue;
        };
        let parts: Vec<&str> = meta.split(' ').collect();
        let lower = path.to_ascii_lowercase();
        if parts.len() == 3
            && parts[1] == "blob"
            && parts[0] != "120000"
            && (lower.ends_with(".yaml") || lower.ends_with(".yml") || lower.ends_with(".json"))
        {
            files.push((parts[2].to_string(), path.to_string()));
        }
    }
    let dir = scratch_folder(&commit)?;
    let checkout = Checkout {
        dir: std::fs::canonicalize(&dir).unwrap_or(dir),
        repository,
        revision: revision.to_string(),
    };
    // The scratch folder is a work tree of its own: files are named from its root.
    std::fs::write(checkout.dir.join(".git"), "")
        .map_err(|e| failed("create a scratch folder", e))?;
    write_blobs(&checkout, &files, max_size)?;
    Ok(checkout)
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

/// Reads every blob through one `git cat-file --batch` and writes it at its path,
/// streamed: a large file is never held in memory whole, nor written past `max_size`.
fn write_blobs(
    checkout: &Checkout,
    files: &[(String, String)],
    max_size: u64,
) -> Result<(), InputError> {
    let mut child = git(&checkout.repository)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| failed("run git cat-file", e))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| failed("run git cat-file", "no input"))?;
    let objects: Vec<String> = files.iter().map(|(object, _)| object.clone()).collect();
    // Written from another thread: git answers while it reads.
    let feeder = std::thread::spawn(move || {
        for object in objects {
            if writeln!(stdin, "{object}").is_err() {
                break;
            }
        }
    });
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| failed("run git cat-file", "no output"))?;
    let mut reader = BufReader::new(stdout);
    for (_, path) in files {
        let mut header = String::new();
        reader
            .read_line(&mut header)
            .map_err(|e| failed("read the revision", e))?;
        // `<object> blob <size>`
        let size: usize = header
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| failed("read the revision", header.trim()))?;
        // A path from the repository stays inside the scratch folder.
        let inside = Path::new(path)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        let mut blob = (&mut reader).take(size as u64);
        if inside {
            let target = checkout.dir.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| failed("write the revision", e))?;
            }
            let mut file =
                std::fs::File::create(&target).map_err(|e| failed("write the revision", e))?;
            if size as u64 > max_size {
                // Sparse, of the real size: the loader refuses it by its size.
                file.set_len(size as u64)
                    .map_err(|e| failed("write the revision", e))?;
            } else {
                std::io::copy(&mut blob, &mut file).map_err(|e| failed("write the revision", e))?;
            }
        }
        // What was not written is read past.
        std::io::copy(&mut blob, &mut std::io::sink())
            .map_err(|e| failed("read the revision", e))?;
        let mut newline = [0u8; 1];
        reader
            .read_exact(&mut newline)
            .map_err(|e| failed("read the revision", e))?;
    }
    let _ = feeder.join();
    let _ = child.wait();
    Ok(())
}
