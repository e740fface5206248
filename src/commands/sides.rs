//! Which `-p` files each side of a comparison reads (`diff BASE HEAD`, `check --base
//! REF`): each side its own. A `-p` path names the head's file or folder; the base reads
//! the same path in its own tree — at the revision for `check --base`, under the base
//! description's folder for `diff` ([`DescriptionRoots`]). A path one side does not have
//! is absent on that side, and a note says so; a path neither side has is an input error,
//! reported as `-p` reports a missing file.

use std::path::{Path, PathBuf};

use crate::error::InputError;
use crate::input::source::{fold_dots, path_text};

/// What the base has for one `-p` path of the head.
pub(super) enum Counterpart {
    /// The base's file or folder, and how a note names it (`it at HEAD~1`, `` `old/mesh` ``).
    Present { path: PathBuf, shown: String },
    /// The base has none; why, to follow the path in a note (`does not exist at HEAD~1`).
    Absent(String),
    /// The path lies outside what the base mirrors, named to follow "lies outside" in a
    /// note (`the git repository`).
    Outside(String),
}

/// The `-p` paths each side reads, and the notes on those only one side has.
#[derive(Debug, Default)]
pub(super) struct SidePaths {
    pub head: Vec<PathBuf>,
    pub base: Vec<PathBuf>,
    pub notes: Vec<String>,
}

/// What a note says of the base when it lacks a `-p` path.
const NO_SUCH_FILE: &str = "the base has no such policy or layer file";

/// Sorts `-p` paths into each side's, asking `counterpart` for the base's of each;
/// `head_missing` says where a path the head lacks was looked for (`in the work tree`).
pub(super) fn split(
    paths: &[PathBuf],
    head_missing: &str,
    mut counterpart: impl FnMut(&Path) -> Result<Counterpart, InputError>,
) -> Result<SidePaths, InputError> {
    let mut sides = SidePaths::default();
    for path in paths {
        let on_head = std::fs::metadata(path).is_ok();
        let shown = path_text(path);
        match counterpart(path)? {
            Counterpart::Present {
                path: base,
                shown: base_shown,
            } => {
                if on_head {
                    sides.head.push(path.clone());
                } else {
                    sides.notes.push(format!(
                        "`{shown}` does not exist{head_missing}: the head has no such policy or layer file; the base reads {base_shown}"
                    ));
                }
                sides.base.push(base);
            }
            // A path on neither side goes to the head, whose reading reports it as any
            // missing -p file.
            Counterpart::Absent(why) => {
                if on_head {
                    sides.notes.push(format!("`{shown}` {why}: {NO_SUCH_FILE}"));
                }
                sides.head.push(path.clone());
            }
            Counterpart::Outside(mirrored) => {
                if on_head {
                    sides.notes.push(format!(
                        "`{shown}` lies outside {mirrored}: {NO_SUCH_FILE} (name the base's with --base-policy)"
                    ));
                }
                sides.head.push(path.clone());
            }
        }
    }
    Ok(sides)
}

/// Where each description of `diff BASE HEAD` stands: the folders left once the two
/// paths' common ending is taken off (`old/api/openapi.yaml` and `api/openapi.yaml` stand
/// in `old` and `.`); with no common ending, each description's own folder. A `-p` path
/// under the head's folder has its counterpart at the same place under the base's.
#[derive(Debug)]
pub(super) struct DescriptionRoots {
    head: PathBuf,
    base: PathBuf,
    current: PathBuf,
}

impl DescriptionRoots {
    pub(super) fn of(base: &Path, head: &Path) -> Result<DescriptionRoots, InputError> {
        let current = std::env::current_dir()
            .map_err(|e| InputError::new(format!("cannot read the current folder: {e}")))?;
        let absolute = |path: &Path| fold_dots(&current.join(path));
        let (head_file, base_file) = (absolute(head), absolute(base));
        let mut head_root = head_file.parent().unwrap_or(&head_file);
        let mut base_root = base_file.parent().unwrap_or(&base_file);
        if head_file.file_name() == base_file.file_name() {
            while head_root != base_root
                && head_root.file_name().is_some()
                && head_root.file_name() == base_root.file_name()
            {
                match (head_root.parent(), base_root.parent()) {
                    (Some(h), Some(b)) => (head_root, base_root) = (h, b),
                    _ => break,
                }
            }
        }
        Ok(DescriptionRoots {
            head: head_root.to_path_buf(),
            base: base_root.to_path_buf(),
            current,
        })
    }

    /// The base's folder and the head's, resolved (following symbolic links), for
    /// comparing findings by their paths from them; `None` for one that cannot be.
    pub(super) fn resolved(&self) -> (Option<PathBuf>, Option<PathBuf>) {
        (
            std::fs::canonicalize(&self.base).ok(),
            std::fs::canonicalize(&self.head).ok(),
        )
    }

    /// The base's counterpart of a `-p` path of the head.
    pub(super) fn counterpart(&self, path: &Path) -> Counterpart {
        if self.head == self.base {
            // Both descriptions stand in one folder: every -p file is both sides'.
            return if std::fs::metadata(path).is_ok() {
                Counterpart::Present {
                    path: path.to_path_buf(),
                    shown: format!("`{}`", path_text(path)),
                }
            } else {
                Counterpart::Absent("does not exist".to_string())
            };
        }
        let absolute = fold_dots(&self.current.join(path));
        let Ok(inside) = absolute.strip_prefix(&self.head) else {
            return Counterpart::Outside(format!(
                "`{}`, where the head description stands",
                self.shown(&self.head)
            ));
        };
        let base = self.base.join(inside);
        let base = match base.strip_prefix(&self.current) {
            Ok(relative) if !relative.as_os_str().is_empty() => relative.to_path_buf(),
            _ => base,
        };
        if std::fs::metadata(&base).is_ok() {
            Counterpart::Present {
                shown: format!("`{}`", path_text(&base)),
                path: base,
            }
        } else {
            Counterpart::Absent(format!(
                "has no counterpart `{}` beside the base description",
                path_text(&base)
            ))
        }
    }

    /// A folder as a note names it: from the current folder when it is inside it.
    fn shown(&self, folder: &Path) -> String {
        match folder.strip_prefix(&self.current) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".to_string(),
            Ok(relative) => path_text(relative),
            Err(_) => path_text(folder),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(base: &str, head: &str) -> (String, String) {
        let roots = DescriptionRoots::of(Path::new(base), Path::new(head)).unwrap();
        (roots.shown(&roots.base), roots.shown(&roots.head))
    }

    #[test]
    fn each_description_stands_where_the_paths_stop_agreeing() {
        assert_eq!(
            roots("old/openapi.yaml", "new/openapi.yaml"),
            ("old".into(), "new".into())
        );
        assert_eq!(
            roots("old/api/openapi.yaml", "api/openapi.yaml"),
            ("old".into(), ".".into())
        );
        assert_eq!(roots("base.yaml", "head.yaml"), (".".into(), ".".into()));
        assert_eq!(
            roots("a/v1.yaml", "b/openapi.yaml"),
            ("a".into(), "b".into())
        );
        assert_eq!(
            roots("x/openapi.yaml", "./x/../x/openapi.yaml"),
            ("x".into(), "x".into())
        );
    }
}
