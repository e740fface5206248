//! `backoff-without-jitter`: retries that wake in step after a shared failure.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::policy::Jitter;

declare_rule!(
    /// A retried operation with `jitter: none` or no jitter at all.
    BackoffWithoutJitter,
    "backoff-without-jitter",
    Error,
    Policy,
    "a retried operation waits without jitter"
);

impl Rule for BackoffWithoutJitter {
    fn judges_layer(&self, _layer: &crate::analysis::layers::Layer, route: &crate::analysis::layers::Route) -> bool {
        // Jitter the format leaves to the implementation is not judged.
        route.policy.jitter.is_some()
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        if !policy.is_retried() {
            return;
        }
        let p = &policy.policy;
        let (loc, label) = match (&p.jitter, &p.backoff, &p.max_attempts) {
            (Some(j), _, _) if j.value != Jitter::None => return,
            (Some(j), _, _) => (&j.loc, "`jitter: none`".to_string()),
            (None, Some(b), _) => (&b.loc, "backoff without `jitter`".to_string()),
            (None, None, Some(m)) => (
                &m.loc,
                format!("{} attempts, no backoff or jitter", m.value),
            ),
            (None, None, None) => return,
        };
        let finding = cx
            .finding(
                &Self::META,
                "retries without jitter: after a shared failure every client retries at the same moments",
                Label::new(loc, label),
            )
            .help("set backoff.jitter: full (or equal, decorrelated) to spread retries out");
        out.push(cx.grouped_at_primary(
            finding,
            "the retries of ",
            " wait without jitter: after a shared failure every client retries at the same moments",
        ));
    }
}
