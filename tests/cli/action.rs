//! The GitHub Action's check step, run as the runner runs it: action/check.sh with the
//! inputs in its environment, the tests' binary on PATH, the runner's files (outputs, job
//! summary) in a scratch folder, and, for the pull-request comment, a stand-in for
//! GitHub's API on 127.0.0.1.

#![cfg(unix)]

use crate::action_support;
use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use action_support::{action_check, ended, have_all, printed, read_or_empty, root};
use common::scratch;
use serde_json::Value;

/// The summary's places link to their file and line at the pull request's head commit
/// when the runner names the server, the repository and a full commit; a malformed one
/// leaves them plain text.
#[test]
fn the_summary_links_places_to_the_head_commit() {
    if !have_all(&["bash"], "the action's check script") {
        return;
    }
    let work = scratch("action-links");
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let run_with = |head: &str, summary: &Path| {
        action_check(root())
            .env("INPUT_PATHS", "fixtures/shop/openapi.yaml")
            .env("INPUT_SUMMARY", "true")
            .env("RUNNER_TEMP", &work)
            .env("GITHUB_STEP_SUMMARY", summary)
            .env("GITHUB_SERVER_URL", "https://github.example")
            .env("GITHUB_REPOSITORY", "octo/shop")
            .env("HEAD_SHA", head)
            .output()
            .unwrap()
    };
    let linked = work.join("linked.md");
    ended(&run_with(sha, &linked), 1);
    let linked = read_or_empty(&linked);
    assert!(
        linked.contains(&format!(
            "(https://github.example/octo/shop/blob/{sha}/fixtures/shop/retry-policy.yaml#L14)"
        )),
        "{linked}"
    );
    let plain = work.join("plain.md");
    ended(&run_with("main; rm -rf /", &plain), 1);
    let plain = read_or_empty(&plain);
    assert!(
        plain.contains("at `fixtures/shop/retry-policy.yaml:14`"),
        "{plain}"
    );
    assert!(!plain.contains("github.example"), "{plain}");
}

#[test]
fn the_action_check_script_writes_sarif_a_summary_and_the_exit_code() {
    if !have_all(&["bash"], "the action's check script") {
        return;
    }
    let work = scratch("action-check");
    let summary = work.join("summary.md");
    let outputs = work.join("outputs");
    let run = action_check(root())
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
    // A clean run exits 0, in any log format.
    for format in ["github", "human", "concise"] {
        let clean = action_check(root())
            .env("INPUT_PATHS", "fixtures/contract/openapi.yaml")
            .env("INPUT_FORMAT", format)
            .env("INPUT_SUMMARY", "false")
            .env("GITHUB_OUTPUT", work.join("clean"))
            .output()
            .unwrap();
        ended(&clean, 0);
    }
}

/// How often `needle` occurs in a run's output.
fn occurrences(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn an_input_error_is_said_once_and_no_sarif_file_is_claimed() {
    if !have_all(&["bash"], "the action's check script") {
        return;
    }
    let work = scratch("action-input-errors");
    // The action's own inputs: one error line each, before retrylint runs.
    for (input, value, said) in [
        (
            "INPUT_FORMAT",
            "json",
            "the format input is 'json': it takes github, human, concise",
        ),
        (
            "INPUT_MODE",
            "lint",
            "the mode input is 'lint': it takes check, diff",
        ),
        (
            "INPUT_FAIL_ON",
            "critical",
            "the fail-on input is 'critical'",
        ),
        (
            "INPUT_SARIF",
            "yes",
            "the sarif input is 'yes': it takes true, false",
        ),
        ("INPUT_COMMENT", "1", "the comment input is '1'"),
        (
            "INPUT_ARGS",
            "--select 'a,b",
            "the args input has an unclosed ' quote",
        ),
        (
            "INPUT_PATHS",
            "\"api.yaml",
            "the paths input has an unclosed \" quote",
        ),
        // A value cannot end the workflow command and start another.
        (
            "INPUT_FORMAT",
            "x\n::warning::y",
            "the format input is 'x%0A::warning::y'",
        ),
    ] {
        let summary = work.join("summary.md");
        let outputs = work.join("outputs");
        let _ = std::fs::remove_file(&outputs);
        let run = action_check(root())
            .env(input, value)
            .env(
                "INPUT_SARIF",
                if input == "INPUT_SARIF" {
                    value
                } else {
                    "true"
                },
            )
            .env("RUNNER_TEMP", &work)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_OUTPUT", &outputs)
            .output()
            .unwrap();
        let stdout = ended(&run, 2);
        assert_eq!(stdout.lines().count(), 1, "{input}: said once: {stdout}");
        assert!(
            stdout.starts_with(&format!("::error title=retrylint input::{said}")),
            "{input}={value}: {stdout}"
        );
        assert_eq!(run.stderr, b"", "{input}: retrylint did not run");
        assert!(!summary.exists(), "{input}: nothing was summarised");
        assert_eq!(read_or_empty(&outputs), "exit-code=2\n");
    }
    // retrylint's own input error (a file that is not there), with SARIF and the summary
    // asked for: printed once, by the check in the log, and no SARIF file is claimed.
    let outputs = work.join("outputs");
    let _ = std::fs::remove_file(&outputs);
    let run = action_check(root())
        .env("INPUT_PATHS", "missing.yaml")
        .env("INPUT_SARIF", "true")
        .env("INPUT_COMMENT", "true")
        .env("PULL_REQUEST_NUMBER", "7")
        .env("RUNNER_TEMP", &work)
        .env("GITHUB_STEP_SUMMARY", work.join("summary.md"))
        .env("GITHUB_OUTPUT", &outputs)
        .output()
        .unwrap();
    ended(&run, 2);
    let all = printed(&run);
    assert_eq!(occurrences(&all, "cannot read `missing.yaml`"), 1, "{all}");
    assert!(all.contains("no SARIF was written"), "{all}");
    assert!(all.contains("no Markdown to comment with"), "{all}");
    let outputs = read_or_empty(&outputs);
    assert!(!outputs.contains("sarif-file="), "{outputs}");
    assert!(outputs.contains("exit-code=2\n"), "{outputs}");
}

#[test]
fn paths_policies_and_args_are_split_as_a_shell_splits_words_and_never_run() {
    if !have_all(&["bash"], "the action's check script") {
        return;
    }
    let work = scratch("action-words");
    let api = work.join("my api");
    std::fs::create_dir_all(&api).unwrap();
    for file in ["openapi.yaml", "retry-policy.yaml"] {
        std::fs::copy(root().join("fixtures/shop").join(file), api.join(file)).unwrap();
    }
    std::fs::rename(api.join("retry-policy.yaml"), api.join("the policy.yaml")).unwrap();
    // A baseline of the one unprotected write, in a file whose name has a space.
    let baseline = common::retrylint_in(
        &work,
        &[
            "check",
            "my api/openapi.yaml",
            "-p",
            "my api/the policy.yaml",
            "--select",
            "unprotected-write-retry",
            "--write-baseline",
            "my file.json",
        ],
    );
    assert!(work.join("my file.json").exists(), "{}", baseline.stderr);
    let run = action_check(&work)
        .env("INPUT_PATHS", "'my api/openapi.yaml'")
        .env("INPUT_POLICY", "my\\ api/the\\ policy.yaml")
        .env("INPUT_FORMAT", "concise")
        .env(
            "INPUT_ARGS",
            "--select 'unprotected-write-retry,backoff-without-jitter'\n  --baseline \"my file.json\"  # the known one",
        )
        .output()
        .unwrap();
    let stdout = ended(&run, 1);
    assert!(stdout.contains("error[backoff-without-jitter]"), "{stdout}");
    assert!(!stdout.contains("unprotected-write-retry"), "{stdout}");
    assert!(!stdout.contains("warning["), "--select reached the check");
    // Command substitutions, backticks, variables and globs are words, never run: each
    // reaches retrylint as written.
    for (input, value, said) in [
        (
            "INPUT_PATHS",
            "\"x $(touch made-by-paths).yaml\" '$HOME'",
            "`x $(touch made-by-paths).yaml`",
        ),
        ("INPUT_PATHS", "`touch made-by-backticks`", "``touch`"),
        (
            "INPUT_POLICY",
            "'$(touch made-by-policy)'",
            "`$(touch made-by-policy)`",
        ),
        (
            "INPUT_ARGS",
            "--baseline \"`touch made-by-args`\"",
            "`touch made-by-args`",
        ),
    ] {
        let mut check = action_check(&work);
        if input != "INPUT_PATHS" {
            check.env("INPUT_PATHS", "'my api/openapi.yaml'");
        }
        let run = check
            .env(input, value)
            .env("INPUT_SUMMARY", "false")
            .output()
            .unwrap();
        ended(&run, 2);
        let all = printed(&run);
        assert!(all.contains(said), "{input}={value}: {all}");
    }
    for made in [
        "made-by-paths",
        "made-by-backticks",
        "made-by-policy",
        "made-by-args",
    ] {
        assert!(!work.join(made).exists(), "{made} was run");
    }
}

#[test]
fn the_action_in_diff_mode_summarises_and_fails_on_a_regression() {
    if !have_all(&["bash", "git"], "the action's diff mode") {
        return;
    }
    let repo = common::repository_losing_its_key("action-diff");
    let summary = repo.join("summary.md");
    let run = action_check(&repo)
        .env("INPUT_MODE", "diff")
        .env("INPUT_BASE", "HEAD~1")
        .env("INPUT_PATHS", "api/openapi.yaml")
        .env("RUNNER_TEMP", &repo)
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
    // Without a base and outside a pull request, diff mode says what it needs, once.
    let bare = action_check(&repo)
        .env("INPUT_MODE", "diff")
        .output()
        .unwrap();
    let stdout = ended(&bare, 2);
    assert!(stdout.starts_with("::error title=retrylint input::diff mode needs a base revision"));
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}

/// The stand-in for GitHub's API: a Python process on 127.0.0.1, ended when dropped.
struct FakeApi {
    child: Child,
    url: String,
    log: PathBuf,
}

impl FakeApi {
    fn start(dir: &Path) -> FakeApi {
        let port_file = dir.join("port");
        let log = dir.join("requests.jsonl");
        let child = Command::new("python3")
            .arg(root().join("tests/data/fake_github_api.py"))
            .args([&port_file, &log])
            .arg("60")
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        // A hang guard counted in polls, not a bound on how fast the API starts.
        let mut polls = 0;
        while !port_file.exists() {
            polls += 1;
            assert!(polls < 1200, "the fake API did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let port = std::fs::read_to_string(&port_file).unwrap();
        FakeApi {
            child,
            url: format!("http://127.0.0.1:{}", port.trim()),
            log,
        }
    }

    /// Points a command at this API, past any proxy.
    fn serve(&self, command: &mut Command) {
        command
            .env("GITHUB_API_URL", &self.url)
            .env("NO_PROXY", "127.0.0.1")
            .env("no_proxy", "127.0.0.1");
    }

    /// The requests made so far.
    fn requests(&self) -> Vec<Value> {
        read_or_empty(&self.log)
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const MARKER: &str = "<!-- retrylint-comment -->";

#[test]
fn the_action_comments_on_the_pull_request_once_and_updates_that_comment() {
    if !have_all(
        &["bash", "curl", "jq", "python3"],
        "the pull-request comment",
    ) {
        return;
    }
    let work = scratch("action-comment");
    let api = FakeApi::start(&work);
    // retrylint, seen through a wrapper that notes the environment it was given.
    let wrapper = work.join("wrapper");
    std::fs::create_dir_all(&wrapper).unwrap();
    std::fs::write(
        wrapper.join("retrylint"),
        format!(
            "#!/bin/sh\nenv >> '{}'\nexec '{}' \"$@\"\n",
            work.join("seen-by-retrylint").display(),
            env!("CARGO_BIN_EXE_retrylint")
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        wrapper.join("retrylint"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let comment = |repository: &str, number: &str, summary: &Path| {
        let mut check = action_check(root());
        api.serve(&mut check);
        check
            .env("PATH", action_support::path_with(&wrapper))
            .env("INPUT_PATHS", "fixtures/shop/openapi.yaml")
            .env("INPUT_COMMENT", "true")
            .env("INPUT_GITHUB_TOKEN", "test-token")
            .env("PULL_REQUEST_NUMBER", number)
            .env("GITHUB_REPOSITORY", repository)
            .env("GITHUB_STEP_SUMMARY", summary)
            .env("RUNNER_TEMP", &work)
            .output()
            .unwrap()
    };
    // The first push: the comment is created, with the marker line first.
    let summary = work.join("summary-1.md");
    let run = comment("o/r", "7", &summary);
    let stdout = ended(&run, 1);
    assert!(
        stdout.contains("retrylint: commented on pull request #7"),
        "{stdout}"
    );
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0]["method"], "GET");
    assert_eq!(
        requests[0]["path"],
        "/repos/o/r/issues/7/comments?per_page=100&page=1"
    );
    assert_eq!(requests[1]["method"], "POST");
    assert_eq!(requests[1]["path"], "/repos/o/r/issues/7/comments");
    for request in &requests {
        assert_eq!(request["authorization"], "Bearer test-token");
    }
    let body = requests[1]["body"]["body"].as_str().unwrap();
    assert!(body.starts_with(&format!("{MARKER}\n")), "{body}");
    assert_eq!(body.matches(MARKER).count(), 1);
    // The same Markdown as the job summary.
    let summarised = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(
        body.trim_start_matches(&format!("{MARKER}\n")),
        summarised.trim_start_matches(&format!("{MARKER}\n"))
    );
    assert!(
        body.contains("6 errors, 2 warnings in 8 operations"),
        "{body}"
    );
    // The token went to the API alone, never to retrylint.
    let seen = read_or_empty(&work.join("seen-by-retrylint"));
    assert!(seen.contains("INPUT_PATHS="), "the wrapper ran");
    assert!(!seen.contains("test-token"), "{seen}");
    // The next push edits that comment: no second one.
    let run = comment("o/r", "7", &work.join("summary-2.md"));
    let stdout = ended(&run, 1);
    assert!(
        stdout.contains("retrylint: updated the pull request's comment 1001"),
        "{stdout}"
    );
    let requests = api.requests();
    assert_eq!(requests.len(), 4, "{requests:?}");
    assert_eq!(requests[3]["method"], "PATCH");
    assert_eq!(requests[3]["path"], "/repos/o/r/issues/comments/1001");
    // Outside a pull request nothing is posted, and it says so.
    let run = comment("o/r", "", &work.join("summary-3.md"));
    let stdout = ended(&run, 1);
    assert!(stdout.contains("not a pull request"), "{stdout}");
    assert_eq!(api.requests().len(), 4);
    // A token that may not comment: a warning, and the check's result stands.
    let run = comment("o/locked", "8", &work.join("summary-4.md"));
    let stdout = ended(&run, 1);
    assert!(
        stdout.contains("::warning title=retrylint comment::the pull request could not be commented on (the job needs pull-requests: write)"),
        "{stdout}"
    );
    assert!(read_or_empty(&work.join("summary-4.md")).contains("## retrylint"));
}

#[test]
fn the_comment_script_adds_the_marker_only_when_the_markdown_lacks_it() {
    if !have_all(
        &["bash", "curl", "jq", "python3"],
        "the pull-request comment",
    ) {
        return;
    }
    let work = scratch("action-comment-marker");
    let api = FakeApi::start(&work);
    let markdown = work.join("summary.md");
    std::fs::write(
        &markdown,
        format!("{MARKER}\n## retrylint\n\nno findings\n"),
    )
    .unwrap();
    for _ in 0..2 {
        let mut script = Command::new("bash");
        api.serve(&mut script);
        let run = script
            .arg(root().join("action/comment.sh"))
            .arg(&markdown)
            .env("PULL_REQUEST_NUMBER", "3")
            .env("GITHUB_REPOSITORY", "o/r")
            .env("INPUT_GITHUB_TOKEN", "t")
            .env("RUNNER_TEMP", &work)
            .output()
            .unwrap();
        ended(&run, 0);
    }
    let requests = api.requests();
    let methods: Vec<&str> = requests
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["GET", "POST", "GET", "PATCH"]);
    for written in [&requests[1], &requests[3]] {
        assert_eq!(
            written["body"]["body"],
            format!("{MARKER}\n## retrylint\n\nno findings\n")
        );
    }
}
