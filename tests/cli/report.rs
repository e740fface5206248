//! `retrylint report` (Markdown and JSON) and `retrylint init`, through the real binary.

use crate::common;

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
    assert_eq!(report["version"], 2);
    assert_eq!(report["summary"]["readiness"]["unsafe"], 5);
    // The contract beside the policy: the payment is the one unprotected write.
    assert_eq!(report["summary"]["contract"]["states"]["unprotected"], 1);
    assert_eq!(report["summary"]["contract"]["writesRetrySafe"], 2);
    let ops = report["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 8);
    // Worst first: by readiness, then by contract state.
    assert_eq!(ops[0]["readiness"], "unsafe");
    assert_eq!(ops[0]["contract"]["state"], "unprotected");
    assert_eq!(
        ops[0]["reason"],
        "is retried on 503 and timeout with no idempotency key or status endpoint: a retry can repeat the write"
    );
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

/// `report` of one description copied alone into a scratch folder (so that no policy
/// beside it is found), in `format`.
fn contract_report(name: &str, source: &str, format: &str) -> common::Run {
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("contract-report-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    common::copy_fixture(source, &dir, "openapi.yaml");
    retrylint_in(&dir, &["report", "openapi.yaml", "--format", format])
}

#[test]
fn the_contract_report_of_the_demo_calls_nothing_ready() {
    let markdown = contract_report("demo-md", DEMO, "markdown");
    assert_eq!(markdown.code, 0, "{}", markdown.stderr);
    assert!(
        markdown
            .stdout
            .starts_with("## retrylint contract: `openapi.yaml`")
    );
    assert!(!markdown.stdout.contains("ready operations"));
    assert!(!markdown.stdout.contains("🟢 ready"));
    assert!(
        markdown
            .stdout
            .contains("**2 of 3 writes can be retried safely**")
    );
    insta::assert_snapshot!("report-contract-markdown-demo", markdown.stdout);
    let json = contract_report("demo-json", DEMO, "json");
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert!(report["policy"].is_null());
    assert!(report["summary"]["readiness"].is_null());
    let ops = report["operations"].as_array().unwrap();
    assert!(ops.iter().all(|o| o["readiness"].is_null()));
    // The unprotected payment first, with the rule's message as its reason.
    assert_eq!(ops[0]["path"], "/orders/{orderId}/payments");
    assert_eq!(ops[0]["contract"]["state"], "unprotected");
    assert!(
        ops[0]["reason"]
            .as_str()
            .unwrap_or_default()
            .starts_with("a write with no idempotency key and no status endpoint"),
        "{}",
        ops[0]["reason"]
    );
    insta::assert_snapshot!("report-contract-json-demo", json.stdout);
}

#[test]
fn every_kind_of_evidence_gives_its_contract_state() {
    let run = contract_report("evidence", "fixtures/contract/openapi.yaml", "json");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let ops = report["operations"].as_array().unwrap();
    let state = |id: &str| {
        ops.iter()
            .find(|o| o["operationId"] == id)
            .map(|o| o["contract"].clone())
            .unwrap_or_default()
    };
    // As the fixture's comments say.
    for (id, expected, evidence) in [
        (
            "createOrder",
            "retry-safe-with-reconcile",
            "the link `GetOrder` to GET /orders/{orderId}",
        ),
        (
            "submitOrderCancellation",
            "retry-safe-with-reconcile",
            "the link `GetOrder` to GET /orders/{orderId}",
        ),
        (
            "startExport",
            "retry-safe-with-reconcile",
            "a 202 response with Location",
        ),
        (
            "createVm",
            "retry-safe-with-reconcile",
            "x-ms-long-running-operation",
        ),
    ] {
        assert_eq!(state(id)["state"], expected, "{id}");
        assert_eq!(state(id)["statusEndpoint"], evidence, "{id}");
    }
    assert_eq!(state("getOrder")["state"], "retry-safe");
    assert_eq!(state("createPayment")["state"], "retry-safe");
    assert_eq!(
        state("createPayment")["key"],
        "required `PayPal-Request-Id`"
    );
    assert_eq!(
        state("createPayment")["conflictResponses"],
        serde_json::json!(["409", "422"])
    );
    assert_eq!(state("createRefund")["state"], "key-incomplete");
    assert_eq!(state("createRefund")["key"], "optional `Idempotency-Key`");
    assert_eq!(state("createPayout")["state"], "key-incomplete");
    assert_eq!(
        state("createPayout")["key"],
        "optional `Idempotency-Key` (x-fern-idempotency-headers)"
    );
    assert_eq!(state("addNote")["state"], "unprotected");
    // Throttling: Retry-After as seconds or a date, RateLimit-Reset, or nothing.
    assert_eq!(
        state("getOrder")["throttling"],
        "429 with Retry-After (seconds or an HTTP-date); 503 with RateLimit-Reset"
    );
    assert_eq!(state("addNote")["throttles"], serde_json::json!([]));
    let summary = &report["summary"]["contract"];
    assert_eq!(summary["writes"], 8);
    assert_eq!(summary["writesRetrySafe"], 5);
    let markdown = contract_report("evidence-md", "fixtures/contract/openapi.yaml", "markdown");
    insta::assert_snapshot!("report-contract-markdown-evidence", markdown.stdout);
}

#[test]
fn findings_by_rule_are_ordered_by_severity_then_count() {
    // Without a policy the demo has 7 warnings of one rule and more infos of others:
    // the warnings come first all the same.
    let run = contract_report("order", DEMO, "json");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let rules: Vec<(String, u64)> = report["summary"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["severity"].as_str().unwrap_or_default().to_string(),
                r["count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let rank = |s: &str| match s {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    };
    for pair in rules.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(
            rank(&a.0) < rank(&b.0) || (rank(&a.0) == rank(&b.0) && a.1 >= b.1),
            "{rules:?}"
        );
    }
    assert!(rules.iter().any(|r| r.0 == "info"), "{rules:?}");
}

#[test]
fn the_budget_speaks_of_retry_after_only_where_a_429_or_503_is_retried() {
    let dir = common::scratch("report-retry-after-budget");
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: a\n      responses: {'200': {description: ok}}\n  /b:\n    get:\n      operationId: b\n      responses: {'200': {description: ok}, '503': {description: busy, headers: {Retry-After: {schema: {type: integer}}}}}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 10s\n  perAttemptTimeout: 1s\n  backoff: {base: 100ms, cap: 1s, jitter: full}\n  retryOn: [connect-failure, timeout]\n  retryAfter: {honor: true, max: 5s}\noperations:\n  b: {retryOn: [connect-failure, 503]}\n",
    )
    .unwrap();
    let run = common::retrylint_in(&dir, &["report", "openapi.yaml", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let budget = |id: &str| {
        doc["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|op| op["operationId"] == id)
            .and_then(|op| op["answers"]["budget"].as_str())
            .unwrap()
            .to_string()
    };
    // `a` is retried on connection failures and timeouts only: no Retry-After comes with them.
    assert!(!budget("a").contains("Retry-After"), "{}", budget("a"));
    assert!(
        budget("b").contains("Retry-After honoured up to 5s"),
        "{}",
        budget("b")
    );
}
