//! `retry-status-undeclared`: retried on a status the operation never says it returns.

use super::{OperationContext, Rule, declared_here};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::model::Operation;
use crate::input::policy::Signal;

declare_rule!(
    /// A status in `retryOn` is not among the operation's declared responses (`default`
    /// and `5XX` count).
    RetryStatusUndeclared,
    "retry-status-undeclared",
    Info,
    Policy,
    "a status in retryOn is not among the operation's declared responses"
);

/// Whether the operation declares a response that covers `signal`.
fn declares(op: &Operation, signal: Signal) -> bool {
    let class = |c: u16| format!("{c}XX");
    match signal {
        Signal::Status(code) => {
            op.response(&code.to_string()).is_some()
                || op.response(&class(code / 100)).is_some()
                || op.response("default").is_some()
        }
        Signal::Class(c) => {
            op.response(&class(c)).is_some()
                || op.response("default").is_some()
                || op
                    .responses
                    .iter()
                    .any(|r| r.code.len() == 3 && r.code.starts_with(char::from(b'0' + c as u8)))
        }
        _ => true,
    }
}

impl Rule for RetryStatusUndeclared {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        // Not on a gRPC rpc: a .proto declares no statuses to compare retryOn with (docs/src/proto.md).
        if cx.op.grpc.is_some() {
            return;
        }
        let Some(policy) = cx.policy else { return };
        if !policy.is_retried() {
            return;
        }
        let op = cx.op;
        for signal in policy.retry_on() {
            if declares(op, signal.value) {
                continue;
            }
            let finding = cx
                .finding(
                &Self::META,
                format!("is retried on {}, a status it does not declare", signal.value),
                Label::new(&signal.loc, format!("{} is retried here", signal.value)),
            )
                .help(match signal.value {
                    Signal::Status(429 | 503) => format!(
                        "declare the {} response, with its Retry-After header, or leave it out of retryOn",
                        signal.value
                    ),
                    _ => format!(
                        "declare the {} response in the description, or leave it out of retryOn",
                        signal.value
                    ),
                })
                .related(&op.loc, declared_here(op));
            out.push(cx.grouped_at_primary(
                finding,
                format!(
                    "{} is retried, but it is not among the declared responses of ",
                    signal.value
                ),
                "",
            ));
        }
    }
}
