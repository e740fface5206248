//! What the two warnings about suppressions say about themselves: findings carry their
//! ids like a rule's (SARIF lists them as rules), but they run as part of applying the
//! suppressions, not as rules.

use super::{RuleId, RuleMeta, Scope};
use crate::analysis::rules::finding::Severity;

/// Reported for a suppression with no reason.
pub(super) static WITHOUT_REASON: RuleMeta = RuleMeta {
    id: RuleId::SuppressionWithoutReason,
    name: "suppression-without-reason",
    severity: Severity::Warning,
    scope: Scope::Description,
    summary: "a suppression gives no reason",
    doc: "# suppression-without-reason\n\n## What it checks\n\nA suppression (`x-retrylint-ignore`, a `# retrylint: ignore[rule]` comment or a `lint.ignore` entry) without a reason.\n\n## Fix\n\nSay why the finding does not apply, so that the next reader can judge it.\n",
    layer_fix: None,
    fix: None,
};

/// Reported for a suppression that silences no finding.
pub(super) static UNUSED: RuleMeta = RuleMeta {
    id: RuleId::UnusedSuppression,
    name: "unused-suppression",
    severity: Severity::Warning,
    scope: Scope::Description,
    summary: "a suppression silences no finding",
    doc: "# unused-suppression\n\n## What it checks\n\nA suppression that silenced no finding of a rule that ran: the finding it was written for is gone.\n\n## Fix\n\nRemove the suppression.\n",
    layer_fix: None,
    fix: None,
};
