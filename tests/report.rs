//! `retrylint report` (Markdown and JSON) and `retrylint init`, through the real binary.

mod common;

use common::{retrylint, retrylint_in};
use serde_json::Value;

const DEMO: &str = "fixtures/shop/openapi.yaml";

#[test]
fn the_markdown_report_of_the_demo() {
    let run = retrylint(&["report", DEMO]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("## retrylint readiness: `fixtures/shop/openapi.yaml`")
    );
    // Every operation that needs attention is one collapsed section; ready ones are listed.
    assert_eq!(run.stdout.matches("<details><summary>🔴 unsafe").count(), 5);
    assert_eq!(
        run.stdout
            .matches("<details><summary>🟡 needs-work")
            .count(),
        2
    );
    assert!(
        run.stdout
            .contains("<details><summary>🟢 ready 1 ready operations</summary>")
    );
    insta::assert_snapshot!("report-markdown-demo", run.stdout);
}

#[test]
fn the_json_report_of_the_demo() {
    let run = retrylint(&["report", DEMO, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["version"], 1);
    assert_eq!(report["summary"]["unsafe"], 5);
    let ops = report["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 8);
    // Worst first.
    assert_eq!(ops[0]["readiness"], "unsafe");
    assert_eq!(ops[7]["readiness"], "ready");
    let create = ops
        .iter()
        .find(|o| o["operationId"] == "createOrder")
        .unwrap();
    assert_eq!(
        create["answers"]["safety"],
        "safe to repeat: Idempotency-Key kept 24h, status endpoint GET /orders/{orderId}"
    );
    assert_eq!(
        create["answers"]["unknownOutcome"],
        "retry with the same Idempotency-Key"
    );
    assert_eq!(create["schedule"]["attempts"].as_array().unwrap().len(), 3);
    let health = ops.iter().find(|o| o["path"] == "/health").unwrap();
    assert_eq!(health["answers"]["safety"], "not retried");
    assert!(health["schedule"].is_null());
    insta::assert_snapshot!("report-json-demo", run.stdout);
}

#[test]
fn init_writes_a_policy_that_passes_check() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("init-demo");
    std::fs::create_dir_all(&dir).unwrap();
    let policy = dir.join("retry-policy.yaml");
    let _ = std::fs::remove_file(&policy);
    let run = retrylint(&["init", DEMO, "-o", policy.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&policy).unwrap();
    // The keyed writes are retried with their key, the unkeyed one is never retried.
    assert!(text.contains(
        "\"createOrder\":  # POST /orders\n    idempotency: { keyHeader: \"Idempotency-Key\""
    ));
    assert!(text.contains("\"payOrder\": { maxAttempts: 1, onUnknownOutcome: fail }"));
    let check = retrylint(&[
        "check",
        DEMO,
        "-p",
        policy.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let doc: Value = serde_json::from_str(&check.stdout).unwrap();
    assert_eq!(doc["summary"]["errors"], 0, "{}", check.stdout);
    assert_eq!(check.code, 0);
    // It refuses to overwrite without --force.
    let again = retrylint(&["init", DEMO, "-o", policy.to_str().unwrap()]);
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    assert_eq!(
        retrylint(&["init", DEMO, "-o", policy.to_str().unwrap(), "--force"]).code,
        0
    );
    insta::assert_snapshot!("init-demo", text);
}

#[test]
fn init_quotes_selectors_that_yaml_would_misread() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("init-quotes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a: {post: {operationId: 'x: \"y\" #z', responses: {default: {description: e}}}}\n  /b: {post: {operationId: dup, responses: {default: {description: e}}}}\n  /c: {post: {operationId: dup, responses: {default: {description: e}}}}\n",
    )
    .unwrap();
    let run = retrylint_in(&dir, &["init", "openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::write(dir.join("retry-policy.yaml"), &run.stdout).unwrap();
    let check = retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert_eq!(check.code, 0, "{}\n{}", run.stdout, check.stdout);
    // Duplicate operationIds are named by method and path instead.
    assert!(run.stdout.contains("\"POST /b\""), "{}", run.stdout);
}
