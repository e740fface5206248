//! `attempts-exceed-deadline`: attempts the deadline never lets run.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};
use crate::analysis::plan::schedule::{self, RetryAfterBound, Schedule};
use crate::analysis::plan::{StopReason, millis, ms};
use crate::input::policy::{Duration, Effective, Spanned};

declare_rule!(
    /// The worst-case schedule (every attempt to its per-attempt timeout, the longest
    /// waits, a `Retry-After` up to `retryAfter.max`) does not fit in `deadline`; without a
    /// per-attempt timeout, the longest waits alone do not.
    AttemptsExceedDeadline,
    "attempts-exceed-deadline",
    Warning,
    Policy,
    "the worst-case schedule does not fit in the deadline",
    layer_fix: AttemptsPastDeadline
);

impl Rule for AttemptsExceedDeadline {
    fn judges_layer(&self, layer: &crate::analysis::layers::Layer, route: &crate::analysis::layers::Route) -> bool {
        // A route bounded only by a budget has no count to fit in a deadline. A Speakeasy
        // SDK's count is what its `maxElapsedTime` allows: checked before each wait, it
        // never cuts an attempt short, so none of them is unreachable.
        !route.budget_only && layer.format != crate::analysis::layers::Format::Speakeasy
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        let p = &policy.policy;
        let (Some(attempts), Some(deadline)) = (&p.max_attempts, &p.deadline) else {
            return;
        };
        if !policy.is_retried() {
            return;
        }
        let Some(plan) = schedule::worst_case(policy) else {
            return;
        };
        // Out-of-range values are `invalid-backoff`'s.
        if plan.stop == StopReason::InvalidDelay {
            return;
        }
        let finding = match &p.per_attempt_timeout {
            Some(per_attempt) => with_timeouts(cx, attempts, deadline, per_attempt, &plan),
            None => waits_alone(cx, policy, attempts, deadline, &plan),
        };
        out.extend(finding);
    }
}

/// What a `Retry-After` adds to the message.
fn retry_after_note(plan: &Schedule) -> String {
    match plan.retry_after {
        RetryAfterBound::UpTo(max) => format!(" (Retry-After honoured up to {max})"),
        _ => String::new(),
    }
}

fn with_timeouts(
    cx: &OperationContext<'_>,
    attempts: &Spanned<i64>,
    deadline: &Spanned<Duration>,
    per_attempt: &Spanned<Duration>,
    plan: &Schedule,
) -> Option<Finding> {
    let needed = plan.needed?;
    if needed <= deadline.value {
        return None;
    }
    let over = schedule::shown(millis(ms(needed) - ms(deadline.value)));
    let needed = schedule::shown(needed);
    let full = plan.full_attempts;
    let note = retry_after_note(plan);
    let mut finding = cx
        .finding(
            &AttemptsExceedDeadline::META,
            format!("cannot fit {} attempts of up to {} in its {} deadline: with the longest waits{note} they need {needed}, {over} more; in the worst case only {full} run in full", attempts.value, per_attempt.value, deadline.value),
            Label::new(&attempts.loc, format!("{} attempts", attempts.value)),
        )
        .help(format!(
            "lower maxAttempts to {}, shorten perAttemptTimeout, backoff.cap or retryAfter.max, or raise the deadline to {needed}",
            full.max(1)
        ))
        .related(&deadline.loc, format!("deadline {}", deadline.value))
        .related(&per_attempt.loc, format!("up to {} per attempt", per_attempt.value));
    if let RetryAfterBound::UpTo(max) = plan.retry_after
        && let Some(max_at) = &cx.policy.and_then(|p| p.policy.retry_after_max.as_ref())
    {
        finding = finding.related(&max_at.loc, format!("Retry-After up to {max}"));
    }
    Some(finding)
}

fn waits_alone(
    cx: &OperationContext<'_>,
    policy: &Effective,
    attempts: &Spanned<i64>,
    deadline: &Spanned<Duration>,
    plan: &Schedule,
) -> Option<Finding> {
    let reachable = plan.reachable_by_waits;
    if reachable >= plan.max_attempts {
        return None;
    }
    let note = retry_after_note(plan);
    let mut finding = cx
        .finding(
            &AttemptsExceedDeadline::META,
            format!(
                "the longest waits alone{note} do not fit in its {} deadline: they add up to {} for {} attempts, so even if every attempt failed at once only {reachable} could start; {} unreachable",
                deadline.value,
                schedule::shown(plan.waits_needed),
                attempts.value,
                if reachable + 1 == plan.max_attempts {
                    format!("attempt {} is", plan.max_attempts)
                } else {
                    format!("attempts {} to {} are", reachable + 1, plan.max_attempts)
                }
            ),
            Label::new(&attempts.loc, format!("{} attempts", attempts.value)),
        )
        .help(if plan.waits_needed.as_micros() == i64::MAX {
            format!("lower maxAttempts to {reachable}, or set backoff.cap")
        } else {
            format!(
                "lower maxAttempts to {reachable}, shorten backoff.base, backoff.cap or retryAfter.max, or raise the deadline above {}",
                plan.waits_needed
            )
        })
        .related(&deadline.loc, format!("deadline {}", deadline.value));
    if let Some(base) = &policy.policy.backoff_base {
        finding = finding.related(&base.loc, format!("waits grow from {}", base.value));
    }
    Some(finding)
}
