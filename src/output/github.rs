//! `--format github`: GitHub Actions workflow commands, which annotate the pull request.
//!
//! Every value is escaped by GitHub's rules for workflow commands (`%`, CR and LF in the
//! message; also `:` and `,` in properties), so each finding is exactly one line.

use super::escape::{github_data as data, github_property as property};
use super::{CheckResult, Place};
use crate::finding::Severity;

/// Renders one `::error`/`::warning`/`::notice` command per finding.
pub fn render(results: &[CheckResult]) -> String {
    let mut out = String::new();
    for result in results {
        for finding in &result.findings {
            let place = Place::of(&finding.primary.loc, &result.sources);
            let command = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut properties = vec![
                format!("file={}", property(&place.file)),
                format!("line={}", place.line),
                format!("endLine={}", place.end_line),
            ];
            // Columns mean something to GitHub only for a span on one line.
            if place.line == place.end_line {
                properties.push(format!("col={}", place.column));
                properties.push(format!("endColumn={}", place.end_column));
            }
            properties.push(format!(
                "title={}",
                property(&format!("retrylint {}", finding.rule))
            ));
            let mut message = finding.message.clone();
            if let Some(help) = &finding.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            for label in &finding.related {
                let at = Place::of(&label.loc, &result.sources);
                let (file, line, column) = (at.file, at.line, at.column);
                message.push_str(&format!("\nsee {file}:{line}:{column}: {}", label.text));
            }
            out.push_str(&format!(
                "::{command} {}::{}\n",
                properties.join(","),
                data(&message)
            ));
        }
    }
    out
}
