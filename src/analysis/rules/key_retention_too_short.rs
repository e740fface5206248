//! `key-retention-too-short`: the server forgets the key before the client stops retrying.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// `keyRetention` is shorter than the operation's `deadline`.
    KeyRetentionTooShort,
    "key-retention-too-short",
    Error,
    Policy,
    "the idempotency key is kept for less time than the retries may take"
);

impl Rule for KeyRetentionTooShort {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        let p = &policy.policy;
        let (Some(retention), Some(deadline), Some(_)) =
            (&p.key_retention, &p.deadline, &p.key_header)
        else {
            return;
        };
        if retention.value >= deadline.value || !policy.is_retried() {
            return;
        }
        let finding = cx
            .finding(
                &Self::META,
                format!("keeps its idempotency key for {} but may retry for {}: a late retry is processed as a new request", retention.value, deadline.value),
                Label::new(&retention.loc, format!("kept {}", retention.value)),
            )
            .help(format!("keep keys at least as long as the deadline ({}), or shorten the deadline", deadline.value))
            .related(&deadline.loc, format!("retries may go on for {}", deadline.value));
        out.push(cx.grouped_at_primary(
            finding,
            format!(
                "the idempotency key is kept for {} but retries may go on for {}: a late retry of ",
                retention.value, deadline.value
            ),
            " is processed as a new request",
        ));
    }
}
