//! `key-retention-undeclared`: a retried operation relies on a key of unknown lifetime.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// A retried operation sends an idempotency key but the policy states no `keyRetention`.
    KeyRetentionUndeclared,
    "key-retention-undeclared",
    Info,
    Policy,
    "a retried operation relies on an idempotency key with no stated retention"
);

impl Rule for KeyRetentionUndeclared {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        let p = &policy.policy;
        let Some(key) = &p.key_header else { return };
        if !policy.is_retried() || p.key_retention.is_some() {
            return;
        }
        let finding = cx
            .finding(
                &Self::META,
                format!("is retried with `{}` but the policy does not say how long the server keeps keys: nothing shows the retries end before the key is forgotten", key.value),
                Label::new(&key.loc, "no keyRetention"),
            )
            .help("state the server's retention in idempotency.keyRetention (for example 24h)");
        out.push(cx.grouped_at_primary(
            finding,
            "the retries of ",
            format!(" send `{}` but the policy does not say how long the server keeps keys: nothing shows the retries end before the key is forgotten", key.value),
        ));
    }
}
