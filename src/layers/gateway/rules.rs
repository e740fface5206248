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
//! traffic falls through to the next route (see [`crate::layers::bind`]).
//!
//! Linkerd's annotations on an `HTTPRoute` use the same rules, so both read them here.

use std::cmp::Reverse;

use super::super::k8s::{self, Metadata};
use super::super::names::Name;
use super::super::values::{bad_value, field, route_regex};
use super::super::{PathMatch, Position, RegexEngine, RouteMatch, StringMatch, condition_of};
use crate::error::InputError;
use crate::location::Loc;
use crate::source::{Node, SourceFile};

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
    /// `Exact`, then `PathPrefix`, then `RegularExpression`.
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
                    .map(|(index, node)| rule_match(file, node, &at.item(index, node)))
                    .collect::<Result<Vec<_>, _>>()?
            }
            _ => vec![default_match(&loc)],
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

/// A rank for a path match of `kind` (0 exact, 1 prefix, 2 regex) and `length`.
fn path_rank(path: PathMatch, kind: u8, length: usize) -> (Rank, PathMatch) {
    let rank = Rank {
        path_kind: kind,
        path_length: Reverse(length),
        no_method: false,
        headers: Reverse(0),
        query_params: Reverse(0),
    };
    (rank, path)
}

/// The match of a rule without `matches`: the API's default, a `PathPrefix` of `/`.
fn default_match(loc: &Loc) -> (Rank, RouteMatch) {
    let (rank, path) = path_rank(PathMatch::SegmentPrefix("/".into()), 1, 1);
    let rank = Rank {
        no_method: true,
        ..rank
    };
    let route_match = RouteMatch {
        path,
        method: None,
        condition: None,
        loc: loc.clone(),
    };
    (rank, route_match)
}

/// One `matches[]` entry: its path and method, ranked by everything it tests.
fn rule_match(file: &SourceFile, node: &Node, loc: &Loc) -> Result<(Rank, RouteMatch), InputError> {
    k8s::mapping(file, node, loc, "matches[]")?;
    let (rank, path) = match field(node, loc, "path") {
        None => path_rank(PathMatch::SegmentPrefix("/".into()), 1, 1),
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
        "Exact" => path_rank(PathMatch::Exact(text.to_string()), 0, length),
        "PathPrefix" => path_rank(PathMatch::SegmentPrefix(text.to_string()), 1, length),
        "RegularExpression" => path_rank(
            PathMatch::Regex(route_regex(file, text, &value_at, RegexEngine::Re2)?),
            2,
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

/// The hosts of an `HTTPRoute` and where it sits: `spec.hostnames`, plus the names of the
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
