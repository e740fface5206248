//! `throttle-status-undeclared`: an operation that never says how the server asks
//! clients to slow down.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// An operation declares neither 429 nor 503, as the contract reads them: a `4XX` or
    /// `5XX` class counts only with a header that says when to come back; `default` names
    /// no status and does not count.
    ThrottleStatusUndeclared,
    "throttle-status-undeclared",
    Info,
    Contract,
    "an operation declares neither 429 nor 503: clients cannot tell how the server asks them to slow down"
);

impl Rule for ThrottleStatusUndeclared {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        // Not on a gRPC rpc: a .proto declares no statuses: every rpc may answer UNAVAILABLE or RESOURCE_EXHAUSTED (docs/src/proto.md).
        if cx.op.grpc.is_some() {
            return;
        }
        let Some(contract) = cx.run.contracts.get(cx.op_index) else {
            return;
        };
        if !contract.throttling.is_empty() {
            return;
        }
        let op = cx.op;
        let mut finding = cx
            .finding(
                &Self::META,
                "declares neither a 429 nor a 503 response: clients cannot tell how the server asks them to slow down, nor when to come back",
                Label::new(&op.loc, "no 429 or 503 among its responses"),
            )
            .help(
                "declare the 429 and 503 responses the server sends, each with a `Retry-After` header \
                 (once, under components/responses, and `$ref` it from every operation)",
            );
        // An operation object several paths share gets the responses once.
        if let Some(at) = cx.shared_body() {
            finding = finding.shared_at(
                Label::new(&at, "no 429 or 503 among its responses"),
                "a shared operation declares neither a 429 nor a 503 response: clients of ",
                " cannot tell how the server asks them to slow down, nor when to come back",
            );
        }
        out.push(finding);
    }
}
