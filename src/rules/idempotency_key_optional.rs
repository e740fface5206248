//! `idempotency-key-optional`: the key the policy relies on is declared, but optional.

use super::{OperationContext, Rule, declare_rule};
use crate::finding::{Finding, Label};

declare_rule!(
    /// The operation declares the policy's key header without `required: true`.
    IdempotencyKeyOptional,
    "idempotency-key-optional",
    Warning,
    Policy,
    "the idempotency key header is declared but not required"
);

impl Rule for IdempotencyKeyOptional {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(key) = cx.policy.and_then(|p| p.policy.key_header.as_ref()) else {
            return;
        };
        let op = cx.op;
        let Some(header) = op.header(&key.value) else {
            return;
        };
        if header.required {
            return;
        }
        let mut finding = cx.finding(
                &Self::META,
                format!("declares `{}` as optional: clients that omit it get no deduplication, and the server cannot tell a retry from a new request", header.name),
                Label::new(&header.loc, format!("`{}` is optional", header.name)),
            )
        .help("declare the header with `required: true` so that the contract promises deduplication")
        .related(&key.loc, "the policy relies on it here");
        if let Some(definition) = &header.definition {
            finding = finding.related(definition, "the shared parameter is defined here");
        }
        out.push(finding);
    }
}
