//! Readiness reports: per operation, whether enabling retries is safe, in plain words.
//!
//! [`build`] turns a checked description into a [`Report`]; the Markdown, HTML and JSON
//! renderers only lay it out. Each operation answers the four questions of a retry
//! contract — what repeats, why repeating is safe, the time and attempts allowed, and
//! what happens when a write's outcome is unknown — and gets a readiness:
//! `unsafe` with any error finding, `needs-work` with any warning, `ready` otherwise.
//! Readiness judges a client's policy, so without one there is none: every operation
//! then has only its contract state (see [`crate::analysis::contract`]), which it has with a
//! policy too.

mod answers;
mod contract;
pub(crate) mod html;
mod layers;
pub(crate) mod markdown;

use foldhash::{HashMap, HashMapExt};

use serde::Serialize;

use crate::analysis::check::Checked;
use crate::analysis::contract::ContractState;
use crate::analysis::plan::{ms, schedule};
use crate::analysis::rules::finding::{Finding, Severity};
use crate::input::model::Operation;
use crate::input::policy::Effective;
use crate::rendering::output::Place;

/// The version of the JSON report's shape (2: readiness only with a policy, and the
/// contract view).
pub(crate) const VERSION: u32 = 2;

/// How ready an operation is for automatic retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Readiness {
    /// An error finding: retrying as configured can do harm.
    Unsafe,
    /// A warning: it works, but something in the contract is missing or weak.
    NeedsWork,
    /// No error or warning.
    Ready,
}

impl Readiness {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Readiness::Unsafe => "unsafe",
            Readiness::NeedsWork => "needs-work",
            Readiness::Ready => "ready",
        }
    }

    /// One sentence for the legend.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            Readiness::Unsafe => {
                "an error finding: retrying as configured can repeat a write, overload the server or never end"
            }
            Readiness::NeedsWork => {
                "a warning: retries work, but part of the contract is missing or weak"
            }
            Readiness::Ready => "no error or warning: the contract answers all four questions",
        }
    }
}

/// A whole report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Report {
    pub version: u32,
    pub description: String,
    /// The policy file, when there is one.
    pub policy: Option<String>,
    pub summary: ReportSummary,
    /// Worst first: by readiness (with a policy), then by contract state, then more
    /// findings first.
    pub operations: Vec<OperationReport>,
}

/// Counts over all operations.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReportSummary {
    pub operations: usize,
    pub retried: usize,
    /// How many operations are at each readiness; `null` without a client policy.
    pub readiness: Option<ReadinessCounts>,
    /// What the description alone lets a client retry safely.
    pub contract: contract::ContractSummary,
    /// Rules by severity (errors first), then by how many findings they reported.
    pub rules: Vec<RuleCount>,
    /// Findings about the policy as a whole (not about one operation).
    pub policy_findings: Vec<FindingReport>,
}

/// How many operations are at each readiness.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReadinessCounts {
    pub ready: usize,
    pub needs_work: usize,
    #[serde(rename = "unsafe")]
    pub unsafe_: usize,
}

impl ReadinessCounts {
    pub(crate) fn get(&self, readiness: Readiness) -> usize {
        match readiness {
            Readiness::Ready => self.ready,
            Readiness::NeedsWork => self.needs_work,
            Readiness::Unsafe => self.unsafe_,
        }
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct RuleCount {
    pub rule: &'static str,
    pub severity: &'static str,
    pub count: usize,
}

/// One operation's answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OperationReport {
    pub method: String,
    pub path: String,
    pub operation_id: Option<String>,
    pub tags: Vec<String>,
    /// How ready the client's policy is; `null` without a client policy.
    pub readiness: Option<Readiness>,
    /// What the description alone lets any client do.
    pub contract: contract::ContractReport,
    /// Why the operation is where it is, in one line: its first (most severe) finding's
    /// message, or the contract's reason when it has no finding; without a client policy,
    /// the contract's reason for any state but `retry-safe`.
    pub reason: String,
    pub retried: bool,
    /// What repeats: `none`, `idempotent` or `non-idempotent`.
    pub effect: String,
    /// The four answers in plain words.
    pub answers: Answers,
    pub schedule: Option<ScheduleReport>,
    /// The layers in front of the operation, client first (only when layers are given).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<LayerReport>,
    /// Requests at the backend for one call in the worst case; `null` when unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[allow(
        clippy::option_option,
        reason = "absent (no layers), null (unbounded) and a number are three answers"
    )]
    pub amplification: Option<Option<u64>>,
    pub findings: Vec<FindingReport>,
}

/// One layer that retries an operation.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LayerReport {
    /// `client`, `edge`, `gateway` or `mesh`.
    pub position: &'static str,
    pub name: String,
    pub route: String,
    /// Total attempts per request the layer receives; `null` when only a budget bounds it.
    pub attempts: Option<i64>,
    /// The route says nothing about retries: the format's default applies.
    pub implicit: bool,
    /// What the layer's format cannot say (`Retry-After`).
    pub unsupported: Vec<&'static str>,
    pub location: Place,
}

/// The four questions of a retry contract, answered in plain words.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Answers {
    /// What repeats, and where that comes from.
    pub effect: String,
    /// Why repeating is safe (or that it is not).
    pub safety: String,
    /// Attempts, deadline and the worst case.
    pub budget: String,
    /// What happens when a write's outcome is unknown.
    pub unknown_outcome: String,
    /// How many requests reach the backend for one call, through the layers that retry
    /// it (only when layers are given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layers: Option<String>,
}

/// The worst-case schedule, in milliseconds.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScheduleReport {
    pub deadline_ms: Option<f64>,
    pub worst_case_ms: f64,
    /// All attempts with full timeouts and the longest waits, ignoring the deadline.
    pub needed_ms: Option<f64>,
    pub max_attempts: u32,
    /// Why the last attempt is the last.
    pub stop: String,
    pub attempts: Vec<AttemptReport>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AttemptReport {
    pub attempt: u32,
    pub wait_min_ms: f64,
    pub wait_max_ms: f64,
    pub start_ms: f64,
    pub end_ms: f64,
}

#[derive(Debug, Serialize)]
pub(crate) struct FindingReport {
    pub rule: &'static str,
    pub severity: &'static str,
    pub message: String,
    pub help: Option<String>,
    pub location: Place,
}

/// Builds the report of a checked description.
pub(crate) fn build(checked: &Checked, policy: Option<String>) -> Report {
    let analysis = &checked.analysis;
    let sources = &analysis.sources;
    let finding_report = |f: &Finding| FindingReport {
        rule: f.rule.as_str(),
        severity: f.severity.as_str(),
        message: f.message.clone(),
        help: f.help.clone(),
        location: Place::of(&f.primary.loc, sources),
    };
    // Findings by operation, in one pass: a large API has thousands of both.
    let mut by_operation: HashMap<(&str, &str), Vec<&Finding>> = HashMap::new();
    for f in &checked.findings {
        // A grouped finding counts in every operation it affects.
        for o in f.operations() {
            by_operation
                .entry((o.method.as_str(), o.path.as_str()))
                .or_default()
                .push(f);
        }
    }
    let mut operations: Vec<OperationReport> = analysis
        .api
        .operations
        .iter()
        .enumerate()
        .map(|(index, op)| {
            let findings = by_operation
                .remove(&(op.method.as_str(), op.path.as_str()))
                .unwrap_or_default();
            let contract = analysis.contracts.get(index);
            let mut report = operation(
                op,
                analysis.effective.get(index),
                contract,
                &findings,
                &finding_report,
            );
            if let Some(c) = contract {
                report.contract = contract::describe(c, op);
                if report.findings.is_empty() {
                    report.reason = c.reason();
                }
            }
            layers::describe(&mut report, analysis, index);
            report
        })
        .collect();
    // Without a client policy, `policy_view` is false and readiness is left out.
    let policy_view = !analysis.effective.is_empty();
    if !policy_view {
        for o in &mut operations {
            o.readiness = None;
            // Beside a contract state that is not retry-safe, the reason says why.
            if o.contract.state != ContractState::RetrySafe {
                o.reason = o.contract.reason.clone();
            }
        }
    }
    operations.sort_by_key(|o| {
        let errors = o.findings.iter().filter(|f| f.severity == "error").count();
        (
            o.readiness,
            o.contract.state,
            std::cmp::Reverse(errors),
            std::cmp::Reverse(o.findings.len()),
        )
    });
    let rules: Vec<RuleCount> =
        crate::rendering::output::statistics::of_findings(&checked.findings)
            .into_iter()
            .map(|s| RuleCount {
                rule: s.rule,
                severity: s.severity,
                count: s.count,
            })
            .collect();
    let count = |r: Readiness| operations.iter().filter(|o| o.readiness == Some(r)).count();
    let readiness = policy_view.then(|| ReadinessCounts {
        ready: count(Readiness::Ready),
        needs_work: count(Readiness::NeedsWork),
        unsafe_: count(Readiness::Unsafe),
    });
    Report {
        version: VERSION,
        description: sources[analysis.api.root_file].name(),
        policy,
        summary: ReportSummary {
            operations: operations.len(),
            retried: operations.iter().filter(|o| o.retried).count(),
            readiness,
            contract: contract::summarize(&operations),
            rules,
            policy_findings: checked
                .findings
                .iter()
                .filter(|f| f.about_no_operation())
                .map(finding_report)
                .collect(),
        },
        operations,
    }
}

fn operation(
    op: &Operation,
    policy: Option<&Effective>,
    contract: Option<&crate::analysis::contract::Contract>,
    findings: &[&Finding],
    finding_report: &dyn Fn(&Finding) -> FindingReport,
) -> OperationReport {
    let readiness = if findings.iter().any(|f| f.severity == Severity::Error) {
        Readiness::Unsafe
    } else if findings.iter().any(|f| f.severity == Severity::Warning) {
        Readiness::NeedsWork
    } else {
        Readiness::Ready
    };
    let plan = policy
        .filter(|p| p.is_retried())
        .and_then(schedule::worst_case);
    OperationReport {
        method: op.method.as_str().to_string(),
        path: op.path.clone(),
        operation_id: op.operation_id.clone(),
        tags: op.tags.clone(),
        readiness: Some(readiness),
        contract: contract::ContractReport::default(),
        reason: findings
            .iter()
            .min_by_key(|f| {
                (
                    std::cmp::Reverse(f.severity),
                    catalogue_rank(f.rule.as_str()),
                )
            })
            .map(|f| reason_of(f, op))
            .unwrap_or_default(),
        retried: policy.is_some_and(Effective::is_retried),
        effect: answers::side_effect(op, policy).as_str().to_string(),
        answers: answers::answer(op, policy, plan.as_ref(), contract),
        schedule: plan.map(|s| ScheduleReport {
            deadline_ms: s.deadline.map(ms),
            worst_case_ms: ms(s.worst_case),
            needed_ms: s.needed.map(ms),
            max_attempts: s.max_attempts,
            stop: s.stop.as_str().to_string(),
            attempts: s
                .rows
                .iter()
                .map(|r| AttemptReport {
                    attempt: r.attempt,
                    wait_min_ms: ms(r.wait_min),
                    wait_max_ms: ms(r.wait_max),
                    start_ms: ms(r.start),
                    end_ms: ms(r.end),
                })
                .collect(),
        }),
        layers: Vec::new(),
        amplification: None,
        findings: findings.iter().map(|f| finding_report(f)).collect(),
    }
}

/// A rule's place in the catalogue, which lists the most harmful first; rules outside
/// it (the suppression warnings) come last.
fn catalogue_rank(rule: &str) -> usize {
    crate::analysis::rules::ALL
        .iter()
        .position(|r| r.meta().name == rule)
        .unwrap_or(usize::MAX)
}

/// A finding's message as a reason beside its operation: without the `METHOD /path`
/// the message starts with.
fn reason_of(f: &Finding, op: &Operation) -> String {
    let prefix = format!("{} {} ", op.method, op.path);
    f.message
        .strip_prefix(&prefix)
        .unwrap_or(&f.message)
        .to_string()
}

/// The report as versioned JSON.
pub(crate) fn json(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}
