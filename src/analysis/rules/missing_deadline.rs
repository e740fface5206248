//! `missing-deadline`: retries with no overall time budget.

use super::{OperationContext, Rule, declared_here};
use crate::analysis::fix::{Change, Fix, NewValue, Safety};
use crate::analysis::plan::{millis, ms, schedule};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::policy::{Duration, Effective};

declare_rule!(
    /// An operation with `maxAttempts > 1` and no `deadline`.
    MissingDeadline,
    "missing-deadline",
    Error,
    Policy,
    "a retried operation has no deadline",
    layer_fix: Deadline,
    fix: Safe
);

impl Rule for MissingDeadline {
    fn judges_layer(&self, _layer: &crate::analysis::layers::Layer, route: &crate::analysis::layers::Route) -> bool {
        // A route bounded only by a budget has no count to put a deadline on.
        !route.budget_only
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        let Some(attempts) = &policy.policy.max_attempts else {
            return;
        };
        if attempts.value <= 1 || policy.policy.deadline.is_some() {
            return;
        }
        let op = cx.op;
        let finding = cx
            .finding(
                &Self::META,
                format!("makes up to {} attempts with no deadline: the caller cannot know how long the call may take", attempts.value),
                Label::new(&attempts.loc, format!("{} attempts, no deadline", attempts.value)),
            )
            .help("set `deadline` (for example 10s): one budget for all attempts and the waits between them")
            .related(&op.loc, declared_here(op))
            .fix(fitting_deadline(cx, policy, attempts));
        out.push(cx.grouped_at_primary(
            finding,
            "the retries of ",
            format!(" make up to {} attempts with no deadline: the caller cannot know how long the call may take", attempts.value),
        ));
    }
}

/// The fix: a `deadline` beside `maxAttempts` that the worst-case schedule fits in
/// (whole seconds, rounded up), or 10s when no attempt has a timeout to add up.
fn fitting_deadline(
    cx: &OperationContext<'_>,
    policy: &Effective,
    attempts: &crate::input::policy::Spanned<i64>,
) -> Option<Fix> {
    let needed = schedule::worst_case(policy).and_then(|plan| plan.needed);
    let deadline = needed.map_or(Duration::from_millis(10_000), |needed| {
        millis((ms(needed) / 1000.0).ceil().max(1.0) * 1000.0)
    });
    let change = Change::set_beside(&attempts.loc, "deadline", NewValue::str(deadline.to_string()))
        .filter(|_| cx.layer.is_none())?;
    Some(Fix::new(
        Safety::Safe,
        format!("set deadline: {deadline}"),
        vec![change],
    ))
}

#[cfg(test)]
mod tests {
    use crate::analysis::rules::RuleId;
    use crate::analysis::rules::tester::Tester;

    const LIST_ORDERS: &str = "paths:\n  /orders:\n    get:\n      operationId: listOrders\n      responses:\n        '200': {description: ok}\n";

    #[test]
    fn cases() {
        Tester::new(RuleId::MissingDeadline)
            .fail_with(LIST_ORDERS, "version: 1\ndefaults: {maxAttempts: 3}\n")
            .fail_with(
                LIST_ORDERS,
                "version: 1\ndefaults: {maxAttempts: 1}\noperations:\n  listOrders: {maxAttempts: 2}\n",
            )
            .pass_with(LIST_ORDERS, "version: 1\ndefaults: {maxAttempts: 3, deadline: 5s}\n")
            // One attempt is no retry: there is nothing to bound.
            .pass_with(LIST_ORDERS, "version: 1\ndefaults: {maxAttempts: 1}\n")
            // No attempts written: the rule has no count to judge.
            .pass_with(LIST_ORDERS, "version: 1\ndefaults: {retryOn: [503]}\n")
            // No policy at all: nothing is retried by a client.
            .pass(LIST_ORDERS)
            .test();
    }
}
