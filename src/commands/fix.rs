//! `check --fix` and `check --diff`: the fixes of a check written back to its files, or
//! shown as a unified diff without writing.
//!
//! A file is written only when it is a regular file named without a symbolic link, inside
//! the root folder of the description that read it, and unchanged since the check read
//! it; the new text goes to a temporary file beside it that then replaces it, so that an
//! interrupted write leaves the old file whole.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::escape::terminal_lines;
use crate::input::source::path_text;
use crate::rendering::fixed::{FileFix, Plan};

/// What was written.
pub(crate) struct Written {
    pub files: usize,
    pub notes: Vec<String>,
}

/// The unified diff of every file the plan changes.
pub(crate) fn diff(plan: &Plan) -> String {
    let mut out = String::new();
    for file in &plan.files {
        let name = path_text(&file.display);
        let diff = similar::TextDiff::from_lines(file.before.as_str(), file.after.as_str());
        out.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{name}"), &format!("b/{name}"))
                .to_string(),
        );
    }
    terminal_lines(&out).into_owned()
}

/// Writes every file of the plan that may be written; the others get a note.
pub(crate) fn write(plan: &Plan, given_root: Option<&Path>, max_size: u64) -> Written {
    let mut written = Written {
        files: 0,
        notes: Vec::new(),
    };
    for file in &plan.files {
        let shown = path_text(&file.display);
        match write_one(file, given_root, max_size) {
            Ok(()) => written.files += 1,
            Err(why) => written.notes.push(format!("{shown}: not written: {why}")),
        }
    }
    written
}

fn write_one(file: &FileFix, given_root: Option<&Path>, max_size: u64) -> Result<(), String> {
    let canonical = writable(file, given_root)?;
    let metadata = std::fs::symlink_metadata(canonical).map_err(|e| e.to_string())?;
    if !metadata.file_type().is_file() {
        return Err("it is not a regular file".into());
    }
    let now = crate::input::load::read_text(canonical, &path_text(canonical), max_size)
        .map_err(|e| e.message)?;
    if now != *file.before {
        return Err("it changed since it was read".into());
    }
    replace(canonical, &file.after, metadata.permissions())
}

/// Where `file` is written, when it may be: a file of the work tree, named without a
/// symbolic link, inside the root folder of the description that read it.
pub(crate) fn writable<'a>(
    file: &'a FileFix,
    given_root: Option<&Path>,
) -> Result<&'a Path, String> {
    let canonical = file
        .canonical
        .as_deref()
        .ok_or("it was not read from a file of the work tree (see --diff)")?;
    if std::fs::symlink_metadata(&file.display).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err("it is a symbolic link".into());
    }
    let root = crate::input::load::root_for(Path::new(&file.description), given_root)
        .map_err(|e| e.message)?;
    if !canonical.starts_with(&root.dir) {
        return Err(format!("it is outside the root folder `{}`", root.shown));
    }
    Ok(canonical)
}

/// Replaces the file at `path` with `text` through a temporary file beside it.
fn replace(path: &Path, text: &str, permissions: std::fs::Permissions) -> Result<(), String> {
    let folder = path.parent().ok_or("it has no folder")?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary: PathBuf = folder.join(format!(".{name}.retrylint-fix-{}", std::process::id()));
    let result = (|| {
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        out.write_all(text.as_bytes())?;
        out.sync_all()?;
        std::fs::set_permissions(&temporary, permissions)?;
        std::fs::rename(&temporary, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&temporary);
        return Err(e.to_string());
    }
    Ok(())
}
