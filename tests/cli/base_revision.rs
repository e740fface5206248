//! `check --base REF` reads a revision with git, in repositories a pull request can
//! change: git runs only on the user's own repository, found from the current folder or
//! `--root`, never on a folder a change planted, and nothing in a revision can make git
//! fetch, run a command or write anything.

use crate::common;
use crate::hostile;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{have_git, retrylint_in, scratch};

/// Plants, in `folder` of the work tree, files shaped like a git repository whose
/// promisor remote runs `touch MARKER` to fetch: what git would run if it took the folder
/// for a repository and looked up a revision there. Returns the marker's path.
fn plant_repository(dir: &Path, folder: &str) -> PathBuf {
    let fake = dir.join(folder);
    let marker = dir.join(format!("{folder}-ran"));
    std::fs::create_dir_all(fake.join("objects/info")).unwrap();
    std::fs::create_dir_all(fake.join("refs/heads")).unwrap();
    std::fs::create_dir_all(fake.join("refs/remotes/origin")).unwrap();
    std::fs::write(fake.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(fake.join("objects/info/keep"), "").unwrap();
    // Objects this folder does not hold: looking them up starts a lazy fetch.
    let missing = "1111111111111111111111111111111111111111\n";
    std::fs::write(fake.join("refs/heads/main"), missing).unwrap();
    std::fs::write(fake.join("refs/remotes/origin/main"), missing).unwrap();
    std::fs::write(
        fake.join("config"),
        format!(
            "[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tworktree = .\n\
             [extensions]\n\tpartialClone = origin\n\
             [remote \"origin\"]\n\turl = {}\n\tpromisor = true\n\tuploadpack = touch {}; false\n",
            dir.display(),
            marker.display()
        ),
    )
    .unwrap();
    marker
}

/// A repository whose `main` (and `origin/main`) holds the shop's description in `api/`,
/// and whose branch `change` then adds a planted repository in `api/` and another in
/// `000/` (which a folder walk reaches first), with a description of its own.
fn repository_with_planted_folders(name: &str) -> (PathBuf, Vec<PathBuf>) {
    let dir = scratch(name);
    common::git(&dir, &["init", "-q", "-b", "main"]);
    common::copy_fixture("fixtures/shop/openapi.yaml", &dir, "api/openapi.yaml");
    common::git(&dir, &["add", "."]);
    common::git(&dir, &["commit", "-q", "-m", "base"]);
    common::git(&dir, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    common::git(&dir, &["checkout", "-q", "-b", "change"]);
    let markers = vec![plant_repository(&dir, "api"), plant_repository(&dir, "000")];
    common::copy_fixture("fixtures/shop/openapi.yaml", &dir, "000/openapi.yaml");
    common::git(&dir, &["add", "."]);
    common::git(&dir, &["commit", "-q", "-m", "the change"]);
    (dir, markers)
}

#[test]
fn a_folder_shaped_like_a_repository_never_runs_a_command() {
    if !have_git() {
        return;
    }
    let (dir, markers) = repository_with_planted_folders("base-planted");
    let runs: [(&Path, &[&str]); 5] = [
        (&dir, &["check", "api/openapi.yaml", "--base", "main"]),
        (
            &dir,
            &["check", "api/openapi.yaml", "--base", "origin/main"],
        ),
        (
            &dir,
            &[
                "check",
                ".",
                "--base",
                "origin/main",
                "--format",
                "markdown",
            ],
        ),
        // Started inside the planted folder: the repository is still the one above.
        (
            &dir.join("api"),
            &["check", "openapi.yaml", "--base", "main"],
        ),
        (
            &dir.join("000"),
            &["check", "openapi.yaml", "--base", "origin/main"],
        ),
    ];
    for (folder, args) in runs {
        let run = retrylint_in(folder, args);
        for marker in &markers {
            assert!(
                !marker.exists(),
                "retrylint {args:?} let git run a command a change wrote:\n{}",
                run.transcript()
            );
        }
        // The base is the real `main`: `api/openapi.yaml` is unchanged, `000/` is new.
        let new = args.contains(&".") || folder.ends_with("000");
        assert_eq!(
            run.code,
            i32::from(new),
            "retrylint {args:?}\n{}",
            run.transcript()
        );
    }
    let walked = retrylint_in(&dir, &["check", ".", "--base", "main"]);
    assert!(
        walked
            .stderr
            .contains("`000/openapi.yaml` does not exist at main: every operation is new"),
        "{}",
        walked.transcript()
    );
}

#[test]
fn git_is_found_from_the_root_not_from_the_descriptions() {
    if !have_git() {
        return;
    }
    let (dir, markers) = repository_with_planted_folders("base-root");
    // Run from outside any repository: the description alone does not say which
    // repository to trust, `--root` does.
    let outside = std::env::temp_dir().join(format!("retrylint-base-root-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    let spec = dir.join("api/openapi.yaml");
    let spec = spec.to_str().unwrap();
    let without = retrylint_in(&outside, &["check", spec, "--base", "main"]);
    assert_eq!(without.code, 2, "{}", without.transcript());
    assert!(
        without.stderr.contains("cannot find the git repository")
            || without.stderr.contains("is not in the git repository"),
        "{}",
        without.stderr
    );
    let root = dir.to_str().unwrap();
    let with = retrylint_in(&outside, &["check", spec, "--base", "main", "--root", root]);
    assert_eq!(with.code, 0, "{}", with.transcript());
    // GIT_DIR names the repository explicitly, as git itself allows.
    let named = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(["check", spec, "--base", "main", "--root", root])
        .current_dir(&outside)
        .env("GIT_DIR", dir.join(".git"))
        .env("GIT_WORK_TREE", &dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        named.status.success(),
        "{}",
        String::from_utf8_lossy(&named.stderr)
    );
    for marker in &markers {
        assert!(!marker.exists());
    }
    let _ = std::fs::remove_dir_all(&outside);
}

#[test]
fn a_partial_clone_is_never_fetched_from() {
    if !have_git() {
        return;
    }
    // The user's own repository as a partial clone whose promisor remote runs a command:
    // a lazy fetch is never started, and the missing file is said to be missing.
    let dir = scratch("base-partial");
    common::git(&dir, &["init", "-q", "-b", "main"]);
    common::copy_fixture("fixtures/shop/openapi.yaml", &dir, "api/openapi.yaml");
    common::git(&dir, &["add", "."]);
    common::git(&dir, &["commit", "-q", "-m", "base"]);
    let marker = dir.join("fetched");
    common::git(&dir, &["config", "core.repositoryformatversion", "1"]);
    common::git(&dir, &["config", "extensions.partialClone", "origin"]);
    common::git(
        &dir,
        &["config", "remote.origin.url", dir.to_str().unwrap()],
    );
    common::git(&dir, &["config", "remote.origin.promisor", "true"]);
    common::git(
        &dir,
        &[
            "config",
            "remote.origin.uploadpack",
            &format!("touch {}; false", marker.display()),
        ],
    );
    // A commit whose description's blob the repository does not hold.
    let tree = hostile::git_with_input(
        &dir,
        &["mktree", "--missing"],
        "100644 blob 2222222222222222222222222222222222222222\topenapi.yaml\n",
    );
    let api = hostile::git_with_input(&dir, &["mktree"], &format!("040000 tree {tree}\tapi\n"));
    let commit = hostile::git_with_input(&dir, &["commit-tree", &api, "-m", "partial"], "");
    let run = retrylint_in(&dir, &["check", "api/openapi.yaml", "--base", &commit]);
    assert!(!marker.exists(), "a lazy fetch ran:\n{}", run.transcript());
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("does not hold its content"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_p_folder_is_read_at_the_revision_as_in_the_work_tree() {
    if !have_git() {
        return;
    }
    let dir = scratch("base-p-folder");
    common::git(&dir, &["init", "-q", "-b", "main"]);
    common::copy_fixture("fixtures/shop/openapi.yaml", &dir, "openapi.yaml");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    // The base retries every write; a hidden folder's file is not read, as in a walk.
    write("mesh/routes/shop.yaml", &common::virtual_service(3));
    write("mesh/.old/ignored.yaml", "not: [yaml");
    common::git(&dir, &["add", "."]);
    common::git(&dir, &["commit", "-q", "-m", "base"]);
    write("mesh/routes/shop.yaml", &common::virtual_service(0));
    let args = [
        "check",
        "openapi.yaml",
        "-p",
        "mesh",
        "--host",
        "shop",
        "--base",
        "main",
        "--format",
        "json",
    ];
    let run = retrylint_in(&dir, &args);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let fixed: Vec<&str> = doc["findings"]["fixed"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(fixed.contains(&"unprotected-write-retry"), "{fixed:?}");
    // A layer file the base holds deeper than a walk goes is named, as at the revision.
    let deep = (0..17)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    write(
        &format!("mesh/{deep}/deep.yaml"),
        &common::virtual_service(3),
    );
    common::git(&dir, &["add", "."]);
    common::git(&dir, &["commit", "-q", "-m", "deep"]);
    std::fs::remove_dir_all(dir.join("mesh/d0")).unwrap();
    let run = retrylint_in(&dir, &args);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("`main:mesh/d0/")
            && run
                .stderr
                .contains("deep.yaml` lies more than 16 folders deep"),
        "{}",
        run.stderr
    );
}
