//! Linkerd's retry and timeout annotations (Linkerd 2.16 and later) on a `Service` (one
//! route for every request) or on an `HTTPRoute` whose parent is a `Service` (a route per
//! rule, in Gateway API's precedence; a route whose parents are all gateways is not
//! Linkerd's and makes no layer).
//!
//! As Linkerd's policy controller reads them: `retry.linkerd.io/http` lists the retried
//! statuses; `retry.linkerd.io/limit` counts retries (1 unless written, and a limit of 0
//! reads as unwritten); `retry.linkerd.io/timeout` is each attempt's timeout, after which
//! the attempt is retried. Without `http` or `timeout`, nothing is retried.
//! `timeout.linkerd.io/request` bounds the whole request, retries included, and
//! `timeout.linkerd.io/response` each backend response (not retried when it fires).
//! Retries back off from 25ms to 250ms. Not read: `retry.linkerd.io/grpc` (gRPC routes),
//! `timeout.linkerd.io/idle`; annotations on a `ServiceProfile`'s service, which Linkerd
//! then ignores, are still imported.

use super::status::StatusSet;
use crate::analysis::layers::gateway::{self, rules};
use crate::analysis::layers::k8s::{self, RETRY_AFTER, built_in};
use crate::analysis::layers::names::Name;
use crate::analysis::layers::values::{bad_value, field, push_signals};
use crate::analysis::layers::{Format, Layer, Position, Route};
use crate::error::InputError;
use crate::input::policy::{Duration, PolicyObject, Signal, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

const RETRY_HTTP: &str = "retry.linkerd.io/http";
const RETRY_LIMIT: &str = "retry.linkerd.io/limit";
const RETRY_TIMEOUT: &str = "retry.linkerd.io/timeout";
const REQUEST_TIMEOUT: &str = "timeout.linkerd.io/request";
const RESPONSE_TIMEOUT: &str = "timeout.linkerd.io/response";

/// The annotations that make an object a Linkerd layer.
const KEYS: [&str; 5] = [
    RETRY_HTTP,
    RETRY_LIMIT,
    RETRY_TIMEOUT,
    REQUEST_TIMEOUT,
    RESPONSE_TIMEOUT,
];

/// Linkerd's own `HTTPRoute`, which takes the same annotations.
const POLICY_GROUP: &str = "policy.linkerd.io";

const NOTE_NOT_RETRIED: &str = "built-in default of Linkerd: without retry.linkerd.io/http \
     or retry.linkerd.io/timeout nothing is retried";
const NOTE_DEFAULT_LIMIT: &str = "built-in default of Linkerd: retry.linkerd.io/limit is 1 retry";
const NOTE_ZERO_LIMIT: &str =
    "built-in default of Linkerd: a limit of 0 reads as unwritten, the default of 1 retry";
const NOTE_BACKOFF_BASE: &str = "built-in default of Linkerd: retries back off from 25ms";
const NOTE_BACKOFF_CAP: &str = "built-in default of Linkerd: retries back off up to 250ms";

/// Whether the document is a `Service` or `HTTPRoute` with Linkerd retry or timeout
/// annotations.
pub(super) fn recognises(doc: &Node) -> bool {
    let kind_ok = k8s::is_object(doc, "", &["Service"])
        || k8s::is_object(doc, gateway::GROUP, &["HTTPRoute"])
        || k8s::is_object(doc, POLICY_GROUP, &["HTTPRoute"]);
    kind_ok && k8s::has_any_annotation(doc, &KEYS)
}

/// The layer the annotations of one object make.
pub(super) fn import(file: &SourceFile, doc: &Node, loc: &Loc) -> Result<Vec<Layer>, InputError> {
    let meta = k8s::metadata(file, doc, loc)?;
    let Some((annotations, at)) = k8s::annotations(file, doc, loc)? else {
        return Ok(Vec::new());
    };
    let policy = annotation_policy(file, annotations, &at)?;
    let route = |loc: Loc, name: Name, matches, policy| Route {
        loc,
        name,
        matches,
        policy,
        implicit: false,
        budget_only: false,
        retried_methods: None,
        unsupported: vec![RETRY_AFTER],
    };
    let (kind, hosts, routes) = if k8s::is_object(doc, "", &["Service"]) {
        let hosts = meta.name.as_deref().map_or_else(Vec::new, |name| {
            k8s::service_hosts(name, meta.namespace.as_deref())
        });
        let every_request = route(at.clone(), Name::new("every request"), Vec::new(), policy);
        ("Service", hosts, vec![every_request])
    } else {
        let Some((spec, spec_at)) = k8s::spec(file, doc, loc)? else {
            return Ok(Vec::new());
        };
        let (hosts, position) = rules::parents(file, spec, &spec_at, &meta)?;
        if position != Position::Mesh {
            // Linkerd's proxies route by the `HTTPRoute`s of `Service`s; a gateway's
            // route is not theirs, whatever it is annotated with.
            return Ok(Vec::new());
        }
        let mut routes = Vec::new();
        for rule in rules::ordered_rules(file, spec, &spec_at, rules::RouteKind::Http)? {
            let mut rule_policy = policy.clone();
            // The rule's own request timeout counts when no annotation sets one.
            if rule_policy.deadline.is_none()
                && let Some((timeouts, timeouts_at)) = field(rule.rule, &rule.loc, "timeouts")
            {
                rule_policy.deadline =
                    k8s::timeout(file, timeouts, &timeouts_at, "request")?.map(Into::into);
            }
            routes.push(route(rule.loc, rule.name, rule.matches, rule_policy));
        }
        ("HTTPRoute", hosts, routes)
    };
    Ok(vec![Layer {
        format: Format::LinkerdAnnotations,
        position: Position::Mesh,
        name: meta.layer_name(&format!("Linkerd annotations on {kind}")),
        loc: meta.loc,
        hosts,
        routes,
        budget: None,
    }])
}

/// The policy the annotations (the mapping at `at`) set for every route of the object.
fn annotation_policy(
    file: &SourceFile,
    annotations: &Node,
    at: &Loc,
) -> Result<PolicyObject, InputError> {
    let statuses = match field(annotations, at, RETRY_HTTP) {
        None => None,
        Some((value, value_at)) => {
            let text = k8s::text(file, value, &value_at, RETRY_HTTP)?;
            let set = StatusSet::parse_retry_http(text).map_err(|item| {
                bad_value(
                    file,
                    &value_at,
                    format!(
                        "`{item}` is not a status Linkerd retries: write 5xx, gateway-error, \
                         a range such as 500-504, or a code"
                    ),
                )
            })?;
            if set.is_empty() {
                return Err(bad_value(file, &value_at, "no status to retry is listed"));
            }
            Some(Spanned::new(set, value_at))
        }
    };
    let retry_timeout = k8s::timeout(file, annotations, at, RETRY_TIMEOUT)?;
    let response_timeout = k8s::timeout(file, annotations, at, RESPONSE_TIMEOUT)?;
    let mut policy = PolicyObject {
        deadline: k8s::timeout(file, annotations, at, REQUEST_TIMEOUT)?.map(Into::into),
        // Whichever fires first ends an attempt.
        per_attempt_timeout: match (&retry_timeout, &response_timeout) {
            (Some(r), Some(s)) if s.value < r.value => Some(s.clone().into()),
            (Some(r), _) => Some(r.clone().into()),
            (None, s) => s.clone().map(Into::into),
        },
        ..PolicyObject::default()
    };
    if statuses.is_none() && retry_timeout.is_none() {
        policy.max_attempts = Some(built_in(1, at, NOTE_NOT_RETRIED).into());
        return Ok(policy);
    }
    policy.max_attempts = Some(match field(annotations, at, RETRY_LIMIT) {
        None => built_in(2, at, NOTE_DEFAULT_LIMIT).into(),
        Some((value, limit_at)) => {
            let limit = k8s::whole_number(file, value, &limit_at, RETRY_LIMIT)?;
            if limit > u64::from(u16::MAX) {
                return Err(bad_value(
                    file,
                    &limit_at,
                    format!("Linkerd reads `{RETRY_LIMIT}` up to {}", u16::MAX),
                ));
            }
            if limit == 0 {
                built_in(2, &limit_at, NOTE_ZERO_LIMIT).into()
            } else {
                Spanned::new(k8s::attempts_for_retries(limit), limit_at).into()
            }
        }
    });
    let mut signals = Vec::new();
    let mut list_at = at.clone();
    if let Some(statuses) = &statuses {
        push_signals(&mut signals, statuses.value.signals(), &statuses.loc);
        list_at = statuses.loc.clone();
    }
    if let Some(timeout) = &retry_timeout {
        push_signals(&mut signals, [Signal::Timeout], &timeout.loc);
        if statuses.is_none() {
            list_at = timeout.loc.clone();
        }
    }
    policy.retry_on = Some(Spanned::new(signals, list_at).into());
    // The first retry waits up to 25ms: base × multiplier in retrylint's model.
    policy.backoff_base = Some(
        crate::analysis::layers::values::base_for_first_wait(
            built_in(Duration::from_millis(25), at, NOTE_BACKOFF_BASE),
            2.0,
        )
        .into(),
    );
    policy.backoff_cap = Some(built_in(Duration::from_millis(250), at, NOTE_BACKOFF_CAP).into());
    Ok(policy)
}
