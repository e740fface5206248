//! Machine formats through the real binary: JSON, SARIF, GitHub and JUnit, on the demo
//! and on a multi-file description, plus `-o` and fingerprints.

use crate::common;

use common::{retrylint, retrylint_in, sarif_errors};
use serde_json::Value;

const DEMO: &str = "fixtures/shop/openapi.yaml";
const MULTI: &str = "fixtures/tricky/multi-file/openapi.yaml";

fn json(spec: &str) -> Value {
    let run = retrylint(&["check", spec, "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("valid JSON")
}

#[test]
fn json_output_has_the_versioned_shape() {
    let doc = json(DEMO);
    assert_eq!(doc["version"], 1);
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(doc["summary"]["errors"], 6);
    assert_eq!(doc["summary"]["operations"], 8);
    for f in findings {
        for key in [
            "rule",
            "severity",
            "message",
            "location",
            "related",
            "fingerprint",
        ] {
            assert!(!f[key].is_null(), "{key} missing in {f}");
        }
        let loc = &f["location"];
        assert!(loc["line"].as_u64().unwrap() >= 1 && loc["column"].as_u64().unwrap() >= 1);
        assert!(loc["endLine"].as_u64() >= loc["line"].as_u64());
    }
    let run = retrylint(&["check", DEMO, "--format", "json"]);
    insta::assert_snapshot!("json-demo", run.stdout);
}

#[test]
fn locations_in_referenced_files_point_into_those_files() {
    let doc = json(MULTI);
    let files: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["location"]["file"].as_str().unwrap())
        .collect();
    // The 503 without Retry-After is one finding in the shared responses file, with the
    // use in the `$ref`'d operation's file among its related places.
    assert!(
        files.contains(&"fixtures/tricky/multi-file/components/responses.yaml"),
        "{files:?}"
    );
    let related: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["related"].as_array().unwrap())
        .map(|r| r["location"]["file"].as_str().unwrap())
        .collect();
    assert!(
        related.contains(&"fixtures/tricky/multi-file/operations/create-order.yaml"),
        "{related:?}"
    );
    let run = retrylint(&["check", MULTI, "--format", "json"]);
    insta::assert_snapshot!("json-multi-file", run.stdout);
    let sarif = retrylint(&["check", MULTI, "--format", "sarif"]);
    assert!(
        sarif
            .stdout
            .contains("\"uri\": \"fixtures/tricky/multi-file/operations/create-order.yaml\"")
    );
}

#[test]
fn sarif_validates_against_the_official_schema() {
    for spec in [DEMO, MULTI, "fixtures/tricky/non-ascii/openapi.yaml"] {
        let run = retrylint(&["check", spec, "--format", "sarif"]);
        assert_eq!(run.code, 1);
        assert_eq!(sarif_errors(&run.stdout), Vec::<String>::new(), "{spec}");
    }
    let run = retrylint(&["check", DEMO, "--format", "sarif"]);
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    let run0 = &log["runs"][0];
    assert_eq!(run0["columnKind"], "unicodeCodePoints");
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    for result in run0["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert!(result["partialFingerprints"]["retrylint/v2"].is_string());
    }
    for rule in rules {
        assert!(rule["helpUri"].as_str().unwrap().ends_with(".md"));
        assert!(
            rule["help"]["markdown"]
                .as_str()
                .unwrap()
                .contains("## Fix")
        );
    }
    // Relative URIs name their base, the folder the check ran in.
    let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    let base = format!("file://{}/", root.display());
    assert_eq!(log["runs"][0]["originalUriBaseIds"]["ROOT"]["uri"], base);
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    insta::assert_snapshot!("sarif-demo", run.stdout.replace(&base, "file:///[ROOT]/"));
}

#[test]
fn github_annotations_escape_and_carry_columns_only_on_one_line() {
    let run = retrylint(&["check", DEMO, "--format", "github"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("retrylint: 6 errors, 2 warnings in 8 operations\n"),
        "{}",
        run.stdout
    );
    for line in run.stdout.lines().skip(1) {
        assert!(
            line.starts_with("::error ")
                || line.starts_with("::warning ")
                || line.starts_with("::notice "),
            "{line}"
        );
        let (command, message) = line[2..].split_once("::").unwrap();
        let properties = command.split_once(' ').unwrap().1;
        assert!(!message.contains('\n'));
        let get = |k: &str| {
            properties
                .split(',')
                .find_map(|p| p.strip_prefix(&format!("{k}=")))
        };
        if get("line") != get("endLine") {
            assert!(get("col").is_none(), "{line}");
        }
        assert!(get("file").is_some() && get("title").is_some());
    }
    insta::assert_snapshot!("github-demo", run.stdout);
    let multi = retrylint(&["check", MULTI, "--format", "github"]);
    insta::assert_snapshot!("github-multi-file", multi.stdout);
}

#[test]
fn junit_has_a_case_per_operation_and_a_failure_per_finding() {
    let run = retrylint(&["check", DEMO, "--format", "junit"]);
    assert_eq!(run.code, 1);
    let xml = roxmltree::Document::parse(&run.stdout).expect("well-formed XML");
    let suites: Vec<_> = xml
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 1);
    let cases: Vec<_> = xml
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    // Eight operations, and one case for the findings about the policy as a whole.
    assert_eq!(cases.len(), 9);
    // A failure per finding at --fail-on (errors by default), as the exit code counts,
    // in the case of its operation: a grouped finding fails the case of every operation
    // it affects.
    let failures = |xml: &roxmltree::Document| {
        xml.descendants()
            .filter(|n| n.has_tag_name("failure"))
            .count()
    };
    let findings = json(DEMO)["findings"].as_array().unwrap().clone();
    let cases_of = |f: &serde_json::Value| f["operations"].as_array().map_or(1, Vec::len);
    let errors: usize = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(cases_of)
        .sum();
    assert_eq!(failures(&xml), errors);
    assert!(errors > 0 && errors < findings.iter().map(cases_of).sum());
    insta::assert_snapshot!("junit-demo", run.stdout);
    let warning = retrylint(&["check", DEMO, "--format", "junit", "--fail-on", "warning"]);
    let xml = roxmltree::Document::parse(&warning.stdout).expect("well-formed XML");
    assert_eq!(failures(&xml), findings.iter().map(cases_of).sum::<usize>());
    // The shared 503 without Retry-After fails the case of each of its 7 operations.
    let grouped = xml
        .descendants()
        .filter(|n| {
            n.has_tag_name("failure")
                && n.attribute("type") == Some("retry-after-header-undeclared")
        })
        .count();
    assert_eq!(grouped, 7);
    assert!(!warning.stdout.contains("<system-out>"));
    let never = retrylint(&["check", DEMO, "--format", "junit", "--fail-on", "never"]);
    assert_eq!(never.code, 0);
    let xml = roxmltree::Document::parse(&never.stdout).expect("well-formed XML");
    assert_eq!(failures(&xml), 0);
    let root = xml.root_element();
    assert_eq!(root.attribute("failures"), Some("0"));
}

#[test]
fn output_goes_to_a_file_with_o() {
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("out.sarif");
    let run = retrylint(&[
        "check",
        DEMO,
        "--format",
        "sarif",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        written,
        retrylint(&["check", DEMO, "--format", "sarif"]).stdout
    );
}

#[test]
fn fingerprints_survive_moved_lines_and_change_with_the_operation() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fingerprints");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/shop/openapi.yaml"
    ))
    .unwrap();
    let policy = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/shop/retry-policy.yaml"
    ))
    .unwrap();
    let fingerprints = |spec: &str, policy: &str| -> Vec<(String, String)> {
        std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
        std::fs::write(dir.join("retry-policy.yaml"), policy).unwrap();
        let run = retrylint_in(&dir, &["check", "openapi.yaml", "--format", "json"]);
        let doc: Value = serde_json::from_str(&run.stdout).unwrap();
        let mut out: Vec<(String, String)> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["message"].as_str().unwrap().to_string(),
                    f["fingerprint"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        out.sort();
        out
    };
    let before = fingerprints(&spec, &policy);
    // Lines inserted above every finding, in both files.
    let moved = fingerprints(
        &spec.replacen(
            "paths:",
            "# the API's operations\n# (moved down two lines)\npaths:",
            1,
        ),
        &policy.replacen("defaults:", "# shared settings\n\ndefaults:", 1),
    );
    assert_eq!(before, moved);
    // The same mistake on another operation is another finding.
    let renamed = fingerprints(
        &spec.replace("/orders/{orderId}/payments", "/orders/{orderId}/charges"),
        &policy.replace("/orders/{orderId}/payments", "/orders/{orderId}/charges"),
    );
    let payment = |list: &[(String, String)], path: &str| {
        list.iter()
            .find(|(m, _)| m.starts_with(&format!("POST {path} is retried")))
            .map(|(_, f)| f.clone())
            .unwrap()
    };
    assert_ne!(
        payment(&before, "/orders/{orderId}/payments"),
        payment(&renamed, "/orders/{orderId}/charges")
    );
}

#[test]
fn sarif_keeps_within_what_github_code_scanning_accepts() {
    let run = retrylint(&["check", DEMO, "--format", "sarif"]);
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["tool"]["driver"]["name"], "retrylint");
    for rule in runs[0]["tool"]["driver"]["rules"].as_array().unwrap() {
        assert!(
            rule["shortDescription"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        assert!(
            rule["fullDescription"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        assert!(rule["properties"]["tags"].as_array().unwrap().len() <= 20);
        assert!(
            ["error", "warning", "note"]
                .contains(&rule["defaultConfiguration"]["level"].as_str().unwrap())
        );
    }
    for result in runs[0]["results"].as_array().unwrap() {
        assert!(
            result["message"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        let locations = result["locations"].as_array().unwrap();
        assert_eq!(locations.len(), 1);
        let location = &locations[0]["physicalLocation"];
        let uri = location["artifactLocation"]["uri"].as_str().unwrap();
        assert!(
            !uri.starts_with('/') && !uri.contains('\\'),
            "relative URIs: {uri}"
        );
        assert!(location["region"]["startLine"].as_u64().unwrap() >= 1);
        for related in result["relatedLocations"].as_array().into_iter().flatten() {
            assert!(related["id"].is_u64() && related["message"]["text"].is_string());
        }
    }
}
