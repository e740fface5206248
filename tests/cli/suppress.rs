//! Suppressions (`x-retrylint-ignore`, `# retrylint: ignore[…]` comments, `lint.ignore`)
//! and baselines, through the real binary.

use crate::common;

use common::{Run, fired_rules, retrylint_in};
use std::path::PathBuf;

/// A description whose POST is retried with no key (`unprotected-write-retry`) and
/// declares a 503 without Retry-After (`retry-after-header-undeclared`, a contract rule
/// the policy's `lint.rules` turns on).
const SPEC: &str = r#"openapi: 3.0.3
info: { title: Orders, version: "1" }
paths:
  /orders:
    post:
      operationId: createOrder
      EXTENSION
      responses:
        '201': { description: created }
        '503': { description: unavailable }
"#;

const POLICY: &str = "version: 1
defaults:
  maxAttempts: 2
  deadline: 5s
  backoff: { base: 100ms, cap: 1s, jitter: full }
  retryOn: [503, timeout]
  onUnknownOutcome: fail
lint:
  rules: { retry-after-header-undeclared: warning }
LINT
";

fn check(name: &str, extension: &str, lint: &str, args: &[&str]) -> Run {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("suppress")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        SPEC.replace("EXTENSION", extension),
    )
    .unwrap();
    // `lint` is a whole `lint:` section; its entries join the one the policy has.
    let lint = lint.strip_prefix("lint:\n").unwrap_or(lint);
    std::fs::write(dir.join("retry-policy.yaml"), POLICY.replace("LINT", lint)).unwrap();
    let mut all = vec!["check", "openapi.yaml"];
    all.extend(args);
    retrylint_in(&dir, &all)
}

#[test]
fn without_suppressions_both_rules_fire() {
    let run = check("none", "", "", &[]);
    assert_eq!(
        fired_rules(&run.stdout),
        ["retry-after-header-undeclared", "unprotected-write-retry"]
    );
}

#[test]
fn x_retrylint_ignore_silences_a_rule_for_its_operation() {
    let run = check(
        "extension",
        "x-retrylint-ignore: { unprotected-write-retry: \"the server deduplicates on the order number\" }",
        "",
        &[],
    );
    assert_eq!(
        fired_rules(&run.stdout),
        ["retry-after-header-undeclared"],
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("(1 suppressed)"), "{}", run.stdout);
    assert_eq!(run.code, 0);
}

#[test]
fn comments_silence_findings_on_their_line_or_the_next() {
    // Above the operation's line in the description: covers the related location.
    let run = check(
        "comment-inside",
        "# retrylint: ignore[unprotected-write-retry] deduplicated by order number\n      x-note: 1",
        "",
        &[],
    );
    // Inside the operation's body the comment covers neither `post:` nor the policy line.
    assert_eq!(
        fired_rules(&run.stdout),
        [
            "retry-after-header-undeclared",
            "unprotected-write-retry",
            "unused-suppression"
        ],
        "{}",
        run.stdout
    );
    let spec_comment = SPEC
        .replace("    post:\n", "    # retrylint: ignore[unprotected-write-retry] deduplicated by order number\n    post:\n")
        .replace("'503': { description: unavailable }", "'503': { description: unavailable } # retrylint: ignore[retry-after-header-undeclared] the gateway adds it")
        .replace("EXTENSION", "");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("suppress/comments");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openapi.yaml"), spec_comment).unwrap();
    std::fs::write(dir.join("retry-policy.yaml"), POLICY.replace("LINT", "")).unwrap();
    let run = retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert_eq!(
        fired_rules(&run.stdout),
        Vec::<String>::new(),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("(2 suppressed)"), "{}", run.stdout);
    // In the policy, on the line of the retried condition.
    let policy = POLICY
        .replace("retryOn: [503, timeout]", "retryOn: [503, timeout] # retrylint: ignore[unprotected-write-retry] orders are deduplicated")
        .replace("LINT", "");
    std::fs::write(dir.join("retry-policy.yaml"), policy).unwrap();
    std::fs::write(dir.join("openapi.yaml"), SPEC.replace("EXTENSION", "")).unwrap();
    let run = retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert_eq!(
        fired_rules(&run.stdout),
        ["retry-after-header-undeclared"],
        "{}",
        run.stdout
    );
}

#[test]
fn lint_ignore_silences_by_rule_and_selector() {
    let lint = "lint:\n  ignore:\n    - { rule: retry-after-header-undeclared, operations: [\"tag:none\", createOrder], reason: \"the gateway adds Retry-After\" }";
    let run = check("lint-ignore", "", lint, &[]);
    assert_eq!(
        fired_rules(&run.stdout),
        ["unprotected-write-retry"],
        "{}",
        run.stdout
    );
}

#[test]
fn a_suppression_without_a_reason_or_that_silences_nothing_is_reported() {
    let run = check(
        "no-reason",
        "x-retrylint-ignore: { unprotected-write-retry: \"\" }",
        "",
        &[],
    );
    assert_eq!(
        fired_rules(&run.stdout),
        [
            "retry-after-header-undeclared",
            "suppression-without-reason"
        ],
        "{}",
        run.stdout
    );
    let lint = "lint:\n  ignore:\n    - { rule: backoff-without-jitter, reason: \"polled\" }";
    let run = check("unused", "", lint, &[]);
    assert!(
        fired_rules(&run.stdout).contains(&"unused-suppression".to_string()),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!("unused-suppression", run.stdout);
    // A suppression of a rule that did not run is not judged.
    let run = check(
        "unused-not-run",
        "",
        lint,
        &["--ignore", "backoff-without-jitter"],
    );
    assert!(
        !fired_rules(&run.stdout).contains(&"unused-suppression".to_string()),
        "{}",
        run.stdout
    );
}

#[test]
fn suppressing_an_unknown_rule_is_an_input_error() {
    let run = check(
        "unknown",
        "x-retrylint-ignore: { unprotected-write-retyr: \"typo\" }",
        "",
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("did you mean `unprotected-write-retry`?"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_baseline_reports_only_new_findings() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("suppress/baseline");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openapi.yaml"), SPEC.replace("EXTENSION", "")).unwrap();
    std::fs::write(dir.join("retry-policy.yaml"), POLICY.replace("LINT", "")).unwrap();
    let write = retrylint_in(
        &dir,
        &["check", "openapi.yaml", "--write-baseline", "baseline.json"],
    );
    assert_eq!(write.code, 0, "{}", write.stderr);
    assert!(
        write.stderr.contains("wrote 2 findings"),
        "{}",
        write.stderr
    );
    let again = retrylint_in(
        &dir,
        &["check", "openapi.yaml", "--baseline", "baseline.json"],
    );
    assert_eq!(again.code, 0, "{}", again.stdout);
    assert!(
        again
            .stdout
            .ends_with("0 errors, 0 warnings in 1 operation (2 in the baseline)\n"),
        "{}",
        again.stdout
    );
    // A second retried POST is new.
    let grown = SPEC.replace("EXTENSION", "").replace(
        "paths:\n",
        "paths:\n  /refunds:\n    post:\n      responses: { '201': { description: created }, default: { description: an error } }\n",
    );
    std::fs::write(dir.join("openapi.yaml"), grown).unwrap();
    let new = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "--baseline",
            "baseline.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(new.code, 1);
    let doc: serde_json::Value = serde_json::from_str(&new.stdout).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{}", new.stdout);
    assert_eq!(findings[0]["operation"]["path"], "/refunds");
    assert_eq!(doc["summary"]["baselined"], 2);
    // A broken baseline is an input error.
    std::fs::write(dir.join("broken.json"), "{\"version\": 1, \"findings\": [}").unwrap();
    let broken = retrylint_in(
        &dir,
        &["check", "openapi.yaml", "--baseline", "broken.json"],
    );
    assert_eq!(broken.code, 2);
    assert!(
        broken.stderr.contains("is not a retrylint baseline"),
        "{}",
        broken.stderr
    );
}

/// Writes a description and the standard policy into a fresh folder and checks it.
fn check_text(name: &str, spec: &str) -> Run {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("suppress")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    std::fs::write(dir.join("retry-policy.yaml"), POLICY.replace("LINT", "")).unwrap();
    retrylint_in(&dir, &["check", "openapi.yaml"])
}

#[test]
fn text_inside_a_block_or_quoted_scalar_is_not_a_comment() {
    // The suppression is text of a description, on the line above `post:` and beside
    // the 503: a line scanner takes it for a comment.
    for (name, spec) in [
        (
            "block-scalar",
            SPEC.replace(
                "  /orders:\n",
                "  /orders:\n    description: |\n      Orders.\n      # retrylint: ignore[unprotected-write-retry] quoted from the docs\n",
            )
            .replace("EXTENSION", ""),
        ),
        (
            "quoted-scalar",
            SPEC.replace(
                "  /orders:\n",
                "  /orders:\n    description: \"Orders.\n      # retrylint: ignore[unprotected-write-retry] quoted from the docs\"\n",
            )
            .replace("EXTENSION", ""),
        ),
    ] {
        let run = check_text(name, &spec);
        assert_eq!(
            fired_rules(&run.stdout),
            ["retry-after-header-undeclared", "unprotected-write-retry"],
            "{name}: {}",
            run.stdout
        );
        assert!(!run.stdout.contains("suppressed"), "{name}: {}", run.stdout);
    }
}

#[test]
fn a_file_with_cr_line_endings_has_lines_like_any_other() {
    // One comment on the `post:` line of a file whose lines end with a lone CR covers that
    // line and the next only, not the 503 further down.
    let spec = SPEC
        .replace(
            "    post:\n",
            "    # retrylint: ignore[unprotected-write-retry,retry-after-header-undeclared] deduplicated\n    post:\n",
        )
        .replace("EXTENSION", "")
        .replace('\n', "\r");
    let run = check_text("cr-only", &spec);
    assert_eq!(run.code, 0, "a warning only: {}", run.transcript());
    assert!(run.stdout.contains("(1 suppressed)"), "{}", run.stdout);
    assert!(
        fired_rules(&run.stdout).contains(&"retry-after-header-undeclared".to_string()),
        "{}",
        run.stdout
    );
    // The same with CRLF and LF endings gives the same findings.
    let lf = check_text("cr-only-lf", &spec.replace('\r', "\n"));
    let crlf = check_text("cr-only-crlf", &spec.replace('\r', "\r\n"));
    assert_eq!(fired_rules(&run.stdout), fired_rules(&lf.stdout));
    assert_eq!(fired_rules(&lf.stdout), fired_rules(&crlf.stdout));
}
