//! `key-conflict-response-undeclared`: no documented answer to a reused or in-flight key.

use super::{OperationContext, Rule, declared_here};
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// A key-protected operation declares none of 400, 409 and 422.
    KeyConflictResponseUndeclared,
    "key-conflict-response-undeclared",
    Info,
    Policy,
    "a key-protected operation declares no response for a reused or in-flight key"
);

impl Rule for KeyConflictResponseUndeclared {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        // Not on a gRPC rpc: a .proto declares no statuses: ALREADY_EXISTS or ABORTED may answer any rpc (docs/src/proto.md).
        if cx.op.grpc.is_some() {
            return;
        }
        let Some(key) = cx.policy.and_then(|p| p.policy.key_header.as_ref()) else {
            return;
        };
        let op = cx.op;
        if ["400", "409", "422", "4XX"]
            .iter()
            .any(|c| op.response(c).is_some())
        {
            return;
        }
        let mut finding = cx
            .finding(
                &Self::META,
                format!("is protected by `{}` but declares no 400, 409 or 422 response: clients cannot tell a reused or in-flight key from any other failure", key.value),
                Label::new(&op.loc, declared_here(op)),
            )
            .help("declare 409 Conflict for a key still in flight and 422 for a key reused with another body")
            .related(&key.loc, "the key is named here");
        // An operation object several paths share gets the responses once.
        if let Some(at) = cx.shared_body() {
            finding = finding.shared_at(
                Label::new(&at, "no 400, 409 or 422 among its responses"),
                format!("a shared operation is protected by `{}` but declares no 400, 409 or 422 response: clients of ", key.value),
                " cannot tell a reused or in-flight key from any other failure",
            );
        }
        out.push(finding);
    }
}
