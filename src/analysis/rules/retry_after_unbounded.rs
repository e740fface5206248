//! `retry-after-unbounded`: the client waits whatever the server asks, however long.

use super::{OperationContext, Rule};
use crate::analysis::fix::{Change, Fix, NewValue, Safety};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::policy::Duration;

declare_rule!(
    /// `retryAfter.honor` without `retryAfter.max`.
    RetryAfterUnbounded,
    "retry-after-unbounded",
    Warning,
    Policy,
    "Retry-After is honoured with no upper bound",
    layer_fix: RetryAfterUnbounded,
    fix: Safe
);

impl Rule for RetryAfterUnbounded {
    fn judges_layer(&self, _layer: &crate::analysis::layers::Layer, _route: &crate::analysis::layers::Route) -> bool {
        true
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        let p = &policy.policy;
        let Some(honor) = &p.retry_after_honor else {
            return;
        };
        let throttled = policy
            .retry_on()
            .iter()
            .any(|s| s.value.covers(429) || s.value.covers(503));
        if !honor.value || p.retry_after_max.is_some() || !policy.is_retried() || !throttled {
            return;
        }
        let finding =
            Finding::new(
                Self::META.id,
                "Retry-After is honoured with no retryAfter.max: a server or proxy that asks for a long wait holds the caller for it, up to the whole deadline (or forever without one)",
                Label::new(&honor.loc, "no upper bound"),
            )
            .help("set retryAfter.max (for example 5s): a longer Retry-After makes the client give up at once instead")
            .fix(bound(cx, honor, p.deadline.as_ref().map(|d| d.value)));
        out.push(cx.grouped_value(finding));
    }
}
/// The fix: `retryAfter.max: 5s`, or the deadline when it is shorter (a longer wait could
/// not be honoured within it anyway).
fn bound(
    cx: &OperationContext<'_>,
    honor: &crate::input::policy::Spanned<bool>,
    deadline: Option<Duration>,
) -> Option<Fix> {
    let five = Duration::from_millis(5_000);
    let max = deadline.map_or(five, |d| if d < five { d } else { five });
    let change = Change::set_beside(&honor.loc, "max", NewValue::str(max.to_string()))
        .filter(|_| cx.layer.is_none())?;
    Some(Fix::new(
        Safety::Safe,
        format!("set retryAfter.max: {max}"),
        vec![change],
    ))
}
