//! The contract view read as real APIs mean it, each case following a public source:
//! method semantics from the IANA registry, status endpoints of asynchronous writes,
//! and what a response class says about throttling.

use crate::common;

use std::collections::BTreeMap;

use common::retrylint_in;

/// `report --format json` of a description written into a scratch folder: each
/// operation's `contract` by `METHOD /path`.
fn contracts(name: &str, spec: &str) -> BTreeMap<String, serde_json::Value> {
    let dir = common::scratch(&format!("contract-sources-{name}"));
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    common::report_contracts(&dir)
}

/// Follows the IANA HTTP Method Registry's "Safe" and "Idempotent" columns
/// (https://www.iana.org/assignments/http-methods/http-methods.xhtml): WebDAV's COPY,
/// MOVE, MKCOL and PROPPATCH are idempotent, PROPFIND is safe, LOCK is neither.
#[test]
fn methods_follow_the_iana_registry() {
    let ok = "{ responses: { '201': { description: done } } }";
    let spec = format!(
        "openapi: 3.2.0\ninfo: {{ title: files, version: '1' }}\npaths:\n  /files/{{name}}:\n    additionalOperations:\n      COPY: {ok}\n      MOVE: {ok}\n      MKCOL: {ok}\n      PROPPATCH: {ok}\n      PROPFIND: {ok}\n      LOCK: {ok}\n"
    );
    let contracts = contracts("methods", &spec);
    let effect = |method: &str| {
        contracts[&format!("{method} /files/{{name}}")]["effect"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for idempotent in ["COPY", "MOVE", "MKCOL", "PROPPATCH"] {
        assert_eq!(
            effect(idempotent),
            format!("idempotent ({idempotent} method)")
        );
    }
    assert_eq!(effect("PROPFIND"), "none (PROPFIND method)");
    // LOCK promises nothing (the registry), and its 201 says it creates a lock.
    assert_eq!(effect("LOCK"), "non-idempotent (response \"201\")");
}

/// Follows the Azure REST API guidelines (microsoft/api-guidelines, azure/Guidelines.md,
/// "Long-running operations": a 202 with `Operation-Location`) and the ARM rule
/// LroAzureAsyncOperationHeader (Azure/azure-openapi-validator,
/// docs/lro-azure-async-operation-header.md: a 202 with `Azure-AsyncOperation`): either
/// header names the status resource, with or without `x-ms-long-running-operation`.
#[test]
fn a_202_naming_its_status_resource_is_a_status_endpoint() {
    let write = |header: &str| {
        format!(
            "    post:\n      responses:\n        '202':\n          description: accepted\n          headers: {{ {header}: {{ schema: {{ type: string }} }} }}\n"
        )
    };
    let spec = format!(
        "openapi: 3.0.3\ninfo: {{ title: jobs, version: '1' }}\npaths:\n  /analyze:\n{}  /deploy:\n{}  /export:\n{}",
        write("Operation-Location"),
        write("Azure-AsyncOperation"),
        write("Location")
    );
    let contracts = contracts("accepted", &spec);
    for (path, header) in [
        ("/analyze", "Operation-Location"),
        ("/deploy", "Azure-AsyncOperation"),
        ("/export", "Location"),
    ] {
        let contract = &contracts[&format!("POST {path}")];
        assert_eq!(contract["state"], "retry-safe-with-reconcile", "{path}");
        assert_eq!(
            contract["statusEndpoint"],
            format!("a 202 response with {header}"),
            "{path}: {contract}"
        );
    }
}

/// `check --format json` of a description written into a scratch folder: each finding
/// as `(rule, "METHOD /path")`.
fn findings(name: &str, spec: &str) -> Vec<(String, String)> {
    let dir = common::scratch(&format!("contract-sources-check-{name}"));
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "--format", "json"]);
    assert!(run.code <= 1, "{}", run.transcript());
    common::rule_operations(&serde_json::from_str(&run.stdout).unwrap())
}

/// Follows Qdrant's description (qdrant/qdrant, docs/redoc/master/openapi.json), whose
/// operations answer `4XX: {description: error}` with its generic error body and no
/// header: a class with no `Retry-After` is an error answer, not a 429. The rules and
/// the report read it alike; a class that does say when to come back is a 429.
#[test]
fn a_response_class_declares_a_429_only_when_it_says_when_to_come_back() {
    let spec = "openapi: 3.0.3
info: { title: vectors, version: '1' }
paths:
  /healthz:
    get:
      responses:
        '200': { description: ok }
        4XX: { description: error }
  /points:
    get:
      responses:
        '200': { description: ok }
        4XX:
          description: error
          headers: { Retry-After: { schema: { type: integer } } }
  /limits:
    get:
      responses:
        '200': { description: ok }
        '429': { description: slow down }
";
    let fired = findings("classes", spec);
    let throttling = |op: &str| {
        fired
            .iter()
            .filter(|(rule, at)| at == op && rule != "write-without-retry-protection")
            .map(|(rule, _)| rule.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(throttling("GET /healthz"), ["throttle-status-undeclared"]);
    assert!(throttling("GET /points").is_empty(), "{fired:?}");
    assert_eq!(throttling("GET /limits"), ["retry-after-header-undeclared"]);

    let contracts = contracts("classes", spec);
    assert_eq!(
        contracts["GET /healthz"]["throttling"],
        "no 429 or 503 declared: clients cannot tell how the server asks them to slow down"
    );
    assert_eq!(
        contracts["GET /points"]["throttling"],
        "429 (as 4XX) with Retry-After (seconds)"
    );
    assert_eq!(
        contracts["GET /limits"]["throttling"],
        "429 without Retry-After"
    );
}
