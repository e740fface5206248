//! The contract view read as real APIs mean it, each case following a public source:
//! method semantics from the IANA registry, status endpoints of asynchronous writes,
//! and what a response class says about throttling.

mod common;

use std::collections::BTreeMap;

use common::retrylint_in;

/// `report --format json` of a description written into a scratch folder: each
/// operation's `contract` by `METHOD /path`.
fn contracts(name: &str, spec: &str) -> BTreeMap<String, serde_json::Value> {
    let dir = common::scratch(&format!("contract-sources-{name}"));
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    let run = retrylint_in(&dir, &["report", "openapi.yaml", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    doc["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|op| {
            let key = format!(
                "{} {}",
                op["method"].as_str().unwrap(),
                op["path"].as_str().unwrap()
            );
            (key, op["contract"].clone())
        })
        .collect()
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
    assert_eq!(effect("LOCK"), "non-idempotent (LOCK method)");
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
