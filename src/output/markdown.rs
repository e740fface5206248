//! `--format markdown`: a short summary for a CI job page or a merge-request comment —
//! per description the readiness counts (with a policy), the contract states and the
//! findings by severity; then the findings by rule, and the first errors and warnings.
//!
//! Every text from a description is neutralised: file names and paths are code spans,
//! messages are escaped Markdown text, so nothing in a description can add a link, an
//! image, HTML or a mention to the page.

use std::collections::HashMap;
use std::fmt::Write;

use super::escape::{markdown_code as code, markdown_text as text};
use super::{CheckResult, Place, Summary};
use crate::finding::Severity;

/// How many errors and warnings are listed at most, without `--max-findings`.
const LISTED: usize = 25;

/// Renders the summary; the list of errors and warnings holds at most `max` of them.
pub fn render(results: &[CheckResult], max: Option<usize>) -> String {
    let mut out = String::from("## retrylint\n\n");
    let summary = Summary::of(results);
    // The summary line is ours: counts and words, nothing from a description.
    let _ = writeln!(out, "{}\n", summary.line());
    let with_policy = results.iter().any(|r| r.client_policy);
    out.push_str("| description | policy | operations |");
    if with_policy {
        out.push_str(" 🔴 unsafe | 🟠 needs work | 🟢 ready |");
    }
    out.push_str(" errors | warnings | info |\n|---|---|---:|");
    if with_policy {
        out.push_str("---:|---:|---:|");
    }
    out.push_str("---:|---:|---:|\n");
    for result in results {
        let count = |severity| {
            result
                .findings
                .iter()
                .filter(|f| f.severity == severity)
                .count()
        };
        let _ = write!(
            out,
            "| {} | {} | {} |",
            code(&result.description),
            result.policy.as_deref().map_or("none".to_string(), code),
            result.operations.len()
        );
        if with_policy {
            match readiness(result) {
                Some([bad, weak, ready]) => {
                    let _ = write!(out, " {bad} | {weak} | {ready} |");
                }
                None => out.push_str(" – | – | – |"),
            }
        }
        let _ = writeln!(
            out,
            " {} | {} | {} |",
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        );
    }
    let c = &summary.contract;
    let _ = writeln!(
        out,
        "\n**What the descriptions alone let any client retry safely** (operations): retry-safe {} · through a status endpoint {} · key not promised {} · unprotected writes {}",
        c.retry_safe, c.retry_safe_with_reconcile, c.key_incomplete, c.unprotected
    );
    let statistics = super::statistics::of(results);
    if !statistics.is_empty() {
        out.push_str("\n### Findings by rule\n\n| rule | severity | findings |\n|---|---|---:|\n");
        for s in &statistics {
            let _ = writeln!(
                out,
                "| [`{}`]({}) | {} | {} |",
                s.rule, s.url, s.severity, s.count
            );
        }
    }
    listed(&mut out, results, max.unwrap_or(LISTED));
    out
}

/// Per operation, its readiness from its findings: `[unsafe, needs-work, ready]`;
/// `None` without a client policy (readiness judges a policy).
fn readiness(result: &CheckResult) -> Option<[usize; 3]> {
    if !result.client_policy {
        return None;
    }
    let mut worst: HashMap<(&str, &str), Severity> = HashMap::new();
    for finding in &result.findings {
        for op in finding.operations() {
            let entry = worst
                .entry((op.method.as_str(), op.path.as_str()))
                .or_insert(Severity::Info);
            *entry = (*entry).max(finding.severity);
        }
    }
    let mut counts = [0; 3];
    for op in &result.operations {
        let index = match worst.get(&(op.method.as_str(), op.path.as_str())) {
            Some(Severity::Error) => 0,
            Some(Severity::Warning) => 1,
            _ => 2,
        };
        counts[index] += 1;
    }
    Some(counts)
}

/// The first errors and warnings, folded away.
fn listed(out: &mut String, results: &[CheckResult], most: usize) {
    let mut findings: Vec<(&CheckResult, &crate::finding::Finding)> = results
        .iter()
        .flat_map(|r| r.findings.iter().map(move |f| (r, f)))
        .filter(|(_, f)| f.severity > Severity::Info)
        .collect();
    if findings.is_empty() {
        return;
    }
    findings.sort_by_key(|(_, f)| std::cmp::Reverse(f.severity));
    let total = findings.len();
    let _ = writeln!(
        out,
        "\n<details><summary>Errors and warnings ({})</summary>\n",
        if total > most {
            format!("the first {most} of {total}")
        } else {
            total.to_string()
        }
    );
    for (result, finding) in findings.into_iter().take(most) {
        let place = Place::of(&finding.primary.loc, &result.sources);
        let operation = match (&finding.operation, finding.affected.len()) {
            (Some(o), _) => format!(" {}", code(&format!("{} {}", o.method, o.path))),
            (None, 0) => String::new(),
            (None, 1) => format!(
                " {}",
                code(&format!(
                    "{} {}",
                    finding.affected[0].operation.method, finding.affected[0].operation.path
                ))
            ),
            (None, n) => format!(" ({n} operations)"),
        };
        let _ = writeln!(
            out,
            "- **{}** `{}`{operation} at {}: {}",
            finding.severity,
            finding.rule,
            code(&format!("{}:{}", place.file, place.line)),
            text(&finding.message)
        );
    }
    out.push_str("\n</details>\n");
}
