//! Docs are code: every rule page's example is linted and must fire that rule.

use crate::common;

use common::{fired_rules, retrylint_in};

/// The body of the fenced block whose info string is exactly `info`.
fn block(page: &str, info: &str) -> Option<String> {
    let start = page.find(&format!("```{info}\n"))? + info.len() + 4;
    let end = page[start..].find("\n```")? + start;
    Some(page[start..end].to_string() + "\n")
}

/// The rules a page says its example also reports: `Also reported: `a`, `b`.`
fn also_reported(page: &str) -> Vec<String> {
    page.lines()
        .filter_map(|l| l.strip_prefix("Also reported:"))
        .flat_map(|rest| {
            rest.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_rule_page_example_fires_its_rule_and_only_the_rules_it_names() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/rules");
    let mut pages: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pages.sort();
    assert_eq!(pages.len(), retrylint::analysis::rules::ALL.len());
    for page_path in pages {
        let rule = page_path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let page = std::fs::read_to_string(&page_path).unwrap();
        assert!(
            page.starts_with(&format!("# {rule}\n")),
            "{rule}: page must start with its name"
        );
        for section in [
            "## What it checks",
            "## Why",
            "## Example",
            "## Fix",
            "## References",
        ] {
            assert!(page.contains(section), "{rule}: missing {section}");
        }
        let description = block(&page, "yaml openapi")
            .unwrap_or_else(|| panic!("{rule}: no ```yaml openapi block"));
        // A contract rule's example has no policy: its question is asked without one.
        let contract = retrylint::analysis::rules::by_name(&rule)
            .is_some_and(|r| r.meta().scope == retrylint::analysis::rules::Scope::Contract);
        let policy = block(&page, "yaml retry-policy");
        assert_eq!(
            policy.is_none(),
            contract,
            "{rule}: a contract rule's page has no ```yaml retry-policy block; every other page has one"
        );
        let work = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("doc-{rule}"));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(work.join("openapi.yaml"), description).unwrap();
        if let Some(policy) = policy {
            std::fs::write(work.join("retry-policy.yaml"), policy).unwrap();
        }
        // A page about layers adds a mesh, gateway or proxy file, given with -p.
        let run = match block(&page, "yaml layer") {
            Some(layer) => {
                std::fs::write(work.join("layer.yaml"), layer).unwrap();
                retrylint_in(
                    &work,
                    &[
                        "check",
                        "openapi.yaml",
                        "-p",
                        "retry-policy.yaml",
                        "-p",
                        "layer.yaml",
                        "--show-infos",
                    ],
                )
            }
            None => retrylint_in(&work, &["check", "openapi.yaml", "--show-infos"]),
        };
        assert_ne!(
            run.code,
            2,
            "{rule}: the doc example is not valid input:\n{}",
            run.transcript()
        );
        let mut expected = also_reported(&page);
        expected.push(rule.clone());
        expected.sort();
        assert_eq!(
            fired_rules(&run.stdout),
            expected,
            "{rule}: the doc example fires other rules than the page says:\n{}",
            run.transcript()
        );
    }
}
