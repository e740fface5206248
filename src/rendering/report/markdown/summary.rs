//! The head of the Markdown report: the answer at a glance. How many writes a client can
//! retry safely, the contract states (and the policy's readiness, when there is one), the
//! operations to fix first with the reason for each, the writes per tag, and the
//! findings by rule, errors first.

use std::fmt::Write;

use super::{badge, cell, code, finding, state_badge};
use crate::analysis::contract::ContractState;
use crate::rendering::report::{OperationReport, Readiness, Report};

/// How many operations the "fix first" table lists.
const FIX_FIRST: usize = 10;
/// How many tags the per-tag table lists.
const TAGS_LISTED: usize = 15;

/// Writes the head of the report.
pub(super) fn head(out: &mut String, report: &Report) {
    let s = &report.summary;
    match (&s.readiness, &report.policy) {
        (None, _) => {
            let _ = writeln!(
                out,
                "## retrylint contract: {}\n\nNo retry policy: what the description alone lets any client retry safely · {} operations\n",
                code(&report.description),
                s.operations
            );
        }
        (Some(_), Some(policy)) => {
            let _ = writeln!(
                out,
                "## retrylint readiness: {}\n\nPolicy {} · {} operations, {} retried\n",
                code(&report.description),
                code(policy),
                s.operations,
                s.retried
            );
        }
        (Some(_), None) => {
            let _ = writeln!(
                out,
                "## retrylint readiness: {}\n\nThe description's own `x-retry-policy` · {} operations, {} retried\n",
                code(&report.description),
                s.operations,
                s.retried
            );
        }
    }
    answer(out, report);
    if let Some(counts) = &s.readiness {
        out.push_str("\n| readiness | operations | meaning |\n|---|---:|---|\n");
        for r in [Readiness::Unsafe, Readiness::NeedsWork, Readiness::Ready] {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                badge(r),
                counts.get(r),
                r.meaning()
            );
        }
    }
    out.push_str("\n| contract | operations | meaning |\n|---|---:|---|\n");
    for state in ContractState::ALL {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            state_badge(state),
            s.contract.states.get(state),
            state.meaning()
        );
    }
    fix_first(out, report);
    by_tag(out, report);
    if !s.rules.is_empty() {
        out.push_str("\n### Findings by rule\n\n| rule | severity | findings |\n|---|---|---:|\n");
        for rule in &s.rules {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                rule.rule, rule.severity, rule.count
            );
        }
    }
    if !s.policy_findings.is_empty() {
        out.push_str("\n**About the policy as a whole**\n\n");
        for f in &s.policy_findings {
            finding(out, f);
        }
    }
}

/// The answer in two sentences: the writes a client can retry safely, and how the server
/// asks clients to slow down.
fn answer(out: &mut String, report: &Report) {
    let c = &report.summary.contract;
    let states = &c.states;
    if c.writes == 0 {
        out.push_str(
            "**No operation is a non-idempotent write**: repeating any of them is harmless.\n",
        );
    } else {
        let _ = writeln!(
            out,
            "**{} of {} writes can be retried safely** by any client: {} with a promised key, {} through a status endpoint. {} {} unprotected; {} {} a key the contract does not promise.",
            c.writes_retry_safe,
            c.writes,
            c.writes_retry_safe
                .saturating_sub(states.retry_safe_with_reconcile),
            states.retry_safe_with_reconcile,
            states.unprotected,
            if states.unprotected == 1 { "is" } else { "are" },
            states.key_incomplete,
            if states.key_incomplete == 1 {
                "has"
            } else {
                "have"
            },
        );
    }
    let operations = report.summary.operations;
    let _ = writeln!(
        out,
        "\n{} of {operations} operations declare neither 429 nor 503; {} declare them without saying when to come back.",
        c.without_throttle_status, c.without_wait_hint
    );
}

/// Whether an operation belongs in "fix first": not ready, or (without a policy) one no
/// client can retry safely, or with more than an info finding.
fn needs_fixing(o: &OperationReport) -> bool {
    match o.readiness {
        Some(r) => r != Readiness::Ready,
        None => {
            !o.contract.state.is_retry_safe() || o.findings.iter().any(|f| f.severity != "info")
        }
    }
}

/// The worst operations, each with the reason it is there.
fn fix_first(out: &mut String, report: &Report) {
    let worst: Vec<&OperationReport> = report
        .operations
        .iter()
        .filter(|o| needs_fixing(o))
        .collect();
    if worst.is_empty() {
        return;
    }
    let policy_view = report.summary.readiness.is_some();
    out.push_str("\n### Fix first\n\n");
    if policy_view {
        out.push_str("| readiness | contract | operation | reason |\n|---|---|---|---|\n");
    } else {
        out.push_str("| contract | operation | reason | throttling |\n|---|---|---|---|\n");
    }
    for o in worst.iter().take(FIX_FIRST) {
        let operation = code(&format!("{} {}", o.method, o.path));
        match o.readiness {
            Some(r) => {
                let _ = writeln!(
                    out,
                    "| {} | {} | {operation} | {} |",
                    badge(r),
                    state_badge(o.contract.state),
                    cell(&o.reason)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "| {} | {operation} | {} | {} |",
                    state_badge(o.contract.state),
                    cell(&o.reason),
                    cell(&o.contract.throttling)
                );
            }
        }
    }
    if worst.len() > FIX_FIRST {
        let _ = writeln!(
            out,
            "\n_… and {} more: `retrylint report --format html` lists every one._",
            worst.len() - FIX_FIRST
        );
    }
}

/// The writes of each tag, the tags with the most unprotected writes first.
fn by_tag(out: &mut String, report: &Report) {
    let mut tags: Vec<_> = report
        .summary
        .contract
        .by_tag
        .iter()
        .filter(|t| t.writes > 0)
        .collect();
    if tags.len() < 2 {
        return;
    }
    tags.sort_by(|a, b| {
        (b.states.unprotected, b.states.key_incomplete)
            .cmp(&(a.states.unprotected, a.states.key_incomplete))
            .then(a.tag.cmp(&b.tag))
    });
    out.push_str(
        "\n### Writes by tag\n\n| tag | operations | writes | retry-safe writes | unprotected | key-incomplete |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for t in tags.iter().take(TAGS_LISTED) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            code(&t.tag),
            t.operations,
            t.writes,
            t.writes_retry_safe,
            t.states.unprotected,
            t.states.key_incomplete
        );
    }
    if tags.len() > TAGS_LISTED {
        let _ = writeln!(
            out,
            "\n_… and {} more tags with writes._",
            tags.len() - TAGS_LISTED
        );
    }
}
