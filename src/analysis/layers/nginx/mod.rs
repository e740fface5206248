//! The NGINX importer: an `nginx.conf` read by [`crate::input::source::nginx`].
//!
//! Each `server` block of `http` is a layer; each `location` (nested ones included) is a
//! route. A location that `proxy_pass`es retries as nginx's upstream module does
//! (nginx/nginx `src/http/ngx_http_upstream.c`, `ngx_http_upstream_next`):
//!
//! - `proxy_next_upstream` says on what a request goes to the next server; nginx's default
//!   is `error timeout`, and `off` turns retries off. `http`, `server` and `location` each
//!   inherit the directive unless they write it (`ngx_http_proxy_merge_loc_conf` in
//!   `src/http/modules/ngx_http_proxy_module.c`); so do `proxy_next_upstream_tries` and
//!   `proxy_next_upstream_timeout` (default 0, no limit).
//! - A request whose method is POST, LOCK or PATCH is passed to the next server once it was
//!   sent only with `non_idempotent` (the `request_sent` check that adds
//!   `NGX_HTTP_UPSTREAM_FT_NON_IDEMPOTENT`): without it the route retries only other methods.
//! - nginx tries each server of the group at most once per request (`peer.tries` is the
//!   number of servers, lowered to `proxy_next_upstream_tries` when that is set): total
//!   attempts are `min(servers, tries)`, servers counted from the `upstream` block that
//!   `proxy_pass` names. A `proxy_pass` to a host that is no `upstream` counts as one
//!   server, and then nothing is retried.
//!
//! Simplified: a host name that resolves to several addresses counts as one server;
//! locations are tried exact first, then `^~` prefixes, regexes in file order, then plain
//! prefixes, longest first (nginx checks regexes only after finding the longest prefix,
//! which this order gives except when a shorter `^~` prefix would win); `include` is not
//! followed; `if` blocks are not read. nginx does not honour `Retry-After`.

use super::format::{DocsRow, Fix, FormatSpec, RetryAfter};
use super::k8s::{RETRY_AFTER, built_in};
use super::names::Name;
use super::values::{bad_value, push_signals};
use super::{
    Format, ImportFile, Importer, Layer, PathMatch, Position, RegexEngine, Route, RouteMatch,
    StringMatch,
};
use crate::error::InputError;
use crate::input::policy::{Duration, PolicyObject, Signal, Spanned};
use crate::input::source::nginx::ROOT_KEY;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

pub(in crate::analysis::layers) mod settings;
#[cfg(test)]
mod tests;

pub(in crate::analysis::layers) use settings::Settings;

const NOTE_DEFAULT_NEXT: &str = "built-in default of NGINX: proxy_next_upstream error timeout";
const NOTE_ONE_SERVER: &str =
    "NGINX tries each server of the group once: `proxy_pass` names a single server";
const NOTE_READ_TIMEOUT: &str = "built-in default of NGINX: proxy_read_timeout 60s";
const NOTE_ANSWERED: &str = "NGINX answers this location itself (no `proxy_pass`)";

/// What NGINX (`nginx.conf`) is as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "NGINX",
    position: Position::Edge,
    objects: &[],
    understood: Some("an NGINX configuration (a `*.conf` with `server` or `location` blocks)"),
    family: "NGINX",
    importer: Some(&Conf),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "NGINX `nginx.conf` (`include` is not followed)",
        position_note: "",
        read: "`server` blocks, `location` and `proxy_pass`, `upstream` servers, `proxy_next_upstream`, `_tries`, `proxy_read_timeout` (per attempt), each inherited from `http` and `server`",
        defaults: "`error timeout`; 60 s read timeout; each server of the `upstream` tried once; POST, LOCK, PATCH not retried once sent unless `non_idempotent`",
    },
    help: &[
        (
            Fix::WriteRetries,
            "remove `non_idempotent` from `proxy_next_upstream`, or write `proxy_next_upstream off;` in the location",
        ),
        (
            Fix::NonTransientStatus,
            "remove the `http_` condition from `proxy_next_upstream`",
        ),
        (
            Fix::TooManyAttempts,
            "set `proxy_next_upstream_tries` (it counts every attempt)",
        ),
        (
            Fix::Deadline,
            "NGINX has no deadline that cuts an attempt (`proxy_next_upstream_timeout` only stops further tries): lower `proxy_next_upstream_tries` or `proxy_read_timeout`",
        ),
    ],
};

/// The importer of `nginx.conf` documents.
pub struct Conf;

impl Importer for Conf {
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
        let top = children(doc.get(ROOT_KEY));
        let mut layers = Vec::new();
        // A file of `server` blocks alone (a `conf.d` file) is read as the inside of `http`.
        let mut blocks: Vec<(&[Node], Loc)> = top
            .iter()
            .enumerate()
            .filter(|(_, d)| name(d) == "http")
            .map(|(i, http)| {
                (
                    children(http.get("block")),
                    block_loc(&root.item(i, http), http),
                )
            })
            .collect();
        if blocks.is_empty() {
            blocks.push((top, root.clone()));
        }
        for (http_block, block_at) in blocks {
            let upstreams = settings::upstreams(http_block, &block_at);
            let http_settings = Settings::default().read(source, http_block, &block_at)?;
            for (j, server) in http_block.iter().enumerate() {
                if name(server) != "server" {
                    continue;
                }
                let server_at = block_at.item(j, server);
                let inner = children(server.get("block"));
                let inner_at = block_loc(&server_at, server);
                let server_settings = http_settings.read(source, inner, &inner_at)?;
                let mut routes = Vec::new();
                let context = Context {
                    file: source,
                    upstreams: &upstreams,
                };
                context.locations(inner, &inner_at, &server_settings, &mut routes, 0)?;
                routes.sort_by_key(|(rank, _)| *rank);
                let hosts = server_names(inner);
                let shown = hosts.first().map_or("server", String::as_str);
                layers.push(Layer {
                    format: Format::Nginx,
                    position: Position::Edge,
                    name: Name::of("NGINX server", shown),
                    loc: server_at,
                    hosts,
                    routes: routes.into_iter().map(|(_, r)| r).collect(),
                    budget: None,
                });
            }
        }
        Ok(layers)
    }
}

/// The directives of a block (or of the file).
pub(super) fn children(node: Option<&Node>) -> &[Node] {
    node.and_then(Node::as_seq).unwrap_or_default()
}

/// A directive's name.
pub(super) fn name(node: &Node) -> &str {
    node.get("name").and_then(Node::as_str).unwrap_or_default()
}

/// A directive's arguments.
pub(super) fn args(node: &Node) -> Vec<&str> {
    children(node.get("args"))
        .iter()
        .filter_map(Node::as_str)
        .collect()
}

/// The location of a directive's block.
fn block_loc(at: &Loc, node: &Node) -> Loc {
    let span = node.get("block").map_or(node.span, |b| b.span);
    Loc::new(at.file, format!("{}/block", at.pointer), span)
}

/// The host names a `server` serves (`server_name`), without the catch-all `_`, regexes
/// and the empty name.
fn server_names(block: &[Node]) -> Vec<String> {
    block
        .iter()
        .filter(|d| name(d) == "server_name")
        .flat_map(args)
        .filter(|n| !n.is_empty() && *n != "_" && !n.starts_with('~'))
        .map(|n| n.trim_start_matches('.').to_string())
        .collect()
}

/// The order a route takes among its server's routes (see the module's docs).
type Rank = (u8, std::cmp::Reverse<usize>, usize);

struct Context<'a> {
    file: &'a SourceFile,
    upstreams: &'a [settings::Upstream],
}

impl Context<'_> {
    /// The routes of the `location`s of a block, nested ones included.
    fn locations(
        &self,
        block: &[Node],
        at: &Loc,
        inherited: &Settings,
        out: &mut Vec<(Rank, Route)>,
        depth: usize,
    ) -> Result<(), InputError> {
        for (i, node) in block.iter().enumerate() {
            // A named location (`@fallback`) takes no request by its path: only an
            // internal redirect reaches it, so it is no route.
            let named = args(node).first().is_some_and(|a| a.starts_with('@'));
            if name(node) != "location" || named {
                continue;
            }
            let loc = at.item(i, node);
            let inner = children(node.get("block"));
            let inner_at = block_loc(&loc, node);
            let settings = inherited.read(self.file, inner, &inner_at)?;
            let (rank, path) = self.location_match(node, &loc, out.len())?;
            let route = self.route(node, &loc, path, inner, &settings);
            out.push((rank, route));
            if depth < crate::input::source::nginx::MAX_DEPTH {
                self.locations(inner, &inner_at, &settings, out, depth + 1)?;
            }
        }
        Ok(())
    }

    fn location_match(
        &self,
        node: &Node,
        loc: &Loc,
        index: usize,
    ) -> Result<(Rank, PathMatch), InputError> {
        use std::cmp::Reverse;
        let words = args(node);
        let (modifier, path) = match words.as_slice() {
            [path] => ("", *path),
            [modifier, path] => (*modifier, *path),
            _ => {
                return Err(bad_value(
                    self.file,
                    loc,
                    "`location` takes a path, or a modifier (`=`, `^~`, `~`, `~*`) and a path",
                ));
            }
        };
        let regex = |insensitive: bool| -> Result<PathMatch, InputError> {
            // nginx searches the path with PCRE; RE2 matches the whole text, so the
            // pattern is wrapped to be found anywhere in it.
            let flags = if insensitive { "(?is)" } else { "(?s)" };
            let pattern = format!("{flags}.*(?:{path}).*");
            super::values::route_regex(self.file, &pattern, loc, RegexEngine::Re2)
                .map(PathMatch::Regex)
        };
        Ok(match modifier {
            "=" => ((0, Reverse(0), index), PathMatch::Exact(path.to_string())),
            "^~" => (
                (1, Reverse(path.len()), index),
                PathMatch::Prefix(path.to_string()),
            ),
            "~" => ((2, Reverse(0), index), regex(false)?),
            "~*" => ((2, Reverse(0), index), regex(true)?),
            "" => (
                (3, Reverse(path.len()), index),
                PathMatch::Prefix(path.to_string()),
            ),
            other => {
                return Err(bad_value(
                    self.file,
                    loc,
                    format!(
                        "`{other}` is not a location modifier NGINX knows (`=`, `^~`, `~`, `~*`)"
                    ),
                ));
            }
        })
    }

    /// One location as a route.
    fn route(
        &self,
        node: &Node,
        loc: &Loc,
        path: PathMatch,
        block: &[Node],
        settings: &Settings,
    ) -> Route {
        let shown = args(node).join(" ");
        let mut route = Route {
            loc: loc.clone(),
            name: Name::of("location", &shown),
            matches: vec![RouteMatch {
                path,
                method: None,
                condition: None,
                loc: loc.clone(),
            }],
            policy: PolicyObject::default(),
            implicit: false,
            budget_only: false,
            retried_methods: None,
            unsupported: vec![RETRY_AFTER, "a retry budget"],
        };
        let pass = block
            .iter()
            .enumerate()
            .find(|(_, d)| name(d) == "proxy_pass");
        let Some((index, pass)) = pass else {
            route.policy.max_attempts = Some(built_in(1, loc, NOTE_ANSWERED).into());
            return route;
        };
        let pass_at = block_loc(loc, node).item(index, pass);
        let target = args(pass).first().copied().unwrap_or_default();
        let servers = settings::servers_of(target, self.upstreams).map(|(count, at)| {
            (
                count,
                at.noted(format!(
                    "NGINX tries each of the {count} servers of the `upstream` once per request"
                )),
            )
        });
        let servers = servers.unwrap_or_else(|| (1, pass_at.noted(NOTE_ONE_SERVER)));
        upstream_retries(&mut route, settings, servers, loc, &NGINX_NOTES);
        route
    }
}

/// How the notes on nginx's built-in defaults are worded: by NGINX itself, or by a
/// controller whose template writes the directives (ingress-nginx).
pub(in crate::analysis::layers) struct Notes {
    /// `proxy_next_upstream` when nothing writes it.
    pub next: &'static str,
    /// `proxy_read_timeout` when nothing writes it.
    pub read_timeout: &'static str,
}

const NGINX_NOTES: Notes = Notes {
    next: NOTE_DEFAULT_NEXT,
    read_timeout: NOTE_READ_TIMEOUT,
};

/// What a location that passes requests to an upstream retries, as nginx's upstream module
/// decides (see the module's docs): `servers` is how many tries the upstream allows before
/// `proxy_next_upstream_tries` lowers them (`u64::MAX` for no limit), located and noted
/// where that number comes from; defaults are located at `loc` and worded by `notes`.
pub(in crate::analysis::layers) fn upstream_retries(
    route: &mut Route,
    settings: &Settings,
    servers: (u64, Loc),
    loc: &Loc,
    notes: &Notes,
) {
    let conditions = settings.conditions(loc, notes.next);
    let off = conditions.value.iter().any(|c| c == "off");
    // nginx lowers the group's tries to `proxy_next_upstream_tries` when it is set.
    let (count, servers_at) = servers;
    let (attempts, attempts_at) = match &settings.tries {
        Some(tries) if tries.value != 0 && tries.value < count => (tries.value, tries.loc.clone()),
        _ => (count, servers_at),
    };
    let (attempts, attempts_at) = if off {
        (1, conditions.loc.clone())
    } else {
        (attempts, attempts_at)
    };
    route.policy.max_attempts =
        Some(Spanned::new(i64::try_from(attempts).unwrap_or(i64::MAX), attempts_at).into());
    let mut signals = Vec::new();
    push_signals(&mut signals, signals_of(&conditions.value), &conditions.loc);
    route.policy.retry_on = Some(Spanned::new(signals, conditions.loc.clone()).into());
    if !conditions.value.iter().any(|c| c == "non_idempotent") {
        route.retried_methods = Some(vec![StringMatch::All(
            NON_IDEMPOTENT
                .iter()
                .map(|m| StringMatch::Not(Box::new(StringMatch::Exact((*m).to_string()))))
                .collect(),
        )]);
    }
    // `proxy_next_upstream_timeout` is checked (a bad value is an error) but not read
    // as a deadline: nginx passes the request to no further server once it has
    // passed, but never cuts the attempt under way, as a deadline would.
    // `proxy_read_timeout` bounds one attempt's wait for an answer (60s unless written).
    let read = settings
        .read_timeout
        .clone()
        .unwrap_or_else(|| built_in(Duration::from_millis(60_000), loc, notes.read_timeout));
    route.policy.per_attempt_timeout = Some(read.into());
}

/// The methods nginx does not pass to the next server once sent, unless `non_idempotent`.
pub const NON_IDEMPOTENT: [&str; 3] = ["POST", "LOCK", "PATCH"];

/// The signals of `proxy_next_upstream`'s conditions.
pub fn signals_of(conditions: &[String]) -> Vec<Signal> {
    let mut out = Vec::new();
    for condition in conditions {
        match condition.as_str() {
            "error" => out.extend([Signal::ConnectFailure, Signal::Reset]),
            "timeout" => out.push(Signal::Timeout),
            "invalid_header" => out.push(Signal::Reset),
            other => {
                if let Some(code) = other.strip_prefix("http_").and_then(|c| c.parse().ok()) {
                    out.push(Signal::Status(code));
                }
            }
        }
    }
    out
}

/// The conditions `proxy_next_upstream` accepts (`ngx_http_proxy_next_upstream_masks`).
pub const CONDITIONS: [&str; 12] = [
    "error",
    "timeout",
    "invalid_header",
    "http_500",
    "http_502",
    "http_503",
    "http_504",
    "http_403",
    "http_404",
    "http_429",
    "non_idempotent",
    "off",
];

/// A `proxy_next_upstream_timeout` value: nginx's time (`10s`, `500ms`, `1m`, a bare
/// number of seconds).
pub(super) fn nginx_time(text: &str) -> Option<Duration> {
    let text = if text.bytes().all(|b| b.is_ascii_digit()) {
        format!("{text}s")
    } else {
        text.to_string()
    };
    Duration::parse(&text).ok()
}
