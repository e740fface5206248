//! Opening files to read: the one place every file retrylint reads is opened.
//!
//! The description, every `$ref` target, the policy (given or discovered), the baseline and
//! the scenario file all come through [`read_text`], so they share the same checks: only a
//! regular file is read (a FIFO, socket, device or folder is refused before it is opened for
//! reading, so nothing blocks on it), the size limit holds for the bytes actually read (a file
//! that grows, or whose reported size is wrong, is cut off at the limit and refused), and the
//! text must be UTF-8 without NUL bytes.

use std::fs::{File, FileType, Metadata};
use std::io::Read;
use std::path::Path;

use crate::error::InputError;
use crate::input::source::LineIndex;

/// Reads a regular file of at most `max_size` bytes as UTF-8 text.
///
/// `shown` is how messages name the file.
pub fn read_text(path: &Path, shown: &str, max_size: u64) -> Result<String, InputError> {
    read_text_of(path, shown, max_size, None)
}

/// [`read_text`] of a path that an `lstat` just found to be a regular file of
/// `regular_size` bytes (not a link to one), when it did: that check stands for the one
/// made before opening.
pub(super) fn read_text_of(
    path: &Path,
    shown: &str,
    max_size: u64,
    regular_size: Option<u64>,
) -> Result<String, InputError> {
    let cannot =
        |e: std::io::Error| InputError::new(format!("cannot read `{shown}`: {}", io_reason(&e)));
    // The type is checked before the file is opened: opening a FIFO for reading blocks,
    // opening a device may do something.
    let size = if let Some(size) = regular_size {
        size
    } else {
        let metadata = std::fs::metadata(path).map_err(cannot)?;
        regular_file(&metadata, shown)?;
        metadata.len()
    };
    if size > max_size {
        return Err(over_limit(shown, Some(size), max_size));
    }
    let file = open(path).map_err(cannot)?;
    // The path may have been swapped for something else since it was checked.
    regular_file(&file.metadata().map_err(cannot)?, shown)?;
    // Sized from the metadata: the whole file arrives in one `read` (and one more that
    // finds its end), not in a series of doubling ones.
    read_bounded_sized(file, shown, max_size, size)
}

/// The first `limit` bytes of a regular file, whatever they are.
pub(super) fn read_prefix(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let file = open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads at most `max_size` bytes of UTF-8 text from `reader` (a file, standard input),
/// refusing more, a NUL byte (a binary file) and bytes that are not UTF-8.
pub fn read_bounded(reader: impl Read, shown: &str, max_size: u64) -> Result<String, InputError> {
    read_bounded_sized(reader, shown, max_size, 0)
}

/// [`read_bounded`] with room made for `expected` bytes up front (the size the file's
/// metadata reports; a wrong one costs only speed, never a limit).
fn read_bounded_sized(
    reader: impl Read,
    shown: &str,
    max_size: u64,
    expected: u64,
) -> Result<String, InputError> {
    let cannot =
        |e: std::io::Error| InputError::new(format!("cannot read `{shown}`: {}", io_reason(&e)));
    let room = usize::try_from(expected.min(max_size).saturating_add(1)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(room);
    reader
        .take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > max_size {
        return Err(over_limit(shown, None, max_size));
    }
    if let Some(nul) = memchr::memchr(0, &bytes) {
        return Err(InputError::new(format!(
            "`{shown}` holds a NUL byte (byte {nul}): it looks like a binary file, not {}",
            expected_text(shown)
        )));
    }
    String::from_utf8(bytes).map_err(|e| not_utf8(shown, e))
}

/// Opens a file for reading without ever waiting on it.
#[cfg(unix)]
fn open(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// Refuses anything but a regular file, saying what it is.
fn regular_file(metadata: &Metadata, shown: &str) -> Result<(), InputError> {
    let kind = metadata.file_type();
    if kind.is_file() {
        return Ok(());
    }
    if kind.is_dir() {
        return Err(InputError::new(format!(
            "`{shown}` is a folder, not a file"
        )));
    }
    Err(InputError::new(format!(
        "`{shown}` is {}, not a regular file: it was not read",
        special_kind(kind)
    ))
    .with_help("retrylint reads only regular files (or symbolic links to them)"))
}

#[cfg(unix)]
fn special_kind(kind: FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: FileType) -> &'static str {
    "a special file"
}

pub(super) fn over_limit(shown: &str, size: Option<u64>, max_size: u64) -> InputError {
    let what = match size {
        Some(size) => format!("`{shown}` is {size} bytes, over the limit of {max_size} bytes"),
        None => format!("`{shown}` is over the limit of {max_size} bytes"),
    };
    InputError::new(what).with_help("raise the limit with --max-file-size BYTES")
}

fn not_utf8(shown: &str, e: std::string::FromUtf8Error) -> InputError {
    let at = e.utf8_error().valid_up_to();
    let valid = String::from_utf8_lossy(&e.as_bytes()[..at]);
    let position = LineIndex::new(&valid).position(&valid, valid.len() as u32);
    let (line, column) = (position.line, position.column);
    InputError::new(format!(
        "`{shown}` is not UTF-8 text: invalid byte at line {line}, column {column} (byte {at})"
    ))
    .with_help("descriptions and policies must be UTF-8 encoded YAML or JSON")
}

/// A short reason for an I/O error.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// What a file named `shown` should hold, for messages: a protobuf source for a `.proto`
/// file, else YAML or JSON.
pub(super) fn expected_text(shown: &str) -> &'static str {
    if crate::input::source::is_proto_path(Path::new(shown)) {
        "a protobuf source"
    } else {
        "YAML or JSON"
    }
}
