//! `retrylint diff` and `retrylint check --base`: what a change does to the retry
//! contract, through the binary.

use crate::common;

use std::process::Command;

use common::{retrylint, retrylint_in, scratch};
use serde_json::Value;

const BASE: &str = "fixtures/diff/base/openapi.yaml";
const HEAD: &str = "fixtures/diff/head/openapi.yaml";

fn diff(extra: &[&str]) -> common::Run {
    let mut args = vec!["diff", BASE, HEAD];
    args.extend_from_slice(extra);
    retrylint(&args)
}

fn json(extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let run = diff(&args);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stderr))
}

/// The kinds and classes of an operation's changes.
fn changes(doc: &Value, path: &str) -> Vec<(String, String)> {
    doc["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["path"] == path)
        .unwrap_or_else(|| panic!("{path} changed"))["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap().to_string(),
                c["class"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn has(list: &[(String, String)], kind: &str, class: &str) -> bool {
    list.iter().any(|(k, c)| k == kind && c == class)
}

#[test]
fn each_change_kind_is_found_and_classified() {
    let doc = json(&[]);
    assert_eq!(doc["version"], 1);
    let orders = changes(&doc, "/orders");
    assert!(has(&orders, "key-removed", "regression"), "{orders:?}");
    assert!(has(&orders, "conflict-response-removed", "regression"));
    assert!(has(
        &changes(&doc, "/payments"),
        "key-made-optional",
        "regression"
    ));
    assert!(has(&changes(&doc, "/refunds"), "key-renamed", "regression"));
    assert!(has(
        &changes(&doc, "/exports"),
        "status-endpoint-removed",
        "regression"
    ));
    // `/items/{itemId}` became `/items/{id}`: the same operation, matched by its template.
    let items = changes(&doc, "/items/{id}");
    for (kind, class) in [
        ("wait-hint-removed", "regression"),
        ("throttle-status-removed", "regression"),
        ("retried-on-new-signal", "neutral"),
        ("max-attempts-up", "regression"),
        ("jitter-removed", "regression"),
        ("retry-after-ignored", "regression"),
    ] {
        assert!(has(&items, kind, class), "{kind}: {items:?}");
    }
    assert!(has(
        &changes(&doc, "/search"),
        "idempotency-changed",
        "regression"
    ));
    assert!(has(
        &changes(&doc, "/subscriptions"),
        "new-unprotected-write",
        "regression"
    ));
    let carts = changes(&doc, "/carts");
    assert!(has(&carts, "key-added", "improvement"));
    assert!(has(&carts, "conflict-response-added", "improvement"));
    let summary = &doc["summary"];
    assert_eq!(summary["regressions"], 12);
    assert_eq!(summary["improvements"], 2);
    // Regressions first.
    let first = &doc["operations"][0]["changes"][0];
    assert_eq!(first["class"], "regression");
    // Places point into each version.
    let removed = &doc["operations"][0]["changes"][0];
    assert_eq!(removed["base"]["file"], BASE);
    assert_eq!(removed["head"]["file"], HEAD);
}

#[test]
fn the_findings_are_new_fixed_or_unchanged() {
    let doc = json(&[]);
    let new: Vec<&str> = doc["findings"]["new"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(new.contains(&"idempotency-key-undeclared"), "{new:?}");
    assert!(new.contains(&"backoff-without-jitter"));
    // The base's 503 without Retry-After is gone with it, and the schedule that did not fit.
    assert_eq!(doc["findings"]["fixed"].as_array().unwrap().len(), 2);
}

#[test]
fn a_link_that_stops_leading_anywhere_is_a_regression_with_its_finding() {
    let rule = "fixtures/rules/link-target-missing";
    let run = retrylint(&[
        "diff",
        &format!("{rule}/pass/openapi.yaml"),
        &format!("{rule}/fail/openapi.yaml"),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    for path in ["/orders", "/orders/{orderId}/cancel"] {
        assert!(
            has(
                &changes(&doc, path),
                "status-endpoint-removed",
                "regression"
            ),
            "{path}: {}",
            run.stdout
        );
    }
    let new: Vec<&str> = doc["findings"]["new"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .filter(|r| *r == "link-target-missing")
        .collect();
    assert_eq!(new.len(), 2, "{}", run.stdout);
}

#[test]
fn check_base_refuses_a_base_file_over_the_size_limit_by_its_size() {
    let dir = scratch("diff-git-large");
    common::git(&dir, &["init", "-q"]);
    let padding = "x".repeat(50_000);
    std::fs::write(
        dir.join("openapi.yaml"),
        format!("openapi: 3.0.3\ninfo: {{title: t, version: '1', description: {padding}}}\npaths: {{}}\n"),
    )
    .unwrap();
    common::git(&dir, &["add", "."]);
    common::git(&dir, &["commit", "-q", "-m", "large"]);
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
    )
    .unwrap();
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "--base",
            "HEAD",
            "--max-file-size",
            "10000",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.transcript());
    // Its real size, as the loader reads it from the file standing for the blob, and
    // its name at the revision, not the scratch folder's.
    assert!(
        run.stderr
            .contains("`HEAD:openapi.yaml` is 50071 bytes, over the limit of 10000 bytes"),
        "{}",
        run.stderr
    );
}

#[test]
fn check_base_refuses_the_options_it_does_not_apply() {
    for extra in [
        &["--select", "missing-deadline"][..],
        &["--baseline", "b.json"],
        &["--statistics"],
        &["--max-findings", "3"],
    ] {
        let mut args = vec!["check", HEAD, "--base", "HEAD"];
        args.extend_from_slice(extra);
        let run = retrylint(&args);
        assert_eq!(run.code, 2, "{extra:?}: {}", run.transcript());
        assert!(
            run.stderr.contains("cannot be used with"),
            "{extra:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_regression_fails_and_no_change_passes() {
    let run = diff(&[]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!("diff-text", run.stdout);
    assert_eq!(diff(&["--format", "human"]).stdout, run.stdout);
    // A description against itself: nothing changed, exit 0.
    let same = retrylint(&["diff", HEAD, HEAD]);
    assert_eq!(same.code, 0, "{}", same.stdout);
    assert!(same.stdout.contains(
        "0 regressions, 0 improvements, 0 neutral changes in 0 operations; 0 new findings, 0 fixed"
    ));
    // Only improvements: exit 0 unless a new finding fails.
    let back = retrylint(&["diff", HEAD, BASE, "--format", "json"]);
    let doc: Value = serde_json::from_str(&back.stdout).unwrap();
    assert!(doc["summary"]["improvements"].as_u64().unwrap() > 5);
}

#[test]
fn the_markdown_comment_puts_regressions_and_new_errors_first_and_folds_the_rest() {
    let run = diff(&["--format", "markdown"]);
    assert_eq!(run.code, 1);
    let text = &run.stdout;
    assert!(text.starts_with("<!-- retrylint-comment -->\n## retrylint diff\n"));
    let find = |heading: &str| {
        text.find(heading)
            .unwrap_or_else(|| panic!("no `{heading}` in\n{text}"))
    };
    let order = [
        find("### Regressions (12)"),
        find("### New errors (5)"),
        find("### New warnings (4)"),
        find("### New info (2)"),
        find("<details><summary>Improvements (2)</summary>"),
        find("<details><summary>Fixed findings (2)</summary>"),
    ];
    assert!(order.is_sorted(), "{order:?}");
    // Every new error is listed before the first new warning, none inside <details>.
    let errors = &text[order[1]..order[2]];
    assert_eq!(errors.matches("- **error**").count(), 5);
    assert!(!errors.contains("<details>"));
    assert!(!text[order[2]..order[5]].contains("- **error**"));
    insta::assert_snapshot!("diff-markdown", run.stdout);
}

#[test]
fn github_annotates_regressions_on_the_head_and_sarif_holds_new_findings() {
    let run = diff(&["--format", "github"]);
    assert_eq!(run.code, 1);
    let regressions: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("title=retrylint diff "))
        .collect();
    assert_eq!(regressions.len(), 12, "{}", run.stdout);
    assert!(
        regressions
            .iter()
            .all(|l| l.starts_with("::error file=fixtures/diff/head/"))
    );
    let sarif = diff(&["--format", "sarif"]);
    assert!(common::sarif_errors(&sarif.stdout).is_empty());
    let log: Value = serde_json::from_str(&sarif.stdout).unwrap();
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 11);
}

#[test]
fn text_from_a_description_cannot_act_in_a_comment() {
    let dir = scratch("diff-hostile");
    let spec = |key: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  \"/a\\n::error::x <img src=x onerror=alert(1)> @octocat [l](https://e.example)\":\n    post:\n      operationId: \"op<script>\"\n      parameters:\n        - {{name: {key}, in: header, required: true, schema: {{type: string}}}}\n      responses: {{'201': {{description: ok}}, '409': {{description: c}}}}\n"
        )
    };
    std::fs::write(dir.join("base.yaml"), spec("Idempotency-Key")).unwrap();
    std::fs::write(dir.join("head.yaml"), spec("\"X-Idempotency-Key`<b>|\"")).unwrap();
    for format in ["markdown", "text", "github"] {
        let run = retrylint_in(
            &dir,
            &["diff", "base.yaml", "head.yaml", "--format", format],
        );
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        let out = &common::outside_code_spans(&run.stdout);
        if format == "markdown" {
            assert!(!out.contains("<img"), "{format}: {out}");
            assert!(!out.contains("<script>"), "{format}: {out}");
            assert!(!out.contains("<b>"), "{format}: {out}");
            assert!(!out.contains("](https://e.example)"), "{format}: {out}");
        }
        assert!(
            !run.stdout.chars().any(|c| c.is_control() && c != '\n'),
            "{format}: a raw control character"
        );
        for line in run.stdout.lines() {
            assert!(
                !line.starts_with("::")
                    || line.starts_with("::error file=")
                    || line.starts_with("::warning file=")
                    || line.starts_with("::notice"),
                "{format}: {line}"
            );
        }
        if format == "markdown" {
            assert!(!out.contains("@octocat"), "no mention: {out}");
        }
    }
}

#[test]
fn check_base_reads_the_previous_commit_with_git() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("note: no git here; check --base was not run");
        return;
    }
    // A multi-file description whose shared key parameter stops being the key.
    let dir = common::repository_losing_its_key("diff-git");
    let before = std::fs::read_to_string(dir.join("api/parts/key.yaml")).unwrap();
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "api/openapi.yaml",
            "--base",
            "HEAD~1",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    let orders = changes(&doc, "/orders");
    assert!(has(&orders, "key-removed", "regression"), "{orders:?}");
    assert_eq!(doc["base"]["description"], "HEAD~1:api/openapi.yaml");
    let base = &doc["operations"][0]["changes"][0]["base"];
    // Where the base's description takes the key's parameter, named as at that revision.
    assert_eq!(base["file"], "HEAD~1:api/openapi.yaml", "{base}");
    assert_eq!(base["line"], 8, "{base}");
    // Nothing in the work tree changed, and the scratch folder is gone.
    assert_eq!(
        std::fs::read_to_string(dir.join("api/parts/key.yaml")).unwrap(),
        before
    );
    let status = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        status.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
    // A format that cannot show a change is refused.
    let junit = retrylint_in(
        &dir,
        &[
            "check",
            "api/openapi.yaml",
            "--base",
            "HEAD~1",
            "--format",
            "junit",
        ],
    );
    assert_eq!(junit.code, 2);
    assert!(
        junit
            .stderr
            .contains("--base shows a change in human, json, markdown, github or sarif output"),
        "{}",
        junit.stderr
    );
    // A revision that does not exist is an input error.
    let bad = retrylint_in(
        &dir,
        &["check", "api/openapi.yaml", "--base", "no-such-ref"],
    );
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("is not a commit"), "{}", bad.stderr);
    let flag = retrylint_in(
        &dir,
        &["check", "api/openapi.yaml", "--base", "--upload-pack=x"],
    );
    assert_eq!(flag.code, 2);
    // Against itself: nothing.
    let same = retrylint_in(&dir, &["check", "api/openapi.yaml", "--base", "HEAD"]);
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    // A description the change adds: every operation is new, an unprotected write a
    // regression; the work tree is untouched.
    std::fs::write(
        dir.join("api/jobs.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /jobs:\n    post:\n      operationId: createJob\n      responses: {'201': {description: ok}}\n  /jobs/{id}:\n    get:\n      operationId: getJob\n      responses: {'200': {description: ok}}\n",
    )
    .unwrap();
    let added = retrylint_in(
        &dir,
        &[
            "check",
            "api/jobs.yaml",
            "--base",
            "HEAD",
            "--format",
            "json",
        ],
    );
    assert_eq!(added.code, 1, "{}{}", added.stdout, added.stderr);
    assert!(
        added
            .stderr
            .contains("does not exist at HEAD: every operation is new"),
        "{}",
        added.stderr
    );
    let doc: Value = serde_json::from_str(&added.stdout).unwrap();
    assert!(has(
        &changes(&doc, "/jobs"),
        "new-unprotected-write",
        "regression"
    ));
    assert!(has(
        &changes(&doc, "/jobs/{id}"),
        "operation-added",
        "neutral"
    ));
    // --quiet keeps the note off standard error, not the regression off the result.
    let quiet = retrylint_in(&dir, &["check", "api/jobs.yaml", "--base", "HEAD", "-q"]);
    assert_eq!(quiet.code, 1, "{}", quiet.transcript());
    assert_eq!(quiet.stderr, "");
    let status = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "?? api/jobs.yaml\n"
    );
    // The folder now names two descriptions: one JSON document cannot hold both diffs.
    let two = retrylint_in(
        &dir,
        &["check", "api", "--base", "HEAD~1", "--format", "json"],
    );
    assert_eq!(two.code, 2, "{}", two.stdout);
    assert!(
        two.stderr.contains("compares one description at a time"),
        "{}",
        two.stderr
    );
    let both = retrylint_in(
        &dir,
        &["check", "api", "--base", "HEAD~1", "--format", "markdown"],
    );
    assert_eq!(both.code, 1, "{}", both.stderr);
    assert_eq!(both.stdout.matches("## retrylint diff").count(), 2);
}

#[test]
fn the_review_page_shows_the_comment_as_it_is() {
    let page = common::docs::page("review.md");
    let section = &page[page.find("# Review a change").expect("the page's title")..];
    let start = section.find("```markdown\n").expect("a markdown block") + "```markdown\n".len();
    let end = start
        + section[start..]
            .find("```\n\n`cargo bench")
            .expect("the block ends");
    assert_eq!(&section[start..end], diff(&["--format", "markdown"]).stdout);
}

#[test]
fn the_policy_side_and_the_improvements_are_found_too() {
    let run = retrylint(&[
        "diff",
        "fixtures/diff/more/base/openapi.yaml",
        "fixtures/diff/more/head/openapi.yaml",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    for (path, kind, class) in [
        ("/jobs", "newly-retried", "regression"),
        ("/reports", "newly-retried", "neutral"),
        ("/status", "deadline-removed", "regression"),
        ("/metrics", "deadline-below-worst-case", "regression"),
        ("/feed", "amplification-up", "regression"),
        ("/items", "max-attempts-down", "improvement"),
        ("/items", "jitter-added", "improvement"),
        ("/items", "retry-after-honoured", "improvement"),
        ("/uploads", "status-endpoint-added", "improvement"),
        ("/uploads", "throttle-status-added", "improvement"),
        ("/payments", "key-made-required", "improvement"),
        ("/new", "operation-added", "neutral"),
        ("/old", "operation-removed", "neutral"),
    ] {
        assert!(has(&changes(&doc, path), kind, class), "{path} {kind}");
    }
    assert_eq!(doc["summary"]["regressions"], 4);
    assert_eq!(doc["summary"]["improvements"], 6);
    assert_eq!(doc["summary"]["neutral"], 3);
    let removed = doc["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["path"] == "/old")
        .unwrap();
    assert_eq!(removed["presence"], "removed");
    assert!(removed["changes"][0]["head"].is_null());
    assert_eq!(
        removed["changes"][0]["base"]["file"],
        "fixtures/diff/more/base/openapi.yaml"
    );
}

#[test]
fn layers_added_in_front_of_the_service_raise_the_amplification() {
    let spec = "fixtures/layers/payments/openapi.yaml";
    let policy = "fixtures/layers/payments/retry-policy.yaml";
    let run = retrylint(&[
        "diff",
        spec,
        spec,
        "--base-policy",
        policy,
        "-p",
        policy,
        "-p",
        "fixtures/layers/payments/deploy",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    let refunds = doc["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["operationId"] == "refundPayment")
        .expect("the refund changed");
    assert_eq!(refunds["changes"][0]["kind"], "amplification-up");
    assert!(
        refunds["changes"][0]["message"]
            .as_str()
            .unwrap()
            .ends_with("3 → 27"),
        "{}",
        refunds["changes"][0]["message"]
    );
    // The same layers on both sides: nothing changes.
    let same = retrylint(&[
        "diff",
        spec,
        spec,
        "-p",
        policy,
        "-p",
        "fixtures/layers/payments/deploy",
    ]);
    assert_eq!(same.code, 0, "{}", same.stdout);
}
