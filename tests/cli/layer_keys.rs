//! A key protects a layer's retries only when the description declares it: the client's
//! `idempotency.keyHeader` alone, undeclared, protects nothing the mesh repeats.

use crate::common;

use common::orders::{HEADER_KEY, POLICY, description, mesh};
use common::{git, json_findings, retrylint_in, rule_places, scratch};
use std::path::Path;

/// Writes the description, the policy beside it and the mesh route into `dir`.
fn write(dir: &Path, key: Option<&str>) {
    std::fs::write(dir.join("openapi.yaml"), description("orders", key)).unwrap();
    std::fs::write(dir.join("retry-policy.yaml"), POLICY).unwrap();
    std::fs::write(dir.join("vs.yaml"), mesh("orders")).unwrap();
}

/// `(rule, file:line)` of every finding of `check openapi.yaml -p vs.yaml` in `dir`.
fn findings(dir: &Path) -> Vec<(String, String)> {
    let run = retrylint_in(
        dir,
        &["check", "openapi.yaml", "-p", "vs.yaml", "--format", "json"],
    );
    assert!(run.code == 0 || run.code == 1, "{}", run.transcript());
    rule_places(&json_findings(&run.stdout))
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
    std::fs::write(dir.join("openapi.yaml"), description("orders", None)).unwrap();
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
    let new = rule_places(doc["findings"]["new"].as_array().unwrap());
    assert!(has(&new, "unprotected-write-retry", "vs.yaml:9"), "{new:?}");
    assert!(
        has(&new, "idempotency-key-undeclared", "retry-policy.yaml:11"),
        "{new:?}"
    );
}
