//! Writing a command's output: to standard output, or to a file that is replaced whole.
//!
//! A file is written to a temporary file in the target's folder, flushed to disk, then
//! renamed over the target: a full disk or a failed write leaves the previous content in
//! place, never half a report. Standard output that cannot be written is an error (exit
//! code 2), except a closed pipe, which means the reader has all it wanted.

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::InputError;
use crate::escape;

/// Writes `text` to the file at `path` (replaced whole), or to standard output without one.
pub fn to_file_or_stdout(path: Option<&Path>, text: &str) -> Result<(), InputError> {
    match path {
        Some(path) => to_file(path, text),
        None => to_stdout(text),
    }
}

/// Writes `text` to standard output.
///
/// A broken pipe (`retrylint check | head -1`) stops the output quietly and is not an
/// error: the reader chose to stop reading, as with any filter in a pipeline, and the
/// command keeps its own exit code (`check` still says 1 when it found problems). Any
/// other failure (`> /dev/full`, a closed descriptor) is an input error with exit code 2.
pub fn to_stdout(text: &str) -> Result<(), InputError> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(InputError::new(format!(
            "cannot write to standard output: {e}"
        ))),
    }
}

/// Replaces the file at `path` with `text`, through a temporary file beside it.
pub fn to_file(path: &Path, text: &str) -> Result<(), InputError> {
    let fail = |e: std::io::Error| {
        InputError::new(format!(
            "cannot write `{}`: {e}",
            escape::terminal(&crate::input::source::path_text(path))
        ))
    };
    let temp = temp_path(path);
    let result = write_then_rename(&temp, path, text.as_bytes());
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(fail)
}

fn write_then_rename(temp: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(temp)?;
    // The new file keeps the permissions of the one it replaces.
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_dir() {
            return Err(std::io::Error::new(
                ErrorKind::IsADirectory,
                "it is a directory",
            ));
        }
        file.set_permissions(meta.permissions())?;
    }
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(temp, path)
}

/// A name in the target's folder that no other run uses at the same time.
fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let name = path.file_name().map_or_else(
        || "output".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let temp = format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(temp),
        _ => PathBuf::from(temp),
    }
}
