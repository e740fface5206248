//! `unprotected-write-retry`: a non-idempotent write retried with nothing that makes a
//! repeat safe.

use super::{OperationContext, Rule, declared_here, describe_signals};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::policy::SideEffect;

declare_rule!(
    /// A non-idempotent operation retried on a condition after which the request may have
    /// been processed, with neither an idempotency key nor a status endpoint.
    UnprotectedWriteRetry,
    "unprotected-write-retry",
    Error,
    Policy,
    "a non-idempotent write is retried with no idempotency key or status endpoint",
    layer_fix: WriteRetries
);

impl Rule for UnprotectedWriteRetry {
    fn judges_layer(&self, _layer: &crate::analysis::layers::Layer, _route: &crate::analysis::layers::Route) -> bool {
        true
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        if policy.effect.side_effect != SideEffect::NonIdempotent || !policy.is_retried() {
            return;
        }
        let p = &policy.policy;
        if p.key_header.is_some() || p.status_endpoint.is_some() {
            return;
        }
        // connect-failure and refused-stream mean the request was never processed.
        let risky: Vec<_> = policy
            .retry_on()
            .iter()
            .filter(|s| !s.value.is_unprocessed())
            .collect();
        let Some(first) = risky.first() else {
            return;
        };
        let op = cx.op;
        // The key the description offers, in any place: the policy protects the write
        // only once it names the key (the client then sends it on every attempt).
        let offered = cx
            .run
            .contracts
            .get(cx.op_index)
            .and_then(|c| c.key.as_ref());
        let help = match offered {
            Some(key) => format!(
                "the description declares {}; name it in idempotency.keyHeader so the client sends it and reuses it on every retry",
                match key.place {
                    crate::input::model::Place::Header => key.name.clone(),
                    _ => key.named(),
                }
            ),
            None => "send an idempotency key the server deduplicates on (idempotency.keyHeader), name a statusEndpoint to learn the first attempt's result, or retry only on connect-failure and refused-stream".to_string(),
        };
        let mut finding = Finding::new(
            Self::META.id,
            format!(
                "{} {} is retried on {} with no idempotency key or status endpoint: a retry can repeat the write",
                op.method,
                op.path,
                describe_signals(&risky)
            ),
            Label::new(&first.loc, format!("retried on {}", first.value)),
        )
        .about(op)
        .help(help)
        .related(&op.loc, format!("{} (non-idempotent)", declared_here(op)));
        if let Some(key) = offered {
            finding = finding.related(
                &key.loc,
                format!("{} is declared here, not named by the policy", key.name),
            );
        }
        // A layer's retry that the client's key would protect, had the description
        // declared it (`Bound::effective` leaves an undeclared key out).
        let client_key = cx
            .layer
            .and_then(|_| cx.run.effective.get(cx.op_index))
            .and_then(|client| client.policy.key_header.as_ref());
        if let Some(key) = client_key {
            finding = finding.related(
                &key.loc,
                format!(
                    "the client sends `{}`, which {} {} does not declare: it protects nothing",
                    key.value, op.method, op.path
                ),
            );
        }
        out.push(finding);
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::rules::RuleId;
    use crate::analysis::rules::tester::Tester;

    const CREATE_ORDER: &str = "paths:\n  /orders:\n    post:\n      operationId: createOrder\n      responses:\n        '201': {description: created}\n";
    const REPLACE_ORDER: &str = "paths:\n  /orders/{id}:\n    put:\n      operationId: replaceOrder\n      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n      responses:\n        '200': {description: replaced}\n";
    const RETRIED: &str = "version: 1\ndefaults: {maxAttempts: 3, deadline: 5s, retryOn: [503]}\n";

    #[test]
    fn cases() {
        Tester::new(RuleId::UnprotectedWriteRetry)
            .policy(RETRIED)
            .fail(CREATE_ORDER)
            // A timeout may come after the server took the order.
            .fail_with(
                CREATE_ORDER,
                "version: 1\ndefaults: {maxAttempts: 3, deadline: 5s, retryOn: [timeout]}\n",
            )
            // PUT is idempotent: a repeat replaces with the same.
            .pass(REPLACE_ORDER)
            // A connection never made means a request never processed.
            .pass_with(
                CREATE_ORDER,
                "version: 1\ndefaults: {maxAttempts: 3, deadline: 5s, retryOn: [connect-failure]}\n",
            )
            // Not retried at all.
            .pass_with(CREATE_ORDER, "version: 1\ndefaults: {maxAttempts: 1, deadline: 5s}\n")
            // A read is safe to repeat.
            .pass(&CREATE_ORDER.replace("post:", "get:"))
            .test();
    }
}
