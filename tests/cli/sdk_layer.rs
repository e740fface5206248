//! The Speakeasy SDK layer through the real binary: attempts counted as the generated
//! SDKs loop, the SDK language each finding assumes, and what that language does with
//! `Retry-After`.

use crate::common;

use common::{json_findings, retrylint, scratch};

/// The JSON findings of a run as (rule, message, every label's text).
fn findings(stdout: &str) -> Vec<(String, String, String)> {
    let text = |v: &serde_json::Value, key: &str| v[key].as_str().unwrap_or_default().to_string();
    json_findings(stdout)
        .iter()
        .map(|f| {
            let mut labels = vec![text(f, "label")];
            labels.extend(
                f["related"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|r| text(r, "label")),
            );
            (text(f, "rule"), text(f, "message"), labels.join(" | "))
        })
        .collect()
}

/// Follows mistralai/client-ts `src/lib/retries.ts` and mistralai/client-python
/// `src/mistralai/client/utils/retries.py`: elapsed time is checked before each wait, so
/// with waits 0, 0.5, 2, 4.5, 8, then 10 s (TypeScript) or 0.5, 1, 2, 4, 8, then 10 s
/// (Python) the tenth wait starts within the minute and an eleventh attempt follows it.
#[test]
fn the_fixture_counts_eleven_attempts_of_the_typescript_sdk() {
    let run = retrylint(&[
        "check",
        "fixtures/layers/sdk/payments-speakeasy.yaml",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let found = findings(&run.stdout);
    let attempts: Vec<_> = found
        .iter()
        .filter(|(rule, _, _)| rule == "unbounded-attempts")
        .collect();
    // One finding at the setting, which every operation inherits.
    assert_eq!(attempts.len(), 1, "{found:#?}");
    for (_, message, labels) in attempts {
        assert!(message.contains("maxAttempts is 11"), "{message}");
        assert!(
            message.contains("client: Speakeasy TypeScript SDK with x-speakeasy-retries"),
            "{message}"
        );
        assert!(
            labels.contains("the description does not say the SDK's language, and TypeScript's retries the most (TypeScript 11, Python 11, Go 10)"),
            "{labels}"
        );
    }
    // Every finding about the SDK layer names the language it assumes.
    for (rule, message, _) in &found {
        if message.contains("x-speakeasy-retries, route") {
            assert!(
                message.contains("Speakeasy TypeScript SDK"),
                "{rule}: {message}"
            );
        }
    }
    // The TypeScript SDK honours Retry-After up to maxInterval: nothing to report on it.
    assert!(
        !found
            .iter()
            .any(|(rule, _, _)| rule.starts_with("retry-after")),
        "{found:#?}"
    );
}

/// Follows dubinc/dub-go `internal/utils/retries.go` (`retryWithBackoff`, `nextInterval`)
/// and `retry/config.go` (`retryIntervalFromResponse`): with Speakeasy's default backoff a
/// wait of `initialInterval × (n + 1)^1.5` less a quarter allows 79 attempts in the hour,
/// more than TypeScript's 77 and Python's 71, and the Go SDK waits whatever Retry-After
/// asks, with no upper bound.
#[test]
fn default_backoff_assumes_the_go_sdk_which_waits_any_retry_after() {
    let dir = scratch("sdk-layer-go");
    let description = dir.join("openapi.yaml");
    std::fs::write(
        &description,
        "openapi: 3.0.3\ninfo: { title: t, version: '1' }\nx-speakeasy-retries:\n  strategy: backoff\n  statusCodes: [429]\npaths:\n  /items:\n    get:\n      responses:\n        '200': { description: ok }\n        '429':\n          description: slow down\n          headers:\n            Retry-After: { schema: { type: integer } }\n",
    )
    .expect("write description");
    let path = description.to_string_lossy().to_string();
    let run = retrylint(&["check", &path, "--format", "json"]);
    assert_ne!(run.code, 2, "{}", run.transcript());
    let found = findings(&run.stdout);
    let attempts = found
        .iter()
        .find(|(rule, _, _)| rule == "unbounded-attempts")
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert!(attempts.1.contains("maxAttempts is 79"), "{}", attempts.1);
    assert!(
        attempts
            .1
            .contains("client: Speakeasy Go SDK with x-speakeasy-retries"),
        "{}",
        attempts.1
    );
    assert!(
        attempts
            .2
            .contains("Go's retries the most (TypeScript 77, Python 71, Go 79)"),
        "{}",
        attempts.2
    );
    let unbounded = found
        .iter()
        .find(|(rule, _, _)| rule == "retry-after-unbounded")
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert!(unbounded.1.contains("Speakeasy Go SDK"), "{}", unbounded.1);
    assert!(
        unbounded
            .2
            .contains("the Speakeasy Go SDK waits what Retry-After"),
        "{}",
        unbounded.2
    );
    assert!(
        !found
            .iter()
            .any(|(rule, _, _)| rule == "retry-after-ignored"),
        "{found:#?}"
    );
}
