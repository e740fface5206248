//! The corpus descriptions' effects against the labels of `tests/data/effects`: every
//! operation whose effect is not its method's is labelled from the description's own
//! words, so each change the effect model makes to the corpus counts below has a
//! labelled reason, and the moves away from the method are right more often than wrong.

use std::collections::BTreeMap;

use super::corpus;
use crate::common;

/// Each corpus description, with the labelled sets that cover it.
const LABELLED: &[(&str, &[&str])] = &[
    ("github/api.github.com.json", &["github"]),
    ("stripe/spec3.yaml", &["stripe"]),
    ("stripe/spec3.json", &["stripe", "stripe-2022"]),
    ("box/openapi.json", &["box"]),
    ("adyen/CheckoutService-v71.json", &["adyen-checkout"]),
    ("asana/asana_oas.yaml", &["asana"]),
    ("twilio/twilio_api_v2010.json", &["twilio"]),
    (
        "digitalocean/specification/DigitalOcean-public.v2.yaml",
        &["digitalocean"],
    ),
];

/// What RFC 9110 §9.2 makes of a method alone, as the labels write effects.
fn by_method(method: &str) -> &'static str {
    match method {
        "GET" | "HEAD" | "OPTIONS" | "TRACE" | "QUERY" => "read",
        "PUT" | "DELETE" => "idempotent-write",
        _ => "non-idempotent-write",
    }
}

/// The labels of `sets`, by `METHOD path`.
fn labels(sets: &[&str]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for set in sets {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/effects")
            .join(set)
            .join("labels.jsonl");
        for (key, label) in common::effect_labels(&path) {
            out.insert(key, label["effect"].as_str().unwrap().to_string());
        }
    }
    out
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn every_effect_the_method_does_not_give_is_labelled_and_mostly_right() {
    let dir = corpus();
    let (mut all_moved, mut all_right) = (0, 0);
    let mut all_wrong = Vec::new();
    for (spec, sets) in LABELLED {
        let labels = labels(sets);
        let path = dir.join(spec);
        let run = common::retrylint(&["report", path.to_str().unwrap(), "--format", "json"]);
        assert_eq!(run.code, 0, "{spec}: {}", run.stderr);
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let (mut moved, mut right, mut method_right) = (0, 0, 0);
        let mut unlabelled = Vec::new();
        let mut wrong = Vec::new();
        for op in doc["operations"].as_array().unwrap() {
            let method = op["method"].as_str().unwrap();
            let effect = op["contract"]["repeat"]["effect"].as_str().unwrap();
            if effect == by_method(method) {
                continue;
            }
            moved += 1;
            let key = format!("{method} {}", op["path"].as_str().unwrap());
            match labels.get(&key) {
                None => unlabelled.push(key),
                Some(label) if label == effect => right += 1,
                Some(label) => {
                    method_right += usize::from(label == by_method(method));
                    wrong.push(format!("{key}: {effect}, labelled {label}"));
                }
            }
        }
        assert!(moved > 0, "{spec}");
        assert_eq!(
            unlabelled,
            Vec::<String>::new(),
            "{spec}: moved from the method's effect without a label"
        );
        // Moving away from the method is a net gain on every description, and the moves the
        // labels call wrong are few: listed when this fails.
        assert!(
            right > method_right,
            "{spec}: {right} right, {method_right} where the method was\n{}",
            wrong.join("\n")
        );
        all_moved += moved;
        all_right += right;
        all_wrong.extend(wrong.into_iter().map(|w| format!("{spec}: {w}")));
    }
    // Over all of them, at least 85 in 100 moves agree with their label.
    assert!(
        all_right * 100 >= all_moved * 85,
        "{all_right} of {all_moved} moves right\n{}",
        all_wrong.join("\n")
    );
}
