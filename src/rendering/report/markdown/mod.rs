//! The Markdown report, sized for a pull-request comment.
//!
//! The answer first: without a policy, how many writes any client can retry safely, the
//! contract states and the operations to fix first, each with its reason; with one, the
//! readiness of the client's policy with the contract beside it. Then the findings by
//! rule (errors first), one collapsed section per operation that needs attention (worst
//! first), and the rest in one collapsed list. GitHub refuses
//! comments over 65,536 characters, so past [`BUDGET`] the remaining operations are only
//! counted, with a pointer to the HTML report.
//!
//! Text from the description is neutralised wherever it appears: values in code spans
//! with a fence they cannot close, prose with every Markdown punctuation escaped, HTML
//! escaped inside tags, all on one line and with `@` unable to mention anyone; so a
//! description cannot add markup, images, links, mentions, lines or table rows.

use std::fmt::Write;

mod summary;

use super::{FindingReport, OperationReport, Readiness, Report, ScheduleReport};
use crate::analysis::contract::ContractState;
use crate::analysis::plan::millis;
use crate::escape;

/// Characters the report may use before it stops listing operations.
pub(crate) const BUDGET: usize = 60_000;
/// Above this many operations needing attention, findings are grouped by rule.
const GROUP_FROM: usize = 40;
/// How many operations a rule's list names.
const LISTED_PER_RULE: usize = 100;
/// How many operations are shown in detail when findings are grouped.
const DETAILED_WHEN_GROUPED: usize = 15;

/// Renders the report as Markdown.
pub(crate) fn render(report: &Report) -> String {
    let mut out = String::new();
    summary::head(&mut out, report);
    let policy_view = report.summary.readiness.is_some();
    // Operations that need attention: not ready (with a policy), or that no client can
    // retry safely or with a warning or error (without one). The rest are listed in one
    // collapsed list.
    let (attention, fine): (Vec<&OperationReport>, Vec<&OperationReport>) =
        report.operations.iter().partition(|o| match o.readiness {
            Some(r) => r != Readiness::Ready,
            None => {
                !o.contract.state.is_retry_safe() || o.findings.iter().any(|f| f.severity != "info")
            }
        });
    let mut left_out = 0usize;
    // A large API reads better grouped by rule, with the worst operations in detail.
    let detailed = if attention.len() > GROUP_FROM {
        by_rule(&mut out, report);
        DETAILED_WHEN_GROUPED
    } else {
        attention.len()
    };
    if !attention.is_empty() {
        if detailed < attention.len() {
            let _ = writeln!(
                out,
                "\n### The {detailed} operations that need the most attention\n"
            );
        } else {
            out.push_str("\n### Operations that need attention\n\n");
        }
    }
    for op in attention.iter().take(detailed) {
        if out.len() > BUDGET {
            left_out += 1;
            continue;
        }
        operation(&mut out, op);
    }
    left_out += attention.len() - detailed.min(attention.len());
    if !fine.is_empty() && out.len() <= BUDGET {
        let title = if policy_view {
            format!(
                "{} {} ready operations",
                badge(Readiness::Ready),
                fine.len()
            )
        } else {
            format!(
                "{} {} operations any client can retry safely",
                state_badge(ContractState::RetrySafe),
                fine.len()
            )
        };
        let _ = writeln!(out, "\n<details><summary>{title}</summary>\n");
        for op in &fine {
            if out.len() > BUDGET {
                left_out += 1;
                continue;
            }
            let (first, second) = if policy_view {
                (&op.answers.safety, &op.answers.budget)
            } else {
                (&op.contract.reason, &op.contract.throttling)
            };
            let _ = writeln!(
                out,
                "- {} — {}; {}",
                code(&format!("{} {}", op.method, op.path)),
                cell(first),
                cell(second)
            );
        }
        out.push_str("\n</details>\n");
    } else {
        left_out += fine.len();
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "\n_{left_out} of {} operations are not shown in detail, to keep this comment short: `retrylint report --format html` shows them all._",
            report.operations.len()
        );
    }
    out
}

/// Per rule, the operations it reported, in one collapsed list each.
fn by_rule(out: &mut String, report: &Report) {
    out.push_str("\n### Operations by rule\n\n");
    // `summary.rules` is ordered by severity, then count.
    for rule in &report.summary.rules {
        let ops: Vec<&OperationReport> = report
            .operations
            .iter()
            .filter(|o| o.findings.iter().any(|f| f.rule == rule.rule))
            .collect();
        if ops.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<details><summary>{} <code>{}</code> — {}</summary>\n",
            icon(rule.severity),
            rule.rule,
            plural(ops.len(), "operation")
        );
        let mut listed = 0;
        for op in &ops {
            if out.len() > BUDGET / 2 || listed == LISTED_PER_RULE {
                break;
            }
            let _ = writeln!(out, "- {}", code(&format!("{} {}", op.method, op.path)));
            listed += 1;
        }
        if listed < ops.len() {
            let _ = writeln!(out, "- … and {} more", ops.len() - listed);
        }
        out.push_str("\n</details>\n");
    }
}

fn operation(out: &mut String, op: &OperationReport) {
    let id = op
        .operation_id
        .as_deref()
        .map(|id| format!(" ({id})"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<details><summary>{} <code>{} {}</code>{} — {}</summary>\n",
        op.readiness
            .map_or_else(|| state_badge(op.contract.state), badge),
        op.method,
        html(&op.path),
        html(&id),
        plural(op.findings.len(), "finding")
    );
    let c = &op.contract;
    let _ = writeln!(
        out,
        "- **Contract:** {} — {}",
        state_badge(c.state),
        cell(&c.reason)
    );
    if op.readiness.is_none() {
        contract_answers(out, op);
    } else {
        policy_answers(out, op);
    }
    if !op.findings.is_empty() {
        out.push('\n');
        for f in &op.findings {
            finding(out, f);
            if let Some(help) = &f.help {
                let _ = writeln!(out, "  - {}", cell(help));
            }
        }
    }
    out.push_str("\n</details>\n\n");
}

/// What the description says, for a report without a policy.
fn contract_answers(out: &mut String, op: &OperationReport) {
    let c = &op.contract;
    let _ = writeln!(out, "- **What repeats:** {}", cell(&c.effect));
    if let Some(key) = &c.key {
        let _ = writeln!(out, "- **Idempotency key:** {}", cell(key));
    }
    if let Some(status) = &c.status_endpoint {
        let _ = writeln!(out, "- **Status endpoint:** {}", cell(status));
    }
    if !c.conflict_responses.is_empty() {
        let _ = writeln!(
            out,
            "- **Conflict responses:** {}",
            cell(&c.conflict_responses.join(", "))
        );
    }
    let _ = writeln!(out, "- **Throttling:** {}", cell(&c.throttling));
}

/// The four answers of the client's policy, with the contract's throttling answer.
fn policy_answers(out: &mut String, op: &OperationReport) {
    let a = &op.answers;
    let _ = writeln!(out, "- **What repeats:** {}", cell(&a.effect));
    let _ = writeln!(out, "- **Why repeating is safe:** {}", cell(&a.safety));
    let _ = writeln!(out, "- **Budget:** {}", cell(&a.budget));
    let _ = writeln!(out, "- **Unknown outcome:** {}", cell(&a.unknown_outcome));
    if let Some(layers) = &a.layers {
        let _ = writeln!(out, "- **Layers:** {}", cell(layers));
    }
    let _ = writeln!(out, "- **Throttling:** {}", cell(&op.contract.throttling));
    if let Some(schedule) = &op.schedule {
        out.push('\n');
        timeline(out, schedule);
    }
}

/// One finding as a list item: icon, rule, message and where.
fn finding(out: &mut String, f: &FindingReport) {
    let _ = writeln!(
        out,
        "- {} `{}` {} ({})",
        icon(f.severity),
        f.rule,
        cell(&f.message),
        code(&format!("{}:{}", f.location.file, f.location.line))
    );
}

fn timeline(out: &mut String, s: &ScheduleReport) {
    out.push_str("| attempt | wait before | starts by | ends by |\n|---:|---|---|---|\n");
    for a in &s.attempts {
        let wait = if a.attempt == 1 {
            "–".to_string()
        } else if a.wait_min_ms == a.wait_max_ms {
            millis(a.wait_max_ms).to_string()
        } else {
            format!("{}–{}", millis(a.wait_min_ms), millis(a.wait_max_ms))
        };
        let _ = writeln!(
            out,
            "| {} | {wait} | {} | {} |",
            a.attempt,
            millis(a.start_ms),
            millis(a.end_ms)
        );
    }
    let deadline = s
        .deadline_ms
        .map(|d| format!(" of a {} deadline", millis(d)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "\nWorst case {}{deadline}; stops with `{}`.",
        millis(s.worst_case_ms),
        s.stop
    );
}

/// A contract state with its colour: never "ready".
fn state_badge(state: ContractState) -> &'static str {
    match state {
        ContractState::Unprotected => "🔴 unprotected",
        ContractState::KeyIncomplete => "🟠 key-incomplete",
        ContractState::RetrySafeWithReconcile => "🔵 retry-safe-with-reconcile",
        ContractState::RetrySafe => "🟢 retry-safe",
    }
}

fn badge(readiness: Readiness) -> &'static str {
    match readiness {
        Readiness::Unsafe => "🔴 unsafe",
        Readiness::NeedsWork => "🟡 needs-work",
        Readiness::Ready => "🟢 ready",
    }
}

fn icon(severity: &str) -> &'static str {
    match severity {
        "error" => "❌",
        "warning" => "⚠️",
        _ => "ℹ️",
    }
}

use crate::rendering::plural;

/// The most characters of one description value a comment shows.
const MAX_VALUE: usize = 300;

/// Text from the report as plain Markdown: no markup, mention or line break survives.
fn cell(text: &str) -> String {
    escape::markdown_text(&shorten(text))
}

/// A value (a path, a file name) as a code span with a fence it cannot close.
fn code(text: &str) -> String {
    escape::markdown_code(&shorten(text))
}

/// Text inside HTML tags (`<summary>`, `<code>`), on one line.
fn html(text: &str) -> String {
    escape::markdown_html(&shorten(text))
}

/// At most [`MAX_VALUE`] characters, with `…` where the rest was cut.
fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_VALUE) {
        Some((at, _)) => format!("{}…", &text[..at]).into(),
        None => text.into(),
    }
}
