//! How a diff is shown: text for a terminal, versioned JSON, Markdown for a pull-request
//! comment, GitHub annotations on the head's files, and SARIF of the new findings only.

pub(crate) mod json;
pub(crate) mod markdown;

use crate::analysis::contract::ContractState;
use crate::analysis::rules::finding::CheckResult;
use crate::escape::{github_data, github_property, terminal};
use crate::location::Loc;
use crate::rendering::output::FailOn;

use super::{Class, Diff, OperationDiff, Side};

/// `3 regressions, 1 improvement, 2 neutral changes in 4 operations; 2 new findings, 1 fixed`.
pub(crate) fn summary_line(diff: &Diff) -> String {
    let s = diff.summary();
    use crate::rendering::plural;
    format!(
        "{}, {}, {} in {}; {}, {} fixed",
        plural(s.regressions, "regression"),
        plural(s.improvements, "improvement"),
        plural(s.neutral, "neutral change"),
        plural(s.operations_changed, "operation"),
        plural(s.new_findings, "new finding"),
        s.fixed_findings
    )
}

/// `unprotected → retry-safe`, or one state when it did not change.
pub(crate) fn states(op: &OperationDiff) -> String {
    let name = |s: Option<ContractState>| s.map_or("–", ContractState::as_str);
    if op.base_state == op.head_state {
        name(op.head_state).to_string()
    } else {
        format!("{} → {}", name(op.base_state), name(op.head_state))
    }
}

/// `file:line:column` of a place in one side.
pub(crate) fn at(side: &Side, loc: &Loc) -> String {
    let place = side.place(loc);
    format!("{}:{}:{}", place.file, place.line, place.column)
}

/// The text for a terminal.
pub(crate) fn text(diff: &Diff) -> String {
    let mut out = format!(
        "retrylint diff: base {} → head {}\n{}\n",
        terminal(&diff.base.name),
        terminal(&diff.head.name),
        summary_line(diff)
    );
    for op in &diff.operations {
        out.push_str(&format!("\n{}  [{}]\n", terminal(&op.title), states(op)));
        for change in &op.changes {
            out.push_str(&format!(
                "  {:<11}  {:<26}  {}\n",
                change.class.as_str(),
                change.kind,
                terminal(&change.message)
            ));
            let mut places = Vec::new();
            if let Some(loc) = &change.base {
                places.push(format!("base {}", terminal(&at(&diff.base, loc))));
            }
            if let Some(loc) = &change.head
                && op.head_index.is_some()
            {
                places.push(format!("head {}", terminal(&at(&diff.head, loc))));
            }
            if !places.is_empty() {
                out.push_str(&format!(
                    "  {:<11}  {:<26}  {}\n",
                    "",
                    "",
                    places.join(", ")
                ));
            }
        }
    }
    for (title, side, indices) in [
        ("New findings", &diff.head, &diff.new_findings),
        ("Fixed findings", &diff.base, &diff.fixed_findings),
    ] {
        if indices.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}:\n"));
        for &i in indices {
            let f = &side.checked.findings[i];
            out.push_str(&format!(
                "  {}[{}] {}: {}\n",
                f.severity,
                f.rule,
                terminal(&at(side, &f.primary.loc)),
                terminal(&f.message)
            ));
        }
    }
    out
}

/// The head's new findings as a check result, for the formats of `check`.
pub(crate) fn new_findings(diff: &Diff) -> CheckResult {
    let head = &diff.head;
    let analysis = &head.checked.analysis;
    CheckResult {
        description: head.name.clone(),
        root_file: analysis.api.root_file,
        sources: analysis.sources.clone(),
        operations: analysis
            .api
            .operations
            .iter()
            .map(crate::analysis::rules::finding::OperationRef::of)
            .collect(),
        findings: diff
            .new_findings
            .iter()
            .map(|&i| head.checked.findings[i].clone())
            .collect(),
        suppressed: 0,
        baselined: 0,
        webhooks: 0,
        policy: head.policy.clone(),
        client_policy: head.policy.is_some(),
        contract: crate::analysis::contract::StateCounts::default(),
    }
}

/// GitHub annotations: one per regression at its place in the head, then the new
/// findings as `check --format github` shows them.
pub(crate) fn github(diff: &Diff, fail_on: FailOn) -> String {
    let mut out = format!("retrylint diff: {}\n", summary_line(diff));
    for op in &diff.operations {
        for change in op.changes.iter().filter(|c| c.class == Class::Regression) {
            let Some(loc) = change.head.as_ref().filter(|_| op.head_index.is_some()) else {
                out.push_str(&format!(
                    "retrylint diff: regression {} in {}: {}\n",
                    change.kind,
                    terminal(&op.title),
                    terminal(&change.message)
                ));
                continue;
            };
            let place = diff.head.place(loc);
            let file = diff.head.checked.analysis.sources[loc.file].identity();
            out.push_str(&format!(
                "::error file={},line={},endLine={},title={}::{}\n",
                github_property(file),
                place.line,
                place.end_line,
                github_property(&format!("retrylint diff {}", change.kind)),
                github_data(&format!("{}: {}", op.title, change.message))
            ));
        }
    }
    let result = new_findings(diff);
    if !result.findings.is_empty() {
        let results = std::slice::from_ref(&result);
        out.push_str(&format!(
            "retrylint diff: new findings: {}\n",
            crate::rendering::output::Summary::of(results).line()
        ));
        out.push_str(&crate::rendering::output::github::annotations(
            results, fail_on, None,
        ));
    }
    out
}
