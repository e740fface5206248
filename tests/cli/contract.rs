//! The contract view through `check`: what runs without a policy, what a policy changes,
//! how the policy beside a description is found, and what CI can read.

use crate::common;

use std::path::PathBuf;

use common::{Run, fired_rules, retrylint_in};

/// A POST with nothing that makes a repeat safe, and a GET that declares no 429 or 503.
const SPEC: &str = "openapi: 3.0.3
info: { title: Orders, version: '1' }
paths:
  /orders:
    post:
      operationId: createOrder
      parameters:
        - { name: X-Once-Token, in: header, required: true, schema: { type: string } }
      responses:
        '201': { description: created }
        '409': { description: a request with this token is in progress }
        '429':
          description: slow down
          headers: { Retry-After: { schema: { type: integer } } }
    get:
      operationId: listOrders
      responses:
        '200': { description: a page }
";

/// A policy that never retries the POST and retries the GET on timeouts.
const POLICY: &str = "version: 1
defaults:
  maxAttempts: 3
  deadline: 5s
  backoff: { base: 100ms, cap: 1s, jitter: full }
  retryOn: [timeout]
operations:
  createOrder: { maxAttempts: 1, onUnknownOutcome: fail }
";

/// A scratch folder holding the description and the named files.
fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("contract")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openapi.yaml"), SPEC).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

fn check(dir: &std::path::Path, args: &[&str]) -> Run {
    let mut all = vec!["check", "openapi.yaml"];
    all.extend(args);
    retrylint_in(dir, &all)
}

const NOTE: &str =
    "note: no retry policy: checked the description's contract only; 25 policy rules did not run";

#[test]
fn without_a_policy_the_contract_rules_run_and_check_says_so() {
    let dir = folder("no-policy", &[]);
    // The contract rules are infos: counted by default, shown on request.
    let hidden = check(&dir, &[]);
    assert_eq!(hidden.code, 0, "{}", hidden.transcript());
    assert!(fired_rules(&hidden.stdout).is_empty(), "{}", hidden.stdout);
    assert_eq!(
        hidden.stdout.trim_end(),
        "0 errors, 0 warnings, 2 info (hidden; --show-infos) in 2 operations"
    );
    let run = check(&dir, &["--show-infos"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        fired_rules(&run.stdout),
        [
            "throttle-status-undeclared",
            "write-without-retry-protection"
        ]
    );
    assert!(run.stderr.starts_with(NOTE), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    let json = check(&dir, &["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert!(doc["policy"].is_null(), "{}", json.stdout);
    assert_eq!(doc["summary"]["contract"]["unprotected"], 1);
    assert_eq!(doc["summary"]["contract"]["retrySafe"], 1);
    // The note is on standard error: the JSON on standard output stays a document.
    assert!(json.stderr.starts_with(NOTE));
}

#[test]
fn with_a_policy_contract_rules_wait_for_lint_rules_or_select() {
    let dir = folder("policy", &[("retry-policy.yaml", POLICY)]);
    let run = check(&dir, &[]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(fired_rules(&run.stdout).is_empty(), "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let json = check(&dir, &["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["policy"], "retry-policy.yaml");

    let selected = check(
        &dir,
        &["--select", "write-without-retry-protection", "--show-infos"],
    );
    assert_eq!(
        fired_rules(&selected.stdout),
        ["write-without-retry-protection"]
    );

    let promoted = format!(
        "{POLICY}lint:\n  rules: {{ write-without-retry-protection: error, throttle-status-undeclared: warning }}\n"
    );
    let dir = folder("promoted", &[("retry-policy.yaml", &promoted)]);
    let run = check(&dir, &[]);
    assert_eq!(run.code, 1, "promoted to error: {}", run.transcript());
    assert!(
        run.stdout
            .contains("error[write-without-retry-protection]: POST /orders")
    );
    assert!(
        run.stdout
            .contains("warning[throttle-status-undeclared]: GET /orders")
    );
}

#[test]
fn lint_key_headers_name_a_key_the_contract_then_counts() {
    let keyed = format!(
        "{POLICY}lint:\n  keyHeaders: [X-Once-Token]\n  rules: {{ write-without-retry-protection: info }}\n"
    );
    let dir = folder("key-headers", &[("retry-policy.yaml", &keyed)]);
    let run = check(&dir, &["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        doc["findings"].as_array().map(Vec::len),
        Some(0),
        "{}",
        run.stdout
    );
    assert_eq!(doc["summary"]["contract"]["retrySafe"], 2);
    let report = retrylint_in(&dir, &["report", "openapi.yaml", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&report.stdout).unwrap();
    let post = doc["operations"]
        .as_array()
        .and_then(|ops| ops.iter().find(|o| o["method"] == "POST"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(post["contract"]["state"], "retry-safe");
    assert_eq!(
        post["contract"]["key"],
        "required `X-Once-Token` (lint.keyHeaders)"
    );
}

#[test]
fn a_policy_named_retry_policy_yml_is_found_and_two_policies_are_an_error() {
    let dir = folder("yml", &[("retry-policy.yml", POLICY)]);
    let run = check(&dir, &["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["policy"], "retry-policy.yml");
    assert!(run.stderr.is_empty(), "{}", run.stderr);

    let dir = folder(
        "both",
        &[("retry-policy.yml", POLICY), ("retry-policy.yaml", POLICY)],
    );
    let run = check(&dir, &[]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains(
            "two policy files beside the description: `retry-policy.yaml` and `retry-policy.yml`"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn several_descriptions_say_which_had_no_policy() {
    let with = folder("several-with", &[("retry-policy.yaml", POLICY)]);
    let without = folder("several-without", &[]);
    let a = with.join("openapi.yaml");
    let b = without.join("openapi.yaml");
    let run = common::retrylint(&[
        "check",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // One entry per description, in the order of `summary.descriptions`.
    let policies = doc["policy"].as_array().cloned().unwrap_or_default();
    assert_eq!(policies.len(), 2, "{}", doc["policy"]);
    assert!(
        policies[0]
            .as_str()
            .is_some_and(|p| p.ends_with("retry-policy.yaml"))
    );
    assert!(policies[1].is_null());
    assert!(
        run.stderr.starts_with("note: no retry policy for ")
            && run.stderr.contains("several-without"),
        "{}",
        run.stderr
    );
}

#[test]
fn malformed_contract_extensions_are_input_errors_at_their_place() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "fern-headers",
            "x-fern-idempotency-headers: Idempotency-Key\n",
            "`x-fern-idempotency-headers` must be a list, found a string",
        ),
        (
            "fern-entry",
            "x-fern-idempotency-headers:\n  - { name: idempotency_key }\n",
            "an entry of `x-fern-idempotency-headers` needs a `header`",
        ),
    ];
    for (name, root, message) in cases {
        let text = SPEC.replacen("paths:\n", &format!("{root}paths:\n"), 1);
        let dir = folder(name, &[]);
        std::fs::write(dir.join("openapi.yaml"), text).unwrap();
        let run = check(&dir, &[]);
        assert_eq!(run.code, 2, "{name}: {}", run.transcript());
        assert!(run.stderr.contains(message), "{name}: {}", run.stderr);
        assert!(
            run.stderr.contains("openapi.yaml:"),
            "{name}: no place: {}",
            run.stderr
        );
    }
    let operation_cases: &[(&str, &str, &str)] = &[
        (
            "long-running",
            "      x-ms-long-running-operation: sometimes\n",
            "`x-ms-long-running-operation` must be true or false",
        ),
        (
            "fern-idempotent",
            "      x-fern-idempotent: 1\n",
            "`x-fern-idempotent` must be true or false",
        ),
        (
            "link",
            "      responses:\n        '202':\n          description: accepted\n          links:\n            Status: { operationId: [listOrders] }\n",
            "`operationId` must be a string",
        ),
    ];
    for (name, extra, message) in operation_cases {
        let text = SPEC.replacen(
            "      operationId: createOrder\n",
            &format!("      operationId: createOrder\n{extra}"),
            1,
        );
        // A second `responses` replaces the first: keep one.
        let text = if extra.contains("responses:") {
            text.replacen(
                "      responses:\n        '201': { description: created }\n        '409': { description: a request with this token is in progress }\n        '429':\n          description: slow down\n          headers: { Retry-After: { schema: { type: integer } } }\n",
                "",
                1,
            )
        } else {
            text
        };
        let dir = folder(name, &[]);
        std::fs::write(dir.join("openapi.yaml"), text).unwrap();
        let run = check(&dir, &[]);
        assert_eq!(run.code, 2, "{name}: {}", run.transcript());
        assert!(run.stderr.contains(message), "{name}: {}", run.stderr);
        assert!(
            run.stderr.contains("openapi.yaml:"),
            "{name}: no place: {}",
            run.stderr
        );
    }
}

#[test]
fn contract_rules_and_states_go_through_every_check_format() {
    let dir = folder("formats", &[]);
    common::copy_fixture("fixtures/contract/openapi.yaml", &dir, "openapi.yaml");
    let rules = [
        "write-without-retry-protection",
        "throttle-status-undeclared",
    ];
    let json = check(&dir, &["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    for rule in rules {
        assert!(
            doc["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["rule"] == rule && f["severity"] == "info"),
            "json: {rule}"
        );
    }
    assert_eq!(doc["summary"]["contract"]["retrySafeWithReconcile"], 4);
    let sarif = check(&dir, &["--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let run = &log["runs"][0];
    for rule in rules {
        assert!(
            run["results"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["ruleId"] == rule && r["level"] == "note"),
            "sarif: {rule}"
        );
        let meta = run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == rule)
            .cloned()
            .unwrap_or_default();
        assert_eq!(meta["properties"]["tags"][3], "contract", "sarif: {rule}");
    }
    assert_eq!(run["properties"]["contract"]["keyIncomplete"], 2);
    // Infos are annotations only when they fail the run; otherwise one line counts them.
    let github = check(&dir, &["--format", "github"]);
    assert!(
        !github.stdout.contains("::notice file="),
        "{}",
        github.stdout
    );
    assert!(
        github
            .stdout
            .contains("info findings not annotated (--show-infos or --fail-on info"),
        "{}",
        github.stdout
    );
    let github = check(&dir, &["--format", "github", "--fail-on", "info"]);
    for rule in rules {
        assert!(
            github
                .stdout
                .lines()
                .any(|l| l.starts_with("::notice ") && l.contains(rule)),
            "github: {rule}\n{}",
            github.stdout
        );
    }
    // In JUnit, infos are failures only when they fail the run, as the exit code says.
    let junit = check(&dir, &["--format", "junit"]);
    for rule in rules {
        assert!(
            !junit.stdout.contains(&format!("<failure type=\"{rule}\"")),
            "junit: {rule}"
        );
        assert!(
            junit.stdout.contains(&format!("info[{rule}]")),
            "junit: {rule}"
        );
    }
    assert!(junit.stdout.contains("<system-out>below --fail-on error:"));
    let junit = check(&dir, &["--format", "junit", "--fail-on", "info"]);
    for rule in rules {
        assert!(
            junit.stdout.contains(&format!("<failure type=\"{rule}\"")),
            "junit: {rule}"
        );
    }
    assert!(
        junit
            .stdout
            .contains("<property name=\"contract.unprotected\" value=\"1\"/>")
    );
}
