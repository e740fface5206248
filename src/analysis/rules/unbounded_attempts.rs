//! `unbounded-attempts`: more attempts than the project allows.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

/// `lint.maxAttemptsLimit` when the policy does not set it.
pub(super) const DEFAULT_MAX_ATTEMPTS_LIMIT: i64 = 10;

declare_rule!(
    /// `maxAttempts` is above `lint.maxAttemptsLimit` (10 by default).
    UnboundedAttempts,
    "unbounded-attempts",
    Error,
    Policy,
    "maxAttempts is above lint.maxAttemptsLimit",
    layer_fix: TooManyAttempts
);

impl Rule for UnboundedAttempts {
    fn judges_layer(&self, _layer: &crate::analysis::layers::Layer, route: &crate::analysis::layers::Route) -> bool {
        // A route bounded only by a budget is judged by the layer rules.
        !route.budget_only
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(attempts) = cx.policy.and_then(|p| p.policy.max_attempts.as_ref()) else {
            return;
        };
        let limit = cx
            .run
            .policy
            .and_then(|p| p.lint.max_attempts_limit.as_ref())
            .map_or(DEFAULT_MAX_ATTEMPTS_LIMIT, |l| l.value);
        if attempts.value <= limit {
            return;
        }
        let mut finding = Finding::new(
            Self::META.id,
            format!(
                "maxAttempts is {}, above the limit of {limit}: during an outage every call multiplies the load up to {} times",
                attempts.value, attempts.value
            ),
            Label::new(&attempts.loc, format!("{} attempts", attempts.value)),
        )
        .help(format!("lower maxAttempts to {limit} or less; most transient faults clear within 3 attempts"));
        if let Some(set) = cx
            .run
            .policy
            .and_then(|p| p.lint.max_attempts_limit.as_ref())
        {
            finding = finding.related(&set.loc, format!("the limit is {limit} here"));
        }
        out.push(cx.grouped_value(finding));
    }
}
