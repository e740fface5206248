//! `write-without-retry-protection`: a write whose contract gives no client a safe retry.

use super::{OperationContext, Rule};
use crate::analysis::contract::ContractState;
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// A non-idempotent operation whose contract offers no idempotency key and no status
    /// endpoint (see [`crate::analysis::contract`]).
    WriteWithoutRetryProtection,
    "write-without-retry-protection",
    Info,
    Contract,
    "a write offers no idempotency key and no status endpoint: no client can retry it safely"
);

/// What protects a write that repeats.
const PROTECT: &str = "declare a required `Idempotency-Key` header with a 409 response for a key in flight; \
     or link the response to a GET that reports the result (`links`, or a 202 with `Location` or `Operation-Location`); \
     or, if repeating it is harmless, say so with `x-idempotent: true`";

impl Rule for WriteWithoutRetryProtection {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(contract) = cx.run.contracts.get(cx.op_index) else {
            return;
        };
        if contract.state != ContractState::Unprotected {
            return;
        }
        let op = cx.op;
        out.push(
            cx.finding(
                &Self::META,
                format!(
                    "is {} with no idempotency key and no status endpoint: a client whose request timed out can neither retry it safely nor find out whether it happened",
                    contract.effect_text()
                ),
                Label::new(&op.loc, "no idempotency key, no status endpoint"),
            )
            .help(match op.effect.settle_hint() {
                Some(settle) => format!("{settle}; {PROTECT}"),
                None => PROTECT.to_string(),
            }),
        );
    }
}
