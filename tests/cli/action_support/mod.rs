//! Helpers for the tests that run the GitHub Action's scripts as a runner would: the
//! tools they need, the tests' binary on PATH, and how a run ended.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The crate's root, where the action's scripts are.
pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Whether a command is on this machine.
pub(crate) fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok()
}

/// Whether every tool is here; else says which test did not run, and why.
pub(crate) fn have_all(tools: &[&str], what: &str) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !have(t)).collect();
    if missing.is_empty() {
        return true;
    }
    eprintln!(
        "note: {} missing here; {what} was not run",
        missing.join(", ")
    );
    false
}

/// The folder the tests' binary is in, to put on PATH.
pub(crate) fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_retrylint"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// `dir` before this process's PATH.
pub(crate) fn path_with(dir: &Path) -> String {
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The action's check script, run in `dir` with the tests' binary on PATH and none of
/// the runner's variables but those a test sets.
pub(crate) fn action_check(dir: &Path) -> Command {
    let mut command = Command::new("bash");
    command
        .arg(root().join("action/check.sh"))
        .current_dir(dir)
        .env("PATH", path_with(&bin_dir()))
        .env("NO_COLOR", "1");
    for variable in [
        "GITHUB_OUTPUT",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_BASE_REF",
        "PULL_REQUEST_NUMBER",
        "HEAD_SHA",
        "GITHUB_SERVER_URL",
        "GITHUB_REPOSITORY",
        "RUNNER_TEMP",
    ] {
        command.env_remove(variable);
    }
    command
}

/// Asserts a run ended with `code`, showing what it printed when not; returns stdout.
pub(crate) fn ended(run: &Output, code: i32) -> String {
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(
        run.status.code(),
        Some(code),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

/// Standard output and standard error of a run, as one text.
pub(crate) fn printed(run: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    )
}

/// A file's text, or nothing when it is not there.
pub(crate) fn read_or_empty(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}
