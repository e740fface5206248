//! How retrylint reaches users: the GitHub Action and its scripts, the release and CI
//! workflows, the pre-commit hooks and the README's instructions — validated against the
//! published schemas, and the scripts run for real where the tools they use are here.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{schema_errors, scratch, yaml_file};
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

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

/// The fenced blocks of a README section, by their language.
fn blocks<'a>(readme: &'a str, section: &str, language: &str) -> Vec<&'a str> {
    let start = readme.find(section).unwrap_or_else(|| panic!("{section}"));
    let rest = &readme[start + section.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    let body = &rest[..end];
    let fence = format!("```{language}\n");
    body.match_indices(&fence)
        .map(|(i, _)| {
            let from = i + fence.len();
            &body[from..from + body[from..].find("```").unwrap()]
        })
        .collect()
}

fn yaml(text: &str) -> Value {
    let (node, _) =
        retrylint::source::parse(text, retrylint::source::ParseLimits::default()).unwrap();
    common::to_json(&node)
}

#[test]
fn the_readme_workflows_and_hooks_are_valid() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut workflows = 0;
    for block in blocks(&readme, "## In CI", "yaml") {
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
        "the README shows the action and a plain workflow"
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
    let example = blocks(&readme, "### pre-commit", "yaml");
    let config = yaml(example[0]);
    let repo = &config["repos"][0];
    for hook in repo["hooks"].as_array().unwrap() {
        assert!(ids.contains(&hook["id"].as_str().unwrap()), "{hook}");
        assert!(hook.get("args").is_none(), "the hook works without args");
    }
    let rev = repo["rev"].as_str().unwrap();
    assert_eq!(rev, format!("v{}", env!("CARGO_PKG_VERSION")));
    // A clone made with `--no-tags` (or a single-branch CI checkout) has no
    // tags at all: the revision can only be looked for where tags were fetched.
    let tags = Command::new("git")
        .args(["tag", "--list"])
        .current_dir(root())
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_default();
    if tags.is_empty() {
        eprintln!("note: this checkout has no tags; the tag {rev} was not looked for");
    } else {
        look_for_revision(rev);
    }
    // Each hook's command line is one the binary takes.
    for hook in hooks.as_array().unwrap() {
        let entry = hook["entry"].as_str().unwrap();
        let mut words: Vec<&str> = entry.split_whitespace().skip(1).collect();
        words.push("--help");
        let run = common::retrylint(&words);
        assert_eq!(run.code, 0, "{entry}: {}", run.stderr);
    }
}

/// Fails unless `rev` names a commit of this checkout (when it is one).
fn look_for_revision(rev: &str) {
    match Command::new("git")
        .args([
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ])
        .current_dir(root())
        .output()
    {
        Ok(out) if Path::new(root()).join(".git").exists() => {
            assert!(
                out.status.success(),
                "the tag {rev} exists in this repository"
            )
        }
        _ => eprintln!("note: not a git checkout; the tag {rev} was not looked for"),
    }
}

/// Whether a command is on this machine.
fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok()
}

/// The folder the tests' binary is in, to put on PATH.
fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_retrylint"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn path_with(dir: &Path) -> String {
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The action's check script, run in `dir` with the tests' binary on PATH.
fn action_check(dir: &Path) -> Command {
    let mut command = Command::new("bash");
    command
        .arg(root().join("action/check.sh"))
        .current_dir(dir)
        .env("PATH", path_with(&bin_dir()));
    command
}

/// Asserts a run ended with `code`, showing what it printed when not; returns stdout.
fn ended(run: &std::process::Output, code: i32) -> String {
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(
        run.status.code(),
        Some(code),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

#[cfg(unix)]
#[test]
fn the_action_check_script_writes_sarif_a_summary_and_the_exit_code() {
    if !have("bash") {
        eprintln!("note: no bash here; the action's check script was not run");
        return;
    }
    let work = scratch("action-check");
    let summary = work.join("summary.md");
    let outputs = work.join("outputs");
    let run = action_check(root())
        .env("NO_COLOR", "1")
        .env(
            "INPUT_PATHS",
            "fixtures/shop/openapi.yaml\nfixtures/contract/openapi.yaml",
        )
        .env("INPUT_POLICY", "")
        .env("INPUT_FORMAT", "github")
        .env("INPUT_FAIL_ON", "error")
        .env("INPUT_SARIF", "true")
        .env("INPUT_SUMMARY", "true")
        .env("INPUT_ARGS", "--ignore backoff-without-jitter")
        .env("RUNNER_TEMP", &work)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .output()
        .unwrap();
    let stdout = ended(&run, 1);
    assert!(stdout.starts_with("retrylint: 5 errors"), "{stdout}");
    assert!(stdout.contains("::error file=fixtures/shop/retry-policy.yaml"));
    assert!(
        !stdout.contains("backoff-without-jitter"),
        "args reach the check"
    );
    let outputs = std::fs::read_to_string(&outputs).unwrap();
    assert!(outputs.contains("exit-code=1\n"), "{outputs}");
    let sarif_file = work.join("retrylint.sarif");
    assert!(outputs.contains(&format!("sarif-file={}\n", sarif_file.display())));
    let sarif = std::fs::read_to_string(&sarif_file).unwrap();
    assert!(common::sarif_errors(&sarif).is_empty());
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        summary.starts_with("<!-- retrylint-comment -->\n## retrylint\n"),
        "{summary}"
    );
    assert!(
        summary.contains("| `fixtures/contract/openapi.yaml` | none |"),
        "{summary}"
    );
    // A clean run exits 0; an input error exits 2.
    let clean = action_check(root())
        .env("INPUT_PATHS", "fixtures/contract/openapi.yaml")
        .env("INPUT_SUMMARY", "false")
        .env("GITHUB_OUTPUT", work.join("clean"))
        .output()
        .unwrap();
    assert_eq!(clean.status.code(), Some(0));
    let broken = action_check(root())
        .env("INPUT_PATHS", "missing.yaml")
        .env("INPUT_SUMMARY", "false")
        .output()
        .unwrap();
    assert_eq!(broken.status.code(), Some(2));
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

#[cfg(unix)]
#[test]
fn the_action_in_diff_mode_summarises_and_fails_on_a_regression() {
    if !have("bash") || !have("git") {
        eprintln!("note: no bash or git here; the action's diff mode was not run");
        return;
    }
    let repo = common::repository_losing_its_key("action-diff");
    let summary = repo.join("summary.md");
    let run = action_check(&repo)
        .env("INPUT_MODE", "diff")
        .env("INPUT_BASE", "HEAD~1")
        .env("INPUT_PATHS", "api/openapi.yaml")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", repo.join("outputs"))
        .output()
        .unwrap();
    let stdout = ended(&run, 1);
    assert!(
        stdout.contains(
            "::error file=api/openapi.yaml,line=5,endLine=5,title=retrylint diff key-removed::"
        ),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        summary.starts_with("<!-- retrylint-comment -->\n## retrylint diff\n"),
        "{summary}"
    );
    assert!(summary.contains("`key-removed`"), "{summary}");
    // Without a base and outside a pull request, diff mode says what it needs.
    let bare = action_check(&repo)
        .env("INPUT_MODE", "diff")
        .env_remove("GITHUB_BASE_REF")
        .output()
        .unwrap();
    assert_eq!(bare.status.code(), Some(2));
}
