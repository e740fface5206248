//! The HAProxy importer: a `haproxy.cfg` read by [`crate::input::source::haproxy`], as
//! HAProxy 2.6 (the release Debian 12 ships, 2.6.12) runs it.
//!
//! Each `frontend` and `listen` section is a layer at the edge; its routes are its
//! `use_backend NAME if|unless …` rules in order (their conditions read by [`acl`]), then
//! its `default_backend` (a `listen` section is its own default backend when it has
//! servers). What a route retries is its backend's (haproxy/haproxy, tag v2.6.0):
//!
//! - `retries N` is how many times a request is sent again, so N + 1 attempts: the
//!   connection retry (`back_handle_st_cer` in `src/backend.c`) and the L7 retry
//!   (`do_l7_retry` in `src/http_ana.c`) count against `s->conn_retries`, checked before
//!   it is incremented since the fixes backported to 2.6 (`BUG/MINOR: backend: Don't
//!   increment conn_retries counter too early`, `BUG/MINOR: http-ana: Don't increment
//!   conn_retries counter before the L7 retry`). Unless written, `retries` is
//!   `CONN_RETRIES`, 3 (`include/haproxy/defaults.h`, `proxy_preset_defaults` in
//!   `src/proxy.c`).
//! - `retry-on` says on what (`proxy_parse_retry_on` in `src/proxy.c`); unless written it
//!   is `conn-failure` alone (`init_new_proxy`). `conn-failure` is a failed connection,
//!   `empty-response` a connection closed with no answer, `junk-response` an answer that is
//!   no HTTP, `response-timeout` `timeout server` passing before any answer, a status its
//!   code; `all-retryable-errors` is all of those but the 4xx, 501.
//! - Every method is sent again: HAProxy checks no method. An L7 retry (anything but
//!   `conn-failure`) needs the whole request in one buffer when it is first sent
//!   (`sc_conn_send` in `src/stconn.c` clears `TX_L7_RETRY` unless the request message is
//!   done, and keeps a copy in `txn->l7_buffer`): a request whose body does not fit in
//!   `tune.bufsize` (16 kB) is never sent again. And L7 retries need `mode http` (`stream.c`
//!   sets `TX_L7_RETRY` only for `PR_MODE_HTTP`); `mode` is `tcp` unless written.
//! - `option redispatch` lets a retry go to another server (`stream_choose_redispatch` in
//!   `include/haproxy/stream.h`); it changes which server, not how many attempts: HAProxy
//!   sends a request again to the same server otherwise.
//! - `timeout server` bounds each attempt's wait for the server (reset by `do_l7_retry`).
//!
//! `http-request disable-l7-retry` (`src/http_act.c`), unconditional or for methods
//! (`if METH_POST`), leaves those requests only their connection retries: a rule is then
//! read as a route of those methods first, then the rule's own.
//!
//! Simplified: `disable-l7-retry` under another condition and other `http-request` rules
//! are not read; a
//! `use_backend` whose name is a sample expression (`%[…]`) is not a route; `unless`
//! conditions and negated terms are read as conditions; a connection retry to the same
//! server waits `min(1s, timeout connect)`, which is not read as back-off. `.if` blocks are
//! read as if every branch applied. HAProxy does not honour `Retry-After`.

use super::format::{DocsRow, Fix, FormatSpec, RetryAfter};
use super::k8s::{RETRY_AFTER, attempts_for_retries, built_in};
use super::names::Name;
use super::values::{bad_value, push_signals};
use super::{Format, ImportFile, Importer, Layer, PathMatch, Position, Route, RouteMatch};
use crate::error::InputError;
use crate::input::policy::{PolicyObject, Signal, Spanned};
use crate::input::source::haproxy::ROOT_KEY;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

mod acl;
mod disable;
mod settings;
#[cfg(test)]
mod tests;

use disable::Disable;
use settings::Settings;
pub use settings::{RETRY_ON, haproxy_time};

const NOTE_RETRIES: &str = "built-in default of HAProxy: retries 3 (CONN_RETRIES)";
const NOTE_RETRY_ON: &str = "built-in default of HAProxy: retry-on conn-failure";
const NOTE_TCP: &str = "HAProxy retries only connection failures in `mode tcp` (the default mode)";
const NOTE_NO_SERVER: &str = "HAProxy answers 503 itself: the backend has no server";
const NOTE_DISABLED: &str =
    "`http-request disable-l7-retry`: HAProxy retries only connection failures";
const NOTE_NONE: &str = "`retry-on none`: HAProxy sends nothing again";

/// What HAProxy (`haproxy.cfg`) is as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "HAProxy",
    position: Position::Edge,
    objects: &[],
    understood: Some(
        "an HAProxy configuration (a `*.cfg` with `frontend`, `backend`, `listen` or `defaults` sections)",
    ),
    family: "HAProxy",
    importer: Some(&Cfg),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "HAProxy `haproxy.cfg` (2.6)",
        position_note: "",
        read: "`frontend` and `listen` sections, `use_backend` with `path`, `path_beg`, `path_end`, `path_reg`, `method` ACLs, `default_backend`; the backend's `retries`, `retry-on`, `option redispatch`, `timeout server` (per attempt), `mode`, servers, each inherited from `defaults`; `http-request disable-l7-retry` for every request or some methods",
        defaults: "`retries 3` (4 attempts); `retry-on conn-failure`; `mode tcp`; every method sent again, an L7 retry only when the whole request fits in one buffer",
    },
    help: &[
        (
            Fix::WriteRetries,
            "write `retry-on conn-failure` in the backend, or `http-request disable-l7-retry if METH_POST`",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from the backend's `retry-on`",
        ),
        (
            Fix::TooManyAttempts,
            "lower the backend's `retries` (it counts the attempts after the first)",
        ),
        (
            Fix::Deadline,
            "HAProxy has no deadline across attempts: lower `retries` or `timeout server`",
        ),
    ],
};

/// The importer of `haproxy.cfg` documents.
pub struct Cfg;

impl Importer for Cfg {
    fn recognises(&self, doc: &Node) -> bool {
        doc.as_map()
            .is_some_and(|m| m.len() == 1 && m.get(ROOT_KEY).is_some())
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let source = file.file;
        let root = Loc::new(loc.file, format!("{}/{ROOT_KEY}", loc.pointer), doc.span);
        let sections = children(doc.get(ROOT_KEY));
        let proxies = proxies(source, sections, &root)?;
        let mut layers = Vec::new();
        for proxy in proxies.iter().filter(|p| p.kind != "backend") {
            let routes = routes(source, proxy, &proxies)?;
            layers.push(Layer {
                format: Format::Haproxy,
                position: Position::Edge,
                name: Name::of(&format!("HAProxy {}", proxy.kind), &proxy.name),
                loc: proxy.loc.clone(),
                hosts: Vec::new(),
                routes,
                budget: None,
            });
        }
        Ok(layers)
    }
}

/// The lines of a section (or the sections of the file).
pub(super) fn children(node: Option<&Node>) -> &[Node] {
    node.and_then(Node::as_seq).unwrap_or_default()
}

/// A line's (or a section's) first word.
pub(super) fn name(node: &Node) -> &str {
    node.get("name").and_then(Node::as_str).unwrap_or_default()
}

/// A line's words after the first.
pub(super) fn args(node: &Node) -> Vec<&str> {
    children(node.get("args"))
        .iter()
        .filter_map(Node::as_str)
        .collect()
}

/// A `frontend`, `backend` or `listen` section with the settings in force in it.
struct Proxy<'a> {
    kind: &'a str,
    name: String,
    /// The whole section.
    loc: Loc,
    /// Its first line (`backend orders`): where HAProxy's defaults are located.
    head: Loc,
    lines: &'a [Node],
    lines_at: Loc,
    settings: Settings,
    servers: u64,
    /// Its `http-request disable-l7-retry`, when it has one retrylint reads.
    disable: Option<disable::Disable>,
}

/// The proxy sections of the file, each with what it inherits from its `defaults`.
fn proxies<'a>(
    file: &SourceFile,
    sections: &'a [Node],
    root: &Loc,
) -> Result<Vec<Proxy<'a>>, InputError> {
    let mut named: Vec<(String, Settings)> = Vec::new();
    let mut current = Settings::default();
    let mut out = Vec::new();
    for (i, section) in sections.iter().enumerate() {
        let kind = name(section);
        let at = root.item(i, section);
        let lines = children(section.get("block"));
        let block = section.get("block").map_or(section.span, |b| b.span);
        let lines_at = Loc::new(at.file, format!("{}/block", at.pointer), block);
        let words = args(section);
        // `defaults NAME`, `backend NAME from DEFAULTS`.
        let from = match words.as_slice() {
            [_, "from", base] | ["from", base] => Some(*base),
            _ => None,
        };
        let inherited = match from {
            Some(base) => named
                .iter()
                .rev()
                .find(|(n, _)| n == base)
                .map(|(_, s)| s.clone())
                .ok_or_else(|| {
                    bad_value(
                        file,
                        &at,
                        format!("no `defaults {base}` section comes before this one"),
                    )
                })?,
            // A `defaults` section starts from HAProxy's own defaults (`curr_defproxy = NULL`
            // in `cfg_parse_listen`, `src/cfgparse-listen.c`); a proxy from the last one.
            None if kind == "defaults" => Settings::default(),
            None => current.clone(),
        };
        match kind {
            "defaults" => {
                let settings = inherited.read(file, lines, &lines_at)?;
                if let Some(name) = words.first().filter(|w| **w != "from") {
                    named.push(((*name).to_string(), settings.clone()));
                }
                current = settings;
            }
            "frontend" | "backend" | "listen" => {
                let Some(proxy_name) = words.first().filter(|w| **w != "from") else {
                    return Err(bad_value(
                        file,
                        &at,
                        format!("a `{kind}` section needs a name"),
                    ));
                };
                let settings = inherited.read(file, lines, &lines_at)?;
                let disable = disable::read(file, lines, &lines_at, &acl::acls(lines))?;
                let head_end = section
                    .get("args")
                    .map_or(section.span.end, |a| a.span.end.max(section.span.start));
                let head = Loc::new(
                    at.file,
                    at.pointer.clone(),
                    crate::input::source::Span::new(section.span.start as usize, head_end as usize),
                );
                out.push(Proxy {
                    kind,
                    name: (*proxy_name).to_string(),
                    head,
                    loc: at,
                    lines,
                    lines_at,
                    settings,
                    servers: settings::servers(lines),
                    disable,
                });
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The routes of a `frontend` or `listen` section: its `use_backend` rules in order, then
/// its default backend.
fn routes(
    file: &SourceFile,
    proxy: &Proxy<'_>,
    all: &[Proxy<'_>],
) -> Result<Vec<Route>, InputError> {
    let acls = acl::acls(proxy.lines);
    let mut routes = Vec::new();
    let mut default = None;
    for (i, line) in proxy.lines.iter().enumerate() {
        let loc = proxy.lines_at.item(i, line);
        let words = args(line);
        match (name(line), words.as_slice()) {
            ("use_backend", [target, rest @ ..]) => {
                if target.contains("%[") {
                    continue;
                }
                let backend = backend(file, all, target, &loc)?;
                let matches = match rest {
                    [] => vec![RouteMatch {
                        path: PathMatch::Any,
                        method: None,
                        condition: None,
                        loc: loc.clone(),
                    }],
                    ["if", condition @ ..] if !condition.is_empty() => {
                        let reader = acl::Reader {
                            file,
                            acls: &acls,
                            loc: &loc,
                        };
                        route_matches(reader.condition(condition)?, &loc)
                    }
                    ["unless", condition @ ..] if !condition.is_empty() => vec![RouteMatch {
                        path: PathMatch::Any,
                        method: None,
                        condition: super::condition_of(&[format!(
                            "unless {}",
                            condition.join(" ")
                        )]),
                        loc: loc.clone(),
                    }],
                    _ => {
                        return Err(bad_value(
                            file,
                            &loc,
                            "`use_backend` takes a backend, then `if` or `unless` and a condition",
                        ));
                    }
                };
                if matches.is_empty() {
                    // A condition that never holds (`FALSE`, methods that exclude each other).
                    continue;
                }
                let shown = format!("{} {}", target, rest.join(" "));
                let disable = proxy.disable.as_ref();
                push_routes(
                    &mut routes,
                    disable,
                    backend,
                    ("use_backend", shown.trim_end()),
                    matches,
                    &loc,
                );
            }
            ("use_backend", []) => {
                return Err(bad_value(file, &loc, "`use_backend` takes a backend"));
            }
            ("default_backend", [target]) if !target.contains("%[") => {
                default = Some((backend(file, all, target, &loc)?, loc));
            }
            // A name built from a sample is known only per request.
            ("default_backend", [_]) => {}
            ("default_backend", _) => {
                return Err(bad_value(file, &loc, "`default_backend` takes one backend"));
            }
            _ => {}
        }
    }
    let any = |loc: &Loc| RouteMatch {
        path: PathMatch::Any,
        method: None,
        condition: None,
        loc: loc.clone(),
    };
    if let Some((backend, loc)) = default {
        let shown = backend.name.clone();
        let disable = proxy.disable.as_ref();
        push_routes(
            &mut routes,
            disable,
            backend,
            ("default_backend", &shown),
            vec![any(&loc)],
            &loc,
        );
    } else if proxy.kind == "listen" && proxy.servers > 0 {
        push_routes(
            &mut routes,
            None,
            proxy,
            ("listen", &proxy.name),
            vec![any(&proxy.loc)],
            &proxy.loc,
        );
    }
    Ok(routes)
}

/// The `backend` or `listen` section named `target`; an input error at `loc` when none is.
fn backend<'a, 'b>(
    file: &SourceFile,
    all: &'b [Proxy<'a>],
    target: &str,
    loc: &Loc,
) -> Result<&'b Proxy<'a>, InputError> {
    all.iter()
        .find(|p| p.kind != "frontend" && p.name == target)
        .ok_or_else(|| {
            bad_value(
                file,
                loc,
                format!("no `backend` or `listen` section is named `{target}`"),
            )
        })
}

/// The route matches of a condition's alternatives: one per method when an alternative
/// names several.
fn route_matches(alternatives: Vec<acl::Alternative>, loc: &Loc) -> Vec<RouteMatch> {
    let mut out = Vec::new();
    for alternative in alternatives {
        let path = alternative.path.unwrap_or(PathMatch::Any);
        let condition = super::condition_of(&alternative.other);
        match alternative.methods {
            None => out.push(RouteMatch {
                path,
                method: None,
                condition,
                loc: loc.clone(),
            }),
            Some(methods) => out.extend(methods.into_iter().map(|m| RouteMatch {
                path: path.clone(),
                method: Some(super::StringMatch::Exact(m)),
                condition: condition.clone(),
                loc: loc.clone(),
            })),
        }
    }
    out
}

/// The routes of one rule to `backend`, named `kind shown`: with an `http-request
/// disable-l7-retry` of the frontend or the backend that takes some methods, first a route
/// of those methods that retries only connections, then the rule's own.
fn push_routes(
    out: &mut Vec<Route>,
    frontend: Option<&Disable>,
    backend: &Proxy<'_>,
    (kind, shown): (&str, &str),
    matches: Vec<RouteMatch>,
    loc: &Loc,
) {
    let disable = match (frontend, backend.disable.as_ref()) {
        (Some(all @ Disable::All(_)), _) | (_, Some(all @ Disable::All(_))) => Some(all.clone()),
        (Some(Disable::Methods(a, at)), Some(Disable::Methods(b, _))) => {
            let mut both = a.clone();
            both.extend(b.iter().filter(|m| !a.contains(m)).cloned());
            Some(Disable::Methods(both, at.clone()))
        }
        (one, other) => one.or(other).cloned(),
    };
    match disable {
        None => out.push(route(backend, Name::of(kind, shown), matches, loc, None)),
        Some(Disable::All(at)) => {
            out.push(route(
                backend,
                Name::of(kind, shown),
                matches,
                loc,
                Some(&at),
            ));
        }
        Some(Disable::Methods(methods, at)) => {
            let narrowed: Vec<RouteMatch> = matches
                .iter()
                .flat_map(|m| match &m.method {
                    None => methods
                        .iter()
                        .map(|x| RouteMatch {
                            method: Some(super::StringMatch::Exact(x.clone())),
                            ..m.clone()
                        })
                        .collect(),
                    Some(super::StringMatch::Exact(x)) if methods.contains(x) => vec![m.clone()],
                    Some(_) => Vec::new(),
                })
                .collect();
            if !narrowed.is_empty() {
                let name = Name::of(
                    kind,
                    &format!("{shown} ({} without L7 retries)", methods.join(" ")),
                );
                out.push(route(backend, name, narrowed, loc, Some(&at)));
            }
            out.push(route(backend, Name::of(kind, shown), matches, loc, None));
        }
    }
}

/// A route to `backend`: what its retry loop does; `l7_off` where an `http-request
/// disable-l7-retry` leaves it only its connection retries.
fn route(
    backend: &Proxy<'_>,
    name: Name,
    matches: Vec<RouteMatch>,
    loc: &Loc,
    l7_off: Option<&Loc>,
) -> Route {
    let settings = &backend.settings;
    let at = &backend.head;
    let mut route = Route {
        loc: loc.clone(),
        name,
        matches,
        policy: PolicyObject::default(),
        implicit: false,
        budget_only: false,
        retried_methods: None,
        unsupported: vec![RETRY_AFTER, "a retry budget"],
    };
    let keywords = settings
        .retry_on
        .clone()
        .unwrap_or_else(|| built_in(vec!["conn-failure".to_string()], at, NOTE_RETRY_ON));
    let http = settings.http();
    let mut signals = Vec::new();
    let connections_only = || -> Vec<String> {
        keywords
            .value
            .iter()
            .filter(|k| *k == "conn-failure" || *k == "all-retryable-errors")
            .map(|_| "conn-failure".to_string())
            .collect()
    };
    let (kept, kept_at) = match l7_off {
        _ if !http => (connections_only(), keywords.loc.noted(NOTE_TCP)),
        Some(off) => (connections_only(), off.noted(NOTE_DISABLED)),
        None => (keywords.value.clone(), keywords.loc.clone()),
    };
    push_signals(&mut signals, signals_of(&kept), &kept_at);
    let retries = settings
        .retries
        .clone()
        .unwrap_or_else(|| built_in(3, at, NOTE_RETRIES));
    let (attempts, attempts_at) = if backend.servers == 0 {
        (1, at.noted(NOTE_NO_SERVER))
    } else if keywords.value.iter().any(|k| k == "none") {
        (1, keywords.loc.noted(NOTE_NONE))
    } else {
        (attempts_for_retries(retries.value), retries.loc.clone())
    };
    route.policy.max_attempts = Some(Spanned::new(attempts, attempts_at).into());
    route.policy.retry_on = Some(Spanned::new(signals, kept_at).into());
    if let Some(timeout) = &settings.timeout_server {
        route.policy.per_attempt_timeout = Some(timeout.clone().into());
    }
    route
}

/// The signals of `retry-on`'s keywords.
pub fn signals_of(keywords: &[String]) -> Vec<Signal> {
    let mut out = Vec::new();
    for keyword in keywords {
        match keyword.as_str() {
            "conn-failure" => out.push(Signal::ConnectFailure),
            "empty-response" | "junk-response" => out.push(Signal::Reset),
            "response-timeout" => out.push(Signal::Timeout),
            "all-retryable-errors" => {
                out.extend([Signal::ConnectFailure, Signal::Reset, Signal::Timeout]);
                out.extend([500, 502, 503, 504].map(Signal::Status));
            }
            other => {
                if let Ok(code) = other.parse() {
                    out.push(Signal::Status(code));
                }
            }
        }
    }
    out
}
