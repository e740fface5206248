//! The rules of a Gateway API `HTTPRoute` in the order a request is matched against them,
//! and where the route sits (a `Gateway`, or a `Service` for GAMMA mesh routing).
//!
//! Gateway API does not try rules in file order: across an `HTTPRoute`'s rules, the match
//! with an `Exact` path wins, then the `PathPrefix` with the most characters, then one with
//! a method, then the most header matches, then the most query parameter matches; on a tie,
//! the earlier rule. `RegularExpression` paths have implementation-specific precedence;
//! they are placed after every prefix, longest first, as Istio's implementation ranks
//! them. Since precedence belongs to each match, not to its rule, a rule whose matches
//! rank apart is split into one route per run of its matches.
//!
//! A match on `headers` or `queryParams` takes only the requests that carry them; ordinary
//! traffic falls through to the next route (see [`crate::analysis::layers::bind`]).
//!
//! A `GRPCRoute`'s rules rank the same way once its matches are paths (see [`super::grpc`]),
//! as Istio ranks the routes it converts them to; a rule without matches comes last.
//!
//! Linkerd's annotations on an `HTTPRoute` use the same rules, so both read them here.

use std::cmp::Reverse;

use super::super::k8s::{self, Metadata};
use super::super::names::Name;
use super::super::values::{bad_value, field, route_regex};
use super::super::{PathMatch, Position, RegexEngine, RouteMatch, StringMatch, condition_of};
use super::grpc;
use crate::error::InputError;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The kinds of Gateway API route, which differ in what their matches test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteKind {
    /// `HTTPRoute`: path, method, headers and query parameters.
    Http,
    /// `GRPCRoute`: gRPC service and method, and headers.
    Grpc,
}

impl RouteKind {
    /// The kind of a Gateway API route object, if it is one.
    pub fn of(doc: &Node) -> Option<RouteKind> {
        if k8s::is_object(doc, super::GROUP, &["HTTPRoute"]) {
            Some(RouteKind::Http)
        } else if k8s::is_object(doc, super::GROUP, &["GRPCRoute"]) {
            Some(RouteKind::Grpc)
        } else {
            None
        }
    }

    /// The object's kind as written.
    pub fn name(self) -> &'static str {
        match self {
            RouteKind::Http => "HTTPRoute",
            RouteKind::Grpc => "GRPCRoute",
        }
    }

    fn read_match(
        self,
        file: &SourceFile,
        node: &Node,
        loc: &Loc,
    ) -> Result<(Rank, RouteMatch), InputError> {
        match self {
            RouteKind::Http => rule_match(file, node, loc),
            RouteKind::Grpc => grpc_match(file, node, loc),
        }
    }

    /// The match of a rule without `matches`: for an `HTTPRoute` the API's default, a
    /// `PathPrefix` of `/`; for a `GRPCRoute` every call.
    fn default_match(self, loc: &Loc) -> (Rank, RouteMatch) {
        let (path, method) = match self {
            RouteKind::Http => (PathMatch::SegmentPrefix("/".into()), None),
            RouteKind::Grpc => (PathMatch::Any, Some(grpc::post())),
        };
        let length = match &path {
            PathMatch::SegmentPrefix(prefix) => prefix.len(),
            _ => 0,
        };
        let (rank, path) = path_rank(path, length);
        let route_match = RouteMatch {
            path,
            method,
            condition: None,
            loc: loc.clone(),
        };
        (
            Rank {
                no_method: true,
                ..rank
            },
            route_match,
        )
    }
}

/// A route of an `HTTPRoute`: one rule, or the matches of a rule that rank together.
pub struct RuleRoute<'a> {
    /// The rule (its `retry`, `timeouts`).
    pub rule: &'a Node,
    /// The rule's entry in `rules`.
    pub loc: Loc,
    /// The rule's `name` or `rules[1]`, with `matches[..]` when the rule is split.
    pub name: Name,
    pub matches: Vec<RouteMatch>,
}

/// How a match ranks: lower is tried first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Rank {
    /// `Exact`, then `PathPrefix`, then `RegularExpression`, then every path.
    path_kind: u8,
    /// Longer paths first.
    path_length: Reverse<usize>,
    /// A match with a method first.
    no_method: bool,
    headers: Reverse<usize>,
    query_params: Reverse<usize>,
}

/// One match of one rule, ranked.
struct Ranked {
    rank: Rank,
    rule: usize,
    index: usize,
    route_match: RouteMatch,
}

/// The rules of `spec.rules`, in the order Gateway API matches requests against them.
pub fn ordered_rules<'a>(
    file: &SourceFile,
    spec: &'a Node,
    spec_loc: &Loc,
    kind: RouteKind,
) -> Result<Vec<RuleRoute<'a>>, InputError> {
    let Some((rules, rules_at)) = field(spec, spec_loc, "rules") else {
        return Ok(Vec::new());
    };
    let rules = k8s::list(file, rules, &rules_at, "rules")?;
    let mut entries = Vec::with_capacity(rules.len());
    let mut ranked = Vec::new();
    for (rule_index, rule) in rules.iter().enumerate() {
        let loc = rules_at.item(rule_index, rule);
        k8s::mapping(file, rule, &loc, "rules[]")?;
        let name = k8s::entry_name(file, rule, &loc, || format!("rules[{rule_index}]"))?;
        let matches = match field(rule, &loc, "matches") {
            Some((matches, at)) if !matches.as_seq().is_some_and(<[Node]>::is_empty) => {
                k8s::list(file, matches, &at, "matches")?
                    .iter()
                    .enumerate()
                    .map(|(index, node)| kind.read_match(file, node, &at.item(index, node)))
                    .collect::<Result<Vec<_>, _>>()?
            }
            _ => vec![kind.default_match(&loc)],
        };
        for (index, (rank, route_match)) in matches.into_iter().enumerate() {
            ranked.push(Ranked {
                rank,
                rule: rule_index,
                index,
                route_match,
            });
        }
        entries.push((rule, loc, name));
    }
    // Stable: on equal ranks the earlier rule, and the earlier match, comes first.
    ranked.sort_by_key(|r| r.rank);
    let mut groups: Vec<(usize, Vec<usize>, Vec<RouteMatch>)> = Vec::new();
    for entry in ranked {
        match groups.last_mut() {
            Some((rule, indices, matches)) if *rule == entry.rule => {
                indices.push(entry.index);
                matches.push(entry.route_match);
            }
            _ => groups.push((entry.rule, vec![entry.index], vec![entry.route_match])),
        }
    }
    let mut pieces = vec![0usize; entries.len()];
    for (rule, _, _) in &groups {
        pieces[*rule] += 1;
    }
    Ok(groups
        .into_iter()
        .map(|(rule, indices, matches)| {
            let (node, loc, name) = &entries[rule];
            let name = if pieces[rule] > 1 {
                let list: Vec<String> = indices.iter().map(usize::to_string).collect();
                Name::new(&format!("{name} matches[{}]", list.join(",")))
            } else {
                name.clone()
            };
            RuleRoute {
                rule: node,
                loc: loc.clone(),
                name,
                matches,
            }
        })
        .collect())
}

/// The rank of a path match of `length` characters, before what else the match tests.
fn path_rank(path: PathMatch, length: usize) -> (Rank, PathMatch) {
    let path_kind = match &path {
        PathMatch::Exact(_) => 0,
        PathMatch::Prefix(_) | PathMatch::SegmentPrefix(_) => 1,
        PathMatch::Regex(_) => 2,
        PathMatch::Any => 3,
    };
    let rank = Rank {
        path_kind,
        path_length: Reverse(length),
        no_method: false,
        headers: Reverse(0),
        query_params: Reverse(0),
    };
    (rank, path)
}

/// One `GRPCRouteMatch`: its service and method as a path, its `headers` as conditions.
fn grpc_match(file: &SourceFile, node: &Node, loc: &Loc) -> Result<(Rank, RouteMatch), InputError> {
    k8s::mapping(file, node, loc, "matches[]")?;
    let (path, length) = grpc::method_path(file, node, loc)?;
    let (rank, path) = path_rank(path, length);
    let headers = named_conditions(file, node, loc, "headers", "header")?;
    let rank = Rank {
        no_method: true,
        headers: Reverse(headers.len()),
        ..rank
    };
    Ok((
        rank,
        RouteMatch {
            path,
            method: Some(grpc::post()),
            condition: condition_of(&headers),
            loc: loc.clone(),
        },
    ))
}

/// One `matches[]` entry: its path and method, ranked by everything it tests.
fn rule_match(file: &SourceFile, node: &Node, loc: &Loc) -> Result<(Rank, RouteMatch), InputError> {
    k8s::mapping(file, node, loc, "matches[]")?;
    let (rank, path) = match field(node, loc, "path") {
        None => path_rank(PathMatch::SegmentPrefix("/".into()), 1),
        Some((path, at)) => read_path(file, path, &at)?,
    };
    let method = match field(node, loc, "method") {
        None => None,
        Some((method, at)) => Some(StringMatch::Exact(
            k8s::text(file, method, &at, "method")?.to_string(),
        )),
    };
    let headers = named_conditions(file, node, loc, "headers", "header")?;
    let query_params = named_conditions(file, node, loc, "queryParams", "query parameter")?;
    let rank = Rank {
        no_method: method.is_none(),
        headers: Reverse(headers.len()),
        query_params: Reverse(query_params.len()),
        ..rank
    };
    Ok((
        rank,
        RouteMatch {
            path,
            method,
            condition: condition_of(&[headers, query_params].concat()),
            loc: loc.clone(),
        },
    ))
}

/// The `headers` or `queryParams` (`key`) a match tests, each as `{what} NAME` for
/// messages: a match with any takes only the requests that carry them.
pub fn named_conditions(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    key: &str,
    what: &str,
) -> Result<Vec<String>, InputError> {
    let Some((list, at)) = field(node, loc, key) else {
        return Ok(Vec::new());
    };
    Ok(k8s::list(file, list, &at, key)?
        .iter()
        .map(|item| {
            let name = item.get("name").and_then(Node::scalar_text).unwrap_or("?");
            format!("{what} {name}")
        })
        .collect())
}

/// A `path` match: `type` (`PathPrefix` unless written) and `value` (`/` unless written).
fn read_path(file: &SourceFile, node: &Node, loc: &Loc) -> Result<(Rank, PathMatch), InputError> {
    k8s::mapping(file, node, loc, "path")?;
    let value = match field(node, loc, "value") {
        Some((value, at)) => (k8s::text(file, value, &at, "value")?, at),
        None => ("/", loc.clone()),
    };
    let kind = match field(node, loc, "type") {
        Some((kind, at)) => (k8s::text(file, kind, &at, "type")?, at),
        None => ("PathPrefix", loc.clone()),
    };
    let (text, value_at) = value;
    let length = text.chars().count();
    Ok(match kind.0 {
        "Exact" => path_rank(PathMatch::Exact(text.to_string()), length),
        "PathPrefix" => path_rank(PathMatch::SegmentPrefix(text.to_string()), length),
        "RegularExpression" => path_rank(
            PathMatch::Regex(route_regex(file, text, &value_at, RegexEngine::Re2)?),
            length,
        ),
        other => {
            return Err(bad_value(
                file,
                &kind.1,
                format!(
                    "`{other}` is not a path match type: write Exact, PathPrefix or RegularExpression"
                ),
            ));
        }
    })
}

/// The hosts of an `HTTPRoute` or `GRPCRoute` and where it sits: `spec.hostnames`, plus the names of the
/// `Service`s among its `parentRefs` (GAMMA: then the route is the mesh's, not a gateway's).
pub fn parents(
    file: &SourceFile,
    spec: &Node,
    spec_loc: &Loc,
    meta: &Metadata,
) -> Result<(Vec<String>, Position), InputError> {
    let hosts = match field(spec, spec_loc, "hostnames") {
        Some((node, at)) => k8s::host_list(file, node, &at)?,
        None => Vec::new(),
    };
    let services = match field(spec, spec_loc, "parentRefs") {
        Some((node, at)) => {
            let references = k8s::list(file, node, &at, "parentRefs")?;
            k8s::referenced_service_hosts(file, references, &at, meta.namespace.as_deref())?
        }
        None => Vec::new(),
    };
    if services.is_empty() {
        return Ok((hosts, Position::Gateway));
    }
    Ok((
        k8s::unique_hosts(hosts.into_iter().chain(services)),
        Position::Mesh,
    ))
}
