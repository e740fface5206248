//! `--format github`: GitHub Actions workflow commands, which annotate the pull request.

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

/// Escapes a command's message.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command's property value.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_github_requires() {
        assert_eq!(data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
