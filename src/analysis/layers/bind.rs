//! Binding: which of a description's operations each layer's routes take.
//!
//! A layer applies to the service when one of its hosts names it: the hosts of the
//! description's `servers`, the `service.hosts` of the policy, or `--host` (the in-cluster
//! name a mesh knows it by). A layer with no hosts, or a service whose names are unknown,
//! applies everywhere. Within a layer, the first route whose match takes a request to the
//! operation (`METHOD`, base path + path template) is the one that retries it. A match that
//! also asks for a header, a query parameter or another attribute takes only the requests
//! that carry it, and the others fall through: such a route is bound as an alternative,
//! together with each later one up to the first that takes ordinary requests.

use std::sync::Arc;

use foldhash::{HashSet, HashSetExt};

use super::hosts::HostIndex;
use super::{Layer, PathMatch, RouteMatch, RouteRegex, StringMatch};
use crate::input::model::Operation;

/// The names and base paths a request to the service can carry.
#[derive(Debug, Clone, Default)]
pub struct Service {
    /// Host names, lower case, without ports.
    pub hosts: Vec<String>,
    /// Base paths the operations' templates are appended to (`/v1`); always holds `""`.
    pub base_paths: Vec<String>,
    /// The hosts, for looking a layer's hosts up.
    index: HostIndex,
}

impl Service {
    pub fn new(
        hosts: impl IntoIterator<Item = String>,
        base_paths: impl IntoIterator<Item = String>,
    ) -> Service {
        let mut service = Service::default();
        let mut seen = HashSet::new();
        for host in hosts {
            let host = host.trim().to_ascii_lowercase();
            if !host.is_empty() && seen.insert(host.clone()) {
                service.hosts.push(host);
            }
        }
        service.index = HostIndex::new(&service.hosts);
        let mut seen = HashSet::new();
        for base in std::iter::once(String::new()).chain(base_paths) {
            let base = base.trim_end_matches('/').to_string();
            if seen.insert(base.clone()) {
                service.base_paths.push(base);
            }
        }
        service
    }

    /// The service of a description: its server URLs' hosts and base paths, plus host
    /// names given by the user (`service.hosts`, `--host`).
    pub fn of(servers: &[String], hosts: impl IntoIterator<Item = String>) -> Service {
        let mut names: Vec<String> = hosts.into_iter().collect();
        let mut bases = Vec::new();
        for url in servers {
            let (host, path) = split_url(url);
            if let Some(host) = host.filter(|h| !h.contains('{') && !h.is_empty()) {
                names.push(host.split(':').next().unwrap_or_default().to_string());
            }
            if !path.contains('{') {
                bases.push(path.to_string());
            }
        }
        Service::new(names, bases)
    }

    /// Whether a layer serves this service: one of its hosts names one of the service's
    /// (each host looked up, not compared with every name).
    pub fn served_by(&self, layer: &Layer) -> bool {
        layer.hosts.is_empty()
            || self.hosts.is_empty()
            || layer.hosts.iter().any(|h| self.index.named_by(h))
    }

    /// The routes of `layer` that take requests to `op`: the first route that takes them
    /// whatever else they carry, preceded by each earlier route that takes only some of
    /// them (a match on a header, a query parameter, ...), with the condition it asks. Each
    /// comparison is paid for from `budget` before it is made.
    pub fn routes_for(
        &self,
        layer: &Layer,
        op: &Operation,
        budget: &mut Budget,
    ) -> Result<Vec<Binding>, Overrun> {
        let mut bound = Vec::new();
        for (route, entry) in layer.routes.iter().enumerate() {
            // A route that takes every request ends the search: only alternatives cost.
            if entry.matches.is_empty() {
                bound.push(Binding::ordinary(route));
                return Ok(bound);
            }
            let mut condition = None;
            for m in &entry.matches {
                if !self.takes(m, op, budget)? {
                    continue;
                }
                match &m.condition {
                    None => {
                        bound.push(Binding::ordinary(route));
                        return Ok(bound);
                    }
                    Some(asked) => {
                        condition.get_or_insert_with(|| asked.clone());
                    }
                }
            }
            if let Some(condition) = condition {
                bound.push(Binding {
                    route,
                    condition: Some(condition),
                });
            }
        }
        Ok(bound)
    }

    /// The index of the first route of `layer` that takes some requests to `op`.
    pub fn route_for(
        &self,
        layer: &Layer,
        op: &Operation,
        budget: &mut Budget,
    ) -> Result<Option<usize>, Overrun> {
        Ok(self.routes_for(layer, op, budget)?.first().map(|b| b.route))
    }

    /// Whether one match takes requests to `op`: its method, then its path after each
    /// base path.
    pub fn takes(
        &self,
        m: &RouteMatch,
        op: &Operation,
        budget: &mut Budget,
    ) -> Result<bool, Overrun> {
        if let Some(method) = &m.method {
            budget.spend(string_match_cost(method))?;
            if !method.matches(op.method.as_str()) {
                return Ok(false);
            }
        }
        for base in &self.base_paths {
            budget.spend(path_match_cost(&m.path, base.len() + op.path.len()))?;
            if path_matches(&m.path, base, op.request_path()) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// A route of a layer that takes requests to an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The route's index in its layer.
    pub route: usize,
    /// What a request must carry for the route to take it (`header end-user`); `None`
    /// when it takes ordinary requests.
    pub condition: Option<Arc<str>>,
}

impl Binding {
    fn ordinary(route: usize) -> Binding {
        Binding {
            route,
            condition: None,
        }
    }
}

/// What binding may spend, in steps: a step is one comparison of a short path or method
/// (a segment-by-segment match), and a regular expression costs more, its compilation
/// most ([`REGEX_STEPS`], [`COMPILE_STEPS`]).
#[derive(Debug)]
pub struct Budget {
    left: usize,
}

/// Binding ran out of its [`Budget`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overrun;

impl Budget {
    pub fn new(steps: usize) -> Budget {
        Budget { left: steps }
    }

    pub fn spend(&mut self, steps: usize) -> Result<(), Overrun> {
        self.left = self.left.checked_sub(steps).ok_or(Overrun)?;
        Ok(())
    }
}

/// One comparison.
const STEP: usize = 1;
/// Running a route's regular expression once.
pub const REGEX_STEPS: usize = 8;
/// Compiling a route's regular expression, the first time one is run.
pub const COMPILE_STEPS: usize = 2_000;
/// Path bytes that one step covers: a longer path costs more.
const BYTES_PER_STEP: usize = 64;

/// What matching a path of `len` bytes costs: a comparison, or the regular expression run
/// on each sample value.
fn path_match_cost(path: &PathMatch, len: usize) -> usize {
    let per_run = STEP + len / BYTES_PER_STEP;
    match path {
        PathMatch::Regex(regex) => regex_cost(regex) + SAMPLES.len() * REGEX_STEPS * per_run,
        _ => per_run,
    }
}

/// What matching a method costs.
fn string_match_cost(m: &StringMatch) -> usize {
    match m {
        StringMatch::Exact(_) | StringMatch::Prefix(_) => STEP,
        StringMatch::Regex(regex) => regex_cost(regex) + REGEX_STEPS,
        StringMatch::Not(inner) => string_match_cost(inner),
        StringMatch::All(all) => all.iter().map(string_match_cost).sum(),
    }
}

/// The compilation of a regular expression, when it is still to be paid.
fn regex_cost(regex: &RouteRegex) -> usize {
    if regex.is_compiled() {
        0
    } else {
        COMPILE_STEPS
    }
}

/// A server URL's host (when it names one) and path: `https://api.example.com/v1` →
/// (`api.example.com`, `/v1`); `/v1` → (none, `/v1`).
fn split_url(url: &str) -> (Option<&str>, &str) {
    let rest = match url.find("//") {
        Some(at)
            if url[..at].bytes().all(|b| {
                b.is_ascii_alphanumeric() || b == b':' || b == b'+' || b == b'.' || b == b'-'
            }) =>
        {
            &url[at + 2..]
        }
        _ => return (None, url.split(['?', '#']).next().unwrap_or_default()),
    };
    let (host, path) = rest.find('/').map_or((rest, ""), |i| rest.split_at(i));
    (
        Some(host),
        path.split(['?', '#']).next().unwrap_or_default(),
    )
}

/// Whether a layer's host (`*.example.com`, `payments`, `payments.prod.svc.cluster.local`)
/// names `name`. A short Kubernetes name matches its fully qualified forms. What
/// [`HostIndex`] answers for many names at once.
pub fn host_matches(host: &str, name: &str) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let host = host.split(':').next().unwrap_or_default();
    if host == "*" || host == name {
        return true;
    }
    if let Some(suffix) = host.strip_prefix('*') {
        return suffix.starts_with('.') && name.ends_with(suffix);
    }
    let in_cluster = |longer: &str, shorter: &str| {
        longer.strip_prefix(shorter).is_some_and(|rest| {
            rest.starts_with('.')
                && (longer.ends_with(".svc.cluster.local") || longer.ends_with(".svc"))
        })
    };
    in_cluster(host, name) || in_cluster(name, host)
}

/// Whether a path match takes requests to `base` + `template` (`/v1` + `/payments/{id}`).
pub fn path_matches(path: &PathMatch, base: &str, template: &str) -> bool {
    // Segment by segment, without building the full path: binding tries every operation
    // against every route.
    let segments = || {
        base.split('/').chain(
            template
                .split('/')
                .skip(usize::from(template.starts_with('/'))),
        )
    };
    match path {
        PathMatch::Any => true,
        PathMatch::Exact(exact) => {
            let mut wanted = exact.split('/');
            let mut written = segments();
            loop {
                match (wanted.next(), written.next()) {
                    (None, None) => return true,
                    (Some(w), Some(t)) if segment_matches(t, w) => {}
                    _ => return false,
                }
            }
        }
        PathMatch::Prefix(prefix) => {
            // Whole segments, then the last one as the start of a segment.
            let mut written = segments();
            let mut wanted = prefix.split('/').peekable();
            while let Some(w) = wanted.next() {
                let Some(t) = written.next() else {
                    return false;
                };
                let ok = if wanted.peek().is_some() {
                    segment_matches(t, w)
                } else {
                    segment_starts_with(t, w)
                };
                if !ok {
                    return false;
                }
            }
            true
        }
        PathMatch::SegmentPrefix(prefix) => {
            let trimmed = prefix.trim_end_matches('/');
            let mut written = segments();
            trimmed.is_empty()
                || trimmed
                    .split('/')
                    .all(|w| written.next().is_some_and(|t| segment_matches(t, w)))
        }
        PathMatch::Regex(regex) => {
            let full = format!("{base}{template}");
            SAMPLES
                .iter()
                .any(|sample| regex.is_match(&fill_parameters(&full, sample)))
        }
    }
}

/// Values tried for path parameters against a route's regular expression: a number, a
/// word, and a UUID, the shapes identifiers take.
const SAMPLES: [&str; 3] = ["1", "abc", "123e4567-e89b-12d3-a456-426614174000"];

/// Whether a template segment (`{id}`, `v1`, `{name}.json`) matches a concrete one: the
/// text before the first parameter and after the last must be there, with something
/// between them.
fn segment_matches(template: &str, concrete: &str) -> bool {
    let (Some(open), Some(close)) = (template.find('{'), template.rfind('}')) else {
        return template == concrete;
    };
    let (before, after) = (&template[..open], &template[close + 1..]);
    concrete.len() > before.len() + after.len()
        && concrete.starts_with(before)
        && concrete.ends_with(after)
}

/// Whether some value of a template segment starts with `prefix`.
fn segment_starts_with(template: &str, prefix: &str) -> bool {
    match template.find('{') {
        None => template.starts_with(prefix),
        Some(at) => {
            let literal = &template[..at];
            if prefix.len() <= literal.len() {
                literal.starts_with(prefix)
            } else {
                prefix.starts_with(literal)
            }
        }
    }
}

/// The template with every `{parameter}` replaced by `value`.
fn fill_parameters(template: &str, value: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        if let Some(close) = rest[open..].find('}') {
            out.push_str(value);
            rest = &rest[open + close + 1..];
        } else {
            rest = &rest[open..];
            break;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn regex(text: &str) -> PathMatch {
        PathMatch::Regex(Arc::new(
            crate::analysis::layers::RouteRegex::new(
                text,
                crate::analysis::layers::RegexEngine::Re2,
            )
            .unwrap_or_else(|e| panic!("{e}")),
        ))
    }

    #[test]
    fn paths_match_templates() {
        let exact = PathMatch::Exact("/payments/42".into());
        assert!(path_matches(&exact, "", "/payments/{id}"));
        assert!(!path_matches(&exact, "", "/payments"));
        let prefix = PathMatch::Prefix("/pay".into());
        assert!(path_matches(&prefix, "", "/payments/{id}"));
        assert!(!path_matches(&prefix, "", "/refunds"));
        let segments = PathMatch::SegmentPrefix("/payments".into());
        assert!(path_matches(&segments, "", "/payments/{id}"));
        assert!(path_matches(&segments, "", "/payments"));
        assert!(!path_matches(
            &PathMatch::SegmentPrefix("/pay".into()),
            "",
            "/payments"
        ));
        assert!(path_matches(
            &PathMatch::Prefix("/v1/pay".into()),
            "/v1",
            "/payments"
        ));
        assert!(path_matches(&regex(r"/books/\d+"), "", "/books/{id}"));
        assert!(!path_matches(&regex(r"/books/\d+"), "", "/authors/{id}"));
        assert!(path_matches(
            &PathMatch::Prefix("/".into()),
            "",
            "/anything"
        ));
    }

    #[test]
    fn the_budget_pays_for_each_base_path_and_each_compilation() {
        let plain = PathMatch::Prefix("/a".into());
        assert_eq!(path_match_cost(&plain, 10), STEP);
        assert_eq!(path_match_cost(&plain, 10 + 2 * BYTES_PER_STEP), 3 * STEP);
        let regex = regex(r"/b/\d+");
        let first = path_match_cost(&regex, 10);
        assert_eq!(first, COMPILE_STEPS + SAMPLES.len() * REGEX_STEPS);
        assert!(path_matches(&regex, "", "/b/{id}"));
        assert_eq!(path_match_cost(&regex, 10), first - COMPILE_STEPS);
        let mut budget = Budget::new(2);
        assert_eq!(budget.spend(2), Ok(()));
        assert_eq!(budget.spend(1), Err(Overrun));
    }

    #[test]
    fn services_come_from_server_urls() {
        let service = Service::of(
            &[
                "https://API.example.com:8443/v1/".into(),
                "/v2".into(),
                "https://{region}.example.com/v3".into(),
            ],
            ["payments".to_string()],
        );
        assert_eq!(service.hosts, ["payments", "api.example.com"]);
        assert_eq!(service.base_paths, ["", "/v1", "/v2", "/v3"]);
    }

    #[test]
    fn hosts_match_short_and_wildcard_names() {
        assert!(host_matches("payments", "payments.prod.svc.cluster.local"));
        assert!(host_matches("payments.prod.svc.cluster.local", "payments"));
        assert!(host_matches("*.example.com", "api.example.com"));
        assert!(!host_matches("*.example.com", "example.com"));
        assert!(host_matches("API.example.com:443", "api.example.com"));
        assert!(!host_matches("payments", "payments.example.com"));
        assert!(host_matches("*", "anything"));
    }
}
