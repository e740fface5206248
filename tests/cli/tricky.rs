//! Valid but tricky inputs: non-ASCII text, CRLF, anchors, JSON, several files, Swagger 2.0
//! and OpenAPI 3.1. Each lints, and its findings point at the right line and column.

use crate::common;

use common::{fired_rules, retrylint};

/// `check` of a tricky case, infos shown: each finding's place is what is tested.
fn check(name: &str, file: &str) -> common::Run {
    let path = format!("fixtures/tricky/{name}/{file}");
    let run = retrylint(&["check", &path, "--show-infos"]);
    assert_ne!(run.code, 2, "{name}:\n{}", run.transcript());
    run
}

/// The `file:line:column` headers of the output's snippets.
fn headers(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| {
            let start = l.find("╭─[")? + "╭─[".len();
            let end = l.rfind(']')?;
            Some(l[start..end].to_string())
        })
        .collect()
}

#[test]
fn non_ascii_text_before_a_finding_keeps_character_columns() {
    let run = check("non-ascii", "openapi.yaml");
    let h = headers(&run.stdout);
    assert!(
        h.contains(&"fixtures/tricky/non-ascii/openapi.yaml:22:107".to_string()),
        "{h:?}"
    );
    insta::assert_snapshot!("tricky-non-ascii", run.transcript());
}

#[test]
fn crlf_files_report_like_lf_files() {
    let run = check("crlf", "openapi.yaml");
    assert!(!run.stdout.contains('\r'));
    let h = headers(&run.stdout);
    assert!(
        h.contains(&"fixtures/tricky/crlf/openapi.yaml:21:9".to_string()),
        "{h:?}"
    );
    assert!(
        h.contains(&"fixtures/tricky/crlf/retry-policy.yaml:12:13".to_string()),
        "{h:?}"
    );
    insta::assert_snapshot!("tricky-crlf", run.transcript());
}

#[test]
fn anchors_aliases_and_merge_keys_resolve() {
    let run = check("anchors", "openapi.yaml");
    let fired = fired_rules(&run.stdout);
    assert!(
        fired.contains(&"unprotected-write-retry".to_string()),
        "{fired:?}"
    );
    assert!(
        fired.contains(&"backoff-without-jitter".to_string()),
        "{fired:?}"
    );
    insta::assert_snapshot!("tricky-anchors", run.transcript());
}

#[test]
fn json_descriptions_lint() {
    let run = check("json", "openapi.json");
    let h = headers(&run.stdout);
    assert!(
        h.contains(&"fixtures/tricky/json/openapi.json:20:11".to_string()),
        "{h:?}"
    );
    insta::assert_snapshot!("tricky-json", run.transcript());
}

#[test]
fn findings_in_referenced_files_point_into_those_files() {
    let run = check("multi-file", "openapi.yaml");
    let h = headers(&run.stdout);
    assert!(
        h.contains(&"fixtures/tricky/multi-file/operations/create-order.yaml:10:3".to_string()),
        "{h:?}"
    );
    assert!(
        h.contains(&"fixtures/tricky/multi-file/components/responses.yaml:5:1".to_string()),
        "{h:?}"
    );
    insta::assert_snapshot!("tricky-multi-file", run.transcript());
}

#[test]
fn swagger_2_descriptions_lint() {
    let run = check("swagger2", "openapi.yaml");
    assert!(fired_rules(&run.stdout).contains(&"retry-after-header-undeclared".to_string()));
    insta::assert_snapshot!("tricky-swagger2", run.transcript());
}

#[test]
fn openapi_3_1_descriptions_lint_without_their_webhooks() {
    let run = check("openapi31", "openapi.yaml");
    assert!(
        run.stdout
            .ends_with("in 2 operations (1 webhook not checked)\n"),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!("tricky-openapi31", run.transcript());
}

#[test]
fn a_descriptions_own_retry_policy_applies_without_a_policy_file() {
    // The description retries its POST itself; no retry-policy.yaml exists beside it.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tricky-x-retry-policy");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nx-retry-policy: {maxAttempts: 3, deadline: 5s, retryOn: [503, timeout]}\npaths:\n  /a:\n    post:\n      responses: {'200': {description: ok}}\n",
    )
    .unwrap();
    let run = common::retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        common::fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
}
