//! `immediate-retry`: retries sent back to back.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::policy::Duration;

declare_rule!(
    /// A retried operation with no backoff, or `backoff.base: 0ms`.
    ImmediateRetry,
    "immediate-retry",
    Error,
    Policy,
    "a retried operation waits nothing between attempts",
    layer_fix: NoWait
);

impl Rule for ImmediateRetry {
    fn judges_layer(&self, _layer: &crate::analysis::layers::Layer, route: &crate::analysis::layers::Route) -> bool {
        // A backoff the format leaves to the implementation is not judged.
        route.policy.backoff_base.is_some()
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        if !policy.is_retried() {
            return;
        }
        let p = &policy.policy;
        let (loc, label) = match (&p.backoff_base, &p.backoff, &p.max_attempts) {
            (Some(base), _, _) if base.value > Duration::ZERO => return,
            (Some(base), _, _) => (&base.loc, format!("base {}", base.value)),
            (None, Some(section), _) => (&section.loc, "backoff without a base".to_string()),
            (None, None, Some(attempts)) => (
                &attempts.loc,
                format!("{} attempts, no backoff", attempts.value),
            ),
            (None, None, None) => return,
        };
        let finding = cx
            .finding(
                &Self::META,
                "retries immediately: a failing server gets every retry at once, while it is least able to answer",
                Label::new(loc, label),
            )
            .help("set backoff.base (for example 100ms) and a cap; waits grow from base to cap");
        out.push(cx.grouped_at_primary(
            finding,
            "the retries of ",
            " are sent immediately: a failing server gets every retry at once, while it is least able to answer",
        ));
    }
}
