//! `retrylint schema`: the JSON Schema of the policy file agrees with the policy parser on
//! every fixture policy.

use crate::common;

use common::to_json;
use retrylint::input::source::{ParseLimits, parse};

fn policies(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            policies(&path, out);
        } else if path.file_name().is_some_and(|n| n == "retry-policy.yaml") {
            out.push(path);
        }
    }
}

#[test]
fn the_schema_accepts_what_the_parser_accepts_and_rejects_what_it_rejects() {
    let run = common::retrylint(&["schema"]);
    assert_eq!(run.code, 0);
    let schema: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let mut all = Vec::new();
    policies(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &mut all,
    );
    all.sort();
    assert!(all.len() > 60, "{}", all.len());
    let mut checked = 0;
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok((node, _)) = parse(&text, ParseLimits::default()) else {
            continue;
        };
        let file = retrylint::input::source::SourceFile::parse(
            path.clone(),
            text.clone(),
            ParseLimits::default(),
        )
        .unwrap();
        let parsed = retrylint::input::policy::parse_policy_file(
            &file,
            0,
            &retrylint::analysis::rules::names(),
        );
        let valid = validator.is_valid(&to_json(&node));
        // The parser is stricter (rule names, selector syntax, number ranges), never looser.
        if parsed.is_ok() {
            assert!(
                valid,
                "{}: the parser accepts it, the schema does not: {:?}",
                path.display(),
                validator
                    .iter_errors(&to_json(&node))
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
            );
        }
        let name = path.to_string_lossy();
        if [
            "policy-unknown-key",
            "policy-bad-duration",
            "policy-bare-number",
            "policy-unknown-jitter",
            "policy-unknown-fallback",
            "policy-no-version",
            "policy-wrong-type",
            "policy-several-errors",
        ]
        .iter()
        .any(|n| name.contains(n))
        {
            assert!(
                !valid,
                "{}: the schema accepts a broken policy",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(checked > 60);
}
