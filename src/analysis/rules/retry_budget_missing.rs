//! `retry-budget-missing`: many attempts per call, and no budget anywhere.

use super::layered::{has_budget, layered, loops};
use super::{OperationContext, Rule, declared_here};
use crate::analysis::rules::finding::{Finding, Label};
use crate::analysis::layers::Position;
use crate::analysis::layers::chain::attempts_text;

declare_rule!(
    /// A layer in front of the operation makes more than 2 attempts and no layer limits
    /// retries with a budget (Envoy `retry_budget`, Linkerd `retryBudget`, Gateway API
    /// `retryConstraint`, Istio `DestinationRule` `maxRetries`).
    RetryBudgetMissing,
    "retry-budget-missing",
    Info,
    Layers,
    "more than 2 attempts per call and no retry budget in any layer"
);

impl Rule for RetryBudgetMissing {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        if !layered(cx) {
            return;
        }
        let all = loops(cx);
        // Only a call that passes through a proxy, gateway or mesh: the SDK is a client.
        let behind = all.iter().any(|l| {
            l.layer
                .is_some_and(|(layer, _)| layer.position != Position::Client)
        });
        if !behind || has_budget(cx.run, &all) {
            return;
        }
        let Some(heavy) = all
            .iter()
            .filter(|l| l.policy.max_attempts() > 2)
            .max_by_key(|l| l.policy.max_attempts())
        else {
            return;
        };
        let Some(loc) = heavy.attempts_loc() else {
            return;
        };
        let op = cx.op;
        let finding = cx.finding(
                &Self::META,
                format!(
                    "makes up to {} attempts per call in the {} and no layer has a retry budget: in an outage every call retries in full",
                    attempts_text(heavy.policy.max_attempts()),
                    heavy.who()
                ),
                Label::new(loc, format!("{} attempts", attempts_text(heavy.policy.max_attempts()))),
            )
            .help("cap retries as a share of traffic in one layer: Envoy circuit_breakers retry_budget, Linkerd retryBudget, a Gateway API retryConstraint, or an Istio DestinationRule connectionPool.http.maxRetries")
            .related(&op.loc, declared_here(op));
        // One finding at the attempts setting, for every operation it governs.
        out.push(cx.grouped_at_primary(
            finding,
            "the calls of ",
            format!(
                " make up to {} attempts each in the {}, and no layer has a retry budget: in an outage every call retries in full",
                attempts_text(heavy.policy.max_attempts()),
                heavy.who()
            ),
        ));
    }
}
