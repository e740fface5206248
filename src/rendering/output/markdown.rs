//! `--format markdown`: a short summary for a CI job page or a merge-request comment,
//! marked by its first line ([`COMMENT_MARKER`]) — per description the readiness counts
//! (with a policy), the contract states and the findings by severity; then the first
//! findings, errors first and in the open ([`by_severity`]), and the findings by rule.
//!
//! Every text from a description is neutralised: file names and paths are code spans,
//! messages are escaped Markdown text, so nothing in a description can add a link, an
//! image, HTML or a mention to the page.

use std::fmt::Write;

use foldhash::{HashMap, HashMapExt};

use super::source_links::SourceLinks;
use super::{CheckResult, Place, Summary};
use crate::analysis::rules::finding::{Affected, Finding, Severity};
use crate::escape::{markdown_code as code, markdown_text as text};

/// The first line of every Markdown comment (`check`, `check --base`, `diff`): a bot
/// finds its earlier comment by it, to update it rather than post another.
pub const COMMENT_MARKER: &str = "<!-- retrylint-comment -->\n";

/// How many findings are listed at most, without `--max-findings`.
const LISTED: usize = 25;

/// Renders the summary; the list of findings holds at most `max` of them, and their
/// places link under `links` when it is given.
pub fn render(results: &[CheckResult], max: Option<usize>, links: Option<&SourceLinks>) -> String {
    let mut out = format!("{COMMENT_MARKER}## retrylint\n\n");
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
    listed(&mut out, results, max.unwrap_or(LISTED), links);
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

/// Findings, most severe first, at most `most` of them, each with its place linked
/// when `links` is given.
fn listed(out: &mut String, results: &[CheckResult], most: usize, links: Option<&SourceLinks>) {
    let items = results
        .iter()
        .flat_map(|r| r.findings.iter().map(move |f| (r, f)))
        .map(|(result, finding)| {
            let place = Place::of(&finding.primary.loc, &result.sources);
            let shown = format!("{}:{}", place.file, place.line);
            let at = super::source_links::place(links, &shown, &place.file, place.line);
            (finding.severity, item(finding, true, &at))
        })
        .collect();
    by_severity(out, items, most, "");
}

/// One finding as a list item: ``- **error** `rule` `POST /x` at PLACE: message``, the
/// operation only when `operation` is set, `at` already written as Markdown.
pub fn item(finding: &Finding, operation: bool, at: &str) -> String {
    let operation = match (operation, &finding.operation, finding.affected.as_slice()) {
        (false, _, _) | (true, None, []) => String::new(),
        (true, Some(o), _) | (true, None, [Affected { operation: o, .. }]) => {
            format!(" {}", code(&format!("{} {}", o.method, o.path)))
        }
        (true, None, many) => format!(" ({} operations)", many.len()),
    };
    format!(
        "- **{}** `{}`{operation} at {at}: {}",
        finding.severity,
        finding.rule,
        text(&finding.message)
    )
}

/// How many warnings or infos are listed in the open; more are folded away.
const OPEN_UP_TO: usize = 5;

/// List items by severity: errors first and always in the open, then warnings, then
/// infos, each folded inside `<details>` when there are more than [`OPEN_UP_TO`]. At most
/// `most` items are listed, the most severe first; a line says how many were left out.
/// Headings read `Errors (3)`, or `New errors (3)` with `qualifier` `New`.
pub fn by_severity(
    out: &mut String,
    mut items: Vec<(Severity, String)>,
    most: usize,
    qualifier: &str,
) {
    items.sort_by_key(|(severity, _)| std::cmp::Reverse(*severity));
    let total = items.len();
    let left = items.split_off(total.min(most));
    for severity in [Severity::Error, Severity::Warning, Severity::Info] {
        let shown: Vec<&String> = items
            .iter()
            .filter(|(s, _)| *s == severity)
            .map(|(_, line)| line)
            .collect();
        if shown.is_empty() {
            continue;
        }
        let all = shown.len() + left.iter().filter(|(s, _)| *s == severity).count();
        let name = match severity {
            Severity::Error => "errors",
            Severity::Warning => "warnings",
            Severity::Info => "info",
        };
        let title = if qualifier.is_empty() {
            let mut chars = name.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        } else {
            format!("{qualifier} {name}")
        };
        let count = if all > shown.len() {
            format!("the first {} of {all}", shown.len())
        } else {
            all.to_string()
        };
        let open = severity == Severity::Error || shown.len() <= OPEN_UP_TO;
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        if open {
            let _ = writeln!(out, "### {title} ({count})\n");
        } else {
            let _ = writeln!(out, "<details><summary>{title} ({count})</summary>\n");
        }
        for line in shown {
            out.push_str(line);
            out.push('\n');
        }
        if !open {
            out.push_str("\n</details>\n");
        }
    }
    if !left.is_empty() {
        let _ = writeln!(
            out,
            "\n{} more not listed (`--max-findings N` lists more).",
            left.len()
        );
    }
}
