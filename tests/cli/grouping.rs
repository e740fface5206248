//! Findings whose fix lives in one shared place are one finding there, through every
//! output; fingerprints survive a `git mv` of the description, and baselines of the
//! version before still apply.

use crate::common;

use std::path::Path;

use common::{git, retrylint, retrylint_in, scratch};
use serde_json::Value;

const DEMO: &str = "fixtures/shop/openapi.yaml";
const DEMO_POLICY: &str = "fixtures/shop/retry-policy.yaml";
const RULE: &str = "retry-after-header-undeclared";
const SHARED: &str = "/components/responses/ServiceUnavailable";

/// The operations of the demo that `$ref` the shared 503, in description order.
const USERS: [&str; 7] = [
    "GET /orders",
    "POST /orders",
    "GET /orders/{orderId}",
    "DELETE /orders/{orderId}",
    "POST /orders/{orderId}/payments",
    "GET /payments/{paymentId}",
    "POST /payments/{paymentId}/refunds",
];

fn json_in(dir: &Path, args: &[&str]) -> Value {
    let run = retrylint_in(dir, args);
    assert!(run.code < 2, "{}", run.transcript());
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// The findings of `rule` in a JSON document.
fn of_rule<'a>(doc: &'a Value, rule: &str) -> Vec<&'a Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

/// `METHOD /path` of each operation a JSON finding lists.
fn operations(finding: &Value) -> Vec<String> {
    finding["operations"]
        .as_array()
        .map(|ops| {
            ops.iter()
                .map(|o| {
                    format!(
                        "{} {}",
                        o["method"].as_str().unwrap(),
                        o["path"].as_str().unwrap()
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The demo's description alone in a scratch folder, edited by `edit`.
fn demo_copy(name: &str, edit: impl Fn(String) -> String) -> std::path::PathBuf {
    let dir = scratch(name);
    let text = std::fs::read_to_string(DEMO).unwrap();
    let edited = edit(text.clone());
    std::fs::write(dir.join("openapi.yaml"), edited).unwrap();
    dir
}

#[test]
fn the_demo_reports_the_shared_503_once_with_its_operations() {
    let concise = retrylint(&["check", DEMO, "-p", DEMO_POLICY, "--format", "concise"]);
    assert_eq!(concise.code, 1, "{}", concise.transcript());
    let lines: Vec<&str> = concise
        .stdout
        .lines()
        .filter(|l| l.contains(RULE))
        .collect();
    assert_eq!(
        lines,
        [
            "fixtures/shop/openapi.yaml:259:5: warning[retry-after-header-undeclared] the shared 503 response `ServiceUnavailable` declares no Retry-After header: clients of 7 operations cannot tell when to try again"
        ]
    );
    let doc = json_in(
        Path::new("."),
        &["check", DEMO, "-p", DEMO_POLICY, "--format", "json"],
    );
    let grouped = of_rule(&doc, RULE);
    assert_eq!(grouped.len(), 1);
    let finding = grouped[0];
    assert_eq!(finding["location"]["pointer"], SHARED);
    assert!(finding["operation"].is_null());
    assert_eq!(operations(finding), USERS);
    // A related place at each use, in the same order.
    let uses: Vec<&str> = finding["related"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["message"].as_str()?.strip_prefix("used by "))
        .collect();
    assert_eq!(uses, USERS);
    assert_eq!(doc["summary"]["warnings"], 2);
    // SARIF: one result at the shared place, its operations in the properties.
    let sarif: Value = serde_json::from_str(
        &retrylint(&["check", DEMO, "-p", DEMO_POLICY, "--format", "sarif"]).stdout,
    )
    .unwrap();
    let results: Vec<&Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == RULE)
        .collect();
    assert_eq!(results.len(), 1);
    assert_eq!(
        results[0]["properties"]["operations"]
            .as_array()
            .unwrap()
            .len(),
        7
    );
    assert_eq!(
        results[0]["partialFingerprints"]["retrylint/v2"],
        finding["fingerprint"]
    );
    // GitHub: one annotation, at the shared definition.
    let github = retrylint(&["check", DEMO, "-p", DEMO_POLICY, "--format", "github"]);
    let annotations: Vec<&str> = github.stdout.lines().filter(|l| l.contains(RULE)).collect();
    assert_eq!(annotations.len(), 1, "{}", github.stdout);
    assert!(annotations[0].contains("line=259,"), "{}", annotations[0]);
    // Its seven uses: the first five named, then how many more.
    assert_eq!(
        annotations[0].matches("%0Asee ").count(),
        5,
        "{}",
        annotations[0]
    );
    assert!(
        annotations[0].contains("%0A… and 2 more places"),
        "{}",
        annotations[0]
    );
    // The readiness report shows it beside every operation it affects.
    let report = json_in(
        Path::new("."),
        &["report", DEMO, "-p", DEMO_POLICY, "--format", "json"],
    );
    let beside: Vec<String> = report["operations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| {
            o["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["rule"] == RULE)
        })
        .map(|o| {
            format!(
                "{} {}",
                o["method"].as_str().unwrap(),
                o["path"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(beside.len(), 7, "{beside:?}");
    // Human output shows the first five uses and says how many more there are.
    let human = retrylint(&["check", DEMO, "-p", DEMO_POLICY]);
    assert_eq!(
        human.stdout.matches("── used by ").count(),
        5,
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .contains("… and 2 more places (7 operations in all; --format json lists every one)"),
        "{}",
        human.stdout
    );
}

#[test]
fn an_operations_suppression_takes_it_out_of_the_group() {
    let dir = demo_copy("grouping-suppress-one", |text| {
        text.replacen(
            "      operationId: listOrders\n",
            "      operationId: listOrders\n      x-retrylint-ignore: { retry-after-header-undeclared: \"the page retries on its own\" }\n",
            1,
        )
    });
    let doc = json_in(&dir, &["check", "openapi.yaml", "--format", "json"]);
    let grouped = of_rule(&doc, RULE);
    assert_eq!(grouped.len(), 1);
    assert_eq!(operations(grouped[0]), USERS[1..]);
    assert!(
        grouped[0]["message"]
            .as_str()
            .unwrap()
            .contains("clients of 6 operations")
    );
    assert_eq!(doc["summary"]["suppressed"], 1);
    assert!(of_rule(&doc, "unused-suppression").is_empty());
}

#[test]
fn a_comment_on_the_shared_response_suppresses_the_grouped_finding() {
    let dir = demo_copy("grouping-suppress-shared", |text| {
        text.replacen(
            "    ServiceUnavailable:\n",
            "    ServiceUnavailable: # retrylint: ignore[retry-after-header-undeclared] the gateway adds Retry-After\n",
            1,
        )
    });
    let doc = json_in(&dir, &["check", "openapi.yaml", "--format", "json"]);
    assert!(of_rule(&doc, RULE).is_empty(), "{doc:#}");
    // One finding silenced, however many operations share the response.
    assert_eq!(doc["summary"]["suppressed"], 1);
    assert!(of_rule(&doc, "unused-suppression").is_empty());
}

#[test]
fn a_grouped_fingerprint_stays_when_an_operation_joins() {
    let before = demo_copy("grouping-join-before", |text| text);
    let after = demo_copy("grouping-join-after", |text| {
        text.replacen(
            "paths:\n",
            "paths:\n  /extra:\n    get:\n      operationId: extra\n      responses:\n        '200': { description: ok }\n        '503': { $ref: '#/components/responses/ServiceUnavailable' }\n",
            1,
        )
    });
    let args = ["check", "openapi.yaml", "--format", "json"];
    let (old, new) = (json_in(&before, &args), json_in(&after, &args));
    let (old, new) = (of_rule(&old, RULE), of_rule(&new, RULE));
    assert_eq!(old.len(), 1);
    assert_eq!(new.len(), 1);
    assert_eq!(operations(new[0]).len(), 8);
    assert_eq!(old[0]["fingerprint"], new[0]["fingerprint"]);
    // So a baseline of the group holds it with its new operation too.
    let written = retrylint_in(
        &before,
        &["check", "openapi.yaml", "--write-baseline", "b.json"],
    );
    assert_eq!(written.code, 0, "{}", written.transcript());
    let baseline = before.join("b.json");
    let held = retrylint_in(
        &after,
        &[
            "check",
            "openapi.yaml",
            "--baseline",
            baseline.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let doc: Value = serde_json::from_str(&held.stdout).unwrap();
    assert!(of_rule(&doc, RULE).is_empty(), "{doc:#}");
}

#[test]
fn a_git_mv_of_the_description_keeps_the_baseline() {
    let dir = scratch("grouping-git-mv");
    git(&dir, &["init", "-q"]);
    common::copy_fixture(DEMO, &dir, "api/openapi.yaml");
    common::copy_fixture(DEMO_POLICY, &dir, "api/retry-policy.yaml");
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-qm", "shop"]);
    let written = retrylint_in(
        &dir,
        &[
            "check",
            "api/openapi.yaml",
            "--write-baseline",
            "baseline.json",
        ],
    );
    assert_eq!(written.code, 0, "{}", written.transcript());
    let text = std::fs::read_to_string(dir.join("baseline.json")).unwrap();
    assert!(text.contains("\"version\": 2"), "{text}");
    // The folder and the file both get new names.
    git(&dir, &["mv", "api", "services"]);
    git(
        &dir,
        &["mv", "services/openapi.yaml", "services/shop-api.yaml"],
    );
    let moved = retrylint_in(
        &dir,
        &[
            "check",
            "services/shop-api.yaml",
            "--baseline",
            "baseline.json",
        ],
    );
    assert_eq!(moved.code, 0, "{}", moved.transcript());
    assert!(
        moved
            .stdout
            .ends_with("0 errors, 0 warnings in 8 operations (8 in the baseline)\n"),
        "{}",
        moved.stdout
    );
}

#[test]
fn a_version_1_baseline_still_applies() {
    // Written before findings were grouped: it lists the 503 once per operation, and
    // its fingerprints name the file.
    let run = retrylint(&[
        "check",
        DEMO,
        "-p",
        DEMO_POLICY,
        "--baseline",
        "fixtures/baseline/shop-v1.json",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .ends_with("0 errors, 0 warnings in 8 operations (8 in the baseline)\n"),
        "{}",
        run.stdout
    );
    let unknown = scratch("grouping-baseline-v3").join("b.json");
    std::fs::write(&unknown, "{\"version\": 3, \"findings\": []}").unwrap();
    let refused = retrylint(&["check", DEMO, "--baseline", unknown.to_str().unwrap()]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("reads versions 1 and 2"),
        "{}",
        refused.stderr
    );
}
