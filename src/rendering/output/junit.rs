//! `--format junit`: one test case per operation, for CI test reports (GitLab, Jenkins,
//! Azure Pipelines). A finding at or above `--fail-on` is a failure; one below it is
//! written to the test case's `system-out`, so the report fails exactly when the exit
//! code does.

use super::{CheckResult, FailOn, Place};
use crate::analysis::rules::finding::Finding;
use crate::escape::xml as escape;

/// The test case of findings that are about the policy, not one operation.
const POLICY_CASE: &str = "policy";

/// Renders every result as a test suite.
pub fn render(results: &[CheckResult], fail_on: FailOn) -> String {
    let mut suites = String::new();
    let (mut total_tests, mut total_failures) = (0, 0);
    for result in results {
        let mut cases: Vec<(String, Vec<&Finding>)> = result
            .operations
            .iter()
            .map(|o| (format!("{} {}", o.method, o.path), Vec::new()))
            .collect();
        let index: foldhash::HashMap<(&str, &str), usize> = result
            .operations
            .iter()
            .enumerate()
            .map(|(i, o)| ((o.method.as_str(), o.path.as_str()), i))
            .collect();
        let mut policy_findings = Vec::new();
        // A grouped finding fails the test case of every operation it affects.
        for finding in &result.findings {
            let mut placed = false;
            for o in finding.operations() {
                if let Some(&i) = index.get(&(o.method.as_str(), o.path.as_str())) {
                    cases[i].1.push(finding);
                    placed = true;
                }
            }
            if !placed {
                policy_findings.push(finding);
            }
        }
        if !policy_findings.is_empty() {
            cases.push((POLICY_CASE.to_string(), policy_findings));
        }
        let failures = cases
            .iter()
            .filter(|(_, f)| f.iter().any(|f| fail_on.fails(f.severity)))
            .count();
        total_tests += cases.len();
        total_failures += failures;
        suites.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n",
            escape(&result.description),
            cases.len()
        ));
        // What the description alone lets any client retry safely, per contract state.
        suites.push_str("    <properties>\n");
        for state in crate::analysis::contract::ContractState::ALL {
            suites.push_str(&format!(
                "      <property name=\"contract.{}\" value=\"{}\"/>\n",
                state.as_str(),
                result.contract.get(state)
            ));
        }
        suites.push_str("    </properties>\n");
        for (name, findings) in &cases {
            let open = format!(
                "    <testcase name=\"{}\" classname=\"{}\"",
                escape(name),
                escape(&result.description)
            );
            if findings.is_empty() {
                suites.push_str(&open);
                suites.push_str("/>\n");
                continue;
            }
            suites.push_str(&open);
            suites.push_str(">\n");
            let mut below = String::new();
            for f in findings {
                let place = Place::of(&f.primary.loc, &result.sources);
                // Each part is escaped on its own: a line break from the description
                // stays a character reference, only the one before `help:` is real.
                let mut body = escape(&format!(
                    "{}[{}] {}:{}:{}: {}",
                    f.severity, f.rule, place.file, place.line, place.column, f.message
                ));
                if let Some(help) = &f.help {
                    body.push_str("\nhelp: ");
                    body.push_str(&escape(help));
                }
                for label in &f.related {
                    let at = Place::of(&label.loc, &result.sources);
                    let (file, line, column) = (at.file, at.line, at.column);
                    body.push_str("\nsee ");
                    body.push_str(&escape(&format!("{file}:{line}:{column}: {}", label.text)));
                }
                body.push('\n');
                body.push_str(&escape(&super::explain_hint(f.rule)));
                if fail_on.fails(f.severity) {
                    suites.push_str(&format!(
                        "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                        escape(f.rule.as_str()),
                        escape(&f.message),
                        body
                    ));
                } else {
                    below.push_str(&body);
                    below.push('\n');
                }
            }
            if !below.is_empty() {
                suites.push_str(&format!(
                    "      <system-out>below --fail-on {}:\n{below}</system-out>\n",
                    fail_on.as_str()
                ));
            }
            suites.push_str("    </testcase>\n");
        }
        suites.push_str("  </testsuite>\n");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"retrylint\" tests=\"{total_tests}\" failures=\"{total_failures}\">\n{suites}</testsuites>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escaping() {
        assert_eq!(
            escape("a<b & \"c\"\u{1}\u{1b}[2J\u{85}\u{2028}"),
            "a&lt;b &amp; &quot;c&quot;\\u{1}\\e[2J\\u{85}\\u{2028}"
        );
    }
}
