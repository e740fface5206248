//! `attempts-exceed-deadline`: attempts the deadline never lets run.

use super::{OperationContext, Rule, declare_rule};
use crate::finding::{Finding, Label};
use crate::plan::{millis, ms, schedule};

declare_rule!(
    /// The worst-case schedule (every attempt to its per-attempt timeout, the longest
    /// waits) does not fit in `deadline`.
    AttemptsExceedDeadline,
    "attempts-exceed-deadline",
    Warning,
    "the worst-case schedule does not fit in the deadline"
);

impl Rule for AttemptsExceedDeadline {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        let p = &policy.policy;
        let (Some(attempts), Some(deadline), Some(per_attempt)) =
            (&p.max_attempts, &p.deadline, &p.per_attempt_timeout)
        else {
            return;
        };
        if !policy.is_retried() {
            return;
        }
        let Some(plan) = schedule::worst_case(policy) else {
            return;
        };
        let Some(needed) = plan.needed else { return };
        if needed <= deadline.value {
            return;
        }
        let over = millis(ms(needed) - ms(deadline.value));
        // Attempts that get their whole per-attempt timeout before the deadline.
        let full = plan
            .rows
            .iter()
            .filter(|r| ms(r.end) - ms(r.start) >= ms(per_attempt.value))
            .count();
        out.push(
            cx.finding(
                &Self::META,
                format!("cannot fit {} attempts of up to {} in its {} deadline: with the longest waits they need {needed}, {over} more; in the worst case only {full} run in full", attempts.value, per_attempt.value, deadline.value),
                Label::new(&attempts.loc, format!("{} attempts", attempts.value)),
            )
            .help(format!(
                "lower maxAttempts to {full}, shorten perAttemptTimeout or backoff.cap, or raise the deadline to {needed}"
            ))
            .related(&deadline.loc, format!("deadline {}", deadline.value))
            .related(&per_attempt.loc, format!("up to {} per attempt", per_attempt.value)),
        );
    }
}
