//! Retry layers: every place that retries a request on its way to the backend.
//!
//! A client (retrylint's policy, or the SDK's `x-speakeasy-retries`), an edge proxy
//! (Envoy), a gateway (Gateway API `HTTPRoute`, an Istio ingress `VirtualService`) and a
//! mesh sidecar (Istio, Linkerd) each retry on their own. An importer turns one format's
//! file into [`Layer`]s: routes, each with a policy in retrylint's model (every field
//! located in the layer's file, or noted as the format's built-in default) and the
//! matches that [`bind`] them to the description's operations.
//!
//! Each format declares what it is beside its importer ([`format::FormatSpec`]), and
//! [`formats!`](format::formats) lists them once. Read [`detect`] for how a file's format
//! is recognised, [`bind`] for which operations a
//! route covers, and [`chain`] for what the layers add up to per operation.

pub mod bind;
pub mod chain;
mod client_policy;
pub mod detect;
pub mod envoy;
pub mod envoy_gateway;
pub mod format;
pub mod gateway;
pub mod grpc;
pub mod haproxy;
pub mod hosts;
pub mod ingress_nginx;
pub mod istio;
pub mod k8s;
mod k8s_list;
pub mod kong;
pub mod linkerd;
pub mod names;
pub mod nginx;
pub mod route_regex;
pub mod settings;
pub mod speakeasy;
#[cfg(test)]
pub(crate) mod test_support;
pub mod traefik;
pub mod values;

pub use format::{FormatSpec, KindsUnderstood};
pub use route_regex::{RegexEngine, RouteRegex};

use std::sync::Arc;

use self::names::Name;
use crate::input::load::FileId;
use crate::input::policy::PolicyObject;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

pub use crate::input::policy::Position;

format::formats! {
    Policy => client_policy::SPEC,
    Speakeasy => speakeasy::SPEC,
    Istio => istio::SPEC,
    GatewayApi => gateway::SPEC,
    LinkerdProfile => linkerd::PROFILE_SPEC,
    LinkerdAnnotations => linkerd::ANNOTATIONS_SPEC,
    Envoy => envoy::SPEC,
    EnvoyGateway => envoy_gateway::SPEC,
    Traefik => traefik::SPEC,
    TraefikCrd => traefik::crd::SPEC,
    TraefikLabels => traefik::labels::SPEC,
    Kong => kong::SPEC,
    KongIngressController => kong::ingress_controller::SPEC,
    Nginx => nginx::SPEC,
    IngressNginx => ingress_nginx::SPEC,
    Haproxy => haproxy::SPEC,
    Grpc => grpc::SPEC,
}

/// One layer: the routes of one object (a `VirtualService`, an `HTTPRoute`, a
/// `ServiceProfile`, an Envoy virtual host, the SDK's settings).
#[derive(Debug, Clone)]
pub struct Layer {
    pub format: Format,
    pub position: Position,
    /// Who is who in messages: `Istio VirtualService payments`, the object's name cut
    /// when it is long ([`names`]).
    pub name: Name,
    /// The object (its `metadata.name`, or its first line).
    pub loc: Loc,
    /// The host names the object serves; empty means every host.
    pub hosts: Vec<String>,
    /// In the order the format tries them: the first route that matches a request wins.
    pub routes: Vec<Route>,
    /// A retry budget the layer has (Envoy `retry_budget`, Linkerd `retryBudget`).
    pub budget: Option<Loc>,
}

/// One route of a layer and what it does with retries.
#[derive(Debug, Clone)]
pub struct Route {
    /// The route entry (`http[1]`, `rules[0]`, `routes[2]`).
    pub loc: Loc,
    /// A short name for messages: the route's name (cut when it is long), or `http[1]`.
    pub name: Name,
    /// Alternatives: the route takes a request that any of them matches; empty means
    /// every request.
    pub matches: Vec<RouteMatch>,
    /// What the route retries, in retrylint's model: `maxAttempts` (total attempts),
    /// `deadline`, `perAttemptTimeout`, `backoff.*`, `retryOn`, `retryAfter.*`. Each field is
    /// located where the layer writes it, or noted as the format's default.
    pub policy: PolicyObject,
    /// The policy is the format's implicit default: the route says nothing about retries
    /// (an Istio route without `retries`).
    pub implicit: bool,
    /// Retries are limited only by a budget, never by a count per request (Linkerd
    /// `isRetryable`): `policy.maxAttempts` is [`UNBOUNDED_ATTEMPTS`].
    pub budget_only: bool,
    /// The methods the layer retries (Envoy `retriable_request_headers` on `:method`);
    /// `None` means every method.
    pub retried_methods: Option<Vec<StringMatch>>,
    /// What this route's format cannot say, e.g. `Retry-After`: never guessed.
    pub unsupported: Vec<&'static str>,
}

impl Route {
    /// Whether the route retries requests of this method (Envoy's method guard).
    pub fn retries_method(&self, method: &str) -> bool {
        self.retried_methods
            .as_ref()
            .is_none_or(|methods| methods.iter().any(|m| m.matches(method)))
    }

    /// Every regular expression the route matches with (paths, methods, the method
    /// guard), for them to be compiled before binding.
    pub fn regexes(&self) -> Vec<&RouteRegex> {
        let mut regexes = Vec::new();
        for m in &self.matches {
            if let PathMatch::Regex(regex) = &m.path {
                regexes.push(&**regex);
            }
            if let Some(method) = &m.method {
                method.collect_regexes(&mut regexes);
            }
        }
        for method in self.retried_methods.iter().flatten() {
            method.collect_regexes(&mut regexes);
        }
        regexes
    }
}

/// What stands for "no limit per request" in `maxAttempts`.
pub const UNBOUNDED_ATTEMPTS: i64 = i64::MAX;

/// A match on a request: path and method, and whether it asks more of the request.
#[derive(Debug, Clone)]
pub struct RouteMatch {
    pub path: PathMatch,
    /// `None` matches every method.
    pub method: Option<StringMatch>,
    /// What else the match asks of a request (a header, a query parameter, the calling
    /// workload), for messages: `header end-user`. A match with a condition takes only the
    /// requests that meet it; ordinary traffic falls through to the next route (see
    /// [`bind`]). `None` when the path and the method decide alone.
    pub condition: Option<Arc<str>>,
    pub loc: Loc,
}

/// The methods nginx (and so Kong) and Traefik do not send again once a request has been
/// written to the backend (nginx `proxy_next_upstream`, 1.9.13; traefik/traefik
/// `pkg/middlewares/retry/retry.go`).
pub const NOT_RESENT: [&str; 3] = ["POST", "PATCH", "LOCK"];

impl RouteMatch {
    /// The match narrowed to the methods other than [`NOT_RESENT`], or `None` when it
    /// takes only those.
    pub fn resendable_only(&self) -> Option<RouteMatch> {
        let others = StringMatch::All(
            NOT_RESENT
                .iter()
                .map(|n| StringMatch::Not(Box::new(StringMatch::Exact((*n).into()))))
                .collect(),
        );
        let method = match &self.method {
            Some(StringMatch::Exact(written)) if NOT_RESENT.contains(&written.as_str()) => {
                return None;
            }
            Some(exact @ StringMatch::Exact(_)) => exact.clone(),
            Some(other) => StringMatch::All(vec![other.clone(), others]),
            None => others,
        };
        Some(RouteMatch {
            method: Some(method),
            ..self.clone()
        })
    }
}

/// The condition of a match that asks `conditions` of a request (`header end-user`,
/// `query parameter v`), or `None` when it asks nothing besides path and method. Header
/// and parameter names come from files anyone can change and every finding about the
/// route repeats them: each is cut, and only the first few are listed (see [`names`]).
pub fn condition_of(conditions: &[String]) -> Option<Arc<str>> {
    const SHOWN: usize = 3;
    if conditions.is_empty() {
        return None;
    }
    let mut parts: Vec<String> = conditions
        .iter()
        .take(SHOWN)
        .map(|c| names::shown(c).into_owned())
        .collect();
    if conditions.len() > SHOWN {
        parts.push(format!("{} more", conditions.len() - SHOWN));
    }
    Some(Arc::from(parts.join(" and ")))
}

/// How a route matches the request path.
#[derive(Debug, Clone)]
pub enum PathMatch {
    Any,
    Exact(String),
    /// A plain string prefix (Istio, Envoy `prefix`).
    Prefix(String),
    /// A prefix of whole segments (Gateway API `PathPrefix`, Envoy `path_separated_prefix`).
    SegmentPrefix(String),
    Regex(Arc<RouteRegex>),
}

/// How a route matches a string such as the method.
#[derive(Debug, Clone)]
pub enum StringMatch {
    Exact(String),
    Prefix(String),
    Regex(Arc<RouteRegex>),
    /// Every string the inner match does not take (Envoy `invert_match`).
    Not(Box<StringMatch>),
    /// The strings every inner match takes (several Envoy matchers on one header).
    All(Vec<StringMatch>),
}

impl StringMatch {
    pub fn matches(&self, text: &str) -> bool {
        match self {
            StringMatch::Exact(e) => e == text,
            StringMatch::Prefix(p) => text.starts_with(p.as_str()),
            StringMatch::Regex(r) => r.is_match(text),
            StringMatch::Not(inner) => !inner.matches(text),
            StringMatch::All(all) => all.iter().all(|m| m.matches(text)),
        }
    }

    /// Adds the regular expressions of this match to `out`.
    fn collect_regexes<'a>(&'a self, out: &mut Vec<&'a RouteRegex>) {
        match self {
            StringMatch::Exact(_) | StringMatch::Prefix(_) => {}
            StringMatch::Regex(regex) => out.push(regex),
            StringMatch::Not(inner) => inner.collect_regexes(out),
            StringMatch::All(all) => all.iter().for_each(|m| m.collect_regexes(out)),
        }
    }
}

/// One file an importer reads, with the id its locations use.
pub struct ImportFile<'a> {
    pub file: &'a SourceFile,
    pub id: FileId,
    /// The Gateway API `Gateway`s and `GatewayClass`es of every `-p` file, which say who
    /// implements a route.
    pub parents: &'a gateway::Parents,
}

impl ImportFile<'_> {
    /// The location of the whole document `index` of a multi-document file.
    pub fn document_loc(&self, index: usize, doc: &Node) -> Loc {
        Loc::new(self.id, format!("/{index}"), doc.span)
    }
}

/// A format that turns one document of a file into layers.
pub trait Importer: Sync {
    /// Whether the document is this format's (by `apiVersion`/`kind`, or by its shape).
    fn recognises(&self, doc: &Node) -> bool;

    /// The layers in the document, or an input error located in the file.
    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, crate::error::InputError>;
}

#[cfg(test)]
mod tests {
    use super::{StringMatch, condition_of};

    #[test]
    fn a_condition_is_bounded_whatever_the_file_writes() {
        assert_eq!(condition_of(&[]), None);
        assert_eq!(
            condition_of(&["header end-user".into()]).as_deref(),
            Some("header end-user")
        );
        let long = format!("header {}", "x".repeat(100_000));
        let many: Vec<String> = (0..1_000).map(|_| long.clone()).collect();
        let shown = condition_of(&many).unwrap();
        assert!(shown.len() < 400, "{}", shown.len());
        assert!(shown.ends_with("and 997 more"), "{shown}");
    }

    #[test]
    fn inverted_and_combined_matches() {
        let get = StringMatch::Exact("GET".into());
        let not_get = StringMatch::Not(Box::new(get.clone()));
        assert!(!not_get.matches("GET") && not_get.matches("POST"));
        let not_head = StringMatch::Not(Box::new(StringMatch::Exact("HEAD".into())));
        let writes = StringMatch::All(vec![not_get, not_head]);
        assert!(writes.matches("POST") && writes.matches("PURGE"));
        assert!(!writes.matches("GET") && !writes.matches("HEAD"));
    }
}
