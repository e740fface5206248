//! Reading blobs of a revision: one `git cat-file --batch-check` and one
//! `git cat-file --batch` for the whole run, each asked one object at a time.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use super::super::git::{Git, failed};
use crate::error::InputError;

/// One `git cat-file --batch-check` and one `git cat-file --batch` for the whole run:
/// a blob's size is asked for first, and only a blob within the limits is read, streamed
/// to its file.
#[derive(Debug)]
pub(super) struct BlobReader {
    sizes: Batch,
    contents: Batch,
}

impl BlobReader {
    pub(super) fn start(git: &Git) -> Result<BlobReader, InputError> {
        Ok(BlobReader {
            sizes: Batch::start(git, "--batch-check")?,
            contents: Batch::start(git, "--batch")?,
        })
    }

    /// The size of blob `object`, or why it cannot be read.
    pub(super) fn size(&mut self, object: &str, shown: &str) -> Result<u64, InputError> {
        let header = self.sizes.ask(object)?;
        // `<object> blob <size>`, or `<object> missing` in a partial clone.
        match header.split_whitespace().collect::<Vec<_>>().as_slice() {
            [_, "blob", size] => size
                .parse()
                .map_err(|_| failed("read the revision", header.trim())),
            [_, "missing"] => Err(InputError::new(format!(
                "cannot read `{shown}`: this clone does not hold its content (a partial clone?); \
                 retrylint never fetches: fetch the revision with its files first"
            ))),
            _ => Err(failed("read the revision", header.trim())),
        }
    }

    /// Copies blob `object`, of `size` bytes, into `to`.
    pub(super) fn copy(
        &mut self,
        object: &str,
        size: u64,
        to: &mut impl Write,
        shown: &str,
    ) -> Result<(), InputError> {
        let header = self.contents.ask(object)?;
        let told: Option<u64> = header
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse().ok());
        let output = &mut self.contents.output;
        let copied = match told {
            Some(told) if told == size => std::io::copy(&mut output.take(size), to)
                .map_err(|e| failed("write the revision", e))?,
            _ => u64::MAX,
        };
        let mut newline = [0u8; 1];
        if copied != size || output.read_exact(&mut newline).is_err() {
            self.contents.input = None;
            return Err(failed(
                "read the revision",
                format!("`{shown}` was cut short"),
            ));
        }
        Ok(())
    }
}

/// One `git cat-file` answering object names line by line.
#[derive(Debug)]
struct Batch {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
}

impl Batch {
    fn start(git: &Git, mode: &str) -> Result<Batch, InputError> {
        let mut child = git
            .command()
            .args(["cat-file", mode])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| failed("run git cat-file", e))?;
        let input = child.stdin.take();
        let output = child
            .stdout
            .take()
            .ok_or_else(|| failed("run git cat-file", "no output"))?;
        Ok(Batch {
            child,
            input,
            output: BufReader::new(output),
        })
    }

    /// Asks for `object`; its header line.
    fn ask(&mut self, object: &str) -> Result<String, InputError> {
        let input = self
            .input
            .as_mut()
            .ok_or_else(|| failed("run git cat-file", "its input is closed"))?;
        writeln!(input, "{object}")
            .and_then(|()| input.flush())
            .map_err(|e| failed("read the revision", e))?;
        let mut header = String::new();
        (&mut self.output)
            .take(512)
            .read_line(&mut header)
            .map_err(|e| failed("read the revision", e))?;
        Ok(header)
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        drop(self.input.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
