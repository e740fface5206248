//! `--format json`: findings as a versioned JSON document for other tools.

use serde::Serialize;

use super::{CheckResult, Place, Summary, fingerprint};
use crate::analysis::rules::finding::Finding;
use crate::input::load::Sources;
use crate::location::Loc;

/// The version of this document's shape.
pub const VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    /// The policy file the descriptions were checked against: `null` when none was,
    /// its name when all were checked against one, and per description (in the order of
    /// `summary.descriptions`) when they differ.
    policy: serde_json::Value,
    findings: Vec<JsonFinding<'a>>,
    summary: JsonSummary<'a>,
}

/// A finding as the JSON outputs write it (`check`, and the new and fixed findings of
/// `diff`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonFinding<'a> {
    rule: &'a str,
    severity: &'a str,
    message: &'a str,
    help: Option<&'a str>,
    operation: Option<JsonOperation<'a>>,
    /// Of a finding whose fix lives in one shared place: every operation it affects, in
    /// description order (left out for every other finding).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    operations: Vec<JsonOperation<'a>>,
    location: Place,
    /// What the primary label says.
    label: &'a str,
    related: Vec<Related<'a>>,
    fingerprint: String,
    /// The rule's page (`retrylint explain RULE` prints it).
    url: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonOperation<'a> {
    method: &'a str,
    path: &'a str,
    operation_id: Option<&'a str>,
}

impl<'a> JsonOperation<'a> {
    fn of(o: &'a crate::analysis::rules::finding::OperationRef) -> JsonOperation<'a> {
        JsonOperation {
            method: &o.method,
            path: &o.path,
            operation_id: o.operation_id.as_deref(),
        }
    }
}

#[derive(Serialize)]
struct Related<'a> {
    message: &'a str,
    location: Place,
}

#[derive(Serialize)]
struct JsonSummary<'a> {
    descriptions: Vec<&'a str>,
    operations: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
    suppressed: usize,
    baselined: usize,
    /// Webhooks declared: server-to-client calls, not checked.
    webhooks: usize,
    /// Operations at each contract state: what the descriptions alone let any client
    /// retry safely.
    contract: crate::analysis::contract::StateCounts,
}

/// Renders every result as one JSON document.
pub fn render(results: &[CheckResult]) -> String {
    let summary = Summary::of(results);
    let document = Document {
        version: VERSION,
        policy: policy_of(results),
        findings: results
            .iter()
            .flat_map(|r| {
                let place = |loc: &Loc| Place::of(loc, &r.sources);
                r.findings
                    .iter()
                    .map(move |f| finding(f, &r.sources, r.root_file, &place))
            })
            .collect(),
        summary: JsonSummary {
            descriptions: results.iter().map(|r| r.description.as_str()).collect(),
            operations: summary.operations,
            errors: summary.errors,
            warnings: summary.warnings,
            infos: summary.infos,
            suppressed: summary.suppressed,
            baselined: summary.baselined,
            webhooks: summary.webhooks,
            contract: summary.contract,
        },
    };
    // Serialising plain structs of strings and numbers cannot fail.
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}

/// The `policy` field: one name, `null`, or one entry per description.
fn policy_of(results: &[CheckResult]) -> serde_json::Value {
    let names: Vec<Option<&str>> = results.iter().map(|r| r.policy.as_deref()).collect();
    match names.split_first() {
        None => serde_json::Value::Null,
        Some((first, rest)) if rest.iter().all(|n| n == first) => (*first).into(),
        Some(_) => names.into(),
    }
}

/// A finding, its places named by `place`.
pub fn finding<'a>(
    f: &'a Finding,
    sources: &Sources,
    root: crate::input::load::FileId,
    place: &dyn Fn(&Loc) -> Place,
) -> JsonFinding<'a> {
    JsonFinding {
        rule: f.rule.as_str(),
        severity: f.severity.as_str(),
        message: &f.message,
        help: f.help.as_deref(),
        operation: f.operation.as_ref().map(JsonOperation::of),
        operations: f
            .affected
            .iter()
            .map(|a| JsonOperation::of(&a.operation))
            .collect(),
        location: place(&f.primary.loc),
        label: &f.primary.text,
        related: f
            .related
            .iter()
            .map(|l| Related {
                message: &l.text,
                location: place(&l.loc),
            })
            .collect(),
        fingerprint: fingerprint(f, sources, root),
        url: super::rule_url(f.rule),
    }
}
