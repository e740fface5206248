//! Envoy Gateway's own `BackendTrafficPolicy` (`gateway.envoyproxy.io`): its `retry`
//! settings, which Envoy Gateway turns into an Envoy route `retry_policy` for every route
//! of the `Gateway`s and `HTTPRoute`s it targets.
//!
//! As envoyproxy/gateway `api/v1alpha1/retry_types.go` (`Retry`) declares and
//! `internal/xds/translator/route.go` (`buildRetryPolicy`) translates it: `numRetries`
//! counts retries (2 when unset, so 3 attempts); `retryOn.triggers` are Envoy `retry_on`
//! tokens, and when none are written Envoy Gateway retries on
//! `connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes`;
//! `retryOn.httpStatusCodes` are the retriable statuses (503 when there is no `retryOn`);
//! `perRetry.timeout` is each attempt's timeout and `perRetry.backOff` Envoy's back-off
//! (`baseInterval`, `maxInterval`, 25 ms and 10 × base when unset). The same policy's
//! `timeout.http.requestTimeout` is the Envoy route timeout, the deadline of the call and
//! its retries (`getEffectiveRequestTimeout`; `0s` turns it off); unset, Envoy's 15 s
//! applies unless the `HTTPRoute`'s `timeouts.request`, which takes precedence, sets
//! another. An `HTTPRoute` rule's own `retry` also takes precedence over the policy's
//! (Envoy Gateway `site/content/en/latest/tasks/traffic/retry.md`). Envoy Gateway sets
//! neither `retriable_request_headers` nor `rate_limited_retry_back_off`, so every method
//! is retried and `Retry-After` is never honoured.
//!
//! The policy applies to every route of its targets (`targetRef`, `targetRefs`,
//! `targetSelectors`): it is imported as one route that takes every request, on every
//! host. A policy without `retry` is no layer.

#[cfg(test)]
mod tests;

use super::format::{DocsRow, Fix, FormatSpec, ObjectKinds, RetryAfter};
use super::k8s::{self, RETRY_AFTER, built_in};
use super::names::Name;
use super::values::{
    bad_value, base_for_first_wait, envoy_retry_on, field, push_signals, push_status_codes,
    ten_times,
};
use super::{Format, ImportFile, Importer, Layer, Position, Route};
use crate::error::InputError;
use crate::input::policy::{Duration, Jitter, PolicyObject, Signal, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The API group of Envoy Gateway's own objects.
pub const GROUP: &str = "gateway.envoyproxy.io";

const NOTE_RETRIES: &str =
    "built-in default of Envoy Gateway: `numRetries` unset is 2 retries (3 attempts)";
const NOTE_TRIGGERS: &str = "built-in default of Envoy Gateway: without `retryOn.triggers` it retries on \
     connect-failure, refused-stream, unavailable, cancelled and retriable-status-codes";
const NOTE_STATUS: &str =
    "built-in default of Envoy Gateway: without `retryOn` the retriable status code is 503";
const NOTE_BASE: &str = "built-in default of Envoy Gateway: Envoy's back-off base interval of 25ms";
const NOTE_CAP: &str =
    "built-in default of Envoy Gateway: Envoy's back-off max interval, 10 × base";
const NOTE_CURVE: &str =
    "built-in default of Envoy Gateway: Envoy's fully jittered exponential back-off";
const NOTE_DEADLINE: &str = "built-in default of Envoy Gateway: without `timeout.http.requestTimeout` \
     Envoy's route timeout of 15s bounds the call and its retries";
/// The triggers Envoy Gateway accepts (`TriggerEnum`).
const TRIGGERS: [&str; 13] = [
    "5xx",
    "gateway-error",
    "reset",
    "reset-before-request",
    "connect-failure",
    "retriable-4xx",
    "refused-stream",
    "retriable-status-codes",
    "cancelled",
    "deadline-exceeded",
    "internal",
    "resource-exhausted",
    "unavailable",
];
const DEFAULT_TRIGGERS: [&str; 5] = [
    "connect-failure",
    "refused-stream",
    "unavailable",
    "cancelled",
    "retriable-status-codes",
];

/// Reads Envoy Gateway `BackendTrafficPolicy` retries.
pub struct BackendTrafficPolicy;

/// What Envoy Gateway's `BackendTrafficPolicy` is as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "Envoy Gateway BackendTrafficPolicy",
    position: Position::Gateway,
    objects: &[ObjectKinds {
        group: GROUP,
        kinds: &["BackendTrafficPolicy"],
    }],
    understood: Some("Envoy Gateway `BackendTrafficPolicy`"),
    family: "Envoy Gateway",
    importer: Some(&BackendTrafficPolicy),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "Envoy Gateway `BackendTrafficPolicy` (`gateway.envoyproxy.io`, `retry`)",
        position_note: "",
        read: "`retry.numRetries`, `retryOn.triggers/httpStatusCodes`, `perRetry.timeout/backOff`, `timeout.http.requestTimeout` as the deadline, as one route taking every request of its targets",
        defaults: "2 retries; triggers `connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes` with status 503; Envoy's back-off (25ms base, 10 × base cap); Envoy's 15s route timeout; every method retried; `Retry-After` ignored",
    },
    help: &[
        (
            Fix::Deadline,
            "set `timeout.http.requestTimeout` on the policy: retries must fit in it",
        ),
        (
            Fix::WriteRetries,
            "target the write routes with a policy whose `retry.numRetries` is 0",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from `retry.retryOn.httpStatusCodes`",
        ),
        (Fix::TooManyAttempts, "lower `retry.numRetries`"),
        (
            Fix::AttemptsPastDeadline,
            "lower `retry.numRetries` or `retry.perRetry.timeout`",
        ),
        (Fix::Backoff, "set `retry.perRetry.backOff`"),
    ],
};

impl Importer for BackendTrafficPolicy {
    fn recognises(&self, doc: &Node) -> bool {
        SPEC.reads_object(doc)
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let source = file.file;
        let meta = k8s::metadata(source, doc, loc)?;
        let Some((spec, spec_at)) = k8s::spec(source, doc, loc)? else {
            return Ok(Vec::new());
        };
        let Some((retry, retry_at)) = field(spec, &spec_at, "retry") else {
            return Ok(Vec::new());
        };
        let mut policy = read_retry(source, retry, &retry_at)?;
        policy.deadline = request_timeout(source, spec, &spec_at, &retry_at)?.map(Into::into);
        let route = Route {
            loc: retry_at,
            name: Name::new("retry"),
            matches: Vec::new(),
            policy,
            implicit: false,
            budget_only: false,
            retried_methods: None,
            unsupported: vec![RETRY_AFTER],
        };
        Ok(vec![Layer {
            format: Format::EnvoyGateway,
            position: Position::Gateway,
            name: meta.layer_name("Envoy Gateway BackendTrafficPolicy"),
            loc: meta.loc,
            hosts: Vec::new(),
            routes: vec![route],
            budget: None,
        }])
    }
}

/// The policy of a `retry` stanza, defaults filled in as Envoy Gateway fills them.
fn read_retry(file: &SourceFile, retry: &Node, at: &Loc) -> Result<PolicyObject, InputError> {
    k8s::mapping(file, retry, at, "retry")?;
    let mut policy = PolicyObject::default();
    let attempts = match field(retry, at, "numRetries") {
        Some((node, n_at)) => {
            let retries = k8s::whole_number(file, node, &n_at, "numRetries")?;
            Spanned::new(k8s::attempts_for_retries(retries), n_at)
        }
        None => built_in(3, at, NOTE_RETRIES),
    };
    policy.max_attempts = Some(attempts.into());
    let per_retry = field(retry, at, "perRetry");
    if let Some((per_retry, pr_at)) = &per_retry {
        k8s::mapping(file, per_retry, pr_at, "perRetry")?;
        policy.per_attempt_timeout =
            k8s::timeout(file, per_retry, pr_at, "timeout")?.map(Into::into);
    }
    policy.retry_on = Some(retry_on(file, retry, at, policy.per_attempt_timeout.is_some())?.into());
    let back_off = per_retry
        .as_ref()
        .and_then(|(node, pr_at)| field(node, pr_at, "backOff"));
    backoff(file, back_off, at, &mut policy)?;
    Ok(policy)
}

/// `timeout.http.requestTimeout`, the deadline of the call and its retries; Envoy's 15 s
/// when unset, none when `0s`.
fn request_timeout(
    file: &SourceFile,
    spec: &Node,
    spec_at: &Loc,
    retry_at: &Loc,
) -> Result<Option<Spanned<Duration>>, InputError> {
    let http = field(spec, spec_at, "timeout")
        .map(|(node, at)| k8s::mapping(file, node, &at, "timeout").map(|_| (node, at)))
        .transpose()?
        .and_then(|(node, at)| field(node, &at, "http"));
    if let Some((http, http_at)) = http {
        k8s::mapping(file, http, &http_at, "http")?;
        if field(http, &http_at, "requestTimeout").is_some() {
            return k8s::timeout(file, http, &http_at, "requestTimeout");
        }
    }
    Ok(Some(built_in(
        Duration::from_millis(15_000),
        retry_at,
        NOTE_DEADLINE,
    )))
}

/// `retryOn`: the triggers (Envoy's `retry_on` tokens) and the retriable statuses, which
/// count only with the `retriable-status-codes` trigger.
fn retry_on(
    file: &SourceFile,
    retry: &Node,
    at: &Loc,
    per_try_timeout: bool,
) -> Result<Spanned<Vec<Spanned<Signal>>>, InputError> {
    let mut signals = Vec::new();
    let retry_on = field(retry, at, "retryOn");
    if let Some((node, on_at)) = &retry_on {
        k8s::mapping(file, node, on_at, "retryOn")?;
    }
    let triggers = retry_on
        .as_ref()
        .and_then(|(node, on_at)| field(node, on_at, "triggers"))
        .map(|(node, t_at)| k8s::list(file, node, &t_at, "triggers").map(|l| (l, t_at)))
        .transpose()?
        .filter(|(list, _)| !list.is_empty());
    let (list_at, by_status) = if let Some((list, t_at)) = &triggers {
        let mut by_status = false;
        for (index, trigger) in list.iter().enumerate() {
            let trigger_at = t_at.item(index, trigger);
            let token = trigger.scalar_text().unwrap_or_default().trim();
            let found = TRIGGERS
                .contains(&token)
                .then(|| envoy_retry_on(token, per_try_timeout))
                .flatten()
                .ok_or_else(|| {
                    bad_value(
                        file,
                        &trigger_at,
                        format!(
                            "not a trigger of Envoy Gateway: one of {}",
                            TRIGGERS.join(", ")
                        ),
                    )
                })?;
            by_status |= token == "retriable-status-codes";
            push_signals(&mut signals, found, &trigger_at);
        }
        (t_at.clone(), by_status)
    } else {
        let noted = at.noted(NOTE_TRIGGERS);
        for token in DEFAULT_TRIGGERS {
            push_signals(
                &mut signals,
                envoy_retry_on(token, per_try_timeout).unwrap_or_default(),
                &noted,
            );
        }
        (noted, true)
    };
    if by_status {
        match &retry_on {
            Some((node, on_at)) => {
                if let Some((codes, codes_at)) = field(node, on_at, "httpStatusCodes") {
                    push_status_codes(
                        file,
                        codes,
                        &codes_at,
                        "httpStatusCodes",
                        100,
                        &mut signals,
                    )?;
                }
            }
            None => push_signals(&mut signals, [Signal::Status(503)], &at.noted(NOTE_STATUS)),
        }
    }
    Ok(Spanned::new(signals, list_at))
}

/// `perRetry.backOff`: Envoy's fully jittered exponential back-off.
fn backoff(
    file: &SourceFile,
    back_off: Option<(&Node, Loc)>,
    at: &Loc,
    policy: &mut PolicyObject,
) -> Result<(), InputError> {
    let default_base = Duration::from_millis(25);
    let (base, cap, anchor) = match back_off {
        Some((node, bo_at)) => {
            k8s::mapping(file, node, &bo_at, "backOff")?;
            policy.backoff = Some(Spanned::new((), bo_at.clone()).into());
            let base = k8s::timeout(file, node, &bo_at, "baseInterval")?
                .unwrap_or_else(|| built_in(default_base, &bo_at, NOTE_BASE));
            let cap = match k8s::timeout(file, node, &bo_at, "maxInterval")? {
                Some(cap) if cap.value < base.value => {
                    return Err(bad_value(
                        file,
                        &cap.loc,
                        "`maxInterval` must not be below `baseInterval`",
                    ));
                }
                Some(cap) => cap,
                None => built_in(ten_times(base.value), &bo_at, NOTE_CAP),
            };
            (base, cap, bo_at)
        }
        None => (
            built_in(default_base, at, NOTE_BASE),
            built_in(ten_times(default_base), at, NOTE_CAP),
            at.clone(),
        ),
    };
    policy.backoff_base = Some(base_for_first_wait(base, 2.0).into());
    policy.backoff_cap = Some(cap.into());
    policy.backoff_multiplier = Some(built_in(2.0, &anchor, NOTE_CURVE).into());
    policy.jitter = Some(built_in(Jitter::Full, &anchor, NOTE_CURVE).into());
    Ok(())
}
