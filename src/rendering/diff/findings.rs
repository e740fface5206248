//! Which findings a change adds, fixes or leaves: findings are compared by an identity
//! that does not depend on where each version lies (a base read from git into a scratch
//! folder, two files side by side): the rule, the file (the description, the policy, or
//! another file by its path from the side's root, else the description's folder), the
//! operation by method and
//! path template, and the JSON Pointer — or, for a comment, its text.

use std::path::Path;

use foldhash::{HashMap, HashMapExt};

use crate::analysis::rules::RuleId;
use crate::analysis::rules::finding::Finding;

use super::Side;
use super::matching::template;

/// The indices of the head's new findings, of the base's fixed ones, and how many are in
/// both. A finding that appears twice must be fixed twice.
pub(crate) fn compare(base: &Side, head: &Side) -> (Vec<usize>, Vec<usize>, usize) {
    let mut remaining: HashMap<(RuleId, String), Vec<usize>> = HashMap::new();
    for (i, f) in base.checked.findings.iter().enumerate() {
        remaining.entry(identity(f, base)).or_default().push(i);
    }
    let mut new = Vec::new();
    let mut unchanged = 0;
    for (i, f) in head.checked.findings.iter().enumerate() {
        match remaining.get_mut(&identity(f, head)).and_then(Vec::pop) {
            Some(_) => unchanged += 1,
            None => new.push(i),
        }
    }
    let mut fixed: Vec<usize> = remaining.into_values().flatten().collect();
    fixed.sort_unstable();
    (new, fixed, unchanged)
}

/// A finding's identity within its version: its rule, and its place, operation and
/// anchor as one text.
pub(crate) fn identity(finding: &Finding, side: &Side) -> (RuleId, String) {
    let analysis = &side.checked.analysis;
    let sources = &analysis.sources;
    let loc = &finding.primary.loc;
    let file = &sources[loc.file];
    let place = if side.policy.is_some() && loc.file == crate::analysis::check::POLICY_FILE_ID {
        "<policy>".to_string()
    } else if loc.file == analysis.api.root_file {
        "<description>".to_string()
    } else {
        let root = side.root.as_deref().or_else(|| {
            sources[analysis.api.root_file]
                .canonical
                .as_deref()
                .and_then(Path::parent)
        });
        match (root, file.canonical.as_deref()) {
            (Some(root), Some(path)) => path.strip_prefix(root).map_or_else(
                |_| file.identity().to_string(),
                crate::input::source::path_text,
            ),
            _ => file.identity().to_string(),
        }
    };
    let operation = finding
        .operation
        .as_ref()
        .map(|o| format!("{} {}", o.method, template(&o.path)))
        .unwrap_or_default();
    let anchor = if loc.pointer.is_empty() {
        file.text.get(loc.span.range()).unwrap_or_default().trim()
    } else {
        &loc.pointer
    };
    (
        finding.rule,
        format!("{place}\u{0}{operation}\u{0}{anchor}"),
    )
}
