//! `retrylint init` chooses from each operation's contract, and `check` then has nothing
//! to say about those choices: through the real binary.

use crate::common;

use std::path::PathBuf;

use common::retrylint_in;

/// A scratch folder holding `openapi.yaml` with `text`.
fn folder(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("init")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openapi.yaml"), text).unwrap();
    dir
}

/// `init` into `retry-policy.yaml`, then `check` against it: the policy text and the
/// check's JSON document.
fn init_then_check(dir: &std::path::Path, extra: &[&str]) -> (String, serde_json::Value) {
    let mut args = vec!["init", "openapi.yaml", "-o", "retry-policy.yaml"];
    args.extend(extra);
    let init = retrylint_in(dir, &args);
    assert_eq!(init.code, 0, "{}", init.transcript());
    let policy = std::fs::read_to_string(dir.join("retry-policy.yaml")).unwrap();
    let check = retrylint_in(dir, &["check", "openapi.yaml", "--format", "json"]);
    assert_eq!(check.code, 0, "{}\n{policy}", check.transcript());
    assert!(check.stderr.is_empty(), "{}", check.stderr);
    (policy, serde_json::from_str(&check.stdout).unwrap())
}

fn evidence() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/contract/openapi.yaml"
    ))
    .unwrap()
}

#[test]
fn each_kind_of_evidence_gets_its_entry_and_check_is_silent() {
    let dir = folder("evidence", &evidence());
    let (policy, doc) = init_then_check(&dir, &[]);
    assert_eq!(doc["findings"], serde_json::json!([]), "{policy}");
    // Every retried operation declares 429 but getOrder, which declares 503 too.
    assert!(
        policy.contains("  retryOn: [429, connect-failure, timeout]\n"),
        "{policy}"
    );
    assert!(policy.contains(
        "  \"getOrder\": { retryOn: [429, 503, connect-failure, timeout] }  # GET /orders/{orderId}\n"
    ));
    // A required vendor key, named as the description declares it.
    assert!(policy.contains(
        "  \"createPayment\":  # POST /payments\n    idempotency: { keyHeader: \"PayPal-Request-Id\", keyRetention: 24h }\n    onUnknownOutcome: retry-same-key\n"
    ));
    // A link to a read: reconciled through it, never retried.
    assert!(policy.contains(
        "  \"createOrder\": { maxAttempts: 1, onUnknownOutcome: reconcile, idempotency: { statusEndpoint: \"GET /orders/{orderId}\" } }  # POST /orders\n"
    ));
    // Optional keys (declared, or Fern's): not retried, and the comment says why.
    assert!(policy.contains(
        "  \"createRefund\": { maxAttempts: 1, onUnknownOutcome: fail }  # POST /refunds, optional Idempotency-Key\n"
    ));
    assert!(policy.contains(
        "  \"createPayout\": { maxAttempts: 1, onUnknownOutcome: fail }  # POST /payouts, optional Idempotency-Key\n"
    ));
    assert!(policy.contains("once the description requires it"));
    // A 202 with Location and a long-running operation: no selector to reconcile through.
    assert!(policy.contains("  \"startExport\": { maxAttempts: 1, onUnknownOutcome: fail }"));
    assert!(policy.contains("  \"createVm\": { maxAttempts: 1, onUnknownOutcome: fail }"));
    assert!(policy.contains("reported as failed until the client follows that location"));
    assert!(policy.contains("  \"addNote\": { maxAttempts: 1, onUnknownOutcome: fail }"));
}

#[test]
fn a_required_key_without_conflict_response_is_retried_and_says_so() {
    let text = "openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /payments:
    post:
      operationId: pay
      parameters:
        - { name: Idempotency-Key, in: header, required: true, schema: { type: string } }
      responses:
        '201': { description: paid }
        '503': { description: down, headers: { Retry-After: { schema: { type: integer } } } }
";
    let dir = folder("no-conflict", text);
    let (policy, doc) = init_then_check(&dir, &[]);
    assert!(
        policy.contains("    # No 409, 422 or 400 is declared"),
        "{policy}"
    );
    assert!(
        policy.contains("keyHeader: \"Idempotency-Key\""),
        "{policy}"
    );
    // The missing response is set aside in the policy with its reason, not reported on
    // every check of the key entry init wrote.
    assert!(
        policy.contains("    - rule: key-conflict-response-undeclared\n"),
        "{policy}"
    );
    assert_eq!(doc["findings"].as_array().unwrap().len(), 0, "{doc}");
    assert_eq!(doc["summary"]["suppressed"], 1, "{doc}");
}

/// Follows the IETF Idempotency-Key draft
/// (https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/): a
/// required `Idempotency-Key` header, with and without its 409, and an optional one. The
/// policy `init` writes for them gives `check` nothing to say, not even an info.
#[test]
fn init_then_check_reports_none_of_the_key_entries_init_wrote() {
    let write = |path: &str, required: bool, conflict: bool| {
        format!(
            "  {path}:\n    post:\n      parameters:\n        - {{ name: Idempotency-Key, in: header, required: {required}, schema: {{ type: string }} }}\n      responses:\n        '201': {{ description: done }}\n{}        '503': {{ description: down, headers: {{ Retry-After: {{ schema: {{ type: integer }} }} }} }}\n",
            if conflict {
                "        '409': { description: in flight }\n"
            } else {
                ""
            }
        )
    };
    for (name, required) in [("required-keys", true), ("optional-keys", false)] {
        let text = format!(
            "openapi: 3.0.3\ninfo: {{ title: t, version: '1' }}\npaths:\n{}{}{}",
            write("/payments", required, true),
            write("/refunds", required, false),
            write("/payouts", required, false)
        );
        let dir = folder(name, &text);
        let (policy, doc) = init_then_check(&dir, &[]);
        assert_eq!(doc["summary"]["infos"], 0, "{name}: {doc}\n{policy}");
        assert_eq!(
            doc["findings"].as_array().unwrap().len(),
            0,
            "{name}: {doc}"
        );
    }
}

#[test]
fn key_header_names_a_key_and_goes_into_lint_key_headers() {
    let text = "openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /payments:
    post:
      operationId: pay
      parameters:
        - { name: X-Once-Token, in: header, required: true, schema: { type: string } }
      responses:
        '201': { description: paid }
        '409': { description: in flight }
";
    let dir = folder("key-header", text);
    let (plain, _) = init_then_check(&dir, &[]);
    assert!(
        plain.contains("  \"pay\": { maxAttempts: 1, onUnknownOutcome: fail }"),
        "{plain}"
    );
    let (keyed, doc) = init_then_check(&dir, &["--force", "--key-header", "X-Once-Token"]);
    assert_eq!(doc["findings"], serde_json::json!([]), "{keyed}");
    assert!(keyed.contains("lint:\n"), "{keyed}");
    assert!(
        keyed.contains("  keyHeaders:\n    - \"X-Once-Token\"\n"),
        "{keyed}"
    );
    assert!(keyed.contains("keyHeader: \"X-Once-Token\""), "{keyed}");
    // check reads lint.keyHeaders back: the contract counts the key too.
    let report = retrylint_in(&dir, &["report", "openapi.yaml", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&report.stdout).unwrap();
    assert_eq!(report["operations"][0]["contract"]["state"], "retry-safe");
}

#[test]
fn statuses_a_description_does_not_declare_are_never_retried() {
    let text = "openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /a:
    get:
      responses: { '200': { description: ok }, default: { description: error } }
  /b:
    get:
      responses: { '200': { description: ok }, 4XX: { description: client error } }
  /c:
    delete:
      responses: { '204': { description: gone }, '503': { description: down } }
";
    let dir = folder("statuses", text);
    let (policy, doc) = init_then_check(&dir, &[]);
    // Nothing about init's choices; only the description's own gap, which no policy
    // fills: its 503 does not say when to come back.
    let findings: Vec<(&str, &str)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap(),
                f["operation"]["path"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        findings,
        [("retry-after-header-undeclared", "/c")],
        "{policy}"
    );
    assert!(
        policy.contains("  retryOn: [connect-failure, timeout]\n"),
        "{policy}"
    );
    // `503` declares itself; a `4XX` that does not say when to come back is a generic
    // error and declares no 429 (as the contract reads it): not retried on 429.
    assert!(!policy.contains("\"GET /b\""), "{policy}");
    assert!(
        policy.contains("  \"DELETE /c\": { retryOn: [503, connect-failure, timeout] }\n"),
        "{policy}"
    );
    assert!(!policy.contains("\"GET /a\""), "{policy}");
    assert!(
        policy.contains("# 2 retried operations declare neither 429 nor 503"),
        "{policy}"
    );
}
