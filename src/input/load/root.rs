//! The root folder: what `$ref`s and discovered files may not leave.
//!
//! The root is `--root DIR` when given; otherwise the git work tree that holds the
//! description (the nearest folder above it with a `.git` entry), so that descriptions
//! sharing files across folders (`../../common-types/…`) load; otherwise the current
//! folder when it holds the description; otherwise the description's own folder. For a
//! description on standard input, only `--root` or the current folder (and the git work
//! tree around it) can be the root: its `--stdin-filename` is a name, not a place.

use std::path::{Path, PathBuf};

use super::io_reason;
use crate::error::InputError;
use crate::input::source::{git_work_tree, path_text};

/// A root folder, canonical, with how messages name it.
#[derive(Debug, Clone)]
pub struct Root {
    pub dir: PathBuf,
    pub shown: String,
}

impl Root {
    /// Whether a canonical path lies inside the root.
    pub fn holds(&self, canonical: &Path) -> bool {
        // Most paths asked about are inside, written as the folder's path, a separator and
        // more: that is said on bytes, where comparing components costs thousands of
        // instructions (a description of a thousand files asks thousands of times).
        let (path, dir) = (
            canonical.as_os_str().as_encoded_bytes(),
            self.dir.as_os_str().as_encoded_bytes(),
        );
        if let Some(rest) = path.strip_prefix(dir)
            && rest
                .first()
                .is_some_and(|&b| std::path::is_separator(char::from(b)))
        {
            return true;
        }
        canonical.starts_with(&self.dir)
    }

    /// The help for a path refused for leaving the root.
    pub fn help(&self) -> String {
        format!(
            "the root is `{}` (--root DIR, else the enclosing git work tree, else the current folder); \
             set another with --root DIR, or pass --allow-outside-refs to follow references outside it",
            self.shown
        )
    }
}

/// The root for a description whose canonical path is `description`.
pub fn root_for(description: &Path, given: Option<&Path>) -> Result<Root, InputError> {
    if let Some(given) = given {
        let dir = std::fs::canonicalize(given).map_err(|e| {
            InputError::new(format!(
                "cannot use the root `{}`: {}",
                path_text(given),
                io_reason(&e)
            ))
        })?;
        if !dir.is_dir() {
            return Err(InputError::new(format!(
                "the root `{}` is not a folder",
                path_text(given)
            )));
        }
        return Ok(Root {
            dir,
            shown: path_text(given),
        });
    }
    let folder = description.parent().unwrap_or(Path::new("/"));
    let dir = git_work_tree(folder).unwrap_or_else(|| {
        match std::env::current_dir().and_then(std::fs::canonicalize) {
            Ok(current) if folder.starts_with(&current) => current,
            _ => folder.to_path_buf(),
        }
    });
    let shown = relative_to_current(&dir);
    Ok(Root { dir, shown })
}

/// The root for a description read from standard input: `--root DIR` when given, else the
/// git work tree around the current folder, else the current folder. The name
/// `--stdin-filename` gives is only a name: it cannot move the root (and with it, which
/// policy beside it is read) anywhere else.
pub fn root_for_stdin(given: Option<&Path>) -> Result<Root, InputError> {
    let current = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .map_err(|e| {
            InputError::new(format!("cannot use the current folder: {}", io_reason(&e)))
        })?;
    if let Some(given) = given {
        root_for(&current.join("-"), Some(given))
    } else {
        let dir = git_work_tree(&current).unwrap_or(current);
        let shown = relative_to_current(&dir);
        Ok(Root { dir, shown })
    }
}

/// A folder named relative to the current one when it lies inside it.
fn relative_to_current(dir: &Path) -> String {
    let current = std::env::current_dir().and_then(std::fs::canonicalize);
    match current
        .ok()
        .and_then(|c| dir.strip_prefix(c).ok().map(Path::to_path_buf))
    {
        Some(rel) if rel.as_os_str().is_empty() => ".".into(),
        Some(rel) => path_text(&rel),
        None => path_text(dir),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_git_entry_above_the_description_makes_the_root() {
        let base = std::env::temp_dir().join(format!("retrylint-root-{}", std::process::id()));
        let deep = base.join("repo/specification/x/stable");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(base.join("repo/.git"), "gitdir: elsewhere\n").unwrap();
        let base = std::fs::canonicalize(&base).unwrap();
        let root = root_for(&base.join("repo/specification/x/stable/api.json"), None).unwrap();
        assert_eq!(root.dir, base.join("repo"));
        assert!(root.holds(&base.join("repo/common-types/types.json")));
        assert!(!root.holds(&base.join("other/types.json")));
        let given = root_for(
            &base.join("repo/x/api.json"),
            Some(&base.join("repo/specification")),
        );
        assert_eq!(given.unwrap().dir, base.join("repo/specification"));
        assert!(root_for(&base.join("repo/x/api.json"), Some(&base.join("missing"))).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_path_is_held_exactly_when_its_components_start_with_the_folders() {
        let root = |dir: &str| Root {
            dir: PathBuf::from(dir),
            shown: dir.to_owned(),
        };
        for (dir, path) in [
            ("/repo", "/repo/a.json"),
            ("/repo", "/repo"),
            ("/repo", "/repository/a.json"),
            ("/repo", "/rep"),
            ("/repo", "/other/repo/a.json"),
            ("/repo/", "/repo/a.json"),
            ("/", "/a.json"),
            ("/repo/x", "/repo/x/y/z.json"),
            ("/repo/x", "/repo/xy/z.json"),
            ("/repo/./x", "/repo/x/z.json"),
            ("/repo/x", "/repo/./x/z.json"),
            ("repo", "repo/a.json"),
        ] {
            let path = Path::new(path);
            assert_eq!(
                root(dir).holds(path),
                path.starts_with(dir),
                "{dir} {path:?}"
            );
        }
    }
}
