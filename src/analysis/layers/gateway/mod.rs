//! The Gateway API importer: `HTTPRoute` and `GRPCRoute` objects
//! (`gateway.networking.k8s.io`), and the retry budget of the experimental
//! `XBackendTrafficPolicy` (`gateway.networking.x-k8s.io`).
//!
//! Each rule of a route is a route, in Gateway API's precedence (see [`rules`]); a
//! `GRPCRoute`'s matches are read as the paths of gRPC calls (see [`grpc`]). An
//! `HTTPRoute` rule's `retry` stanza (GEP-1731) counts retries (`attempts + 1` total);
//! `attempts` left out is implementation-specific and read as Istio's and Envoy Gateway's
//! 2 retries; `codes` are the retried statuses, and implementations SHOULD also retry
//! connection errors, which are added with a note. `timeouts.request` is the deadline,
//! `timeouts.backendRequest` each attempt's timeout (an attempt that reaches it SHOULD be
//! retried). `GRPCRoute` has neither `retry` nor `timeouts`.
//!
//! What a rule without `retry` does depends on the implementation. When the `-p` files say
//! it is Istio (see [`implementation`]), the rule becomes a `VirtualService` route without
//! `retries` and gets Istio's default retry policy, as every `GRPCRoute` rule does
//! (istio/istio `pilot/pkg/config/kube/gateway/conversion.go`, `convertHTTPRoute` and
//! `convertGRPCRoute`); such a rule's `backendRequest` is then its route timeout. Otherwise
//! a rule without `retry` does not retry.
//!
//! A route whose `parentRefs` name a `Service` is GAMMA mesh routing: the layer sits at the
//! mesh and also answers to the service's names. Header and query conditions take only the
//! requests that carry them. The backoff curve, cap and jitter are implementation-specific
//! and left unset; Gateway API has no `Retry-After` setting.

mod backend_policy;
pub mod grpc;
pub mod implementation;
pub mod rules;

#[cfg(test)]
mod tests;

pub use implementation::{Implementation, Parents};
use rules::RouteKind;

use super::format::{DocsRow, FormatSpec, ObjectKinds, RetryAfter};
use super::k8s::{self, RETRY_AFTER, built_in};
use super::values::{field, k8s_duration, push_signals, push_status_codes};
use super::{Format, ImportFile, Importer, Layer, Route};
use crate::analysis::layers::format::Fix;
use crate::error::InputError;
use crate::input::policy::{PolicyObject, Signal, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The API group of Gateway API's standard objects.
pub const GROUP: &str = "gateway.networking.k8s.io";

const NOTE_NO_RETRY: &str =
    "built-in default of Gateway API: a rule without `retry` does not retry";
const NOTE_GRPC_NO_RETRY: &str = "built-in default of Gateway API: a GRPCRoute has no `retry` stanza; \
     its rules do not retry unless the implementation retries by default (Istio does)";
const NOTE_ISTIO_DEFAULT: &str = "built-in default of Istio as the Gateway API implementation: \
     a rule without `retry` (every GRPCRoute rule) is retried up to 2 times, whatever its method";
const NOTE_ATTEMPTS_UNSET: &str = "implementation-specific: `attempts` is not written, \
     read as Istio's and Envoy Gateway's default of 2 retries";
const NOTE_CONNECTION_ERRORS: &str = "built-in default of Gateway API (GEP-1731): with a `retry` stanza, \
     implementations SHOULD retry when the connection could not be established or the backend refused \
     the request before processing it";

/// Reads Gateway API `HTTPRoute` and `GRPCRoute` objects and `XBackendTrafficPolicy`
/// retry budgets.
pub struct HttpRoute;

/// What Gateway API routes (with `XBackendTrafficPolicy` budgets) are as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "Gateway API HTTPRoute",
    position: super::Position::Gateway,
    objects: &[
        ObjectKinds {
            group: GROUP,
            kinds: &["HTTPRoute", "GRPCRoute"],
        },
        ObjectKinds {
            group: backend_policy::GROUP,
            kinds: &backend_policy::KINDS,
        },
    ],
    understood: Some("Gateway API `HTTPRoute` or `GRPCRoute`"),
    family: "Gateway API",
    importer: Some(&HttpRoute),
    retry_after: RetryAfter::Cannot,
    budget: true,
    retries_off: Some("retry"),
    docs: DocsRow {
        format: "Gateway API `HTTPRoute` (`retry`, `timeouts`), `GRPCRoute`, `XBackendTrafficPolicy`; `Gateway` and `GatewayClass` for the implementation",
        position_note: " (mesh when its parent is a `Service`)",
        read: "rules in precedence order, `retry.attempts/codes/backoff`, `timeouts`, `retryConstraint`; a `GRPCRoute`'s service and method as the path of a `POST` (`/S/M` exact, `/S/` prefix, `/[^/]+/M` regex, as Istio converts them)",
        defaults: "an unset `attempts` is read as 2 retries (Istio and Envoy Gateway); connection errors retried (GEP-1731); **under Istio, a rule without `retry` and every `GRPCRoute` rule: Istio's default retries**; otherwise a rule without `retry` does not retry",
    },
    help: &[
        (
            Fix::Deadline,
            "set `timeouts.request` on the rule: retries must fit in it",
        ),
        (
            Fix::WriteRetries,
            "split the rule by `matches.method` and leave `retry` out of the write rule",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from `retry.codes`",
        ),
        (Fix::TooManyAttempts, "lower `retry.attempts`"),
        (
            Fix::AttemptsPastDeadline,
            "lower `retry.attempts` or `timeouts.backendRequest`, or raise `timeouts.request`",
        ),
        (Fix::NoWait, "set `retry.backoff`"),
        (Fix::Backoff, "set `retry.backoff`"),
    ],
};

impl Importer for HttpRoute {
    fn recognises(&self, doc: &Node) -> bool {
        SPEC.reads_object(doc)
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        if backend_policy::recognises(doc) {
            return backend_policy::import(file.file, doc, loc);
        }
        let Some(kind) = RouteKind::of(doc) else {
            return Ok(Vec::new());
        };
        let source = file.file;
        let meta = k8s::metadata(source, doc, loc)?;
        let Some((spec, spec_at)) = k8s::spec(source, doc, loc)? else {
            return Ok(Vec::new());
        };
        let (hosts, position) = rules::parents(source, spec, &spec_at, &meta)?;
        let parent_refs = spec
            .get("parentRefs")
            .and_then(Node::as_seq)
            .unwrap_or_default();
        let implementation = file
            .parents
            .implementation(meta.namespace.as_deref(), parent_refs);
        let mut routes = Vec::new();
        for rule in rules::ordered_rules(source, spec, &spec_at, kind)? {
            let (policy, implicit) =
                rule_policy(source, rule.rule, &rule.loc, kind, implementation)?;
            routes.push(Route {
                policy,
                loc: rule.loc,
                name: rule.name,
                matches: rule.matches,
                implicit,
                budget_only: false,
                retried_methods: None,
                unsupported: vec![RETRY_AFTER],
            });
        }
        let layer_kind = format!("Gateway API {}", kind.name());
        Ok(vec![Layer {
            format: Format::GatewayApi,
            position,
            name: meta.layer_name(&layer_kind),
            loc: meta.loc,
            hosts,
            routes,
            budget: None,
        }])
    }
}

/// What one rule does with retries, and whether that is the implementation's default
/// rather than the rule's own (`implicit`).
fn rule_policy(
    file: &SourceFile,
    rule: &Node,
    loc: &Loc,
    kind: RouteKind,
    implementation: Option<Implementation>,
) -> Result<(PolicyObject, bool), InputError> {
    let mut policy = PolicyObject::default();
    let retry = match kind {
        RouteKind::Http => field(rule, loc, "retry"),
        // GRPCRoute has neither `retry` nor `timeouts` (kubernetes-sigs/gateway-api
        // `apis/v1/grpcroute_types.go`, `GRPCRouteRule`).
        RouteKind::Grpc => None,
    };
    let timeouts = field(rule, loc, "timeouts").filter(|_| kind == RouteKind::Http);
    if let Some((timeouts, at)) = timeouts {
        k8s::mapping(file, timeouts, &at, "timeouts")?;
        policy.deadline = k8s::timeout(file, timeouts, &at, "request")?.map(Into::into);
        policy.per_attempt_timeout =
            k8s::timeout(file, timeouts, &at, "backendRequest")?.map(Into::into);
    }
    match (retry, implementation) {
        (Some((retry, at)), _) => read_retry(file, retry, &at, &mut policy)?,
        (None, Some(Implementation::Istio)) => {
            // Istio makes `backendRequest` the route timeout when there is no `retry`.
            if let Some(backend_request) = policy.per_attempt_timeout.take() {
                policy.deadline = Some(backend_request);
            }
            super::istio::default_retries(loc, &mut policy, NOTE_ISTIO_DEFAULT);
            return Ok((policy, true));
        }
        (None, None) => {
            let note = match kind {
                RouteKind::Http => NOTE_NO_RETRY,
                RouteKind::Grpc => NOTE_GRPC_NO_RETRY,
            };
            policy.max_attempts = Some(built_in(1, loc, note).into());
        }
    }
    Ok((policy, false))
}

/// A `retry` stanza. An explicit `attempts: 0` MUST disable retries.
fn read_retry(
    file: &SourceFile,
    retry: &Node,
    at: &Loc,
    policy: &mut PolicyObject,
) -> Result<(), InputError> {
    k8s::mapping(file, retry, at, "retry")?;
    let max_attempts = match field(retry, at, "attempts") {
        Some((node, attempts_at)) => {
            let retries = k8s::whole_number(file, node, &attempts_at, "attempts")?;
            Spanned::new(k8s::attempts_for_retries(retries), attempts_at)
        }
        // istio/istio `pilot/pkg/config/kube/gateway/conversion.go` (`convertHTTPRoute`) and
        // envoyproxy/gateway `internal/xds/translator/route.go` both retry twice.
        None => built_in(3, at, NOTE_ATTEMPTS_UNSET),
    };
    let disabled = max_attempts.value == 1;
    policy.max_attempts = Some(max_attempts.into());
    if disabled {
        return Ok(());
    }
    let mut signals = Vec::new();
    let mut list_at = at.clone();
    if let Some((codes, codes_at)) = field(retry, at, "codes") {
        push_status_codes(file, codes, &codes_at, "codes", 400, &mut signals)?;
        list_at = codes_at;
    }
    push_signals(
        &mut signals,
        [Signal::ConnectFailure, Signal::RefusedStream],
        &at.noted(NOTE_CONNECTION_ERRORS),
    );
    // An attempt that reaches `backendRequest` SHOULD be cancelled and the next one
    // scheduled.
    if let Some(per_attempt) = &policy.per_attempt_timeout {
        push_signals(&mut signals, [Signal::Timeout], &per_attempt.loc);
    }
    policy.retry_on = Some(Spanned::new(signals, list_at).into());
    if let Some((backoff, backoff_at)) = field(retry, at, "backoff") {
        policy.backoff = Some(Spanned::new((), backoff_at.clone()).into());
        // Envoy-based gateways wait up to `backoff` before the first retry: base ×
        // multiplier in retrylint's model.
        policy.backoff_base = Some(
            crate::analysis::layers::values::base_for_first_wait(
                k8s_duration(file, backoff, &backoff_at)?,
                2.0,
            )
            .into(),
        );
    }
    Ok(())
}
