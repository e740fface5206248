//! A key protects a layer's retries only when the description declares it: the client's
//! `idempotency.keyHeader` alone, undeclared, protects nothing the mesh repeats.

mod common;

use common::{git, json_findings, retrylint_in, scratch};
use std::path::Path;

const POLICY: &str = "version: 1
defaults:
  maxAttempts: 3
  deadline: 10s
  perAttemptTimeout: 2s
  backoff: {base: 100ms, cap: 2s, jitter: full}
  retryOn: [503, connect-failure, timeout]
  retryAfter: {honor: true, max: 2s}
operations:
  createOrder:
    idempotency: {keyHeader: Idempotency-Key, keyRetention: 24h}
    onUnknownOutcome: retry-same-key
";

/// An Istio route that retries every request on 5xx, `POST /orders` included.
const MESH: &str = "apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: orders, namespace: prod}
spec:
  hosts: [orders.prod.svc.cluster.local]
  http:
  - name: all
    timeout: 10s
    retries: {attempts: 2, perTryTimeout: 3s, retryOn: 5xx}
    route: [{destination: {host: orders.prod.svc.cluster.local}}]
";

/// `POST /orders`, taking `key` (a parameter in flow style) when there is one.
fn description(key: Option<&str>) -> String {
    let parameters = key.map_or(String::new(), |k| format!("      parameters: [{k}]\n"));
    format!(
        "openapi: 3.0.3
info: {{title: Orders, version: '1'}}
servers: [{{url: 'http://orders.prod.svc.cluster.local'}}]
paths:
  /orders:
    post:
      operationId: createOrder
{parameters}      responses:
        '201': {{description: created}}
        '409': {{description: key reused}}
        '503': {{description: unavailable, headers: {{Retry-After: {{schema: {{type: integer}}}}}}}}
"
    )
}

const HEADER_KEY: &str =
    "{name: Idempotency-Key, in: header, required: true, schema: {type: string}}";

/// Writes the description, the policy beside it and the mesh route into `dir`.
fn write(dir: &Path, key: Option<&str>) {
    std::fs::write(dir.join("openapi.yaml"), description(key)).unwrap();
    std::fs::write(dir.join("retry-policy.yaml"), POLICY).unwrap();
    std::fs::write(dir.join("vs.yaml"), MESH).unwrap();
}

/// `(rule, file:line)` of every finding of `check openapi.yaml -p vs.yaml` in `dir`.
fn findings(dir: &Path) -> Vec<(String, String)> {
    let run = retrylint_in(
        dir,
        &["check", "openapi.yaml", "-p", "vs.yaml", "--format", "json"],
    );
    assert!(run.code == 0 || run.code == 1, "{}", run.transcript());
    json_findings(&run.stdout)
        .iter()
        .map(|f| {
            let at = &f["location"];
            (
                f["rule"].as_str().unwrap().to_string(),
                format!("{}:{}", at["file"].as_str().unwrap(), at["line"]),
            )
        })
        .collect()
}

fn has(found: &[(String, String)], rule: &str, at: &str) -> bool {
    found.iter().any(|(r, a)| r == rule && a == at)
}

#[test]
fn an_undeclared_key_leaves_the_mesh_retry_of_a_write_unprotected() {
    let dir = scratch("layer-keys-undeclared");
    write(&dir, None);
    let found = findings(&dir);
    // The mesh route's retry of the write, reported at the route's retryOn.
    assert!(
        has(&found, "unprotected-write-retry", "vs.yaml:9"),
        "{found:?}"
    );
    assert!(
        has(&found, "multi-layer-write-retry", "vs.yaml:9"),
        "{found:?}"
    );
    // The client's naming of a key the operation does not declare.
    assert!(
        has(&found, "idempotency-key-undeclared", "retry-policy.yaml:11"),
        "{found:?}"
    );
    // The client's own retry is that rule's finding, not a second one.
    assert!(
        !found
            .iter()
            .any(|(r, a)| r == "unprotected-write-retry" && a.starts_with("retry-policy.yaml")),
        "{found:?}"
    );

    // The finding at the route says why the client's key does not count.
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "-p", "vs.yaml"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stdout.contains(
            "the client sends `Idempotency-Key`, which POST /orders does not declare: it protects nothing"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_declared_key_still_protects_the_mesh_retry() {
    for (name, key) in [
        ("header", HEADER_KEY),
        // The policy names a query key by its name (the format has no other field).
        (
            "query",
            "{name: idempotency_key, in: query, required: true, schema: {type: string}}",
        ),
    ] {
        let dir = scratch(&format!("layer-keys-declared-{name}"));
        write(&dir, Some(key));
        if name == "query" {
            let policy = POLICY.replace("Idempotency-Key", "idempotency_key");
            std::fs::write(dir.join("retry-policy.yaml"), policy).unwrap();
        }
        let found = findings(&dir);
        for rule in [
            "unprotected-write-retry",
            "multi-layer-write-retry",
            "idempotency-key-undeclared",
        ] {
            assert!(!found.iter().any(|(r, _)| r == rule), "{name}: {found:?}");
        }
    }
}

#[test]
fn a_pull_request_that_removes_the_key_shows_the_mesh_retry_as_new() {
    let dir = scratch("layer-keys-base");
    git(&dir, &["init", "-q"]);
    write(&dir, Some(HEADER_KEY));
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "base"]);
    std::fs::write(dir.join("openapi.yaml"), description(None)).unwrap();
    git(&dir, &["commit", "-q", "-am", "the key is dropped"]);

    let run = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "-p",
            "vs.yaml",
            "--base",
            "HEAD~1",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let new: Vec<(String, String)> = doc["findings"]["new"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let at = &f["location"];
            (
                f["rule"].as_str().unwrap().to_string(),
                format!("{}:{}", at["file"].as_str().unwrap(), at["line"]),
            )
        })
        .collect();
    assert!(has(&new, "unprotected-write-retry", "vs.yaml:9"), "{new:?}");
    assert!(
        has(&new, "idempotency-key-undeclared", "retry-policy.yaml:11"),
        "{new:?}"
    );
}
