//! Cutting a release: scripts/release.sh in a scratch repository with a remote of its own
//! checks what it should, refuses with the reason, and creates and pushes the tag that
//! Cargo.toml's version names (the tag the release workflow builds and publishes).

#![cfg(unix)]

use crate::action_support;
use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use action_support::{have_all, printed, root};
use common::{git, scratch};

/// A repository shaped like this one, as far as the release script reads it, with a bare
/// remote `origin` that has its `main`.
fn repository(name: &str) -> PathBuf {
    let work = scratch(name);
    let remote = work.join("remote.git");
    let repo = work.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&work, &["init", "-q", "--bare", "remote.git"]);
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(repo.join("scripts")).unwrap();
    std::fs::copy(
        root().join("scripts/release.sh"),
        repo.join("scripts/release.sh"),
    )
    .unwrap();
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"retrylint\"\nversion = \"1.2.3\"\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("Cargo.lock"),
        "[[package]]\nname = \"memchr\"\nversion = \"2.8.3\"\n\n[[package]]\nname = \"retrylint\"\nversion = \"1.2.3\"\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("README.md"),
        "- uses: retrylint/retrylint@main\n\nOnce released: `uses: retrylint/retrylint@v1.2.3`\n",
    )
    .unwrap();
    std::fs::write(repo.join("action.yml"), "name: retrylint\n").unwrap();
    std::fs::create_dir_all(repo.join("docs/src")).unwrap();
    std::fs::write(
        repo.join("docs/src/ci.md"),
        "```yaml\n- uses: retrylint/retrylint@main   # or retrylint/retrylint@v1.2.3\n```\n",
    )
    .unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "1.2.3"]);
    git(
        &repo,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    repo
}

fn release(repo: &Path, args: &[&str]) -> Output {
    Command::new("bash")
        .arg(repo.join("scripts/release.sh"))
        .args(args)
        .current_dir(repo)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env_remove("RELEASE_BRANCH")
        .output()
        .unwrap()
}

/// Asserts the release was refused, saying `why`.
fn refused(run: &Output, why: &str) {
    assert_eq!(run.status.code(), Some(1), "{}", printed(run));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains(why),
        "{why}: {}",
        printed(run)
    );
}

fn remote_tags(repo: &Path) -> String {
    let out = Command::new("git")
        .args(["ls-remote", "--tags", "origin"])
        .current_dir(repo)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_release_creates_and_pushes_the_tag_of_cargo_tomls_version_once_ready() {
    if !have_all(&["bash", "git"], "the release script") {
        return;
    }
    let repo = repository("release-ready");
    // Not pushed yet: the tag would name a commit nobody else has.
    refused(
        &release(&repo, &["--dry-run"]),
        "cannot fetch main from origin",
    );
    git(&repo, &["push", "-q", "origin", "main"]);
    let dry = release(&repo, &["--dry-run"]);
    assert!(dry.status.success(), "{}", printed(&dry));
    assert!(printed(&dry).contains("would tag"), "{}", printed(&dry));
    assert_eq!(remote_tags(&repo), "", "a dry run makes no tag");
    let run = release(&repo, &[]);
    assert!(run.status.success(), "{}", printed(&run));
    assert!(
        remote_tags(&repo).contains("refs/tags/v1.2.3"),
        "{}",
        remote_tags(&repo)
    );
    let kind = Command::new("git")
        .args(["cat-file", "-t", "v1.2.3"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&kind.stdout).trim(),
        "tag",
        "annotated"
    );
    // Once made, never made again.
    refused(
        &release(&repo, &["--dry-run"]),
        "the tag v1.2.3 exists already",
    );
    git(&repo, &["tag", "-d", "v1.2.3"]);
    refused(
        &release(&repo, &["--dry-run"]),
        "the tag v1.2.3 exists at origin already",
    );
    // The release workflow's first step.
    assert!(release(&repo, &["verify", "v1.2.3"]).status.success());
    refused(
        &release(&repo, &["verify", "v1.2.4"]),
        "the tag 'v1.2.4' is not Cargo.toml's version (v1.2.3)",
    );
}

#[test]
fn a_release_is_refused_when_the_repository_is_not_ready() {
    if !have_all(&["bash", "git"], "the release script") {
        return;
    }
    let repo = repository("release-refused");
    git(&repo, &["push", "-q", "origin", "main"]);
    let edit = |file: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(repo.join(file)).unwrap();
        std::fs::write(repo.join(file), text.replace(from, to)).unwrap();
    };
    // A change not committed.
    edit("README.md", "@main", "@main ");
    refused(&release(&repo, &["--dry-run"]), "the work tree has changes");
    git(&repo, &["checkout", "-q", "--", "README.md"]);
    // A pin of a tag that will not exist, in the README or in a page of the manual.
    for (file, pin) in [("README.md", "v1.2.2"), ("docs/src/ci.md", "v1.2.1")] {
        edit(file, "@v1.2.3", &format!("@{pin}"));
        git(&repo, &["commit", "-q", "-am", "pin"]);
        git(&repo, &["push", "-q", "origin", "main"]);
        refused(
            &release(&repo, &["--dry-run"]),
            &format!("pins of tags that do not exist: {file}:{pin}"),
        );
        edit(file, &format!("@{pin}"), "@v1.2.3");
    }
    // Cargo.lock behind Cargo.toml.
    edit("Cargo.toml", "1.2.3", "1.3.0");
    edit("README.md", "@v1.2.3", "@v1.3.0");
    edit("docs/src/ci.md", "@v1.2.3", "@v1.3.0");
    git(&repo, &["commit", "-q", "-am", "1.3.0"]);
    git(&repo, &["push", "-q", "origin", "main"]);
    refused(
        &release(&repo, &["--dry-run"]),
        "Cargo.lock records retrylint 1.2.3, Cargo.toml 1.3.0",
    );
    edit("Cargo.lock", "version = \"1.2.3\"", "version = \"1.3.0\"");
    // A changelog without the version; a commit not pushed; another branch.
    std::fs::write(repo.join("CHANGELOG.md"), "# Changes\n\n## 1.2.3\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "lock"]);
    git(&repo, &["add", "CHANGELOG.md"]);
    git(&repo, &["commit", "-q", "-m", "changelog"]);
    refused(&release(&repo, &["--dry-run"]), "main is not origin's main");
    git(&repo, &["push", "-q", "origin", "main"]);
    refused(
        &release(&repo, &["--dry-run"]),
        "CHANGELOG.md has no heading for 1.3.0",
    );
    std::fs::write(
        repo.join("CHANGELOG.md"),
        "# Changes\n\n## 1.3.0\n\n## 1.2.3\n",
    )
    .unwrap();
    git(&repo, &["commit", "-q", "-am", "changelog"]);
    git(&repo, &["push", "-q", "origin", "main"]);
    git(&repo, &["checkout", "-q", "-b", "topic"]);
    refused(
        &release(&repo, &["--dry-run"]),
        "on 'topic', not the release branch main",
    );
    git(&repo, &["checkout", "-q", "main"]);
    let ready = release(&repo, &["--dry-run"]);
    assert!(ready.status.success(), "{}", printed(&ready));
    assert!(printed(&ready).contains("as v1.3.0"), "{}", printed(&ready));
}
