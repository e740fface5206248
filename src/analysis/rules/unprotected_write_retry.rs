//! `unprotected-write-retry`: a non-idempotent write retried with nothing that makes a
//! repeat safe.

use super::{OperationContext, Rule, describe_signals};
use crate::analysis::rules::finding::{Finding, Label};
use crate::analysis::fix::{Change, Fix, NewValue, Safety};
use crate::input::model::{Operation, Place, SpecVersion};
use crate::input::policy::SideEffect;
use crate::input::policy::Rank;

declare_rule!(
    /// A non-idempotent operation retried on a condition after which the request may have
    /// been processed, with neither an idempotency key nor a status endpoint.
    UnprotectedWriteRetry,
    "unprotected-write-retry",
    Error,
    Policy,
    "a non-idempotent write is retried with no idempotency key or status endpoint",
    layer_fix: WriteRetries,
    fix: Unsafe
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
        // A key the request itself must carry (a required body or query field) is in every
        // attempt that re-sends the request, whoever retries it: the SDK, a gateway, a mesh.
        if offered.is_some_and(|k| k.required && k.place != Place::Header) {
            return;
        }
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
        // An effect the policy does not state and the description's words leave unknown:
        // the one line that settles it comes first.
        let help = match (&policy.effect.source, op.effect.settle_hint()) {
            (crate::input::policy::EffectSource::Description, Some(settle)) => format!("{settle}; {help}"),
            _ => help,
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
        .related(&op.loc, crate::analysis::rules::finding::write_declared_here(op, cx.policy))
        .fix(cx.layer.is_none().then(|| key_fix(cx, offered)).flatten());
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

/// The key header the fix declares when the description offers none.
const KEY: &str = "Idempotency-Key";

/// The fix: the policy names the key the description offers for the operation (safe);
/// when it offers none, a required `Idempotency-Key` header and a 409 response are
/// declared on the operation too (unsafe: the API then promises to deduplicate).
fn key_fix(cx: &OperationContext<'_>, offered: Option<&crate::analysis::contract::KeyOffer>) -> Option<Fix> {
    let op = cx.op;
    let (name, mut changes, safety) = match offered {
        // `keyHeader` names a body or query key too, read in its place.
        Some(key) => (key.name.clone(), Vec::new(), Safety::Safe),
        None => (KEY.to_string(), declare_key(op, cx.run.api.version), Safety::Unsafe),
    };
    changes.push(name_in_policy(cx, &name)?);
    let title = match safety {
        Safety::Safe => format!("name {name} in the policy's idempotency.keyHeader"),
        Safety::Unsafe => format!("declare a required {name} header and a 409 response, and send it"),
    };
    Some(Fix::new(safety, title, changes))
}

/// `idempotency.keyHeader: NAME` in the operation's own policy entry, or in a new one.
fn name_in_policy(cx: &OperationContext<'_>, name: &str) -> Option<Change> {
    let policy = cx.run.policy?;
    let key = NewValue::str(name);
    let own = cx
        .run
        .matches
        .per_operation
        .get(cx.op_index)?
        .iter()
        .filter_map(|&i| policy.operations.get(i))
        .rfind(|entry| entry.selector.rank() == Rank::Exact);
    match own {
        Some(entry) => match &entry.policy.idempotency {
            Some(section) => Change::set_in(&section.loc, "keyHeader", key),
            None => Change::set_in(
                &entry.loc,
                "idempotency",
                NewValue::map([("keyHeader", key)]),
            ),
        },
        None => Some(Change::Set {
            file: policy.file,
            map: "/operations".into(),
            key: cx.op.key(),
            value: NewValue::map([("idempotency", NewValue::map([("keyHeader", key)]))]),
        }),
    }
}

/// A required key header among the operation's parameters, and a 409 response for a key
/// reused with another request.
fn declare_key(op: &Operation, version: SpecVersion) -> Vec<Change> {
    let written = op.definition.as_ref().unwrap_or(&op.loc);
    let string = NewValue::str("string");
    let mut parameter = vec![
        ("name", NewValue::str(KEY)),
        ("in", NewValue::str("header")),
        ("required", NewValue::Plain("true".into())),
        ("description", NewValue::str("a unique value per logical request: a retry sends the same one, and the server answers it once")),
    ];
    match version {
        SpecVersion::Swagger2 => parameter.push(("type", string)),
        _ => parameter.push(("schema", NewValue::map([("type", string)]))),
    }
    let parameter = NewValue::Map(parameter.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    let mut changes = vec![Change::Append {
        file: written.file,
        map: written.pointer.to_string(),
        key: "parameters".into(),
        value: parameter,
    }];
    if op.response("409").is_none() {
        changes.extend(Change::set_under(
            written,
            "responses",
            "409",
            NewValue::map([(
                "description",
                NewValue::str("the Idempotency-Key was used with another request, or that request is still in progress"),
            )]),
        ));
    }
    changes
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
