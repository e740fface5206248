//! The rule catalogue is one set everywhere: the code, the doc pages, the fixture folders,
//! and the table of the product specification (when it is beside the repository).

use crate::common;

use std::collections::BTreeSet;

fn folder_names(dir: &str, strip: &str) -> BTreeSet<String> {
    std::fs::read_dir(format!("{}/{dir}", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .trim_end_matches(strip)
                .to_string()
        })
        .collect()
}

fn code_names() -> BTreeSet<String> {
    retrylint::rules::names()
        .into_iter()
        .map(str::to_string)
        .collect()
}

#[test]
fn code_docs_and_fixtures_name_the_same_rules() {
    let code = code_names();
    assert_eq!(
        code.len(),
        retrylint::rules::ALL.len(),
        "rule names are unique"
    );
    assert_eq!(folder_names("rules", ".md"), code, "rules/*.md");
    assert_eq!(folder_names("fixtures/rules", ""), code, "fixtures/rules/*");
    for rule in &code {
        for case in ["fail", "pass"] {
            let dir = format!(
                "{}/fixtures/rules/{rule}/{case}",
                env!("CARGO_MANIFEST_DIR")
            );
            assert!(
                std::path::Path::new(&dir).join("openapi.yaml").is_file(),
                "{dir}/openapi.yaml"
            );
        }
    }
}

/// Rules the specification's table does not list: they check retry layers, or the
/// contract a description offers without a policy.
const LATER_RULES: &[&str] = &[
    "implicit-mesh-retry",
    "multi-layer-write-retry",
    "retry-amplification",
    "layer-ignores-retry-after",
    "retry-budget-missing",
    "route-matches-nothing",
    "operation-not-routed",
    "write-without-retry-protection",
    "throttle-status-undeclared",
    "link-target-missing",
];

#[test]
fn the_specification_table_names_the_same_rules() {
    let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/SPEC.md");
    let Ok(text) = std::fs::read_to_string(spec) else {
        eprintln!("notice: the product specification is not beside the repository; skipping");
        return;
    };
    let section = &text[text.find("## 3. Rules").unwrap()..text.find("## 4.").unwrap()];
    let table: BTreeSet<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    // Rules about retry layers (mesh, gateway, proxy and SDK settings) and about the
    // contract alone came after the specification's table; every rule of the table keeps
    // its name and severity.
    let later: BTreeSet<String> = LATER_RULES.iter().map(|s| s.to_string()).collect();
    let expected: BTreeSet<String> = code_names().difference(&later).cloned().collect();
    assert_eq!(table, expected);
    // Default severities agree too.
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let name = cells[1].trim_matches('`');
        let rule = retrylint::rules::by_name(name).unwrap();
        assert_eq!(rule.meta().severity.as_str(), cells[2], "{name}");
    }
}

#[test]
fn rules_lists_every_rule_and_explain_prints_its_page() {
    let run = common::retrylint(&["rules"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout.lines().count(), retrylint::rules::ALL.len());
    insta::assert_snapshot!("rules-table", run.stdout);
    for rule in retrylint::rules::ALL {
        let name = rule.meta().name;
        assert!(run.stdout.lines().any(|l| l.starts_with(name)), "{name}");
        let page = common::retrylint(&["explain", name]);
        assert_eq!(page.code, 0);
        let on_disk =
            std::fs::read_to_string(format!("{}/rules/{name}.md", env!("CARGO_MANIFEST_DIR")))
                .unwrap();
        assert_eq!(page.stdout, on_disk);
    }
    let typo = common::retrylint(&["explain", "retry-after-ignord"]);
    assert_eq!(typo.code, 2);
    assert!(
        typo.stderr.contains("did you mean `retry-after-ignored`?"),
        "{}",
        typo.stderr
    );
}

#[test]
fn the_rules_page_lists_every_rule_with_its_severity() {
    let page = common::docs::page("rules.md");
    let table = page
        .split_once("<!-- rules-table:start -->")
        .and_then(|(_, rest)| rest.split_once("<!-- rules-table:end -->"))
        .map(|(table, _)| table)
        .expect("the rules table between its markers");
    for rule in retrylint::rules::ALL {
        let meta = rule.meta();
        let row = format!(
            "| [`{0}`](../../rules/{0}.md) | {1} |",
            meta.name,
            meta.severity.as_str()
        );
        assert!(
            table.contains(&row),
            "docs/src/rules.md's rules table lacks {row}"
        );
    }
}
