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
    retrylint::analysis::rules::names()
        .into_iter()
        .map(str::to_string)
        .collect()
}

#[test]
fn code_docs_and_fixtures_name_the_same_rules() {
    let code = code_names();
    assert_eq!(
        code.len(),
        retrylint::analysis::rules::ALL.len(),
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
    let later: BTreeSet<String> = LATER_RULES
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let expected: BTreeSet<String> = code_names().difference(&later).cloned().collect();
    assert_eq!(table, expected);
    // Default severities agree too.
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let name = cells[1].trim_matches('`');
        let rule = retrylint::analysis::rules::by_name(name).unwrap();
        assert_eq!(rule.meta().severity.as_str(), cells[2], "{name}");
    }
}

#[test]
fn rules_lists_every_rule_and_explain_prints_its_page() {
    let run = common::retrylint(&["rules"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout.lines().count(),
        retrylint::analysis::rules::ALL.len()
    );
    insta::assert_snapshot!("rules-table", run.stdout);
    for rule in retrylint::analysis::rules::ALL {
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

/// The file whose table of rules is generated, and the path from it to the rule pages.
const RULES_TABLE_FILE: &str = "docs/src/rules.md";
const RULES_TABLE_PAGES: &str = "../../rules/";

/// The text between `<!-- NAME:start -->` and `<!-- NAME:end -->` lines of a file of the
/// repository.
fn generated_block(file: &str, name: &str) -> String {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let start = format!("<!-- {name}:start -->\n");
    let end = format!("<!-- {name}:end -->");
    let from = text
        .find(&start)
        .unwrap_or_else(|| panic!("{file} has no `{}` line", start.trim()))
        + start.len();
    let to = text[from..]
        .find(&end)
        .unwrap_or_else(|| panic!("{file} has no `{end}` line after the start"))
        + from;
    text[from..to].to_string()
}

/// Fails with the text to paste when a generated block differs from the generator's.
fn assert_generated(file: &str, name: &str, expected: &str) {
    // Blank lines around the table, inside the markers, are the page's own.
    let committed = generated_block(file, name);
    assert!(
        committed.trim_matches('\n') == expected.trim_matches('\n'),
        "{file}: the `{name}` block is stale; between its marker lines it should read:\n{expected}"
    );
}

#[test]
fn the_rules_table_is_the_generated_one() {
    let expected = retrylint::analysis::rules::docs::rules_table(RULES_TABLE_PAGES);
    assert_generated(RULES_TABLE_FILE, "rules-table", &expected);
}

/// The file whose table of layer formats is generated.
const LAYER_FORMATS_FILE: &str = "docs/src/layers.md";

#[test]
fn the_layer_formats_table_is_the_generated_one() {
    let expected = retrylint::analysis::layers::format::formats_table();
    assert_generated(LAYER_FORMATS_FILE, "layer-formats", &expected);
}

/// The formats the layer fixtures (`fixtures/layers`, and each rule's `layers` folders)
/// hold: `-p` files by what their importers read from them, the policy by its shape, and
/// the description's `x-speakeasy-retries` by its name.
fn formats_in_fixtures() -> BTreeSet<String> {
    use retrylint::analysis::layers::Format;
    use retrylint::analysis::layers::detect::{Detected, detect, expand, import};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut folders = vec![root.join("layers")];
    for rule in std::fs::read_dir(root.join("rules")).unwrap().flatten() {
        for case in ["fail", "pass"] {
            folders.push(rule.path().join(case).join("layers"));
        }
    }
    folders.retain(|f| f.is_dir());
    let options = retrylint::input::load::LoadOptions::default();
    let mut found = BTreeSet::new();
    let mut paths: Vec<std::path::PathBuf> = expand(&folders, &options)
        .unwrap()
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    // A folder walk reads YAML and JSON; NGINX and HAProxy configurations are given one
    // by one.
    for (folder, extension) in [("layers/nginx", "conf"), ("layers/haproxy", "cfg")] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap().flatten() {
            if entry.path().extension().is_some_and(|e| e == extension) {
                paths.push(entry.path());
            }
        }
    }
    for path in paths {
        match detect(&path, true, &options).unwrap() {
            Detected::Policy(_) => {
                found.insert(format!("{:?}", Format::Policy));
            }
            Detected::Layers(file) => {
                for layer in import(&file, 0).unwrap() {
                    found.insert(format!("{:?}", layer.format));
                }
            }
            Detected::Parents(_) | Detected::Nothing => {
                let text = std::fs::read_to_string(&path).unwrap();
                if text.contains(Format::Speakeasy.name()) {
                    found.insert(format!("{:?}", Format::Speakeasy));
                }
            }
        }
    }
    found
}

#[test]
fn every_layer_format_has_fixtures_and_a_row_in_the_docs() {
    let found = formats_in_fixtures();
    let table = generated_block(LAYER_FORMATS_FILE, "layer-formats");
    for format in retrylint::analysis::layers::Format::ALL {
        let name = format!("{format:?}");
        assert!(found.contains(&name), "no layer fixture holds {name}");
        let row = format!(
            "| {} | {}",
            format.spec().docs.format,
            format.default_position()
        );
        assert!(
            table.contains(&row),
            "{LAYER_FORMATS_FILE} has no row `{row}`"
        );
    }
}
