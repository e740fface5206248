//! `--format concise`: one line per finding, `file:line:column: severity[rule] message`,
//! then the summary line — for terminals on large APIs, editors and `grep`.

use super::{CheckResult, Place, Shown, Summary};
use crate::analysis::rules::finding::Severity;
use crate::escape;

/// Renders the findings `shown` selects, one per line, then the summary line.
pub fn render(results: &[CheckResult], color: bool, shown: Shown) -> String {
    let mut out = String::new();
    let (picked, cut) = shown.select(results);
    for (r, f) in picked {
        let result = &results[r];
        let finding = &result.findings[f];
        let place = Place::of(&finding.primary.loc, &result.sources);
        let severity = paint(
            color,
            severity_style(finding.severity),
            finding.severity.as_str(),
        );
        out.push_str(&format!(
            "{}:{}:{}: {severity}[{}] {}\n",
            escape::terminal(&place.file),
            place.line,
            place.column,
            finding.rule,
            escape::terminal(&finding.message)
        ));
    }
    if let Some(notice) = super::human::cut_notice(cut, shown) {
        out.push_str(&notice);
        out.push('\n');
    }
    out.push_str(&Summary::of(results).line_for(shown));
    out.push('\n');
    out
}

/// The ANSI style of a severity: red, yellow or cyan, bold.
fn severity_style(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "\x1b[1;31m",
        Severity::Warning => "\x1b[1;33m",
        Severity::Info => "\x1b[1;36m",
    }
}

/// `text` in `style` when colour is on.
pub fn paint(color: bool, style: &str, text: &str) -> String {
    if color {
        format!("{style}{text}\x1b[0m")
    } else {
        text.to_string()
    }
}
