//! How retrylint reaches users: the GitHub Action and its scripts, the release and CI
//! workflows, the pre-commit hooks and the instructions of the README and the manual's CI
//! page (`docs/src/ci.md`) — validated against the
//! published schemas, and the scripts run for real where the tools they use are here.

use crate::action_support;
use crate::common;

use std::path::Path;
use std::process::Command;

use action_support::{have, root};
use common::{docs, schema_errors, scratch, yaml_file};
use serde_json::Value;

#[test]
fn the_action_validates_and_passes_every_input_to_its_scripts() {
    let action = yaml_file("action.yml");
    assert_eq!(
        schema_errors("github-action.schema.json", &action),
        Vec::<String>::new()
    );
    assert_eq!(action["runs"]["using"], "composite");
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    for (input, _) in action["inputs"].as_object().unwrap() {
        assert!(
            text.contains(&format!("inputs.{input} "))
                || text.contains(&format!("inputs.{input} }}}}")),
            "{input} is used"
        );
    }
    // Inputs reach the scripts as environment variables, never pasted into a script.
    for step in action["runs"]["steps"].as_array().unwrap() {
        if let Some(run) = step["run"].as_str() {
            assert!(!run.contains("${{"), "{run}");
        }
    }
}

#[test]
fn the_workflows_validate() {
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join(".github/workflows")).unwrap() {
        let path = entry.unwrap().path();
        let name = path
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let workflow = yaml_file(&name);
        assert_eq!(
            schema_errors("github-workflow.schema.json", &workflow),
            Vec::<String>::new(),
            "{name}"
        );
        checked += 1;
    }
    assert!(checked >= 2);
    // The schema does catch a broken workflow.
    let broken = yaml("on: push\njobs:\n  a:\n    steps: [{run: x}]\n    runs_on: ubuntu-latest\n");
    assert!(!schema_errors("github-workflow.schema.json", &broken).is_empty());
    let broken = yaml("name: x\ndescription: y\nruns: {using: composite, steps: [{run: x}]}\n");
    assert!(
        !schema_errors("github-action.schema.json", &broken).is_empty(),
        "a run step needs a shell"
    );
    // The release builds every target the action installs.
    let release = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    let install = std::fs::read_to_string(root().join("action/install.sh")).unwrap();
    for target in [
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(
            release.contains(target) && install.contains(target),
            "{target}"
        );
    }
}

fn yaml(text: &str) -> Value {
    let (node, _) =
        retrylint::input::source::parse(text, retrylint::input::source::ParseLimits::default())
            .unwrap();
    common::to_json(&node)
}

#[test]
fn the_ci_page_workflows_and_hooks_are_valid() {
    let page = docs::page("ci.md");
    let mut workflows = 0;
    for block in docs::blocks(&page, "yaml") {
        let value = yaml(block);
        if value.get("jobs").is_some() {
            assert_eq!(
                schema_errors("github-workflow.schema.json", &value),
                Vec::<String>::new(),
                "{block}"
            );
            workflows += 1;
        }
    }
    assert!(
        workflows >= 2,
        "the CI page shows the action and a plain workflow"
    );
    // The pre-commit example names a revision that exists, and hooks that exist.
    let hooks = yaml_file(".pre-commit-hooks.yaml");
    assert_eq!(
        schema_errors("pre-commit-hooks.schema.json", &hooks),
        Vec::<String>::new()
    );
    let ids: Vec<&str> = hooks
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    let example = docs::blocks(docs::section(&page, "## pre-commit"), "yaml");
    let config = yaml(example[0]);
    let repo = &config["repos"][0];
    for hook in repo["hooks"].as_array().unwrap() {
        assert!(ids.contains(&hook["id"].as_str().unwrap()), "{hook}");
        assert!(hook.get("args").is_none(), "the hook works without args");
    }
    // The revision is a commit (a tag moves; no version is released yet) that this
    // repository holds, with the hooks the example names.
    let rev = repo["rev"].as_str().unwrap();
    assert!(
        rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()),
        "{rev}"
    );
    look_for_revision(rev, &ids_of(&example_hooks(&config)));
    // Each hook's command line is one the binary takes.
    for hook in hooks.as_array().unwrap() {
        let entry = hook["entry"].as_str().unwrap();
        let mut words: Vec<&str> = entry.split_whitespace().skip(1).collect();
        words.push("--help");
        let run = common::retrylint(&words);
        assert_eq!(run.code, 0, "{entry}: {}", run.stderr);
    }
}

/// The hook ids an example pre-commit configuration uses.
fn example_hooks(config: &Value) -> Vec<Value> {
    config["repos"][0]["hooks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn ids_of(hooks: &[Value]) -> Vec<String> {
    hooks
        .iter()
        .filter_map(|hook| hook["id"].as_str().map(str::to_owned))
        .collect()
}

/// Fails unless `rev` is a commit of this repository whose `.pre-commit-hooks.yaml`
/// declares `ids` (when this is a git checkout).
fn look_for_revision(rev: &str, ids: &[String]) {
    if !root().join(".git").exists() {
        eprintln!("note: not a git checkout; the revision {rev} was not looked for");
        return;
    }
    let hooks = Command::new("git")
        .args(["show", &format!("{rev}:.pre-commit-hooks.yaml")])
        .current_dir(root())
        .output()
        .unwrap();
    let shallow = Command::new("git")
        .args(["rev-parse", "--is-shallow-repository"])
        .current_dir(root())
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "true");
    if !hooks.status.success() && shallow {
        eprintln!("note: a shallow clone; the revision {rev} was not looked for");
        return;
    }
    assert!(
        hooks.status.success(),
        "the commit {rev} is in this repository, with hooks: {}",
        String::from_utf8_lossy(&hooks.stderr)
    );
    let declared = ids_of(
        yaml(&String::from_utf8_lossy(&hooks.stdout))
            .as_array()
            .unwrap(),
    );
    for id in ids {
        assert!(declared.contains(id), "{id} at {rev}");
    }
}

/// Each `uses:` of a workflow, the action or an example of the docs, with its line.
fn uses_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim_start)
        .filter_map(|line| {
            line.strip_prefix("- uses: ")
                .or(line.strip_prefix("uses: "))
        })
        .collect()
}

#[test]
fn every_action_used_is_pinned_to_a_commit_with_its_version() {
    let mut workflows = Vec::new();
    for entry in std::fs::read_dir(root().join(".github/workflows")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        workflows.push(format!(".github/workflows/{name}"));
    }
    let mut files = vec!["action.yml".to_owned()];
    files.extend(docs::readme_and_pages().into_iter().map(|(file, _)| file));
    files.extend(workflows.iter().cloned());
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        for uses in uses_lines(&text) {
            // This repository's own action: the checkout under test, or the examples'
            // `@main` (a commit of it is the pinned form, which the CI page says).
            let own = uses.split(" #").next().unwrap_or(uses).trim();
            if own == "./" || own == "retrylint/retrylint@main" {
                continue;
            }
            let (reference, comment) = uses.split_once(" # ").unwrap_or((uses, ""));
            let (_, commit) = reference.split_once('@').unwrap_or((reference, ""));
            assert!(
                commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
                "{file}: {uses} is pinned to a commit"
            );
            assert!(comment.starts_with('v'), "{file}: {uses} names its version");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
    // Every checkout leaves no credentials behind for later steps.
    for file in &workflows {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        assert_eq!(
            text.matches("actions/checkout@").count(),
            text.matches("persist-credentials: false").count(),
            "{file}"
        );
    }
}

#[test]
fn no_install_instruction_names_a_tag_that_does_not_exist() {
    let mut files: Vec<(String, String)> = ["action.yml", ".pre-commit-hooks.yaml", "Dockerfile"]
        .iter()
        .map(|file| (file.to_string(), docs::read(file)))
        .collect();
    files.extend(docs::readme_and_pages());
    for (file, text) in &files {
        for pin in [
            "retrylint@v",
            "--tag v",
            "rev: v",
            "releases/download/v",
            "version=v",
        ] {
            for (at, _) in text.match_indices(pin) {
                let tag: String = text[at + pin.len() - 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
                    .collect();
                if !tag[1..].starts_with(|c: char| c.is_ascii_digit()) {
                    continue; // a placeholder such as vX.Y.Z
                }
                let exists = Command::new("git")
                    .args([
                        "rev-parse",
                        "--verify",
                        "--quiet",
                        &format!("refs/tags/{tag}"),
                    ])
                    .current_dir(root())
                    .output()
                    .is_ok_and(|out| out.status.success());
                assert!(
                    exists,
                    "{file} pins {tag}, which is not a tag of this repository"
                );
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn the_action_installs_a_release_and_refuses_a_bad_checksum() {
    if !["bash", "curl", "tar", "sha256sum"].iter().all(|t| have(t)) {
        eprintln!("note: bash, curl, tar or sha256sum missing; the installer was not run");
        return;
    }
    let work = scratch("action-install");
    let releases = work.join("mirror/retrylint/retrylint/releases/download/v9.9.9");
    std::fs::create_dir_all(&releases).unwrap();
    // A release as the release workflow packages it, for the runner's Linux/X64 target.
    let packaged = Command::new("bash")
        .arg(root().join("scripts/package.sh"))
        .args([
            env!("CARGO_BIN_EXE_retrylint"),
            "v9.9.9",
            "x86_64-unknown-linux-musl",
        ])
        .arg(&releases)
        .output()
        .unwrap();
    assert!(
        packaged.status.success(),
        "{}",
        String::from_utf8_lossy(&packaged.stderr)
    );
    let install = |temp: &Path| {
        std::fs::create_dir_all(temp).unwrap();
        Command::new("bash")
            .arg(root().join("action/install.sh"))
            .env("RETRYLINT_VERSION", "v9.9.9")
            .env("ACTION_REPOSITORY", "retrylint/retrylint")
            .env(
                "RETRYLINT_DOWNLOAD_BASE",
                format!("file://{}", work.join("mirror").display()),
            )
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("RUNNER_TEMP", temp)
            .env("GITHUB_PATH", temp.join("path"))
            // No cargo: a failed download must not fall back to building here.
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap()
    };
    let temp = work.join("runner");
    let run = install(&temp);
    assert!(
        run.status.success(),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let installed = temp.join("retrylint/bin/retrylint");
    let version = Command::new(&installed).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("retrylint "));
    let path = std::fs::read_to_string(temp.join("path")).unwrap();
    assert_eq!(
        path.trim(),
        temp.join("retrylint/bin").display().to_string()
    );
    // A tampered archive is refused.
    let archive = releases.join("retrylint-v9.9.9-x86_64-unknown-linux-musl.tar.gz");
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&archive, bytes).unwrap();
    let run = install(&work.join("runner-2"));
    assert!(!run.status.success());
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("does not match"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[cfg(unix)]
#[test]
fn a_release_archive_holds_the_binary_licences_completions_and_manual() {
    if !["bash", "tar", "sha256sum"].iter().all(|t| have(t)) {
        eprintln!("note: bash, tar or sha256sum missing; the packaging was not run");
        return;
    }
    let out = scratch("package");
    let run = Command::new("bash")
        .arg(root().join("scripts/package.sh"))
        .args([
            env!("CARGO_BIN_EXE_retrylint"),
            "v1.2.3",
            "x86_64-unknown-linux-gnu",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let archive = "retrylint-v1.2.3-x86_64-unknown-linux-gnu.tar.gz";
    let list = Command::new("tar")
        .arg("-tzf")
        .arg(out.join(archive))
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    for file in [
        "retrylint",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "README.md",
        "completions/retrylint.bash",
        "completions/retrylint.zsh",
        "completions/retrylint.fish",
        "man/retrylint.1",
        "man/retrylint-check.1",
    ] {
        assert!(
            list.contains(&format!(
                "retrylint-v1.2.3-x86_64-unknown-linux-gnu/{file}\n"
            )),
            "{file}:\n{list}"
        );
    }
    let check = Command::new("sha256sum")
        .args(["-c", &format!("{archive}.sha256")])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(check.status.success());
}
