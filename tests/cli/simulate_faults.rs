//! `retrylint simulate`: Retry-After fallbacks, invalid backoff and many fault windows,
//! through the real binary.

use crate::common;

use common::retrylint;
use serde_json::Value;

const STORM: &str = "fixtures/simulate/storm/openapi.yaml";

fn json(args: &[&str]) -> Value {
    common::simulate_json(args)
}

fn variant<'a>(document: &'a Value, name: &str) -> &'a Value {
    common::simulate_variant(document, name)
}

#[test]
fn an_unreadable_retry_after_follows_on_invalid() {
    // The storm policy says `onInvalid: stop`.
    let document = json(&[
        STORM,
        "--operation",
        "getFeed",
        "--clients",
        "200",
        "--fault",
        "429 retry-after=invalid@0s..10m",
        "--compare",
        "onInvalid=backoff",
    ]);
    assert_eq!(
        document["scenario"]["faults"][0],
        "429 retry-after=invalid@0s..600s"
    );
    let stop = variant(&document, "policy");
    assert_eq!(stop["requests"], 200, "{stop}");
    assert_eq!(stop["stopped"]["invalid-retry-after"], 200, "{stop}");
    let backoff = variant(&document, "onInvalid=backoff");
    assert!(
        backoff["stopped"].get("invalid-retry-after").is_none(),
        "{backoff}"
    );
    assert!(backoff["requests"].as_u64().unwrap() > 200, "{backoff}");
    // A missing Retry-After on a 429: onMissing.
    let document = json(&[
        STORM,
        "--operation",
        "getFeed",
        "--clients",
        "100",
        "--fault",
        "429@0s..10m",
        "--compare",
        "onMissing=stop",
    ]);
    assert_eq!(
        variant(&document, "onMissing=stop")["stopped"]["invalid-retry-after"],
        100
    );
    assert!(
        variant(&document, "policy")["stopped"]
            .get("invalid-retry-after")
            .is_none()
    );
    let bad = retrylint(&["simulate", STORM, "--fault", "429 retry-after=soon@0s..1s"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("retry-after=invalid"), "{}", bad.stderr);
}
