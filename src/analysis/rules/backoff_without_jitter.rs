//! `backoff-without-jitter`: retries that wake in step after a shared failure.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};
use crate::analysis::fix::{Change, Fix, NewValue, Safety};
use crate::input::policy::Jitter;

declare_rule!(
    /// A retried operation with `jitter: none` or no jitter at all.
    BackoffWithoutJitter,
    "backoff-without-jitter",
    Error,
    Policy,
    "a retried operation waits without jitter",
    fix: Safe
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
        let full = || NewValue::str("full");
        let (loc, label, change) = match (&p.jitter, &p.backoff, &p.max_attempts) {
            (Some(j), _, _) if j.value != Jitter::None => return,
            (Some(j), _, _) => (
                &j.loc,
                "`jitter: none`".to_string(),
                Change::set_beside(&j.loc, "jitter", full()),
            ),
            (None, Some(b), _) => (
                &b.loc,
                "backoff without `jitter`".to_string(),
                Change::set_in(&b.loc, "jitter", full()),
            ),
            (None, None, Some(m)) => (
                &m.loc,
                format!("{} attempts, no backoff or jitter", m.value),
                Change::set_beside(
                    &m.loc,
                    "backoff",
                    NewValue::map([
                        ("base", NewValue::str("100ms")),
                        ("cap", NewValue::str("2s")),
                        ("jitter", full()),
                    ]),
                ),
            ),
            (None, None, None) => return,
        };
        // The policy format's own keys: a layer's settings are fixed in its own terms.
        let fix = change
            .filter(|_| cx.layer.is_none())
            .map(|change| Fix::new(Safety::Safe, "set backoff.jitter: full", vec![change]));
        let finding = cx
            .finding(
                &Self::META,
                "retries without jitter: after a shared failure every client retries at the same moments",
                Label::new(loc, label),
            )
            .help("set backoff.jitter: full (or equal, decorrelated) to spread retries out")
            .fix(fix);
        out.push(cx.grouped_at_primary(
            finding,
            "the retries of ",
            " wait without jitter: after a shared failure every client retries at the same moments",
        ));
    }
}
