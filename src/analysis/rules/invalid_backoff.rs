//! `invalid-backoff`: budget values that cannot work.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};
use crate::location::Loc;
use crate::input::policy::Duration;

declare_rule!(
    /// `cap < base`, `multiplier < 1`, `maxAttempts < 1`, a zero or negative `deadline` or
    /// `perAttemptTimeout`, or `perAttemptTimeout > deadline`.
    InvalidBackoff,
    "invalid-backoff",
    Error,
    Policy,
    "backoff, attempts, deadline or timeout values contradict each other",
    layer_fix: Backoff
);

/// One problem: where, what to underline, what is wrong, how to fix it.
struct Problem<'a> {
    loc: &'a Loc,
    label: String,
    message: String,
    help: &'static str,
    related: Option<(&'a Loc, String)>,
}

impl Rule for InvalidBackoff {
    fn judges_layer(&self, _layer: &crate::analysis::layers::Layer, _route: &crate::analysis::layers::Route) -> bool {
        true
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        let p = &policy.policy;
        let mut problems: Vec<Problem<'_>> = Vec::new();
        if let (Some(base), Some(cap)) = (&p.backoff_base, &p.backoff_cap)
            && cap.value < base.value
        {
            problems.push(Problem {
                loc: &cap.loc,
                label: format!("cap {}", cap.value),
                message: format!(
                    "backoff.cap ({}) is below backoff.base ({}): plan_retry stops with invalid-delay, so no retry is made",
                    cap.value, base.value
                ),
                help: "set backoff.cap at or above backoff.base: waits grow from base up to cap",
                related: Some((&base.loc, format!("base {}", base.value))),
            });
        }
        if let Some(m) = &p.backoff_multiplier
            && m.value < 1.0
        {
            problems.push(Problem {
                loc: &m.loc,
                label: format!("multiplier {}", m.value),
                message: format!(
                    "backoff.multiplier is {}: waits shrink instead of growing",
                    m.value
                ),
                help: "use a multiplier of at least 1 (2 doubles each wait)",
                related: None,
            });
        }
        if let Some(a) = &p.max_attempts
            && a.value < 1
        {
            problems.push(Problem {
                loc: &a.loc,
                label: format!("{} attempts", a.value),
                message: format!(
                    "maxAttempts is {}: a call makes at least one attempt (1 means never retried)",
                    a.value
                ),
                help: "set maxAttempts to 1 for no retries, or to the total attempts allowed",
                related: None,
            });
        }
        for (name, value) in [
            ("deadline", &p.deadline),
            ("perAttemptTimeout", &p.per_attempt_timeout),
        ] {
            if let Some(v) = value
                && v.value <= Duration::ZERO
            {
                problems.push(Problem {
                    loc: &v.loc,
                    label: format!("{name} {}", v.value),
                    message: format!("{name} is {}: no attempt can complete", v.value),
                    help: "give a positive duration, such as 10s",
                    related: None,
                });
            }
        }
        if let (Some(per), Some(deadline)) = (&p.per_attempt_timeout, &p.deadline)
            && per.value > deadline.value
            && deadline.value > Duration::ZERO
        {
            problems.push(Problem {
                loc: &per.loc,
                label: format!("perAttemptTimeout {}", per.value),
                message: format!(
                    "perAttemptTimeout ({}) is longer than the deadline ({}): the first attempt is cut by the deadline",
                    per.value, deadline.value
                ),
                help: "keep perAttemptTimeout well under the deadline so that a retry fits after a timed-out attempt",
                related: Some((&deadline.loc, format!("deadline {}", deadline.value))),
            });
        }
        for problem in problems {
            let mut finding = Finding::new(
                Self::META.id,
                problem.message,
                Label::new(problem.loc, problem.label),
            )
            .help(problem.help);
            if let Some((loc, text)) = problem.related {
                finding = finding.related(loc, text);
            }
            out.push(cx.grouped_value(finding));
        }
    }
}
