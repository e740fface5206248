//! Canonical paths of referenced files, resolving each folder once.
//!
//! A multi-file description names hundreds of files in a few folders. Resolving every
//! file's whole path (`realpath`: one `readlink` per component) repeats the same work for
//! each of them; here a folder is resolved once, and a file in it costs one `lstat` to
//! check that it is not itself a symbolic link (one that is is resolved in full).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// Resolved folders, by the path they were named with.
#[derive(Debug, Default)]
pub struct CanonicalPaths {
    folders: HashMap<PathBuf, Option<PathBuf>>,
}

impl CanonicalPaths {
    /// What `std::fs::canonicalize(path)` gives, or `None` where it fails.
    pub fn file(&mut self, path: &Path) -> Option<PathBuf> {
        let Some((folder, name)) = split_plain(path) else {
            return std::fs::canonicalize(path).ok();
        };
        let folder = self
            .folders
            .entry(folder.to_path_buf())
            .or_insert_with(|| std::fs::canonicalize(folder).ok())
            .as_ref()?;
        let joined = folder.join(name);
        let metadata = std::fs::symlink_metadata(&joined).ok()?;
        if metadata.file_type().is_symlink() {
            return std::fs::canonicalize(&joined).ok();
        }
        Some(joined)
    }
}

/// The folder and the plain last name of `path`, when it ends in one written as is (not
/// `..`, `.` or a trailing `/`, which resolve otherwise).
fn split_plain(path: &Path) -> Option<(&Path, &std::ffi::OsStr)> {
    let Some(Component::Normal(name)) = path.components().next_back() else {
        return None;
    };
    if !path
        .as_os_str()
        .as_encoded_bytes()
        .ends_with(name.as_encoded_bytes())
    {
        return None;
    }
    let folder = path.parent()?;
    if folder.as_os_str().is_empty() {
        return None;
    }
    Some((folder, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_folders_resolve_like_the_whole_path() {
        let base = std::env::temp_dir().join(format!("retrylint-canon-{}", std::process::id()));
        std::fs::create_dir_all(base.join("real/sub")).unwrap();
        std::fs::write(base.join("real/a.yaml"), "a: 1").unwrap();
        std::fs::write(base.join("real/sub/b.yaml"), "b: 1").unwrap();
        #[cfg(unix)]
        {
            let _ = std::os::unix::fs::symlink(base.join("real"), base.join("link"));
            let _ = std::os::unix::fs::symlink(base.join("real/a.yaml"), base.join("real/c.yaml"));
        }
        let mut paths = CanonicalPaths::default();
        for name in [
            "real/a.yaml",
            "real/sub/../a.yaml",
            "real/sub/b.yaml",
            "real/./sub/b.yaml",
            "link/a.yaml",
            "link/sub/b.yaml",
            "real/c.yaml",
            "real/missing.yaml",
            "real/a.yaml/",
            "real/a.yaml/.",
            "real/sub/..",
            "real/a.yaml/x.yaml",
        ] {
            let path = base.join(name);
            assert_eq!(
                paths.file(&path),
                std::fs::canonicalize(&path).ok(),
                "{name}"
            );
        }
        let _ = std::fs::remove_dir_all(&base);
    }
}
