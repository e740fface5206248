//! `--statistics`: how many findings each rule reported, most severe rules first, then
//! by count — the view of a large API before reading any one finding.

use serde::Serialize;

use super::{CheckResult, Summary};
use crate::analysis::rules::finding::{Finding, Severity};

/// One rule's count.
#[derive(Debug, Serialize)]
pub struct RuleStatistic {
    pub rule: &'static str,
    pub severity: &'static str,
    pub count: usize,
    pub summary: &'static str,
    pub url: String,
    #[serde(skip)]
    rank: Severity,
}

/// The count of every rule that reported something, errors first, then by count.
pub fn of(results: &[CheckResult]) -> Vec<RuleStatistic> {
    of_findings(results.iter().flat_map(|r| &r.findings))
}

/// The same over any findings (one description's, for its report).
pub fn of_findings<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Vec<RuleStatistic> {
    let mut counts: Vec<RuleStatistic> = Vec::new();
    for finding in findings {
        // A rule may report below its default severity: count each severity apart.
        match counts
            .iter_mut()
            .find(|s| s.rule == finding.rule.as_str() && s.rank == finding.severity)
        {
            Some(statistic) => statistic.count += 1,
            None => counts.push(RuleStatistic {
                rule: finding.rule.as_str(),
                severity: finding.severity.as_str(),
                count: 1,
                summary: finding.rule.meta().summary,
                url: super::rule_url(finding.rule),
                rank: finding.severity,
            }),
        }
    }
    // Severity and count descending, then the rule's name.
    counts.sort_by(|a, b| (b.rank, b.count, a.rule).cmp(&(a.rank, a.count, b.rule)));
    counts
}

/// A table: count, severity, rule and what it checks; then the summary line.
pub fn render_text(results: &[CheckResult]) -> String {
    let statistics = of(results);
    let width = statistics.iter().map(|s| s.rule.len()).max().unwrap_or(0);
    let count_width = statistics
        .iter()
        .map(|s| s.count.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    for s in &statistics {
        out.push_str(&format!(
            "{:>count_width$}  {:<7}  {:<width$}  {}\n",
            s.count, s.severity, s.rule, s.summary
        ));
    }
    out.push_str(&Summary::of(results).line());
    out.push('\n');
    out
}

/// The same counts as a JSON array.
pub fn render_json(results: &[CheckResult]) -> String {
    let mut text = serde_json::to_string_pretty(&of(results)).unwrap_or_default();
    text.push('\n');
    text
}
