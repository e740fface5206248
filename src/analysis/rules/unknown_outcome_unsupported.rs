//! `unknown-outcome-unsupported`: an unknown-outcome plan without what it needs.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::policy::{SideEffect, UnknownOutcome};

declare_rule!(
    /// A non-idempotent operation with `onUnknownOutcome: reconcile` and no
    /// `statusEndpoint`, or `retry-same-key` and no `keyHeader`.
    UnknownOutcomeUnsupported,
    "unknown-outcome-unsupported",
    Error,
    Policy,
    "onUnknownOutcome needs a status endpoint or key the policy does not give"
);

impl Rule for UnknownOutcomeUnsupported {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        let p = &policy.policy;
        let Some(plan) = &p.on_unknown_outcome else {
            return;
        };
        // Only a write can have an unknown outcome.
        if policy.effect.side_effect != SideEffect::NonIdempotent {
            return;
        }
        let (missing, help) = match plan.value {
            UnknownOutcome::Reconcile if p.status_endpoint.is_none() => (
                "reconcile, but there is no idempotency.statusEndpoint to reconcile with",
                "name the GET operation that reports the write's result in idempotency.statusEndpoint",
            ),
            UnknownOutcome::RetrySameKey if p.key_header.is_none() => (
                "retry-same-key, but there is no idempotency.keyHeader to send",
                "name the header the server deduplicates on in idempotency.keyHeader",
            ),
            _ => return,
        };
        out.push(
            cx.finding(
                &Self::META,
                format!("handles an unknown outcome with {missing}"),
                Label::new(&plan.loc, "cannot be carried out"),
            )
            .help(help),
        );
    }
}
