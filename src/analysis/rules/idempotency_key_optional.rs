//! `idempotency-key-optional`: the key the policy relies on is declared, but optional (a
//! header, or the query or body key of the operation's contract).

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

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
            Self::check_key_outside_headers(cx, &key.value, &key.loc, out);
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
        // `required: true` is added where the parameter is written: its shared
        // definition, or the path level every method of the path inherits.
        let shared = match &header.definition {
            Some(definition) => Some((
                definition.clone(),
                format!(
                    "the shared parameter `{}`",
                    super::definition_name(definition, cx.run.sources)
                ),
            )),
            None => cx
                .shared_place(&header.loc)
                .map(|at| (at, "a shared parameter".to_string())),
        };
        if let Some((at, named)) = shared {
            finding = finding.shared_at(
                Label::new(&at, format!("`{}` is optional", header.name)),
                format!("{named} declares `{}` as optional: clients of ", header.name),
                " that omit it get no deduplication, and the server cannot tell a retry from a new request",
            );
        }
        out.push(finding);
    }
}

impl IdempotencyKeyOptional {
    /// The policy names the contract's query or body key, and it is optional.
    fn check_key_outside_headers(
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
            crate::input::model::Place::Body => format!(
                "list `{}` in the body schema's `required` so that the contract promises deduplication",
                key.name
            ),
            _ => format!(
                "declare the {} with `required: true` so that the contract promises deduplication",
                key.place.noun()
            ),
        };
        let mut finding = cx
            .finding(
                &Self::META,
                format!("declares {} as optional: clients that omit it get no deduplication, and the server cannot tell a retry from a new request", key.named()),
                Label::new(&key.loc, format!("`{}` is optional", key.name)),
            )
            .help(help)
            .related(named_at, "the policy relies on it here");
        // A body schema or a path-level parameter several operations share.
        if let Some(at) = cx.shared_place(&key.loc) {
            finding = finding.shared_at(
                Label::new(&at, format!("`{}` is optional", key.name)),
                format!("a shared {} declares `{}` as optional: clients of ", key.place.noun(), key.name),
                " that omit it get no deduplication, and the server cannot tell a retry from a new request",
            );
        }
        out.push(finding);
    }
}
