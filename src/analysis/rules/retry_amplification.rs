//! `retry-amplification`: the layers' attempts multiply past a limit.

use super::{OperationContext, Rule, declared_here};
use crate::analysis::rules::finding::{Finding, Label};
use crate::analysis::layers::chain::attempts_text;

/// `lint.maxAmplification` when the policy does not set it.
pub const DEFAULT_MAX_AMPLIFICATION: u64 = 10;

declare_rule!(
    /// The product of the attempts of every layer a call goes through (client × gateway ×
    /// mesh) is above `lint.maxAmplification` (10 by default).
    RetryAmplification,
    "retry-amplification",
    Warning,
    Layers,
    "the layers' attempts multiply past lint.maxAmplification"
);

impl Rule for RetryAmplification {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        if !super::layered::layered(cx) {
            return;
        }
        let chain = cx.run.layers.chain(cx.op_index, cx.policy);
        if chain.retrying() < 2 {
            return;
        }
        let set = cx
            .run
            .layer_settings
            .and_then(|s| s.max_amplification.as_ref());
        let limit = set.map_or(DEFAULT_MAX_AMPLIFICATION, |l| l.value);
        let total = chain.product();
        if total.is_some_and(|t| t <= limit) {
            return;
        }
        let who = |hop: &crate::analysis::layers::chain::Hop| match hop.layer {
            None => "client".to_string(),
            Some((layer, _)) => format!("{} ({})", hop.position, cx.run.layers.layers[layer].name),
        };
        let factors: Vec<String> = chain
            .hops
            .iter()
            .map(|h| format!("{} {}", who(h), attempts_text(h.attempts)))
            .collect();
        let reach = total.map_or("without bound".to_string(), |t| format!("{t} times"));
        let labelled: Vec<_> = chain
            .hops
            .iter()
            .filter(|h| h.attempts > 1 && h.loc.is_some())
            .collect();
        let Some((primary, others)) = labelled.split_last() else {
            return;
        };
        let label = |h: &crate::analysis::layers::chain::Hop| {
            format!("{} attempts ({})", attempts_text(h.attempts), who(h))
        };
        let Some(primary_loc) = &primary.loc else {
            return;
        };
        let op = cx.op;
        let consequence = format!(
            " can reach the backend {reach} for one call: {} (the limit is {limit})",
            chain_text(&factors, &chain.arithmetic())
        );
        let mut finding = cx
            .finding(
                &Self::META,
                consequence.trim_start(),
                Label::new(primary_loc, label(primary)),
            )
            .help("let one layer retry (usually the client, which knows the deadline) and set the others' attempts to 1 for this route, or lower the attempts so that their product stays within lint.maxAmplification");
        for hop in others {
            if let Some(loc) = &hop.loc {
                finding = finding.related(loc, label(hop));
            }
        }
        if let Some(set) = set {
            finding = finding.related(&set.loc, format!("the limit is {limit} here"));
        }
        // One finding at the heaviest layer's attempts, for every operation with the same
        // chain of layers.
        let finding = finding.related(&op.loc, declared_here(op));
        out.push(cx.grouped_at_primary(finding, "", consequence));
    }
}

/// `client 3 × gateway (…) 3 × mesh (…) 3: 3 × 3 × 3 = 27`.
fn chain_text(factors: &[String], arithmetic: &str) -> String {
    format!("{}, {arithmetic}", factors.join(" × "))
}
