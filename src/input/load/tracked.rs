//! Files git tracks under a folder that a `.gitignore` or `.ignore` names: git still sees
//! them, and so does a folder search. Without this, a change could hide a description
//! from `retrylint check .` by adding one line to a `.gitignore`.

use std::io::BufRead;
use std::path::{Component, Path, PathBuf};
use std::process::Stdio;

use foldhash::HashSet;

use super::LoadOptions;
use super::git::Git;

/// The files git tracks under `dir` (within `depth` levels when given) that the walk did
/// not see, outside hidden folders, named as the walk names them (`dir/…`). Empty outside
/// a git repository, or when git cannot say.
pub(super) fn ignored_but_tracked(
    dir: &Path,
    depth: Option<usize>,
    seen: &HashSet<PathBuf>,
    options: &LoadOptions,
) -> Vec<PathBuf> {
    let trusted = options.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let Ok(git) = Git::around(&trusted) else {
        return Vec::new();
    };
    let Some(inside) = std::fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.strip_prefix(&git.work_tree).ok().map(Path::to_path_buf))
    else {
        return Vec::new();
    };
    let mut command = git.command();
    command
        .args(["ls-files", "-z", "--cached", "--full-name", "--"])
        .arg(if inside.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &inside
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let Ok(mut child) = command.spawn() else {
        return Vec::new();
    };
    let Some(stdout) = child.stdout.take() else {
        return Vec::new();
    };
    let mut missed = Vec::new();
    for record in std::io::BufReader::new(stdout)
        .split(0)
        .map_while(Result::ok)
    {
        let Ok(name) = String::from_utf8(record) else {
            continue;
        };
        let Ok(below) = Path::new(&name).strip_prefix(&inside) else {
            continue;
        };
        let parts: Vec<&str> = below
            .components()
            .map(|c| match c {
                Component::Normal(part) => part.to_str().unwrap_or("."),
                _ => ".",
            })
            .collect();
        // Hidden entries are skipped by the walk on purpose, and deeper ones by its depth.
        if parts.iter().any(|part| part.starts_with('.'))
            || depth.is_some_and(|depth| parts.len() > depth)
        {
            continue;
        }
        let path = dir.join(below);
        let path = path.strip_prefix("./").unwrap_or(&path).to_path_buf();
        // A tracked file deleted from the work tree is not there to check.
        if !seen.contains(&path) && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            missed.push(path);
        }
    }
    let _ = child.wait();
    missed
}
