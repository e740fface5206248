//! `retrylint diff --format json`: the comparison as a versioned document.

use serde::Serialize;

use crate::analysis::rules::finding::Finding;
use crate::rendering::output::Place;
use crate::rendering::output::json::JsonFinding;

use super::super::{Class, Diff, DiffSummary, Presence, Side};

/// The version of this document's shape.
pub(crate) const VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    base: Version<'a>,
    head: Version<'a>,
    summary: DiffSummary,
    operations: Vec<Operation<'a>>,
    findings: Findings<'a>,
    /// What the reader should know about the inputs (a `-p` path one side lacks).
    notes: &'a [String],
}

#[derive(Serialize)]
struct Version<'a> {
    description: &'a str,
    policy: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(
    clippy::struct_field_names,
    reason = "the JSON field is `operationId`, as OpenAPI names it"
)]
struct Operation<'a> {
    method: &'a str,
    path: &'a str,
    operation_id: Option<&'a str>,
    presence: Presence,
    base_state: Option<&'static str>,
    head_state: Option<&'static str>,
    changes: Vec<Change<'a>>,
}

#[derive(Serialize)]
struct Change<'a> {
    kind: crate::rendering::diff::ChangeKind,
    class: Class,
    message: &'a str,
    base: Option<Place>,
    head: Option<Place>,
}

#[derive(Serialize)]
struct Findings<'a> {
    new: Vec<JsonFinding<'a>>,
    fixed: Vec<JsonFinding<'a>>,
    unchanged: usize,
}

fn finding<'a>(f: &'a Finding, side: &Side) -> JsonFinding<'a> {
    let analysis = &side.checked.analysis;
    crate::rendering::output::json::finding(f, &analysis.sources, analysis.api.root_file, &|loc| {
        side.place(loc)
    })
}

/// Renders the document.
pub(crate) fn render(diff: &Diff) -> String {
    let (base, head) = (&diff.base, &diff.head);
    let document = Document {
        version: VERSION,
        base: Version {
            description: &base.name,
            policy: base.policy.as_deref(),
        },
        head: Version {
            description: &head.name,
            policy: head.policy.as_deref(),
        },
        summary: diff.summary(),
        operations: diff
            .operations
            .iter()
            .map(|op| Operation {
                method: &op.method,
                path: &op.path,
                operation_id: op.operation_id.as_deref(),
                presence: op.presence,
                base_state: op
                    .base_state
                    .map(crate::analysis::contract::ContractState::as_str),
                head_state: op
                    .head_state
                    .map(crate::analysis::contract::ContractState::as_str),
                changes: op
                    .changes
                    .iter()
                    .map(|c| Change {
                        kind: c.kind,
                        class: c.class,
                        message: &c.message,
                        base: c.base.as_ref().map(|l| base.place(l)),
                        head: c
                            .head
                            .as_ref()
                            .filter(|_| op.head_index.is_some())
                            .map(|l| head.place(l)),
                    })
                    .collect(),
            })
            .collect(),
        findings: Findings {
            new: diff
                .new_findings
                .iter()
                .map(|&i| finding(&head.checked.findings[i], head))
                .collect(),
            fixed: diff
                .fixed_findings
                .iter()
                .map(|&i| finding(&base.checked.findings[i], base))
                .collect(),
            unchanged: diff.unchanged_findings,
        },
        notes: &diff.notes,
    };
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}
