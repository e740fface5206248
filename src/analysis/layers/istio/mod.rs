//! The Istio importer: `VirtualService` objects (`networking.istio.io`, any version).
//!
//! Each `spec.http[]` entry is a route, tried in file order. Its `retries` block becomes a
//! policy (Istio counts retries: total attempts are `attempts + 1`). A route without
//! `retries` is not a route without retries: Istio gives it the mesh's default policy, 2
//! retries on `connect-failure,refused-stream,unavailable,cancelled` for every method,
//! which is imported as an implicit policy with notes saying so. Backoff follows Envoy,
//! Istio's proxy: 25ms base unless `backoff` says otherwise, capped at 10 times the base,
//! doubling, fully jittered. An empty `retryOn` (an empty Helm value) keeps the default
//! conditions, as Istio does. Route regexes are RE2's, Envoy's engine.
//!
//! A match with header, query parameter, source or port conditions takes only the requests
//! that meet them; ordinary traffic falls through to the next route (see
//! [`super::bind`]), as in istio/istio's bookinfo canary sample.
//!
//! A `DestinationRule`'s `connectionPool.http.maxRetries` is read as a retry budget for its
//! host ([`destination_rule`]).
//!
//! Not read: `delegate` (the delegated `VirtualService` is its own object),
//! `MeshConfig.defaultHttpRetryPolicy` (a mesh-wide override of the default that lives
//! outside the object) and a `DestinationRule`'s other limits. Istio exposes no
//! `Retry-After` handling.

use super::format::{DocsRow, FormatSpec, ObjectKinds, RetryAfter};
use super::k8s::{self, RETRY_AFTER, built_in};
use super::values::{bad_value, envoy_retry_on, field, k8s_duration, push_signals, route_regex};
use super::{
    Format, ImportFile, Importer, Layer, PathMatch, Position, RegexEngine, Route, RouteMatch,
    StringMatch, condition_of,
};
use crate::analysis::layers::format::Fix;
use crate::error::InputError;
use crate::input::policy::{Duration, Jitter, PolicyObject, Signal, Spanned};
use crate::input::source::{Node, SourceFile, Value};
use crate::location::Loc;

mod destination_rule;
#[cfg(test)]
mod tests;

/// The API group of Istio's networking objects.
const GROUP: &str = "networking.istio.io";

/// The gateway name that stands for every sidecar of the mesh.
const MESH_GATEWAY: &str = "mesh";

/// Retries Istio gives a route without `retries` (istio/istio `retry.go`).
const DEFAULT_RETRIES: u64 = 2;

/// The conditions of Istio's default retry policy since istio/istio#52111.
const DEFAULT_RETRY_ON: [&str; 4] = [
    "connect-failure",
    "refused-stream",
    "unavailable",
    "cancelled",
];

const NOTE_DEFAULT_RETRIES: &str = "built-in default of Istio: a route without `retries` is retried up to 2 times, whatever its method";
const NOTE_DEFAULT_RETRY_ON: &str = "built-in default of Istio: retryOn connect-failure,refused-stream,unavailable,cancelled \
     (releases before istio/istio#52111, or EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false, also retry 503)";
const NOTE_EMPTY_RETRY_ON: &str = "built-in default of Istio: an empty retryOn keeps the default \
     connect-failure,refused-stream,unavailable,cancelled";
const NOTE_NO_ATTEMPTS: &str = "built-in default of Istio: `attempts` is 0 unless written, \
     and a `retries` block with 0 attempts does not retry";
const NOTE_BACKOFF_BASE: &str = "built-in default of Envoy, Istio's proxy: a 25ms backoff base";
const NOTE_BACKOFF_CAP: &str =
    "built-in default of Envoy, Istio's proxy: the backoff is capped at 10 times its base";
const NOTE_BACKOFF_MULTIPLIER: &str =
    "built-in default of Envoy, Istio's proxy: the backoff doubles with each retry";
const NOTE_JITTER: &str = "built-in default of Envoy, Istio's proxy: fully jittered waits";

/// What Istio's `VirtualService` (with `DestinationRule` budgets) is as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "Istio VirtualService",
    position: Position::Mesh,
    objects: &[ObjectKinds {
        group: GROUP,
        kinds: &["VirtualService", "DestinationRule"],
    }],
    understood: Some("Istio `VirtualService` or `DestinationRule`"),
    family: "Istio",
    importer: Some(&VirtualService),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: Some("retries"),
    docs: DocsRow {
        format: "Istio `VirtualService` (`v1`, `v1beta1`, `v1alpha3`), `DestinationRule`",
        position_note: " (gateway when bound only to gateways)",
        read: "`http[]` routes, `retries`, `timeout`; a `DestinationRule`'s `connectionPool.http.maxRetries` as a retry budget for its `host`",
        defaults: "**a route without `retries`: 2 retries on `connect-failure,refused-stream,unavailable,cancelled`** (and 503 on older releases); an empty `retryOn` keeps those conditions",
    },
    help: &[
        (
            Fix::Deadline,
            "set the route's `timeout`: it bounds the first attempt and every retry",
        ),
        (
            Fix::WriteRetries,
            "split the route by `match.method` and give the write route `retries: {attempts: 0}`, or retry it only on `connect-failure,refused-stream`",
        ),
        (Fix::NonTransientStatus, "remove the status from `retryOn`"),
        (Fix::TooManyAttempts, "lower `retries.attempts`"),
        (
            Fix::AttemptsPastDeadline,
            "lower `retries.attempts` or `perTryTimeout`, or raise the route's `timeout`",
        ),
        (Fix::NoWait, "set `retries.backoff`"),
        (Fix::Backoff, "set `retries.backoff`"),
    ],
};

/// Reads Istio `VirtualService` objects, and the retry limit of `DestinationRule`s.
pub struct VirtualService;

impl Importer for VirtualService {
    fn recognises(&self, doc: &Node) -> bool {
        SPEC.reads_object(doc)
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        if destination_rule::recognises(doc) {
            return destination_rule::import(file.file, doc, loc);
        }
        let source = file.file;
        let meta = k8s::metadata(source, doc, loc)?;
        let Some((spec, spec_at)) = k8s::spec(source, doc, loc)? else {
            return Ok(Vec::new());
        };
        let hosts = match field(spec, &spec_at, "hosts") {
            Some((node, at)) => k8s::host_list(source, node, &at)?,
            None => Vec::new(),
        };
        let mut routes = Vec::new();
        if let Some((http, http_at)) = field(spec, &spec_at, "http") {
            for (index, entry) in k8s::list(source, http, &http_at, "http")?
                .iter()
                .enumerate()
            {
                routes.push(route(source, entry, &http_at.item(index, entry), index)?);
            }
        }
        Ok(vec![Layer {
            format: Format::Istio,
            position: position(source, spec, &spec_at)?,
            name: meta.layer_name("Istio VirtualService"),
            loc: meta.loc,
            hosts,
            routes,
            budget: None,
        }])
    }
}

/// Where the object's routes run: at an ingress gateway when `gateways` names gateways but
/// not `mesh`, otherwise in the sidecars. An object bound to both is imported once, at the
/// mesh: a request takes one path or the other, never both.
fn position(file: &SourceFile, spec: &Node, loc: &Loc) -> Result<Position, InputError> {
    let Some((gateways, at)) = field(spec, loc, "gateways") else {
        return Ok(Position::Mesh);
    };
    let names = k8s::host_list(file, gateways, &at)?;
    if names.is_empty() || names.iter().any(|n| n == MESH_GATEWAY) {
        Ok(Position::Mesh)
    } else {
        Ok(Position::Gateway)
    }
}

/// One `http[]` entry.
fn route(file: &SourceFile, entry: &Node, loc: &Loc, index: usize) -> Result<Route, InputError> {
    k8s::mapping(file, entry, loc, "http[]")?;
    let name = k8s::entry_name(file, entry, loc, || format!("http[{index}]"))?;
    let matches = match field(entry, loc, "match") {
        Some((node, at)) => k8s::list(file, node, &at, "match")?
            .iter()
            .enumerate()
            .map(|(i, m)| route_match(file, m, &at.item(i, m)))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let mut policy = PolicyObject {
        deadline: k8s::timeout(file, entry, loc, "timeout")?.map(Into::into),
        ..PolicyObject::default()
    };
    let mut implicit = false;
    let answered_here = ["redirect", "directResponse"]
        .into_iter()
        .find_map(|key| field(entry, loc, key).map(|(_, at)| (key, at)));
    if let Some((key, at)) = answered_here {
        let note = format!("Istio answers this route itself (`{key}`): no backend is called");
        policy.max_attempts = Some(built_in(1, &at, &note).into());
    } else if let Some((retries, at)) = field(entry, loc, "retries") {
        read_retries(file, retries, &at, &mut policy)?;
    } else {
        implicit = true;
        default_retries(loc, &mut policy, NOTE_DEFAULT_RETRIES);
    }
    Ok(Route {
        loc: loc.clone(),
        name,
        matches,
        policy,
        implicit,
        budget_only: false,
        retried_methods: None,
        unsupported: vec![RETRY_AFTER, "a retry budget"],
    })
}

/// A `match[]` entry: its `uri` and `method` (other conditions only narrow the route).
fn route_match(file: &SourceFile, node: &Node, loc: &Loc) -> Result<RouteMatch, InputError> {
    k8s::mapping(file, node, loc, "match[]")?;
    let path = match field(node, loc, "uri") {
        None => PathMatch::Any,
        Some((uri, at)) => match string_match(file, uri, &at, "uri")? {
            None => PathMatch::Any,
            Some(StringMatch::Exact(p)) => PathMatch::Exact(p),
            Some(StringMatch::Prefix(p)) => PathMatch::Prefix(p),
            Some(StringMatch::Regex(r)) => PathMatch::Regex(r),
            // Istio's StringMatch is never inverted or combined.
            Some(StringMatch::Not(_) | StringMatch::All(_)) => PathMatch::Any,
        },
    };
    let method = match field(node, loc, "method") {
        None => None,
        Some((method, at)) => string_match(file, method, &at, "method")?,
    };
    Ok(RouteMatch {
        path,
        method,
        condition: condition_of(&conditions(file, node, loc)?),
        loc: loc.clone(),
    })
}

/// What a `match[]` entry asks of a request besides its path and method, each condition
/// named for messages (`header end-user`): Istio takes only the requests that meet them.
fn conditions(file: &SourceFile, node: &Node, loc: &Loc) -> Result<Vec<String>, InputError> {
    let mut out = Vec::new();
    for (key, what) in [
        ("headers", "header"),
        ("withoutHeaders", "no header"),
        ("queryParams", "query parameter"),
        ("sourceLabels", "source label"),
    ] {
        if let Some((named, at)) = field(node, loc, key) {
            let map = k8s::mapping(file, named, &at, key)?;
            out.extend(map.entries().iter().map(|e| format!("{what} {}", e.key)));
        }
    }
    for (key, what) in [
        ("sourceNamespace", "a matching source namespace"),
        ("port", "a matching port"),
        ("scheme", "a matching scheme"),
        ("authority", "a matching authority"),
        ("gateways", "a matching gateway"),
    ] {
        if field(node, loc, key).is_some() {
            out.push(what.to_string());
        }
    }
    Ok(out)
}

/// An Istio `StringMatch`: `{exact: ..}`, `{prefix: ..}` or `{regex: ..}` (RE2, matched
/// against the whole value); `None` when it says none of them.
fn string_match(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    what: &str,
) -> Result<Option<StringMatch>, InputError> {
    k8s::mapping(file, node, loc, what)?;
    if let Some((value, at)) = field(node, loc, "exact") {
        return Ok(Some(StringMatch::Exact(
            k8s::text(file, value, &at, "exact")?.to_string(),
        )));
    }
    if let Some((value, at)) = field(node, loc, "prefix") {
        return Ok(Some(StringMatch::Prefix(
            k8s::text(file, value, &at, "prefix")?.to_string(),
        )));
    }
    if let Some((value, at)) = field(node, loc, "regex") {
        let pattern = k8s::text(file, value, &at, "regex")?;
        return Ok(Some(StringMatch::Regex(route_regex(
            file,
            pattern,
            &at,
            RegexEngine::Re2,
        )?)));
    }
    Ok(None)
}

/// A written `retries` block. As Istio converts it: `attempts` of 0 (or left out) turns
/// retries off; otherwise the default policy with the fields written here replacing its own.
fn read_retries(
    file: &SourceFile,
    retries: &Node,
    at: &Loc,
    policy: &mut PolicyObject,
) -> Result<(), InputError> {
    k8s::mapping(file, retries, at, "retries")?;
    let attempts = match field(retries, at, "attempts") {
        Some((node, attempts_at)) => {
            let count = k8s::whole_number(file, node, &attempts_at, "attempts")?;
            Spanned::new(count, attempts_at)
        }
        None => built_in(0, at, NOTE_NO_ATTEMPTS),
    };
    policy.max_attempts =
        Some(Spanned::new(k8s::attempts_for_retries(attempts.value), attempts.loc).into());
    if attempts.value == 0 {
        return Ok(());
    }
    policy.per_attempt_timeout = k8s::timeout(file, retries, at, "perTryTimeout")?.map(Into::into);
    let per_try_timeout = policy.per_attempt_timeout.is_some();
    let mut signals = Vec::new();
    // Istio replaces its default conditions only with a non-empty `retryOn`
    // (`if in.RetryOn != ""` in istio/istio `pilot/pkg/networking/core/route/retry/retry.go`):
    // an empty string, as an empty Helm value renders, keeps them. So does `retryOn: null`,
    // which the API server drops.
    let written_retry_on = field(retries, at, "retryOn")
        .filter(|(node, _)| !matches!(&node.value, Value::Null))
        .filter(|(node, _)| !matches!(&node.value, Value::String(text) if text.is_empty()));
    if let Some((node, on_at)) = written_retry_on {
        let text = k8s::text(file, node, &on_at, "retryOn")?;
        for token in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let expanded = envoy_retry_on(token, per_try_timeout).ok_or_else(|| {
                bad_value(
                    file,
                    &on_at,
                    format!(
                        "`{token}` is not a retryOn condition Istio knows: write Envoy's \
                         (5xx, gateway-error, connect-failure, refused-stream, reset, ...), \
                         a gRPC status (unavailable, cancelled, ...) or a status code"
                    ),
                )
            })?;
            push_signals(&mut signals, expanded, &on_at);
        }
        policy.retry_on = Some(Spanned::new(signals, on_at).into());
    } else {
        let noted = match field(retries, at, "retryOn") {
            Some((_, empty_at)) => empty_at.noted(NOTE_EMPTY_RETRY_ON),
            None => at.noted(NOTE_DEFAULT_RETRY_ON),
        };
        push_signals(&mut signals, default_retry_on(per_try_timeout), &noted);
        policy.retry_on = Some(Spanned::new(signals, noted).into());
    }
    let base = match field(retries, at, "backoff") {
        Some((node, backoff_at)) => {
            policy.backoff = Some(Spanned::new((), backoff_at.clone()).into());
            Some(k8s_duration(file, node, &backoff_at)?)
        }
        None => None,
    };
    envoy_backoff(policy, base, at);
    Ok(())
}

/// The policy of a route without `retries`: Istio's default, located at the route, its
/// attempts explained by `attempts_note`. Gateway API routes that Istio implements get it too.
pub fn default_retries(route: &Loc, policy: &mut PolicyObject, attempts_note: &str) {
    policy.max_attempts = Some(
        built_in(
            k8s::attempts_for_retries(DEFAULT_RETRIES),
            route,
            attempts_note,
        )
        .into(),
    );
    let noted = route.noted(NOTE_DEFAULT_RETRY_ON);
    let mut signals = Vec::new();
    push_signals(&mut signals, default_retry_on(false), &noted);
    policy.retry_on = Some(Spanned::new(signals, noted).into());
    envoy_backoff(policy, None, route);
}

/// The conditions of Istio's default `retryOn`.
fn default_retry_on(per_try_timeout: bool) -> Vec<Signal> {
    DEFAULT_RETRY_ON
        .iter()
        .filter_map(|token| envoy_retry_on(token, per_try_timeout))
        .flatten()
        .collect()
}

/// Envoy's backoff around a base that is written (`backoff`) or Envoy's own 25ms: the cap is
/// 10 times the base, the wait doubles and is fully jittered. Defaults are located at `at`
/// (the `retries` block or the route), the cap at the base when it is written.
fn envoy_backoff(policy: &mut PolicyObject, base: Option<Spanned<Duration>>, at: &Loc) {
    let base = base.unwrap_or_else(|| built_in(Duration::from_millis(25), at, NOTE_BACKOFF_BASE));
    let cap = Duration::from_micros(base.value.as_micros().saturating_mul(10));
    let cap_at = if base.loc.note.is_none() {
        &base.loc
    } else {
        at
    };
    policy.backoff_cap = Some(built_in(cap, cap_at, NOTE_BACKOFF_CAP).into());
    // Envoy's first retry waits up to the base: base × multiplier in retrylint's model.
    policy.backoff_base =
        Some(crate::analysis::layers::values::base_for_first_wait(base, 2.0).into());
    policy.backoff_multiplier = Some(built_in(2.0, at, NOTE_BACKOFF_MULTIPLIER).into());
    policy.jitter = Some(built_in(Jitter::Full, at, NOTE_JITTER).into());
}
