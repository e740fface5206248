//! Traefik's `Retry` middleware, read from the dynamic file configuration
//! (`http.routers`, `http.middlewares`).
//!
//! As traefik/traefik `pkg/config/dynamic/middlewares.go` (`Retry`) declares and
//! `pkg/middlewares/retry/retry.go` runs it (v3.7 and later, the default branch): `attempts`
//! counts every attempt (1 does not retry; 0 or less is refused); a network error before
//! the request is written to the backend is retried whatever the method, unless
//! `disableRetryOnNetworkError`; the statuses of `status` (`"500-599"`, `"503"`) are retried
//! only for methods other than `POST`, `PATCH` and `LOCK` unless `retryNonIdempotentMethod`.
//! A router whose retry middleware has statuses is therefore two routes: its idempotent
//! methods with every condition, then every method with the network errors alone. Before
//! v3.7 the middleware had only `attempts` and `initialInterval` and retried any method
//! when the backend did not reply: the conditions' note says which release is assumed.
//!
//! `initialInterval` is the first wait of an exponential back-off whose multiplier
//! `2^(1/(attempts−1))` makes the last wait twice the first; without it Traefik retries at
//! once. A router without a retry middleware does not retry. Routers are tried by
//! `priority`, the rule's length unless written, longest first. `Retry-After` is never
//! honoured.

pub mod crd;
pub mod labels;
mod rule;
#[cfg(test)]
mod tests;

use super::format::{DocsRow, Fix, FormatSpec, RetryAfter};
use super::k8s::{RETRY_AFTER, built_in};
use super::names::Name;
use super::values::{
    bad_value, base_for_first_wait, field, list, mapping, push_signals, text, whole_number,
};
use super::{Format, ImportFile, Importer, Layer, Position, Route, RouteMatch};
use crate::error::InputError;
use crate::input::policy::{Duration, PolicyObject, Signal, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

const NOTE_NO_RETRY: &str =
    "built-in default of Traefik: a router without a Retry middleware does not retry";
const NOTE_NETWORK: &str = "built-in default of Traefik (v3.7 and later assumed): a network error before the \
     request is written to the backend is retried, whatever the method; before v3.7 a backend that did not reply \
     was retried too";
const NOTE_AT_ONCE: &str =
    "built-in default of Traefik: without `initialInterval` it retries at once";
const NOTE_CURVE: &str = "built-in default of Traefik: the multiplier 2^(1/(attempts−1)) makes the last wait twice `initialInterval`";

/// Reads Traefik's dynamic file configuration.
pub struct Dynamic;

/// What Traefik's `Retry` middleware is as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "Traefik",
    position: Position::Gateway,
    objects: &[],
    understood: Some("Traefik dynamic configuration (`http.routers` and `http.middlewares`)"),
    family: "Traefik",
    importer: Some(&Dynamic),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "Traefik dynamic configuration (`http.routers`, `http.middlewares.*.retry`)",
        position_note: "",
        read: "routers by priority, `rule` (`Path`, `PathPrefix`, `Method`, `Host`; other matchers as conditions), `retry.attempts/status/initialInterval/disableRetryOnNetworkError/retryNonIdempotentMethod`",
        defaults: "**v3.7 and later assumed**: network errors before the request is sent retried for every method; statuses only for methods other than `POST`, `PATCH`, `LOCK`; no `initialInterval`: retries at once; a router without a retry middleware does not retry",
    },
    help: &[
        (
            Fix::Deadline,
            "retrylint does not read a deadline for Traefik's retries: lower the middleware's `attempts`, or bound the call in the client",
        ),
        (
            Fix::WriteRetries,
            "set `retryNonIdempotentMethod: false` or leave the retry middleware out of the write router",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from the middleware's `status`",
        ),
        (Fix::TooManyAttempts, "lower the middleware's `attempts`"),
        (Fix::NoWait, "set the middleware's `initialInterval`"),
    ],
};

/// The `http` section of a dynamic configuration: a mapping with `routers` or
/// `middlewares`, at the root of a document whose keys are all Traefik's.
fn http_section(doc: &Node) -> Option<&Node> {
    let map = doc.as_map()?;
    let traefik_keys = ["http", "tcp", "udp", "tls"];
    if !map
        .entries()
        .iter()
        .all(|e| traefik_keys.contains(&&*e.key))
    {
        return None;
    }
    let http = doc.get("http")?;
    (http.get("routers").is_some() || http.get("middlewares").is_some()).then_some(http)
}

impl Importer for Dynamic {
    fn recognises(&self, doc: &Node) -> bool {
        http_section(doc).is_some()
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let source = file.file;
        let Some((http, http_at)) = field(doc, loc, "http") else {
            return Ok(Vec::new());
        };
        mapping(source, http, &http_at, "http")?;
        let retries = middlewares(source, http, &http_at)?;
        let Some((routers, routers_at)) = field(http, &http_at, "routers") else {
            return Ok(Vec::new());
        };
        let mut ordered = Vec::new();
        for (index, entry) in mapping(source, routers, &routers_at, "routers")?
            .entries()
            .iter()
            .enumerate()
        {
            let at = routers_at.entry(&entry.key, entry.key_span, &entry.value);
            let router = &entry.value;
            mapping(source, router, &at, "router")?;
            let Some((rule_node, rule_at)) = field(router, &at, "rule") else {
                continue;
            };
            let rule_text = text(source, rule_node, &rule_at, "rule")?;
            let priority = match field(router, &at, "priority") {
                Some((p, p_at)) => whole_number(source, p, &p_at, "priority")?,
                None => rule_text.chars().count() as u64,
            };
            ordered.push((
                priority,
                index,
                entry.key.to_string(),
                at,
                rule::read(rule_text, &rule_at),
                router,
            ));
        }
        ordered.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut routes = Vec::new();
        let mut hosts = Vec::new();
        let mut any_host = false;
        for (_, _, name, at, rule, router) in ordered {
            any_host |= rule.any_host;
            hosts.extend(rule.hosts);
            let retry = match field(router, &at, "middlewares") {
                Some((names, names_at)) => {
                    let mut found = None;
                    for (i, item) in list(source, names, &names_at, "middlewares")?
                        .iter()
                        .enumerate()
                    {
                        let item_at = names_at.item(i, item);
                        let used = text(source, item, &item_at, "middlewares[]")?;
                        let used = used.split('@').next().unwrap_or(used);
                        if let Some(r) = retries.iter().find(|r| r.name == used) {
                            found = Some(r);
                        }
                    }
                    found
                }
                None => None,
            };
            routes.extend(router_routes(&name, &at, rule.matches, retry));
        }
        Ok(vec![Layer {
            format: Format::Traefik,
            position: Position::Gateway,
            name: Name::new("Traefik routers"),
            loc: http_at,
            hosts: if any_host {
                Vec::new()
            } else {
                super::k8s::unique_hosts(hosts)
            },
            routes,
            budget: None,
        }])
    }
}

/// One retry middleware: its name and what it retries.
struct RetryMiddleware {
    name: String,
    policy: PolicyObject,
    /// The statuses are retried for every method (`retryNonIdempotentMethod`).
    every_method: bool,
    /// The network errors alone, for the methods whose statuses are not retried.
    network_only: Option<PolicyObject>,
}

/// The retry middlewares of `http.middlewares`.
fn middlewares(
    file: &SourceFile,
    http: &Node,
    at: &Loc,
) -> Result<Vec<RetryMiddleware>, InputError> {
    let Some((all, all_at)) = field(http, at, "middlewares") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in mapping(file, all, &all_at, "middlewares")?.entries() {
        let m_at = all_at.entry(&entry.key, entry.key_span, &entry.value);
        if let Some((retry, r_at)) = field(&entry.value, &m_at, "retry") {
            out.push(read_retry(file, &entry.key, retry, &r_at)?);
        }
    }
    Ok(out)
}

/// A `retry` middleware's settings.
fn read_retry(
    file: &SourceFile,
    name: &str,
    retry: &Node,
    at: &Loc,
) -> Result<RetryMiddleware, InputError> {
    mapping(file, retry, at, "retry")?;
    let mut policy = PolicyObject::default();
    let attempts = match field(retry, at, "attempts") {
        Some((n, n_at)) => {
            let n_value = whole_number(file, n, &n_at, "attempts")?;
            if n_value == 0 {
                return Err(bad_value(
                    file,
                    &n_at,
                    "Traefik refuses `attempts` of 0: write 1 for no retry",
                ));
            }
            Spanned::new(i64::try_from(n_value).unwrap_or(i64::MAX), n_at)
        }
        None => {
            return Err(bad_value(
                file,
                at,
                "a Traefik retry middleware needs `attempts` (Traefik refuses it without)",
            ));
        }
    };
    let count = attempts.value;
    policy.max_attempts = Some(attempts.into());
    let flag = |key: &str| -> Result<bool, InputError> {
        match field(retry, at, key) {
            Some((v, v_at)) => super::values::boolean(file, v, &v_at, key),
            None => Ok(false),
        }
    };
    let mut network = Vec::new();
    if !flag("disableRetryOnNetworkError")? {
        push_signals(
            &mut network,
            [Signal::ConnectFailure, Signal::ResetBeforeRequest],
            &at.noted(NOTE_NETWORK),
        );
    }
    let mut signals = network.clone();
    let statuses = field(retry, at, "status");
    if let Some((codes, codes_at)) = &statuses {
        for (i, item) in list(file, codes, codes_at, "status")?.iter().enumerate() {
            let item_at = codes_at.item(i, item);
            let written = item.scalar_text().unwrap_or_default();
            let range = status_range(written).ok_or_else(|| {
                bad_value(
                    file,
                    &item_at,
                    "a status is a code or a range of codes from 100 to 599, such as 500-599",
                )
            })?;
            push_signals(&mut signals, range, &item_at);
        }
    }
    backoff(file, retry, at, count, &mut policy)?;
    let every_method = flag("retryNonIdempotentMethod")?;
    let list_at = statuses
        .as_ref()
        .map_or_else(|| at.clone(), |(_, s_at)| s_at.clone());
    let network_only = (!every_method && signals.len() > network.len()).then(|| PolicyObject {
        retry_on: Some(Spanned::new(network, at.noted(NOTE_NETWORK)).into()),
        ..policy.clone()
    });
    policy.retry_on = Some(Spanned::new(signals, list_at).into());
    Ok(RetryMiddleware {
        name: name.to_string(),
        policy,
        every_method,
        network_only,
    })
}

/// `"503"` or `"500-599"` as signals: a whole class as the class, else each code.
fn status_range(text: &str) -> Option<Vec<Signal>> {
    let text = text.trim();
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    let (low, high) = (
        low.trim().parse::<u16>().ok()?,
        high.trim().parse::<u16>().ok()?,
    );
    if !(100..=599).contains(&low) || !(low..=599).contains(&high) {
        return None;
    }
    Some(
        (low / 100..=high / 100)
            .flat_map(|class| {
                let (from, to) = (low.max(class * 100), high.min(class * 100 + 99));
                if from == class * 100 && to == class * 100 + 99 {
                    vec![Signal::Class(class)]
                } else {
                    (from..=to).map(Signal::Status).collect()
                }
            })
            .collect(),
    )
}

/// `initialInterval`: Traefik's exponential back-off, or retries at once.
fn backoff(
    file: &SourceFile,
    retry: &Node,
    at: &Loc,
    attempts: i64,
    policy: &mut PolicyObject,
) -> Result<(), InputError> {
    let first = match field(retry, at, "initialInterval") {
        Some((node, i_at)) => super::values::k8s_duration(file, node, &i_at)?,
        None => built_in(Duration::ZERO, at, NOTE_AT_ONCE),
    };
    if first.value <= Duration::ZERO || attempts < 2 {
        policy.backoff_base = Some(built_in(Duration::ZERO, &first.loc, NOTE_AT_ONCE).into());
        return Ok(());
    }
    let multiplier = 2f64.powf(1.0 / (attempts - 1) as f64);
    policy.backoff = Some(Spanned::new((), first.loc.clone()).into());
    let cap = Duration::from_micros(first.value.as_micros().saturating_mul(2));
    policy.backoff_cap = Some(built_in(cap, &first.loc, NOTE_CURVE).into());
    policy.backoff_multiplier = Some(built_in(multiplier, &first.loc, NOTE_CURVE).into());
    policy.backoff_base = Some(base_for_first_wait(first, multiplier).into());
    Ok(())
}

/// The routes of one router: none retried, every method retried alike, or its
/// idempotent methods with every condition and then every method with network errors.
fn router_routes(
    name: &str,
    at: &Loc,
    matches: Vec<RouteMatch>,
    retry: Option<&RetryMiddleware>,
) -> Vec<Route> {
    let route = |matches: Vec<RouteMatch>, policy: PolicyObject, implicit: bool| Route {
        loc: at.clone(),
        name: Name::new(name),
        matches,
        policy,
        implicit,
        budget_only: false,
        retried_methods: None,
        unsupported: vec![RETRY_AFTER],
    };
    let Some(retry) = retry else {
        let policy = PolicyObject {
            max_attempts: Some(built_in(1, at, NOTE_NO_RETRY).into()),
            ..PolicyObject::default()
        };
        return vec![route(matches, policy, true)];
    };
    let Some(network_only) = &retry.network_only else {
        return vec![route(matches, retry.policy.clone(), false)];
    };
    debug_assert!(!retry.every_method);
    let idempotent: Vec<RouteMatch> = matches
        .iter()
        .filter_map(RouteMatch::resendable_only)
        .collect();
    let mut routes = Vec::new();
    if !idempotent.is_empty() {
        routes.push(route(idempotent, retry.policy.clone(), false));
    }
    routes.push(route(matches, network_only.clone(), false));
    routes
}
