//! `unknown-outcome-unhandled`: no plan for a write whose outcome is unknown.

use super::{OperationContext, Rule, declared_here};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::policy::SideEffect;

declare_rule!(
    /// A retried non-idempotent operation has no `onUnknownOutcome`.
    UnknownOutcomeUnhandled,
    "unknown-outcome-unhandled",
    Warning,
    Policy,
    "a non-idempotent operation has no onUnknownOutcome"
);

impl Rule for UnknownOutcomeUnhandled {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        // A write that is never retried fails on an unknown outcome: that is a plan.
        if policy.effect.side_effect != SideEffect::NonIdempotent
            || policy.policy.on_unknown_outcome.is_some()
            || !policy.is_retried()
        {
            return;
        }
        let op = cx.op;
        out.push(
            cx.finding(
                &Self::META,
                "does not say what the client does when the write timed out after the body was sent",
                Label::new(
                    &op.loc,
                    if op.grpc.is_some() {
                        crate::analysis::rules::finding::write_declared_here(op, Some(policy))
                    } else {
                        declared_here(op)
                    },
                ),
            )
            .help("set onUnknownOutcome: fail (report it), reconcile (ask the statusEndpoint) or retry-same-key"),
        );
    }
}
