//! `multi-layer-write-retry`: more than one layer repeats an unprotected write.

use super::layered::{is_non_idempotent, layered, loops, protection};
use super::{OperationContext, Rule, describe_signals};
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// A non-idempotent operation with no idempotency key is retried, on a condition after
    /// which it may have been processed, by more than one layer.
    MultiLayerWriteRetry,
    "multi-layer-write-retry",
    Error,
    Layers,
    "more than one layer retries a non-idempotent write that no key protects"
);

impl Rule for MultiLayerWriteRetry {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        if !layered(cx) || !is_non_idempotent(cx) || protection(cx).is_some() {
            return;
        }
        let mut retrying: Vec<_> = loops(cx)
            .into_iter()
            .map(|l| {
                let risky = l.risky_signals();
                (l, risky)
            })
            .filter(|(_, risky)| !risky.is_empty())
            .collect();
        // Routes of one layer that a condition selects are alternatives: a request takes
        // one of them, so the layer counts once.
        retrying.dedup_by(
            |(later, _), (earlier, _)| match (later.layer, earlier.layer) {
                (Some((a, _)), Some((b, _))) => std::ptr::eq(a, b),
                _ => false,
            },
        );
        let [.., (inner, inner_risky)] = retrying.as_slice() else {
            return;
        };
        if retrying.len() < 2 {
            return;
        }
        let op = cx.op;
        let names: Vec<String> = retrying.iter().map(|(l, _)| l.who()).collect();
        let retried = format!(
            "retried by {} layers ({}) with no idempotency key: each layer can repeat the write on its own",
            retrying.len(),
            names.join(", ")
        );
        let mut finding = cx
            .finding(
                &Self::META,
                format!("is a non-idempotent write {retried}"),
                Label::new(
                    &inner_risky[0].loc,
                    format!("{} retries on {}", inner.who(), describe_signals(inner_risky)),
                ),
            )
            .help("let one layer retry writes (usually the client, with an idempotency key it reuses on every attempt) and give the others no retries for this route");
        for (l, risky) in &retrying[..retrying.len() - 1] {
            finding = finding.related(
                &risky[0].loc,
                format!("{} retries on {}", l.who(), describe_signals(risky)),
            );
        }
        // One finding at the innermost layer's retry, for every write it serves alike.
        let finding = finding.related(&op.loc, crate::analysis::rules::finding::write_declared_here(op, cx.policy));
        out.push(cx.grouped_at_primary(
            finding,
            format!("{} layers ({}) retry ", retrying.len(), names.join(", ")),
            ", non-idempotent and with no idempotency key: each layer can repeat the write on its own",
        ));
    }
}
