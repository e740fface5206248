//! `log-missing-retry-context`: retry logs that cannot explain a retry storm.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

/// What a retry log line needs to reconstruct what happened.
const CONTEXT: &[&str] = &[
    "attempt",
    "signal",
    "delay",
    "deadlineRemaining",
    "correlationId",
];

declare_rule!(
    /// `log` is present but lacks one of attempt, signal, delay, deadlineRemaining,
    /// correlationId.
    LogMissingRetryContext,
    "log-missing-retry-context",
    Info,
    Policy,
    "the retry log lacks attempt, signal, delay, deadlineRemaining or correlationId"
);

impl Rule for LogMissingRetryContext {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy.filter(|p| p.is_retried()) else {
            return;
        };
        let Some(log) = &policy.policy.log else {
            return;
        };
        let missing: Vec<&str> = CONTEXT
            .iter()
            .copied()
            .filter(|want| !log.value.iter().any(|f| f.value.eq_ignore_ascii_case(want)))
            .collect();
        if missing.is_empty() {
            return;
        }
        out.push(
            Finding::new(
                Self::META.id,
                format!(
                    "the retry log lacks {}: a retry storm cannot be reconstructed from it",
                    missing.join(", ")
                ),
                Label::new(&log.loc, format!("missing {}", missing.join(", "))),
            )
            .help(format!("add {} to log", missing.join(", "))),
        );
    }
}
