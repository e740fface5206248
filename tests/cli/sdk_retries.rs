//! A description's own retry settings (`x-speakeasy-retries`) through `check` without a
//! policy file: a finding about the setting is one, at the setting, and the policy rules
//! that judged it are not said to have been skipped.

use crate::common;

use common::retrylint_in;

/// Three operations inheriting the document's `x-speakeasy-retries`, whose hour of
/// `maxElapsedTime` allows 79 attempts of the Go SDK (the language that retries most).
const SPEC: &str = "openapi: 3.0.3
info: { title: sdk, version: '1' }
x-speakeasy-retries:
  strategy: backoff
  backoff: { initialInterval: 500, maxInterval: 60000, maxElapsedTime: 3600000, exponent: 1.5 }
  statusCodes: [503]
  retryConnectionErrors: true
paths:
  /a:
    get: { operationId: a, responses: { '200': { description: ok }, '503': { $ref: '#/components/responses/Busy' } } }
  /b:
    get: { operationId: b, responses: { '200': { description: ok }, '503': { $ref: '#/components/responses/Busy' } } }
  /c:
    put: { operationId: c, responses: { '200': { description: ok }, '503': { $ref: '#/components/responses/Busy' } } }
components:
  responses:
    Busy:
      description: busy
      headers: { Retry-After: { schema: { type: integer } } }
";

/// Follows Speakeasy's documentation of the extension
/// (https://www.speakeasy.com/docs/customize-sdks/retries): set at the document's root,
/// it is the SDK's retry policy for every operation without its own. A value of that
/// setting is judged once, at its place, and the policy rules did run on it.
#[test]
fn a_root_speakeasy_setting_is_judged_once_and_the_policy_rules_ran() {
    let dir = common::scratch("sdk-retries-root");
    std::fs::write(dir.join("openapi.yaml"), SPEC).unwrap();
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let unbounded: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "unbounded-attempts")
        .collect();
    assert_eq!(unbounded.len(), 1, "{}", run.stdout);
    let finding = unbounded[0];
    assert!(finding["operation"].is_null(), "{finding}");
    assert_eq!(
        finding["location"]["pointer"],
        "/x-speakeasy-retries/backoff/maxElapsedTime"
    );
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .ends_with("(client: Speakeasy Go SDK with x-speakeasy-retries)"),
        "{finding}"
    );
    assert!(
        !run.stderr.contains("policy rules did not run"),
        "{}",
        run.stderr
    );
}
