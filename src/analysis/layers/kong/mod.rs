//! Kong's declarative configuration (`_format_version`, `services[].routes[]`): a
//! service's `retries`, which Kong's balancer spends as nginx passes a failed request to
//! the next upstream.
//!
//! As Kong/kong `kong/db/schema/entities/services.lua` declares it, `retries` counts
//! retries (5 unless written, 0 to 32767) and `read_timeout` bounds each attempt (60 s
//! unless written); `kong/init.lua` (`balancer`) gives nginx `set_more_tries(retries)`, and
//! Kong's nginx template sets no `proxy_next_upstream`, so nginx's default applies: an
//! error or a timeout while connecting, sending the request or reading the response
//! header is retried, and a `POST`, `PATCH` or `LOCK` is not sent again once written
//! (nginx 1.9.13 and later). A service's route is therefore two routes: its other methods
//! with every condition, then every method with connection failures alone. No status is
//! retried and `Retry-After` is never honoured.
//!
//! Each path of a route is a plain prefix (a path starting with `~` is a regular
//! expression, read as a conditional match), tried longest first as Kong's router prefers
//! the longest; a route's `methods` and `hosts` are read.

pub mod ingress_controller;
#[cfg(test)]
mod tests;

use super::format::{DocsRow, Fix, FormatSpec, RetryAfter};
use super::k8s::{RETRY_AFTER, built_in, unique_hosts};
use super::names::Name;
use super::values::{bad_value, field, list, mapping, push_signals, text, whole_number};
use super::{
    Format, ImportFile, Importer, Layer, PathMatch, Position, Route, RouteMatch, StringMatch,
    condition_of,
};
use crate::error::InputError;
use crate::input::policy::{Duration, PolicyObject, Signal, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

const NOTE_RETRIES: &str = "built-in default of Kong: a service's `retries` is 5 unless written";
const NOTE_READ: &str =
    "built-in default of Kong: a service's `read_timeout` is 60000 ms unless written";
const NOTE_NEXT_UPSTREAM: &str = "built-in default of Kong: nginx's `proxy_next_upstream error timeout` \
     retries an error or timeout while connecting, sending or reading the response header; a POST, PATCH \
     or LOCK only when it was not yet sent";

/// Reads Kong's declarative configuration.
pub struct Declarative;

/// What Kong's declarative configuration is as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "Kong",
    position: Position::Gateway,
    objects: &[],
    understood: Some("Kong declarative configuration (`_format_version` and `services`)"),
    family: "Kong",
    importer: Some(&Declarative),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "Kong declarative configuration (`_format_version`, `services[].retries`, `routes`)",
        position_note: "",
        read: "each service's `retries` and `read_timeout`, its routes' `paths` (prefixes, longest first), `methods`, `hosts`",
        defaults: "5 retries; `read_timeout` 60 s per attempt; connection errors and timeouts retried (nginx's default `proxy_next_upstream`), a `POST`, `PATCH` or `LOCK` only before it was sent; no status retried",
    },
    help: &[
        (
            Fix::Deadline,
            "Kong bounds each attempt with `read_timeout`, not the call: lower the service's `retries`, or bound the call in the client",
        ),
        (
            Fix::NoWait,
            "Kong passes a failed request to the next upstream at once and has no back-off: lower the service's `retries`",
        ),
        (
            Fix::WriteRetries,
            "set `retries: 0` on the service, or give the writes a service of their own with `retries: 0`",
        ),
        (Fix::TooManyAttempts, "lower the service's `retries`"),
        (
            Fix::AttemptsPastDeadline,
            "lower the service's `retries` or `read_timeout`",
        ),
    ],
};

impl Importer for Declarative {
    fn recognises(&self, doc: &Node) -> bool {
        doc.get("_format_version").is_some() && doc.get("services").is_some()
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let source = file.file;
        let Some((services, services_at)) = field(doc, loc, "services") else {
            return Ok(Vec::new());
        };
        let mut found = Found::default();
        for (index, service) in list(source, services, &services_at, "services")?
            .iter()
            .enumerate()
        {
            let at = services_at.item(index, service);
            service_routes(source, service, &at, &mut found)?;
        }
        if found.entries.is_empty() {
            return Ok(Vec::new());
        }
        // Kong's router prefers the longest path, whichever service it belongs to.
        found
            .entries
            .sort_by(|a, b| b.prefix_len.cmp(&a.prefix_len).then(a.order.cmp(&b.order)));
        let mut routes = Vec::new();
        for entry in found.entries {
            routes.extend(split_routes(
                &entry.name,
                &entry.at,
                entry.matches,
                &entry.policy,
            ));
        }
        Ok(vec![Layer {
            format: Format::Kong,
            position: Position::Gateway,
            name: Name::new("Kong declarative configuration"),
            loc: services_at,
            hosts: if found.any_host {
                Vec::new()
            } else {
                unique_hosts(found.hosts)
            },
            routes,
            budget: None,
        }])
    }
}

/// The routes of every service, before they are ordered, and the hosts they name.
#[derive(Default)]
struct Found {
    entries: Vec<Entry>,
    hosts: Vec<String>,
    /// Some route names no host (it takes every host).
    any_host: bool,
}

/// One path of a route, with its service's policy.
struct Entry {
    /// The length of its prefix (0 for a regular expression), for Kong's order.
    prefix_len: usize,
    order: usize,
    name: String,
    at: Loc,
    matches: Vec<RouteMatch>,
    policy: PolicyObject,
}

/// Adds the routes of one service to `found`.
fn service_routes(
    file: &SourceFile,
    service: &Node,
    at: &Loc,
    found: &mut Found,
) -> Result<(), InputError> {
    mapping(file, service, at, "service")?;
    let policy = service_policy(file, service, at)?;
    let Some((routes, routes_at)) = field(service, at, "routes") else {
        return Ok(());
    };
    for (index, route) in list(file, routes, &routes_at, "routes")?.iter().enumerate() {
        let route_at = routes_at.item(index, route);
        mapping(file, route, &route_at, "route")?;
        let route_name = match field(route, &route_at, "name") {
            Some((n, n_at)) => text(file, n, &n_at, "name")?.to_string(),
            None => format!("routes[{index}]"),
        };
        let methods = strings(file, route, &route_at, "methods")?;
        let route_hosts = strings(file, route, &route_at, "hosts")?;
        found.any_host |= route_hosts.is_empty();
        found.hosts.extend(route_hosts.into_iter().map(|(h, _)| h));
        let paths = strings(file, route, &route_at, "paths")?;
        let paths = if paths.is_empty() {
            vec![("/".to_string(), route_at.clone())]
        } else {
            paths
        };
        for (path, path_at) in paths {
            let (path_match, condition) = match path.strip_prefix('~') {
                Some(regex) => (
                    PathMatch::Any,
                    condition_of(&[format!("path regex {regex}")]),
                ),
                None => (PathMatch::Prefix(path.clone()), None),
            };
            let one = |method: Option<StringMatch>| RouteMatch {
                path: path_match.clone(),
                method,
                condition: condition.clone(),
                loc: path_at.clone(),
            };
            let matches = if methods.is_empty() {
                vec![one(None)]
            } else {
                methods
                    .iter()
                    .map(|(m, _)| one(Some(StringMatch::Exact(m.clone()))))
                    .collect()
            };
            found.entries.push(Entry {
                prefix_len: if condition.is_some() { 0 } else { path.len() },
                order: found.entries.len(),
                name: route_name.clone(),
                at: route_at.clone(),
                matches,
                policy: policy.clone(),
            });
        }
    }
    Ok(())
}

/// A list of strings under `key` (`paths`, `methods`, `hosts`), each with its place.
fn strings(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    key: &str,
) -> Result<Vec<(String, Loc)>, InputError> {
    let Some((items, items_at)) = field(node, at, key) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (index, item) in list(file, items, &items_at, key)?.iter().enumerate() {
        let item_at = items_at.item(index, item);
        out.push((text(file, item, &item_at, key)?.to_string(), item_at));
    }
    Ok(out)
}

/// A service's retries: attempts, the per-attempt timeout and what nginx retries.
fn service_policy(file: &SourceFile, service: &Node, at: &Loc) -> Result<PolicyObject, InputError> {
    let attempts = match field(service, at, "retries") {
        Some((n, n_at)) => {
            let retries = whole_number(file, n, &n_at, "retries")?;
            if retries > 32_767 {
                return Err(bad_value(file, &n_at, "Kong's `retries` is 0 to 32767"));
            }
            Spanned::new(super::k8s::attempts_for_retries(retries), n_at)
        }
        None => built_in(6, at, NOTE_RETRIES),
    };
    let read = match field(service, at, "read_timeout") {
        Some((n, n_at)) => {
            let millis = whole_number(file, n, &n_at, "read_timeout")?;
            Spanned::new(
                Duration::from_millis(i64::try_from(millis).unwrap_or(i64::MAX)),
                n_at,
            )
        }
        None => built_in(Duration::from_millis(60_000), at, NOTE_READ),
    };
    Ok(retry_policy(attempts, read, at))
}

/// What a Kong service with `attempts` (its retries + 1) and `read` (its `read_timeout`)
/// retries: nginx's default `proxy_next_upstream`, at once (see the module's docs).
fn retry_policy(attempts: Spanned<i64>, read: Spanned<Duration>, at: &Loc) -> PolicyObject {
    let mut policy = PolicyObject {
        max_attempts: Some(attempts.into()),
        per_attempt_timeout: Some(read.into()),
        ..PolicyObject::default()
    };
    let mut signals = Vec::new();
    push_signals(
        &mut signals,
        [Signal::ConnectFailure, Signal::Reset, Signal::Timeout],
        &at.noted(NOTE_NEXT_UPSTREAM),
    );
    policy.retry_on = Some(Spanned::new(signals, at.noted(NOTE_NEXT_UPSTREAM)).into());
    policy.backoff_base = Some(
        built_in(
            Duration::ZERO,
            at,
            "built-in default of Kong: nginx passes a failed request to the next upstream at once",
        )
        .into(),
    );
    policy
}

/// A route's matches as routes: the methods nginx sends again with every condition, then
/// every method with connection failures alone.
fn split_routes(
    name: &str,
    at: &Loc,
    matches: Vec<RouteMatch>,
    policy: &PolicyObject,
) -> Vec<Route> {
    let route = |matches: Vec<RouteMatch>, policy: PolicyObject| Route {
        loc: at.clone(),
        name: Name::new(name),
        matches,
        policy,
        implicit: false,
        budget_only: false,
        retried_methods: None,
        unsupported: vec![RETRY_AFTER],
    };
    let mut routes = Vec::new();
    let resendable: Vec<RouteMatch> = matches
        .iter()
        .filter_map(RouteMatch::resendable_only)
        .collect();
    if !resendable.is_empty() {
        routes.push(route(resendable, policy.clone()));
    }
    let unsent_loc = policy
        .retry_on
        .as_ref()
        .map_or_else(|| at.clone(), |r| r.loc.clone());
    let mut unsent = policy.clone();
    unsent.retry_on = Some(
        Spanned::new(
            vec![Spanned::new(Signal::ConnectFailure, unsent_loc.clone())],
            unsent_loc,
        )
        .into(),
    );
    routes.push(route(matches, unsent));
    routes
}
