//! A description on standard input (`retrylint check -`), named by `--stdin-filename`
//! for locations, `$ref`s and the policy found beside it, as ruff and other linters do
//! for editors and pipelines.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::InputError;
use crate::input::source::SharedText;

/// Standard input, read once, on first use.
#[derive(Debug)]
pub struct Stdin {
    /// The name shown for it: `--stdin-filename`, else `-`.
    pub display: PathBuf,
    named: bool,
    text: OnceLock<Result<SharedText, InputError>>,
}

impl Stdin {
    /// Standard input named `name` (`--stdin-filename`), or `-`.
    pub fn new(name: Option<PathBuf>) -> Stdin {
        Stdin {
            named: name.is_some(),
            display: name.unwrap_or_else(|| PathBuf::from("-")),
            text: OnceLock::new(),
        }
    }

    /// Text already at hand (an editor's buffer) standing at `name`, as standard input
    /// named by `--stdin-filename` does.
    pub fn with_text(name: PathBuf, text: SharedText) -> Stdin {
        Stdin {
            named: true,
            display: name,
            text: OnceLock::from(Ok(text)),
        }
    }

    /// The text, read at the first call (at most `max_size` bytes; text at hand over the
    /// limit is refused as a file would be).
    pub fn text(&self, max_size: u64) -> Result<SharedText, InputError> {
        let text = self
            .text
            .get_or_init(|| {
                super::read_bounded(std::io::stdin().lock(), "standard input", max_size)
                    .map(std::sync::Arc::new)
            })
            .clone()?;
        if text.len() as u64 > max_size {
            let shown = crate::input::source::path_text(&self.display);
            return Err(super::open::over_limit(
                &shown,
                Some(text.len() as u64),
                max_size,
            ));
        }
        Ok(text)
    }

    /// Where it stands on disk: the named file's resolved path (it need not exist), or
    /// a name in the current folder; `$ref`s are relative to its folder.
    pub fn path(&self) -> PathBuf {
        let current = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .unwrap_or_default();
        if !self.named {
            return current.join("-");
        }
        let absolute = current.join(&self.display);
        if let Ok(resolved) = std::fs::canonicalize(&absolute) {
            return resolved;
        }
        match (
            absolute.parent().map(std::fs::canonicalize),
            absolute.file_name(),
        ) {
            (Some(Ok(folder)), Some(name)) => folder.join(name),
            _ => absolute,
        }
    }

    /// The path the policy is looked for beside.
    pub fn beside(&self) -> &Path {
        &self.display
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_at_hand_over_the_size_limit_is_refused() {
        let buffer = Stdin::with_text(
            PathBuf::from("big.yaml"),
            std::sync::Arc::new("x: 1\n".repeat(10)),
        );
        assert_eq!(
            buffer
                .text(100)
                .map(|t| t.to_string())
                .map_err(|e| e.to_string()),
            Ok("x: 1\n".repeat(10))
        );
        let refused = buffer.text(8).expect_err("over the limit");
        assert!(
            refused
                .to_string()
                .contains("`big.yaml` is 50 bytes, over the limit of 8 bytes"),
            "{refused}"
        );
    }
}
