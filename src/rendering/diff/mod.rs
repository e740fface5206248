//! `retrylint diff`: what a change does to the retry contract.
//!
//! Two versions of a description — each checked with its own policy and layers — are
//! compared operation by operation ([`matching`]): what the contract promises (key,
//! status endpoint, throttling answers, conflict responses, idempotency) and what the
//! client policy does (retried or not, on which signals, deadline, attempts, jitter,
//! `Retry-After`). Each difference is a [`Change`] classified as a regression, an
//! improvement or neutral ([`changes`]); findings are compared by an identity that does
//! not depend on where each version lies ([`findings`]).

pub(crate) mod change_kind;
pub(crate) mod changes;
pub(crate) mod findings;
pub(crate) mod matching;
pub(crate) mod render;

use serde::Serialize;

use crate::analysis::check::Checked;
use crate::analysis::contract::ContractState;
use crate::location::Loc;

pub(crate) use change_kind::ChangeKind;

/// One version of a description, checked.
pub(crate) struct Side {
    pub checked: Checked,
    /// The description as named on the command line (`REF:path` for a git revision).
    pub name: String,
    /// The policy file, when there is one.
    pub policy: Option<String>,
    /// For a revision read from git: the scratch folder's path, and what to show instead
    /// (`HEAD~1:`), so that places read `HEAD~1:api/openapi.yaml`.
    pub rename: Option<(String, String)>,
    /// Where this version stands (resolved), when it is not its description's folder:
    /// for `diff`, the folder left once the two descriptions' paths' common ending is
    /// taken off. Findings in other files are compared by their paths from it.
    pub root: Option<std::path::PathBuf>,
}

impl Side {
    /// Where a location is, as this side names its files.
    pub(crate) fn place(&self, loc: &Loc) -> crate::rendering::output::Place {
        let mut place = crate::rendering::output::Place::of(loc, &self.checked.analysis.sources);
        place.file = renamed(place.file, self.rename.as_ref());
        place
    }
}

/// A file name as a side shows it: under the scratch folder of a revision, `REF:path`.
pub(crate) fn renamed(name: String, rename: Option<&(String, String)>) -> String {
    match rename.and_then(|(from, to)| Some((name.strip_prefix(from.as_str())?, to))) {
        Some((rest, to)) => format!("{to}{}", rest.trim_start_matches('/')),
        None => name,
    }
}

/// An input error about a revision's files, naming them as the side does
/// (`HEAD~1:api/openapi.yaml`) rather than by the scratch folder they were read into.
pub(crate) fn renamed_error(
    mut error: crate::error::InputError,
    rename: &(String, String),
) -> crate::error::InputError {
    let (from, to) = rename;
    let prefix = format!("{from}/");
    let fix = |text: &mut String| {
        if text.contains(from.as_str()) {
            *text = text.replace(&prefix, to).replace(from.as_str(), to);
        }
    };
    fix(&mut error.message);
    if let Some(help) = &mut error.help {
        fix(help);
    }
    if let Some(site) = &mut error.site {
        fix(&mut site.file);
    }
    for site in &mut error.related {
        fix(&mut site.file);
    }
    error
}

/// How a change bears on retry safety.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Class {
    Regression,
    Improvement,
    Neutral,
}

impl Class {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Class::Regression => "regression",
            Class::Improvement => "improvement",
            Class::Neutral => "neutral",
        }
    }
}

/// One difference in one operation.
#[derive(Debug, Clone)]
pub(crate) struct Change {
    /// A stable name: `key-removed`, `deadline-removed`, …
    pub kind: ChangeKind,
    pub class: Class,
    pub message: String,
    /// Where the base says it (the thing removed or changed).
    pub base: Option<Loc>,
    /// Where the head says it (or the operation, for something removed).
    pub head: Option<Loc>,
}

/// Whether an operation is in both versions, or only one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Presence {
    Both,
    Added,
    Removed,
}

/// One operation's changes.
#[derive(Debug, Clone)]
pub(crate) struct OperationDiff {
    pub method: String,
    pub path: String,
    pub operation_id: Option<String>,
    /// `POST /orders (createOrder)`.
    pub title: String,
    pub presence: Presence,
    pub base_index: Option<usize>,
    pub head_index: Option<usize>,
    pub base_state: Option<ContractState>,
    pub head_state: Option<ContractState>,
    pub changes: Vec<Change>,
}

/// The whole comparison.
pub(crate) struct Diff {
    pub base: Side,
    pub head: Side,
    /// Operations with at least one change, regressions first, then in head order.
    pub operations: Vec<OperationDiff>,
    /// Findings of the head that the base does not have (indices into its findings).
    pub new_findings: Vec<usize>,
    /// Findings of the base that the head no longer has.
    pub fixed_findings: Vec<usize>,
    pub unchanged_findings: usize,
    /// What the reader should know about the inputs: a `-p` path only one side has, a
    /// description the change adds. Set by the command that made the comparison.
    pub notes: Vec<String>,
}

/// Counts of a diff.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiffSummary {
    pub regressions: usize,
    pub improvements: usize,
    pub neutral: usize,
    pub operations_changed: usize,
    pub new_findings: usize,
    pub fixed_findings: usize,
    pub unchanged_findings: usize,
}

impl Diff {
    /// Compares two checked versions.
    pub(crate) fn new(base: Side, head: Side) -> Diff {
        let pairs = matching::pair(&base.checked.analysis.api, &head.checked.analysis.api);
        let mut operations: Vec<OperationDiff> = pairs
            .iter()
            .map(|pair| changes::of(pair, &base.checked.analysis, &head.checked.analysis))
            .filter(|d| !d.changes.is_empty())
            .collect();
        // Regressions first; otherwise the head's order (removed ones last).
        operations.sort_by_key(|d| {
            let worst = d
                .changes
                .iter()
                .map(|c| c.class)
                .min()
                .unwrap_or(Class::Neutral);
            (worst, d.head_index.unwrap_or(usize::MAX), d.base_index)
        });
        let (new_findings, fixed_findings, unchanged_findings) = findings::compare(&base, &head);
        Diff {
            base,
            head,
            operations,
            new_findings,
            fixed_findings,
            unchanged_findings,
            notes: Vec::new(),
        }
    }

    pub(crate) fn summary(&self) -> DiffSummary {
        let count = |class| {
            self.operations
                .iter()
                .flat_map(|o| &o.changes)
                .filter(|c| c.class == class)
                .count()
        };
        DiffSummary {
            regressions: count(Class::Regression),
            improvements: count(Class::Improvement),
            neutral: count(Class::Neutral),
            operations_changed: self.operations.len(),
            new_findings: self.new_findings.len(),
            fixed_findings: self.fixed_findings.len(),
            unchanged_findings: self.unchanged_findings,
        }
    }

    /// Whether the change fails review: a regression, or a new finding at `fail_on`.
    pub(crate) fn fails(&self, fail_on: crate::rendering::output::FailOn) -> bool {
        self.summary().regressions > 0
            || self
                .new_findings
                .iter()
                .any(|&i| fail_on.fails(self.head.checked.findings[i].severity))
    }
}
