//! `idempotency-key-optional`: the key the policy relies on is declared, but optional (a
//! header, or the query or body key of the operation's contract).

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
            self.check_key_outside_headers(cx, &key.value, &key.loc, out);
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

impl IdempotencyKeyOptional {
    /// The policy names the contract's query or body key, and it is optional.
    fn check_key_outside_headers(
        &self,
        cx: &OperationContext<'_>,
        name: &str,
        named_at: &crate::location::Loc,
        out: &mut Vec<Finding>,
    ) {
        let Some(key) = cx
            .run
            .contracts
            .get(cx.op_index)
            .and_then(|c| c.key_named(name))
            .filter(|k| !k.required)
        else {
            return;
        };
        let help = match key.place {
            crate::model::Place::Body => format!(
                "list `{}` in the body schema's `required` so that the contract promises deduplication",
                key.name
            ),
            _ => format!(
                "declare the {} with `required: true` so that the contract promises deduplication",
                key.place.noun()
            ),
        };
        out.push(
            cx.finding(
                &Self::META,
                format!("declares {} as optional: clients that omit it get no deduplication, and the server cannot tell a retry from a new request", key.named()),
                Label::new(&key.loc, format!("`{}` is optional", key.name)),
            )
            .help(help)
            .related(named_at, "the policy relies on it here"),
        );
    }
}
