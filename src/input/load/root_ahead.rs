//! A description's root file read and parsed on another core while the check reads its
//! other inputs (the policy, the layer files).
//!
//! The root is read exactly as the check's first attempt reads it (see
//! `analysis::check::analyze_layers`): under the path it was named by, with a large JSON
//! file's text checked beside its build. It is not committed (given an id, counted
//! against the limits) until the check asks for it, like a file read ahead by
//! [`super::prefetch`], so ids, output and errors are those of reading it then. When the
//! check asks for another path, or runs a second time the ordinary way, what was read
//! ahead is dropped.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::{LoadOptions, read_resolved};
use crate::error::InputError;
use crate::input::source::SourceFile;

/// What reading the root ahead gave: its canonical path and the file, or the error a
/// read would give (`None` when the path did not resolve: the check reports that itself).
type Read = Option<(PathBuf, Result<SourceFile, InputError>)>;

/// A root file being read ahead.
#[derive(Debug)]
pub struct RootAhead {
    path: PathBuf,
    /// Set when the read built a large JSON file's tree while its text was checked beside
    /// (see [`LoadOptions::read_ahead_of_check`]).
    checked_beside: Arc<AtomicBool>,
    read: Mutex<Option<JoinHandle<Read>>>,
}

/// The root read ahead, taken by the check of its path.
pub(crate) struct TakenRoot {
    pub(crate) canonical: PathBuf,
    pub(crate) display: PathBuf,
    pub(crate) file: Result<SourceFile, InputError>,
    pub(crate) checked_beside: Arc<AtomicBool>,
}

impl RootAhead {
    /// Starts reading the description at `path` on a thread of its own; `None` where it
    /// would not pay (one core) or could read otherwise than the check (standard input, a
    /// git revision written as it is read, an editor's unsaved texts, a check whose
    /// caller decides how large JSON is read), or when no thread can be made.
    pub fn start(path: &Path, options: &LoadOptions) -> Option<Arc<RootAhead>> {
        if crate::parallel::cores() < 2
            || path.as_os_str() == super::discover::STDIN
            || options.revision.is_some()
            || options.overlay.is_some()
            || options.read_ahead_of_check.is_some()
        {
            return None;
        }
        let checked_beside = Arc::new(AtomicBool::new(false));
        let options = LoadOptions {
            read_ahead_of_check: Some(checked_beside.clone()),
            root_ahead: None,
            ..options.clone()
        };
        let owned = path.to_path_buf();
        let handle = std::thread::Builder::new()
            .name("root".into())
            .spawn(move || {
                let canonical = std::fs::canonicalize(&owned).ok()?;
                let file = read_resolved(&canonical, owned, &options, None);
                Some((canonical, file))
            })
            .ok()?;
        Some(Arc::new(RootAhead {
            path: path.to_path_buf(),
            checked_beside,
            read: Mutex::new(Some(handle)),
        }))
    }

    /// The root read ahead, when `path` is the one it read and nobody took it yet; waits
    /// for the read to finish.
    pub(crate) fn take(&self, path: &Path) -> Option<TakenRoot> {
        if path.as_os_str() != self.path.as_os_str() {
            return None;
        }
        let handle = self.read.lock().ok()?.take()?;
        let (canonical, file) = handle.join().ok()??;
        Some(TakenRoot {
            canonical,
            display: self.path.clone(),
            file,
            checked_beside: self.checked_beside.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::load::Loader;

    #[test]
    fn the_root_read_ahead_is_the_one_the_check_loads_and_only_for_its_path() {
        let dir = std::env::temp_dir().join(format!("retrylint-root-ahead-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("openapi.yaml");
        std::fs::write(
            &path,
            "openapi: 3.0.3\ninfo: {title: before, version: '1'}\npaths: {}\n",
        )
        .unwrap();
        let Some(ahead) = RootAhead::start(&path, &LoadOptions::default()) else {
            // One core: nothing is read ahead.
            assert_eq!(crate::parallel::cores(), 1);
            return;
        };
        assert!(ahead.take(&dir.join("other.yaml")).is_none());
        let root = ahead.take(&path).expect("read ahead");
        assert!(ahead.take(&path).is_none(), "taken once");
        // Written again after it was read: the check loads what was read ahead.
        std::fs::write(
            &path,
            "openapi: 3.0.3\ninfo: {title: after, version: '1'}\npaths: {}\n",
        )
        .unwrap();
        let mut loader = Loader::new(LoadOptions::default());
        loader.hold_root(root);
        let id = loader.load_root(&path).unwrap();
        let title = loader
            .file(id)
            .root
            .at(["info", "title"])
            .and_then(|n| n.as_str().map(str::to_owned));
        assert_eq!(title.as_deref(), Some("before"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_root_that_cannot_be_read_ahead_is_left_to_the_check() {
        for options in [
            LoadOptions {
                read_ahead_of_check: Some(Arc::new(AtomicBool::new(false))),
                ..LoadOptions::default()
            },
            LoadOptions {
                overlay: Some(Arc::default()),
                ..LoadOptions::default()
            },
        ] {
            assert!(RootAhead::start(Path::new("openapi.yaml"), &options).is_none());
        }
        assert!(RootAhead::start(Path::new("-"), &LoadOptions::default()).is_none());
        // A path that does not resolve: the check reports it itself.
        if let Some(ahead) =
            RootAhead::start(Path::new("no/such/file.yaml"), &LoadOptions::default())
        {
            assert!(ahead.take(Path::new("no/such/file.yaml")).is_none());
        }
    }
}
