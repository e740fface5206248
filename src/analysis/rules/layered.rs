//! What the layer rules share: the retry loops an operation goes through, and whether a
//! repeat of the operation is safe whoever makes it.

use super::{OperationContext, RunContext};
use crate::analysis::layers::{Layer, Route};
use crate::input::model::Place;
use crate::input::policy::{Effective, SideEffect, Signal, Spanned, effect_of};
use crate::location::Loc;

/// One retry loop for an operation: the client's policy, or a layer's route.
pub(super) struct Loop<'a> {
    /// `None` for the client.
    pub layer: Option<(&'a Layer, &'a Route)>,
    pub policy: &'a Effective,
    /// What a request must carry for the layer's route to take it (`header end-user`).
    pub condition: Option<&'a str>,
}

impl<'a> Loop<'a> {
    /// `client`, `mesh (Istio VirtualService payments)`, or with the condition that selects
    /// the route: `mesh (Istio VirtualService payments, for requests with header end-user)`.
    pub(super) fn who(&self) -> String {
        match (self.layer, self.condition) {
            (None, _) => "client".to_string(),
            (Some((layer, _)), None) => format!("{} ({})", layer.position, layer.name),
            (Some((layer, _)), Some(condition)) => format!(
                "{} ({}, for requests with {condition})",
                layer.position, layer.name
            ),
        }
    }

    /// The loop's route for messages, with the condition that selects it.
    pub(super) fn route_text(&self) -> String {
        self.layer.map_or_else(String::new, |(_, route)| {
            crate::analysis::layers::chain::route_text(route, self.condition)
        })
    }

    /// Where the loop's attempts are set: `maxAttempts`, or the route.
    pub(super) fn attempts_loc(&self) -> Option<&Loc> {
        self.policy
            .policy
            .max_attempts
            .as_ref()
            .map(|m| &m.loc)
            .or(self.layer.map(|(_, r)| &r.loc))
    }

    /// The conditions after which the request may have been processed.
    pub(super) fn risky_signals(&self) -> Vec<&'a Spanned<Signal>> {
        if !self.policy.is_retried() {
            return Vec::new();
        }
        let policy: &'a Effective = self.policy;
        policy
            .retry_on()
            .iter()
            .filter(|s| !s.value.is_unprocessed())
            .collect()
    }
}

/// Whether the layer rules have anything to look at for this operation: a layer binds
/// it, and the hook runs for the operation itself (not once more per layer). Checked
/// before anything is built, so a check without layers pays nothing for them.
pub(super) fn layered(cx: &OperationContext<'_>) -> bool {
    cx.layer.is_none()
        && cx
            .run
            .layers
            .per_operation
            .get(cx.op_index)
            .is_some_and(|hops| !hops.is_empty())
}

/// The client's loop (when a policy retries the operation) and each layer's, client first.
pub(super) fn loops<'a>(cx: &'a OperationContext<'a>) -> Vec<Loop<'a>> {
    let run = cx.run;
    let mut out = Vec::new();
    if let Some(client) = run.effective.get(cx.op_index) {
        out.push(Loop {
            layer: None,
            policy: client,
            condition: None,
        });
    }
    for hop in crate::analysis::layers::chain::hops(run.layers, run.layer_effective, cx.op_index) {
        out.push(Loop {
            layer: Some((hop.layer, hop.route)),
            policy: hop.policy,
            condition: hop.condition,
        });
    }
    out
}

/// Whether repeating the operation repeats a write (the client's policy, `x-idempotent`,
/// or the method decides).
pub(super) fn is_non_idempotent(cx: &OperationContext<'_>) -> bool {
    let side_effect = match cx.run.effective.get(cx.op_index) {
        Some(client) => client.effect.side_effect,
        None => effect_of(cx.op, &crate::input::policy::PolicyObject::default()).side_effect,
    };
    side_effect == SideEffect::NonIdempotent
}

/// What makes a repeat of the operation safe whoever retries it: the key the client sends
/// when the description declares it (one it does not declare is a key the server is not
/// known to read: `idempotency-key-undeclared`), the status endpoint the client reconciles
/// with, or a key the description requires (a layer resends the request as it came,
/// header, query and body, so a required key in any place reaches the server again).
pub(super) fn protection(cx: &OperationContext<'_>) -> Option<String> {
    let contract = cx.run.contracts.get(cx.op_index);
    if let Some(client) = cx.run.effective.get(cx.op_index) {
        if let Some(key) = &client.policy.key_header
            && contract.is_some_and(|c| c.declares_key(cx.op, &key.value))
        {
            return Some(format!("the idempotency key {}", key.value));
        }
        if let Some(status) = &client.policy.status_endpoint {
            return Some(format!("the status endpoint {}", status.value));
        }
    }
    let key = contract?.key.as_ref()?;
    key.required.then(|| match key.place {
        Place::Header => format!("the required {} header", key.name),
        _ => format!("the required {}", key.named()),
    })
}

/// Whether the layers in front of the operation have a retry budget.
pub(super) fn has_budget(run: &RunContext<'_>, loops: &[Loop<'_>]) -> bool {
    let in_chain = loops
        .iter()
        .any(|l| l.layer.is_some_and(|(layer, _)| layer.budget.is_some()));
    // A budget of its own (Gateway API `XBackendTrafficPolicy`) covers the service.
    let standalone = run
        .layers
        .layers
        .iter()
        .zip(&run.layers.serves)
        .any(|(layer, serves)| *serves && layer.routes.is_empty() && layer.budget.is_some());
    in_chain || standalone
}
