//! The GitHub Action's install as a user's workflow runs it: action/install.sh with the
//! action checked out as a fresh clone of this repository (no tags, so no release), no
//! network (an empty release mirror), and the runner's temp folder, PATH file and step
//! outputs — through the cache-restore path (no cargo), the build of the checkout (slow:
//! ignored by a plain `cargo test`, which lists it so; `.ci/run` runs it with
//! `--ignored`), and the failures, each saying what was tried.

#![cfg(unix)]

use crate::action_support;
use crate::common;

use std::path::Path;
use std::process::Command;

use action_support::root;
use common::scratch;

/// A user's runner for the action's install script: the action checked out as a fresh
/// clone of this repository (no tags, so no release can be found), an empty release
/// mirror (no network), and the runner's temp folder, PATH file and outputs.
struct Runner {
    work: std::path::PathBuf,
    action: std::path::PathBuf,
}

impl Runner {
    fn new(name: &str) -> Runner {
        let work = scratch(name);
        let action = work.join("_actions/retrylint/retrylint/main");
        std::fs::create_dir_all(work.join("releases")).unwrap();
        let clone = Command::new("git")
            .args(["clone", "--quiet", "--no-tags"])
            .arg(root())
            .arg(&action)
            .output()
            .unwrap();
        assert!(
            clone.status.success(),
            "{}",
            action_support::printed(&clone)
        );
        let tags = git_output(&action, &["tag", "--list"]);
        assert_eq!(tags, "", "the clone has no tags");
        Runner { work, action }
    }

    /// `install.sh PHASE` in a job whose temp folder is `job`, the action called at `ref`.
    fn command(&self, job: &str, phase: &[&str], action_ref: &str, path: &str) -> Command {
        let temp = self.work.join(job);
        std::fs::create_dir_all(&temp).unwrap();
        let mut command = Command::new("bash");
        command
            .arg(root().join("action/install.sh"))
            .args(phase)
            .env("GITHUB_ACTION_PATH", &self.action)
            .env("ACTION_REPOSITORY", "retrylint/retrylint")
            .env("ACTION_REF", action_ref)
            .env("RETRYLINT_VERSION", "")
            .env(
                "RETRYLINT_DOWNLOAD_BASE",
                format!("file://{}", self.work.join("releases").display()),
            )
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("RUNNER_TEMP", &temp)
            .env("GITHUB_PATH", temp.join("path"))
            .env("GITHUB_OUTPUT", temp.join("outputs"))
            .env("PATH", path);
        command
    }

    fn install(
        &self,
        job: &str,
        phase: &[&str],
        action_ref: &str,
        path: &str,
    ) -> std::process::Output {
        self.command(job, phase, action_ref, path).output().unwrap()
    }

    /// A step output the job's install wrote.
    fn output(&self, job: &str, name: &str) -> Option<String> {
        action_support::read_or_empty(&self.work.join(job).join("outputs"))
            .lines()
            .rev()
            .find_map(|line| line.strip_prefix(&format!("{name}=")).map(str::to_owned))
    }

    /// `retrylint --version` as the job's next step finds it: from the folder on GITHUB_PATH.
    fn version_on_path(&self, job: &str) -> String {
        let path = action_support::read_or_empty(&self.work.join(job).join("path"));
        let dir = path.lines().last().expect("a folder was put on PATH");
        let run = Command::new(Path::new(dir).join("retrylint"))
            .arg("--version")
            .output()
            .unwrap();
        assert!(run.status.success());
        String::from_utf8_lossy(&run.stdout).into_owned()
    }
}

fn git_output(dir: &Path, args: &[&str]) -> String {
    let run = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&run.stdout).trim().to_owned()
}

/// PATH without cargo: what a job has when the Rust toolchain is not installed.
const NO_CARGO: &str = "/usr/bin:/bin";

#[test]
fn the_action_without_a_release_restores_its_cached_build_and_runs_no_cargo() {
    if !action_support::have_all(
        &["bash", "git", "curl", "sha256sum"],
        "the action's install",
    ) {
        return;
    }
    let runner = Runner::new("action-install-cached");
    let commit = git_output(&runner.action, &["rev-parse", "HEAD"]);
    let lock = Command::new("sha256sum")
        .arg(runner.action.join("Cargo.lock"))
        .output()
        .unwrap();
    let lock = String::from_utf8_lossy(&lock.stdout)[..16].to_owned();
    let key = format!("retrylint-Linux-X64-{commit}-{lock}");
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    // Called at a version tag with no published release, then at a branch: each looks
    // for what it should, and hands over to the build of the action's checkout.
    for (action_ref, said) in [
        (tag.as_str(), format!("the release {tag}: file://")),
        (
            "main",
            "no release asked for (version '', the action's ref 'main')".to_owned(),
        ),
        (
            "",
            "no release asked for (version '', the action's ref '')".to_owned(),
        ),
    ] {
        let job = format!("plan-{action_ref}");
        let run = runner.install(&job, &["release"], action_ref, NO_CARGO);
        assert!(run.status.success(), "{}", action_support::printed(&run));
        assert!(
            action_support::printed(&run).contains(&said),
            "{}",
            action_support::printed(&run)
        );
        assert_eq!(runner.output(&job, "installed").as_deref(), Some("false"));
        assert_eq!(runner.output(&job, "cache-key"), Some(key.clone()));
        assert_eq!(
            runner.output(&job, "cache-path"),
            Some(
                runner
                    .work
                    .join(&job)
                    .join("retrylint-cache")
                    .display()
                    .to_string()
            )
        );
    }
    // actions/cache restores the folder a build left: the binary and its key.
    let cache = runner.work.join("job/retrylint-cache");
    std::fs::create_dir_all(cache.join("bin")).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_retrylint"), cache.join("bin/retrylint")).unwrap();
    std::fs::write(cache.join("key"), format!("{key}\n")).unwrap();
    let run = runner.install("job", &[], &tag, NO_CARGO);
    assert!(run.status.success(), "{}", action_support::printed(&run));
    assert!(
        String::from_utf8_lossy(&run.stdout)
            .contains(&format!("using the binary built and cached for {key}")),
        "{}",
        action_support::printed(&run)
    );
    assert_eq!(runner.output("job", "built"), None, "nothing was built");
    assert!(runner.version_on_path("job").starts_with("retrylint "));
    // A binary cached for another commit is not used; without cargo, one error line says
    // everything that was tried.
    std::fs::write(cache.join("key"), "retrylint-Linux-X64-0000-0000\n").unwrap();
    let error = install_error(&runner.install("job", &[], &tag, NO_CARGO));
    assert!(
        error.starts_with(&format!(
            "::error title=retrylint not installed::tried (1) the release {tag}: file://"
        )),
        "{error}"
    );
    assert!(
        error.contains(&format!(
            "; (2) building the action's checkout ({key}): no binary cached for it, and cargo is not on PATH"
        )),
        "{error}"
    );
}

/// The one `::error::` line of an install that failed.
fn install_error(run: &std::process::Output) -> String {
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        action_support::printed(run)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    errors[0].to_owned()
}

#[test]
fn a_version_asked_for_is_looked_for_as_a_release_then_built_from_its_revision() {
    if !action_support::have_all(&["bash", "git", "curl"], "the action's install") {
        return;
    }
    let runner = Runner::new("action-install-version");
    let source = "https://github.com/retrylint/retrylint";
    // A branch or a commit: built with cargo from the repository, never from the
    // action's own checkout (which is another revision).
    for version in ["feature/x", "0123456789abcdef0123456789abcdef01234567"] {
        let run = runner
            .command("branch", &[], "main", NO_CARGO)
            .env("RETRYLINT_VERSION", version)
            .output()
            .unwrap();
        assert_eq!(
            install_error(&run),
            format!(
                "::error title=retrylint not installed::tried (1) building {version} of {source}: cargo is not on PATH"
            )
        );
    }
    // Another tag than the action's: its release, then that tag's source.
    let run = runner
        .command("tag", &[], "main", NO_CARGO)
        .env("RETRYLINT_VERSION", "v9.9.9")
        .output()
        .unwrap();
    let error = install_error(&run);
    assert!(
        error.starts_with(
            "::error title=retrylint not installed::tried (1) the release v9.9.9: file://"
        ),
        "{error}"
    );
    assert!(
        error.ends_with(&format!(
            "; (2) building v9.9.9 of {source}: cargo is not on PATH"
        )),
        "{error}"
    );
}

/// Builds the action's checkout with cargo, as the first job on a runner does: slow (a
/// release build, minutes when cold), so a plain `cargo test` lists it as ignored and
/// `.ci/run` runs it.
#[test]
#[ignore = "a release build of the action's checkout (minutes); .ci/run runs it"]
fn the_action_without_a_release_builds_its_checkout_once_then_restores_it() {
    if !action_support::have_all(
        &["bash", "git", "cargo", "sha256sum"],
        "the action's source build",
    ) {
        return;
    }
    let runner = Runner::new("action-install-source");
    // A target folder of its own that outlives the test, so a second run is quick.
    let target = root().join("target/action-source-build");
    let path = std::env::var("PATH").unwrap_or_default();
    let run = runner
        .command("first", &[], "", &path)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", action_support::printed(&run));
    assert_eq!(runner.output("first", "built").as_deref(), Some("true"));
    assert!(runner.version_on_path("first").starts_with("retrylint "));
    // The next job restores the folder the first one saved, and runs no cargo.
    std::fs::create_dir_all(runner.work.join("second")).unwrap();
    let restored = runner.work.join("second/retrylint-cache");
    let copy = Command::new("cp")
        .arg("-R")
        .arg(runner.work.join("first/retrylint-cache"))
        .arg(&restored)
        .output()
        .unwrap();
    assert!(copy.status.success());
    // The second job's runner temp is laid out the same way (actions/cache restores to the
    // same path on every runner of one image): the key file inside decides.
    let run = runner.install("second", &[], "", NO_CARGO);
    assert!(run.status.success(), "{}", action_support::printed(&run));
    assert!(String::from_utf8_lossy(&run.stdout).contains("using the binary built and cached for"));
    assert!(runner.version_on_path("second").starts_with("retrylint "));
}
