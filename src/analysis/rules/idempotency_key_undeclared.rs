//! `idempotency-key-undeclared`: the policy sends a key header the operation does not
//! declare, neither as a header nor as the query or body key of its contract.

use super::{OperationContext, Rule, declared_here};
use crate::error::did_you_mean;
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// The policy's `idempotency.keyHeader` is not a header parameter of the operation.
    IdempotencyKeyUndeclared,
    "idempotency-key-undeclared",
    Error,
    Policy,
    "the policy's idempotency key header is not declared by the operation"
);

impl Rule for IdempotencyKeyUndeclared {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        // Not on a gRPC rpc: a gRPC key travels in metadata or a request field, neither of which a .proto declares as a header (docs/src/proto.md).
        if cx.op.grpc.is_some() {
            return;
        }
        let Some(key) = cx.policy.and_then(|p| p.policy.key_header.as_ref()) else {
            return;
        };
        let op = cx.op;
        // A key the description takes in the query or the body, named by the policy: the
        // client sends it there (the format has no other field to name it).
        if cx
            .run
            .contracts
            .get(cx.op_index)
            .is_some_and(|c| c.declares_key(op, &key.value))
        {
            return;
        }
        let near = did_you_mean(&key.value, op.headers.iter().map(|h| h.name.as_str()));
        let help = match near {
            Some(name) => format!(
                "the operation declares `{name}`: name that header in idempotency.keyHeader"
            ),
            None => format!(
                "declare `{}` as a header parameter (in: header, required: true) of {} {}, or name the header the server deduplicates on",
                key.value, op.method, op.path
            ),
        };
        out.push(
            cx.finding(
                &Self::META,
                format!(
                    "declares no `{}` header, but the policy sends it as the idempotency key",
                    key.value
                ),
                Label::new(&key.loc, format!("`{}` is named here", key.value)),
            )
            .help(help)
            .related(
                &op.loc,
                format!("{} without that header", declared_here(op)),
            ),
        );
    }
}
