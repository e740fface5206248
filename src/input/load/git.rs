//! Running `git` on the user's own repository, and never on one a change planted.
//!
//! A pull request can commit a folder shaped like a bare repository (`HEAD`, `objects/`,
//! `refs/`, `config`): git refuses only a path named `.git`. Had git been started inside
//! such a folder it would discover it, read its `config` (`core.worktree`, a promisor
//! remote whose `uploadpack` is a shell command) and run that command on a lazy fetch.
//! So retrylint never lets git discover anything:
//!
//! - the repository is found from the trusted root (`--root`, else the current folder) by
//!   looking for a `.git` entry, which no commit can create, or is the one `GIT_DIR` names;
//!   git is then given it with `--git-dir` and `--work-tree`;
//! - `safe.bareRepository=explicit` and `GIT_CEILING_DIRECTORIES` forbid discovery anyway;
//! - nothing can reach a remote: `GIT_NO_LAZY_FETCH`, `protocol.allow=never`,
//!   `GIT_TERMINAL_PROMPT=0`;
//! - no hook, fsmonitor or pager runs: `core.hooksPath` and `core.fsmonitor` are
//!   overridden on the command line, and only plumbing commands (`rev-parse`, `ls-tree`,
//!   `cat-file`) are used, which never write to the repository (`GIT_OPTIONAL_LOCKS=0`);
//! - pathspecs are literal (`GIT_LITERAL_PATHSPECS`), and arguments after
//!   `--end-of-options` are never options.
//!
//! Configuration given on the command line outranks the repository's own, and these
//! settings are honoured only there or in the user's global and system files, which a
//! change cannot write.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::InputError;
use crate::input::source::path_text;

/// Settings given to every git command, outranking any file's (see the module's doc).
const SETTINGS: [&str; 6] = [
    "safe.bareRepository=explicit",
    "protocol.allow=never",
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.untrackedCache=false",
    "submodule.recurse=false",
];

/// The user's repository: where its git folder and its work tree are.
#[derive(Debug, Clone)]
pub struct Git {
    /// The `.git` folder (or a `.git` file, for a linked work tree or a submodule).
    pub git_dir: PathBuf,
    /// The work tree's root, canonical.
    pub work_tree: PathBuf,
}

impl Git {
    /// The repository around the trusted root: the one `GIT_DIR` names (with
    /// `GIT_WORK_TREE`, else the root), else the nearest folder at or above the root that
    /// holds a `.git` entry. Nothing below the root is looked at.
    pub fn around(root: &Path) -> Result<Git, InputError> {
        let root = std::fs::canonicalize(root).map_err(|e| {
            failed(
                &format!("use the folder `{}`", path_text(root)),
                crate::input::load::io_reason(&e),
            )
        })?;
        if let Some(git_dir) = std::env::var_os("GIT_DIR").filter(|d| !d.is_empty()) {
            let work_tree = std::env::var_os("GIT_WORK_TREE")
                .filter(|d| !d.is_empty())
                .map_or_else(|| root.clone(), PathBuf::from);
            let work_tree = std::fs::canonicalize(&work_tree)
                .map_err(|e| failed("use GIT_WORK_TREE", crate::input::load::io_reason(&e)))?;
            // Relative to the current folder, as git reads the variable.
            let git_dir = std::env::current_dir()
                .map_err(|e| failed("use GIT_DIR", crate::input::load::io_reason(&e)))?
                .join(git_dir);
            return Ok(Git { git_dir, work_tree });
        }
        let work_tree = crate::input::source::git_work_tree(&root).ok_or_else(|| {
            failed(
                "find the git repository",
                format!("no `.git` in `{}` or any folder above it", path_text(&root)),
            )
        })?;
        Ok(Git {
            git_dir: work_tree.join(".git"),
            work_tree,
        })
    }

    /// A `git` command on this repository, with every protection of the module's doc.
    pub fn command(&self) -> Command {
        let mut command = Command::new("git");
        command
            .current_dir(&self.work_tree)
            .stdin(Stdio::null())
            .arg("--git-dir")
            .arg(&self.git_dir)
            .arg("--work-tree")
            .arg(&self.work_tree)
            .arg("--literal-pathspecs")
            .arg("--no-replace-objects");
        for setting in SETTINGS {
            command.arg("-c").arg(setting);
        }
        // Whatever the environment says of another repository, this one is used.
        for variable in ["GIT_INDEX_FILE", "GIT_NAMESPACE", "GIT_CONFIG_PARAMETERS"] {
            command.env_remove(variable);
        }
        command
            .env("GIT_NO_LAZY_FETCH", "1")
            .env("GIT_PROTOCOL_FROM_USER", "0")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env("GIT_CEILING_DIRECTORIES", &self.work_tree)
            .env("GIT_PAGER", "cat")
            .env("GIT_ASKPASS", "")
            .env("SSH_ASKPASS", "");
        command
    }

    /// Runs `git ARGS…` and returns its standard output, or the error git gave.
    pub fn output(&self, args: &[&str], what: &str) -> Result<Vec<u8>, InputError> {
        let output = self
            .command()
            .args(args)
            .output()
            .map_err(|e| failed("run git", e))?;
        if !output.status.success() {
            return Err(failed(what, String::from_utf8_lossy(&output.stderr).trim()));
        }
        Ok(output.stdout)
    }
}

/// The error for a git step that failed.
pub fn failed(what: &str, e: impl std::fmt::Display) -> InputError {
    InputError::new(format!("cannot {what}: {e}")).with_help(
        "--base needs the `git` command, run in (or with --root at) the repository's work tree",
    )
}
