//! Canonical paths of referenced files, resolving each folder once.
//!
//! A multi-file description names hundreds of files in a few folders, by paths such as
//! `resources/apps/../../shared/headers.yml`. Resolving every file's whole path
//! (`realpath`: one `readlink` per component) repeats the same work for each of them;
//! here each folder (and each folder above it) is resolved once, from its resolved
//! parent, and a file costs one `lstat` to check that it is not itself a symbolic link,
//! once per path it is named by; that `lstat` also gives a regular file's size. A
//! symbolic link is resolved in full where it is met.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use foldhash::HashMap;

/// Resolved folders and files, by the path they were named with, byte for byte (paths
/// compare by components, so `a.yaml/` would equal `a.yaml`, which does not resolve alike).
#[derive(Debug, Default)]
pub(super) struct CanonicalPaths {
    folders: HashMap<OsString, Option<PathBuf>>,
    files: HashMap<OsString, Option<Resolved>>,
}

/// A file's canonical path, with its size when the path named a regular file itself (not
/// a symbolic link to one).
#[derive(Debug, Clone)]
pub(super) struct Resolved {
    pub path: PathBuf,
    pub size: Option<u64>,
}

impl CanonicalPaths {
    /// What `std::fs::canonicalize(path)` gives, or `None` where it fails.
    pub(super) fn file(&mut self, path: &Path) -> Option<PathBuf> {
        self.file_sized(path).map(|resolved| resolved.path)
    }

    /// [`CanonicalPaths::file`], with the file's size when the `lstat` gave it.
    pub(super) fn file_sized(&mut self, path: &Path) -> Option<Resolved> {
        if let Some(known) = self.files.get(path.as_os_str()) {
            return known.clone();
        }
        let resolved = self.resolve(path);
        self.files
            .insert(path.as_os_str().to_owned(), resolved.clone());
        resolved
    }

    fn resolve(&mut self, path: &Path) -> Option<Resolved> {
        let whole = |path: &Path| {
            std::fs::canonicalize(path)
                .ok()
                .map(|path| Resolved { path, size: None })
        };
        let Some((folder, name)) = split_plain(path) else {
            return whole(path);
        };
        let folder = self.folder(folder, MAX_COMPONENTS)?;
        let joined = folder.join(name);
        let metadata = std::fs::symlink_metadata(&joined).ok()?;
        if metadata.file_type().is_symlink() {
            return whole(&joined);
        }
        let size = metadata.is_file().then_some(metadata.len());
        Some(Resolved { path: joined, size })
    }

    /// The canonical path of a folder, or `None` when it is not one. Resolved from its
    /// parent's, `depth` levels up at most (then in full).
    fn folder(&mut self, path: &Path, depth: usize) -> Option<PathBuf> {
        if let Some(known) = self.folders.get(path.as_os_str()) {
            return known.clone();
        }
        let resolved = match path.components().next_back() {
            Some(Component::ParentDir) if depth > 0 => path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .and_then(|above| self.folder(above, depth - 1))
                .map(|above| above.parent().map_or(above.clone(), Path::to_path_buf)),
            Some(Component::RootDir) => Some(path.to_path_buf()),
            _ => match split_plain(path) {
                Some((above, name)) if depth > 0 => {
                    let above = self.folder(above, depth - 1)?;
                    let joined = above.join(name);
                    let metadata = std::fs::symlink_metadata(&joined).ok()?;
                    if metadata.file_type().is_symlink() {
                        std::fs::canonicalize(&joined).ok().filter(|p| p.is_dir())
                    } else {
                        metadata.is_dir().then_some(joined)
                    }
                }
                _ => std::fs::canonicalize(path).ok().filter(|p| p.is_dir()),
            },
        };
        self.folders
            .insert(path.as_os_str().to_owned(), resolved.clone());
        resolved
    }
}

/// How many folders up a path is resolved from cached parents (beyond, `realpath` does
/// it): bounds the work a path of thousands of `../` can ask for.
const MAX_COMPONENTS: usize = 64;

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
            "real/sub/../sub/../../real/sub/b.yaml",
            "link/../real/a.yaml",
            "real/a.yaml/../a.yaml",
            "missing/../real/a.yaml",
            "real/sub/b.yaml/../b.yaml",
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
