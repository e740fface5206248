//! Texts that stand in for files on disk: an editor's unsaved buffers of the files a
//! description reads (a `$ref`'d file, the policy, a layer file), consulted wherever a
//! file of a check is read, so that a check sees what the editor shows.
//!
//! Keyed by canonical path: a file is in the overlay only when it exists on disk (its
//! path resolves), and it is held to the same root folder and size limit as its disk copy.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use foldhash::HashMap;

use super::open::over_limit;
use crate::error::InputError;

/// Unsaved texts, by the canonical path of the file each stands in for.
#[derive(Debug, Clone, Default)]
pub struct Overlay {
    texts: HashMap<OsString, crate::input::source::SharedText>,
}

impl Overlay {
    /// Lets `text` stand in for the file at `path` (made canonical here); a path that
    /// does not resolve is left out, since nothing on disk could name it.
    pub fn insert(&mut self, path: &Path, text: crate::input::source::SharedText) {
        if let Ok(canonical) = std::fs::canonicalize(path) {
            self.texts.insert(canonical.into_os_string(), text);
        }
    }

    /// Whether a text stands in for the file whose canonical path is `canonical`.
    pub fn holds(&self, canonical: &Path) -> bool {
        self.texts.contains_key(canonical.as_os_str())
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The text standing in for `path`, if any, within `max_size` bytes.
    pub fn text(
        &self,
        path: &Path,
        shown: &str,
        max_size: u64,
    ) -> Option<Result<String, InputError>> {
        if self.texts.is_empty() {
            return None;
        }
        let canonical: PathBuf = std::fs::canonicalize(path).ok()?;
        let text = self.texts.get(canonical.as_os_str())?;
        if text.len() as u64 > max_size {
            return Some(Err(over_limit(shown, Some(text.len() as u64), max_size)));
        }
        Some(Ok(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_stands_in_for_its_file_within_the_size_limit() {
        let dir = std::env::temp_dir().join(format!("retrylint-overlay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let file = dir.join("shared.yaml");
        std::fs::write(&file, "on: disk\n").expect("the file is written");
        let mut overlay = Overlay::default();
        overlay.insert(&file, std::sync::Arc::new("in: buffer\n".to_string()));
        overlay.insert(
            &dir.join("absent.yaml"),
            std::sync::Arc::new("never: read\n".to_string()),
        );
        let read = overlay.text(&dir.join(".").join("shared.yaml"), "shared.yaml", 1024);
        let small = overlay.text(&file, "shared.yaml", 4);
        let absent = overlay.text(&dir.join("absent.yaml"), "absent.yaml", 1024);
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(
            read.map(|r| r.map_err(|e| e.to_string())),
            Some(Ok("in: buffer\n".to_string()))
        );
        let refused = small.map(|r| r.map_err(|e| e.to_string()));
        assert!(
            matches!(&refused, Some(Err(message)) if message.contains("over the limit of 4 bytes")),
            "{refused:?}"
        );
        assert!(
            absent.is_none(),
            "a path that does not resolve has no stand-in"
        );
    }
}
