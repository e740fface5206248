//! Grouping: the findings of one rule whose fix lives in one shared place become one
//! finding there.
//!
//! A `$ref`'d response without a `Retry-After` header, a policy entry whose selector
//! matches many operations, a layer route that covers many: the rule still judges each
//! operation (so that an operation's own suppressions drop just that operation), and
//! marks its finding with the shared place ([`Finding::shared_at`]). After suppressions,
//! [`group`] merges the marked findings of one rule at one place, with one message, into
//! one finding whose primary is the shared place and which lists every operation it
//! affects, in description order, with a related label where each uses the place. The
//! shared form is kept even for one operation, so that a finding does not change its
//! identity as operations join or leave the group.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::analysis::rules::RuleId;
use crate::analysis::rules::finding::{Affected, Finding, Label, OperationRef};
use crate::input::model::Api;
use crate::input::source::Span;
use crate::location::Loc;

/// What a grouped message says between its parts: the operation when there is one
/// (`GET /orders`), else how many (`6 operations`); the list is the finding's.
pub(crate) fn operations_text(affected: &[Affected]) -> String {
    match affected {
        [one] => format!("{} {}", one.operation.method, one.operation.path),
        many => format!("{} operations", many.len()),
    }
}

/// What makes two marked findings one: the rule, the shared place and the message.
type GroupKey = (RuleId, Loc, String, String);

/// Merges the marked findings of each rule at each shared place; other findings pass
/// through unchanged. The order of the result is the order of first appearance (the
/// caller sorts).
pub(crate) fn group(findings: Vec<Finding>, api: &Api) -> Vec<Finding> {
    if findings.iter().all(|f| f.shared.is_none()) {
        return findings;
    }
    let order: HashMap<(&str, &str), usize> = api
        .operations
        .iter()
        .enumerate()
        .map(|(i, o)| ((o.method.as_str(), o.path.as_str()), i))
        .collect();
    let mut out: Vec<Finding> = Vec::with_capacity(findings.len());
    let mut members: Vec<Vec<Finding>> = Vec::new();
    // Per group, its slot in `out` and in `members`.
    let mut groups: HashMap<GroupKey, (usize, usize)> = HashMap::new();
    for finding in findings {
        let Some(shared) = &finding.shared else {
            out.push(finding);
            continue;
        };
        let key = (
            finding.rule,
            shared.at.loc.clone(),
            shared.before.clone(),
            shared.after.clone(),
        );
        if let Some(&(_, slot)) = groups.get(&key) {
            members[slot].push(finding);
        } else {
            groups.insert(key, (out.len(), members.len()));
            // A placeholder, replaced once every member is known.
            out.push(finding.clone());
            members.push(vec![finding]);
        }
    }
    for (at, slot) in groups.into_values() {
        let group = std::mem::take(&mut members[slot]);
        out[at] = merge(group, &order, api);
    }
    out
}

/// One finding at the shared place, from the findings of its operations.
fn merge(mut group: Vec<Finding>, order: &HashMap<(&str, &str), usize>, api: &Api) -> Finding {
    let index_of = |f: &Finding| {
        f.operation
            .as_ref()
            .and_then(|o| order.get(&(o.method.as_str(), o.path.as_str())).copied())
            .unwrap_or(usize::MAX)
    };
    // Each member looked up once, not once per comparison.
    group.sort_by_cached_key(index_of);
    let mut affected: Vec<Affected> = Vec::with_capacity(group.len());
    let mut related: Vec<Label> = Vec::new();
    let mut others: Vec<Label> = Vec::new();
    let first = &group[0];
    let Some(shared) = first.shared.as_deref().cloned() else {
        return first.clone();
    };
    let same_place = |a: &Loc, b: &Loc| a.file == b.file && a.span == b.span;
    // What is listed already, looked up rather than searched for: a group can hold every
    // operation of a large description.
    let mut listed: HashSet<&OperationRef> = HashSet::with_capacity(group.len());
    let place = |loc: &Loc| (loc.file, loc.span);
    let mut labelled: HashSet<(usize, Span)> = HashSet::from_iter([place(&shared.at.loc)]);
    let mut severity = first.severity;
    for member in &group {
        severity = severity.max(member.severity);
        if let Some(operation) = &member.operation
            && listed.insert(operation)
        {
            let site = member.primary.loc.clone();
            let label = if same_place(&site, &shared.at.loc) {
                // The operation's finding pointed at the shared place itself (a policy
                // entry, a route): the label goes where the operation is declared.
                let declared = api.operations.get(index_of(member));
                declared.map(|op| {
                    Label::new(&op.loc, crate::analysis::rules::finding::declared_here(op))
                })
            } else {
                Some(Label::new(
                    &site,
                    format!("used by {} {}", operation.method, operation.path),
                ))
            };
            if let Some(label) = label {
                labelled.insert(place(&label.loc));
                related.push(label);
            }
            affected.push(Affected {
                operation: operation.clone(),
                site,
            });
        }
        for label in &member.related {
            if labelled.insert(place(&label.loc)) {
                others.push(label.clone());
            }
        }
    }
    related.extend(others);
    let message = format!(
        "{}{}{}",
        shared.before,
        operations_text(&affected),
        shared.after
    );
    Finding {
        rule: first.rule,
        severity,
        message,
        help: first.help.clone(),
        operation: None,
        primary: shared.at,
        related,
        shared: None,
        affected,
        // The members share the place, and so the fix.
        fix: first.fix.clone(),
    }
}
