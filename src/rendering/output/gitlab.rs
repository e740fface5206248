//! `--format gitlab`: a GitLab Code Quality report — a JSON array of issues in the subset
//! of the Code Climate format GitLab reads (`description`, `check_name`, `fingerprint`,
//! `severity`, `location.path`, `location.lines.begin`). Paths are relative to the git
//! work tree, as GitLab expects, wherever the check ran from.
//!
//! GitLab keeps one issue per fingerprint, so a second identical finding gets its own
//! (the fingerprint with its occurrence number).

use foldhash::{HashMap, HashMapExt};

use serde_json::{Value, json};

use super::{CheckResult, Place, fingerprint};
use crate::analysis::rules::finding::Severity;

/// Renders every finding as a Code Quality issue.
pub fn render(results: &[CheckResult]) -> String {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut issues = Vec::new();
    for result in results {
        for finding in &result.findings {
            let place = Place::of(&finding.primary.loc, &result.sources);
            let base = fingerprint(finding, &result.sources, result.root_file);
            let occurrence = seen.entry(base.clone()).or_insert(0);
            *occurrence += 1;
            let fingerprint = if *occurrence == 1 {
                base
            } else {
                format!("{base}-{occurrence}")
            };
            let mut body = finding.help.clone().unwrap_or_default();
            if !body.is_empty() {
                body.push_str("\n\n");
            }
            body.push_str(&format!(
                "{} ({})",
                super::explain_hint(finding.rule),
                super::rule_url(finding.rule)
            ));
            issues.push(json!({
                "type": "issue",
                "check_name": finding.rule,
                "description": finding.message,
                "content": { "body": body },
                "categories": ["Bug Risk"],
                "severity": severity(finding.severity),
                "fingerprint": fingerprint,
                "location": {
                    "path": result.sources[finding.primary.loc.file].identity(),
                    "lines": { "begin": place.line, "end": place.end_line },
                },
            }));
        }
    }
    let mut text = serde_json::to_string_pretty(&Value::Array(issues)).unwrap_or_default();
    text.push('\n');
    text
}

/// GitLab's scale is info, minor, major, critical, blocker: an error is major (it fails
/// the job), a warning minor.
fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}
