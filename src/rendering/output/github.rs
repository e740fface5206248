//! `--format github`: GitHub Actions workflow commands, which annotate the pull request.
//!
//! The output opens with the summary line, then the annotations, errors first. Actions
//! shows at most 10 error and 10 warning annotations per step: when there are more, a
//! notice says so before them (the job log keeps every one). Info findings become
//! annotations only with `--show-infos` or `--fail-on info` (notices on every line of a
//! pull request are noise, as infos are in human output); otherwise one line counts them.
//!
//! Every value is escaped by GitHub's rules for workflow commands (`%`, CR and LF in the
//! message; also `:` and `,` in properties), so each finding is exactly one line, and
//! the plain lines start with text of ours, never with `::`.

use super::{CheckResult, FailOn, Place, Summary};
use crate::analysis::rules::finding::{Finding, Severity};
use crate::escape::{github_data as data, github_property as property};

/// How many annotations of one level Actions shows per step.
pub const SHOWN_PER_STEP: usize = 10;

/// Renders the summary, a notice when Actions will not show everything, and one
/// `::error`/`::warning`/`::notice` command per finding that fails at `fail_on` or is a
/// warning.
/// `show_infos` annotates info findings too (`--show-infos`).
pub fn render(
    results: &[CheckResult],
    fail_on: FailOn,
    max: Option<usize>,
    show_infos: bool,
) -> String {
    format!(
        "retrylint: {}\n{}",
        Summary::of(results).line(),
        annotations_of(results, show_infos || fail_on.fails(Severity::Info), max)
    )
}

/// Everything after the summary line: what is not annotated, the notice about Actions'
/// limits, and the annotations themselves (infos only with `--fail-on info`).
pub fn annotations(results: &[CheckResult], fail_on: FailOn, max: Option<usize>) -> String {
    annotations_of(results, fail_on.fails(Severity::Info), max)
}

fn annotations_of(results: &[CheckResult], infos: bool, max: Option<usize>) -> String {
    let mut out = String::new();
    let annotated = |f: &Finding| f.severity > Severity::Info || infos;
    let infos_left = results
        .iter()
        .flat_map(|r| &r.findings)
        .filter(|f| !annotated(f))
        .count();
    if infos_left > 0 {
        out.push_str(&format!(
            "retrylint: {infos_left} info finding{} not annotated (--show-infos or --fail-on info annotates them)\n",
            if infos_left == 1 { "" } else { "s" }
        ));
    }
    let mut annotations: Vec<(&CheckResult, &Finding)> = results
        .iter()
        .flat_map(|r| r.findings.iter().map(move |f| (r, f)))
        .filter(|(_, f)| annotated(f))
        .collect();
    // Errors first: they are the ones Actions must not leave out.
    annotations.sort_by_key(|(_, f)| std::cmp::Reverse(f.severity));
    let cut = max.map_or(0, |max| annotations.len().saturating_sub(max));
    annotations.truncate(annotations.len() - cut);
    let count = |severity| {
        annotations
            .iter()
            .filter(|(_, f)| f.severity == severity)
            .count()
    };
    let (errors, warnings, notices) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    if errors.max(warnings).max(notices) > SHOWN_PER_STEP {
        out.push_str(&format!(
            "::notice title=retrylint::{}\n",
            data(&format!(
                "{errors} errors, {warnings} warnings and {notices} notices: Actions shows {SHOWN_PER_STEP} of each per step, so the pull request does not show them all. The job log lists every one; `retrylint check --format human` or the SARIF upload shows them with context."
            ))
        ));
    }
    if cut > 0 {
        out.push_str(&format!(
            "retrylint: {cut} more finding{} not annotated (--max-findings)\n",
            if cut == 1 { "" } else { "s" }
        ));
    }
    for (result, finding) in annotations {
        out.push_str(&annotation(result, finding));
    }
    out
}

/// One workflow command for a finding.
fn annotation(result: &CheckResult, finding: &Finding) -> String {
    let place = Place::of(&finding.primary.loc, &result.sources);
    let command = match finding.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    // GitHub places an annotation by the file's path in the repository, however the
    // path was typed (from a subfolder, absolute).
    let file = result.sources[finding.primary.loc.file].identity();
    let mut properties = vec![
        format!("file={}", property(file)),
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
    // A grouped finding's uses are many (one per operation): the first few, then a count.
    let shown = super::related_shown(finding);
    for label in &finding.related[..shown] {
        let at = Place::of(&label.loc, &result.sources);
        let (file, line, column) = (at.file, at.line, at.column);
        message.push_str(&format!("\nsee {file}:{line}:{column}: {}", label.text));
    }
    if finding.related.len() > shown {
        message.push_str(&format!(
            "\n… and {} more places",
            finding.related.len() - shown
        ));
    }
    message.push('\n');
    message.push_str(&super::explain_hint(finding.rule));
    message.push_str(&format!(" ({})", super::rule_url(finding.rule)));
    format!("::{command} {}::{}\n", properties.join(","), data(&message))
}
