//! The Envoy importer: route configuration, as a static bootstrap, an RDS
//! `RouteConfiguration` or an xDS discovery response holding some, in YAML or JSON.
//!
//! Each virtual host is a layer at the edge whose hosts are its `domains`; each of its
//! `routes[]` is a route, in order, since Envoy takes the first that matches. `matching`
//! reads what a route matches, `retry` what its retry policy does in retrylint's model.
//! A route's policy is its own `retry_policy`, else its virtual host's: Envoy never merges
//! the two. In a bootstrap, the `retry_budget` of the cluster a route sends to is the
//! layer's budget.
//!
//! Envoy reads protobuf messages, so every field is looked up under its proto name and its
//! lowerCamelCase JSON name ([`proto_field`]); fields retrylint has no use for are
//! ignored.

mod matching;
mod retry;
#[cfg(test)]
mod tests;

use super::format::{DocsRow, FormatSpec, RetryAfter};
use super::names::Name;
use super::values::{bad_value, list, mapping, proto_field, text};
use super::{Format, ImportFile, Importer, Layer, Route};
use crate::analysis::layers::format::Fix;
use crate::error::InputError;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// What Envoy route configuration is as a format: recognised by its shape.
pub static SPEC: FormatSpec = FormatSpec {
    label: "Envoy route configuration",
    position: super::Position::Edge,
    objects: &[],
    understood: Some(
        "Envoy route configuration (a bootstrap with `route_config`, or a `RouteConfiguration`)",
    ),
    family: "Envoy",
    importer: Some(&RouteConfig),
    retry_after: RetryAfter::Can,
    budget: true,
    retries_off: None,
    docs: DocsRow {
        format: "Envoy bootstrap `route_config`, RDS `RouteConfiguration` (YAML or JSON)",
        position_note: "",
        read: "virtual host and route `retry_policy`, route `timeout`, `retriable_request_headers` on `:method`, cluster `retry_budget`",
        defaults: "1 retry; 25 ms base, 10× cap; 15 s route timeout including retries",
    },
    help: &[
        (
            Fix::Deadline,
            "set the route's `timeout` (0s turns it off): it includes every retry",
        ),
        (
            Fix::WriteRetries,
            "retry writes only on `connect-failure,refused-stream,reset-before-request`, or limit retries to safe methods with `retriable_request_headers` on `:method`",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from `retriable_status_codes`",
        ),
        (Fix::TooManyAttempts, "lower `num_retries`"),
        (
            Fix::AttemptsPastDeadline,
            "lower `num_retries` or `per_try_timeout`, or raise the route's `timeout`",
        ),
        (
            Fix::RetryAfterIgnored,
            "add `rate_limited_retry_back_off: {reset_headers: [{name: Retry-After, format: SECONDS}], max_interval: 30s}` to the retry_policy",
        ),
        (
            Fix::RetryAfterUnbounded,
            "set `rate_limited_retry_back_off.max_interval` below the route's timeout",
        ),
        (
            Fix::NoWait,
            "set `retry_back_off.base_interval` (and `max_interval`)",
        ),
        (
            Fix::Backoff,
            "set `retry_back_off.base_interval` (and `max_interval`)",
        ),
    ],
};

/// Reads Envoy route configuration.
pub struct RouteConfig;

impl Importer for RouteConfig {
    fn recognises(&self, doc: &Node) -> bool {
        !route_configurations(doc, &Loc::new(0, "", doc.span)).is_empty()
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let clusters = bootstrap_clusters(doc, loc);
        let mut layers = Vec::new();
        for (config, config_loc) in route_configurations(doc, loc) {
            let Some((hosts, hosts_loc)) = proto_field(config, &config_loc, "virtual_hosts") else {
                continue;
            };
            let items = list(file.file, hosts, &hosts_loc, "virtual_hosts")?;
            for (index, host) in items.iter().enumerate() {
                let host_loc = hosts_loc.item(index, host);
                layers.push(virtual_host(file.file, host, &host_loc, index, &clusters)?);
            }
        }
        Ok(layers)
    }
}

/// The `RouteConfiguration`s a document holds, with their locations: the document itself
/// (RDS), the `route_config` of the HTTP connection managers of a static bootstrap, or
/// the `resources` of an xDS discovery response. Anything else is not looked into.
fn route_configurations<'a>(doc: &'a Node, loc: &Loc) -> Vec<(&'a Node, Loc)> {
    if is_route_configuration(doc) {
        return vec![(doc, loc.clone())];
    }
    let mut found = Vec::new();
    if let Some((resources, resources_loc)) = proto_field(doc, loc, "resources") {
        for (index, item) in resources.as_seq().unwrap_or_default().iter().enumerate() {
            let item_loc = resources_loc.item(index, item);
            // A `Resource` wrapper (delta xDS) holds the message under `resource`.
            let (item, item_loc) = match proto_field(item, &item_loc, "resource") {
                Some(wrapped) => wrapped,
                None => (item, item_loc),
            };
            if is_route_configuration(item) {
                found.push((item, item_loc));
            }
        }
    }
    for (listener, listener_loc) in static_items(doc, loc, "listeners") {
        let mut chains = items(listener, &listener_loc, "filter_chains");
        chains.extend(proto_field(listener, &listener_loc, "default_filter_chain"));
        for (chain, chain_loc) in chains {
            for (filter, filter_loc) in items(chain, &chain_loc, "filters") {
                let Some((typed, typed_loc)) = proto_field(filter, &filter_loc, "typed_config")
                else {
                    continue;
                };
                if let Some(config) = proto_field(typed, &typed_loc, "route_config") {
                    found.push(config);
                }
            }
        }
    }
    found
}

/// Whether a message is a `RouteConfiguration`: by its `@type`, or by its virtual hosts.
fn is_route_configuration(node: &Node) -> bool {
    let typed = node
        .get("@type")
        .and_then(Node::as_str)
        .is_some_and(|t| t.ends_with("RouteConfiguration"));
    let has_hosts = ["virtual_hosts", "virtualHosts"]
        .iter()
        .any(|k| node.get(k).is_some_and(|h| h.as_seq().is_some()));
    node.as_map().is_some() && (typed || has_hosts)
}

/// The items of a list field, with their locations; nothing when it is not a list.
fn items<'a>(node: &'a Node, loc: &Loc, name: &str) -> Vec<(&'a Node, Loc)> {
    let Some((value, value_loc)) = proto_field(node, loc, name) else {
        return Vec::new();
    };
    let list = value.as_seq().unwrap_or_default();
    list.iter()
        .enumerate()
        .map(|(i, item)| (item, value_loc.item(i, item)))
        .collect()
}

/// The items of `static_resources.<name>` in a bootstrap.
fn static_items<'a>(doc: &'a Node, loc: &Loc, name: &str) -> Vec<(&'a Node, Loc)> {
    match proto_field(doc, loc, "static_resources") {
        Some((resources, resources_loc)) => items(resources, &resources_loc, name),
        None => Vec::new(),
    }
}

/// The clusters of a static bootstrap, by name.
struct Clusters<'a> {
    by_name: Vec<(&'a str, &'a Node, Loc)>,
}

fn bootstrap_clusters<'a>(doc: &'a Node, loc: &Loc) -> Clusters<'a> {
    let by_name = static_items(doc, loc, "clusters")
        .into_iter()
        .filter_map(|(cluster, cluster_loc)| {
            let name = cluster.get("name").and_then(Node::as_str)?;
            Some((name, cluster, cluster_loc))
        })
        .collect();
    Clusters { by_name }
}

impl Clusters<'_> {
    /// Where the cluster `name` sets a `retry_budget` for requests of `priority`
    /// (`DEFAULT` unless the route says `HIGH`).
    fn retry_budget(&self, name: &str, priority: &str) -> Option<Loc> {
        let (_, cluster, loc) = self.by_name.iter().find(|(n, _, _)| *n == name)?;
        let (breakers, breakers_loc) = proto_field(cluster, loc, "circuit_breakers")?;
        items(breakers, &breakers_loc, "thresholds")
            .into_iter()
            .filter(|(threshold, _)| {
                threshold
                    .get("priority")
                    .and_then(Node::scalar_text)
                    .map_or("DEFAULT", priority_name)
                    .eq_ignore_ascii_case(priority)
            })
            .find_map(|(threshold, threshold_loc)| {
                proto_field(threshold, &threshold_loc, "retry_budget").map(|(_, at)| at)
            })
    }
}

/// A `RoutingPriority` by name, also when protobuf JSON writes its number.
fn priority_name(written: &str) -> &str {
    match written {
        "0" => "DEFAULT",
        "1" => "HIGH",
        name => name,
    }
}

/// One virtual host as a layer.
fn virtual_host(
    file: &SourceFile,
    host: &Node,
    loc: &Loc,
    index: usize,
    clusters: &Clusters<'_>,
) -> Result<Layer, InputError> {
    mapping(file, host, loc, "virtual_hosts[]")?;
    let (name, layer_loc) = match proto_field(host, loc, "name") {
        Some((name, name_loc)) => (text(file, name, &name_loc, "name")?.to_string(), name_loc),
        None => (format!("virtual_hosts[{index}]"), loc.clone()),
    };
    let mut hosts = Vec::new();
    if let Some((domains, domains_loc)) = proto_field(host, loc, "domains") {
        for (i, domain) in list(file, domains, &domains_loc, "domains")?
            .iter()
            .enumerate()
        {
            hosts.push(text(file, domain, &domains_loc.item(i, domain), "domains[]")?.to_string());
        }
    }
    let host_policy = match proto_field(host, loc, "retry_policy") {
        Some((policy, policy_loc)) => Some(retry::read(file, policy, &policy_loc)?),
        None => None,
    };
    let mut routes = Vec::new();
    let mut budgets = Vec::new();
    if let Some((list_node, list_loc)) = proto_field(host, loc, "routes") {
        for (i, item) in list(file, list_node, &list_loc, "routes")?
            .iter()
            .enumerate()
        {
            let (route, budget) = route(
                file,
                item,
                &list_loc.item(i, item),
                i,
                host_policy.as_ref(),
                clusters,
            )?;
            routes.push(route);
            budgets.push(budget);
        }
    }
    Ok(Layer {
        format: Format::Envoy,
        position: Format::Envoy.default_position(),
        name: Name::of("Envoy virtual host", &name),
        loc: layer_loc,
        hosts,
        budget: layer_budget(&routes, &budgets),
        routes,
    })
}

/// The layer's budget: a budget is per cluster, a layer's routes may send to several, so
/// the layer has one only when every route that retries sends to a cluster with one (the
/// first such budget stands for them). When no route retries, any budget found counts.
fn layer_budget(routes: &[Route], budgets: &[Option<Loc>]) -> Option<Loc> {
    let retrying: Vec<&Option<Loc>> = routes
        .iter()
        .zip(budgets)
        .filter(|(route, _)| {
            route
                .policy
                .max_attempts
                .as_ref()
                .is_some_and(|m| m.value > 1)
        })
        .map(|(_, budget)| budget)
        .collect();
    if retrying.is_empty() {
        return budgets.iter().flatten().next().cloned();
    }
    retrying
        .iter()
        .all(|b| b.is_some())
        .then(|| retrying[0].clone())
        .flatten()
}

/// One `routes[]` entry, and the retry budget of the cluster(s) it sends to.
fn route(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    index: usize,
    host_policy: Option<&retry::Retries>,
    clusters: &Clusters<'_>,
) -> Result<(Route, Option<Loc>), InputError> {
    mapping(file, node, loc, "routes[]")?;
    let name = match proto_field(node, loc, "name") {
        Some((name, name_loc)) => Name::new(text(file, name, &name_loc, "name")?),
        None => Name::new(&format!("routes[{index}]")),
    };
    let Some((match_node, match_loc)) = proto_field(node, loc, "match") else {
        return Err(bad_value(
            file,
            loc,
            "this route has no `match`: Envoy refuses a route without one",
        ));
    };
    let matches = matching::route_match(file, match_node, &match_loc)?;
    let (retries, budget) = if let Some((action, action_loc)) = proto_field(node, loc, "route") {
        mapping(file, action, &action_loc, "route")?;
        let mut retries = match proto_field(action, &action_loc, "retry_policy") {
            Some((policy, policy_loc)) => retry::read(file, policy, &policy_loc)?,
            None => match host_policy {
                Some(inherited) => inherited.clone(),
                None => retry::Retries::none(&action_loc),
            },
        };
        retries.policy.deadline = retry::route_timeout(file, action, &action_loc)?.map(Into::into);
        (retries, route_budget(file, action, &action_loc, clusters)?)
    } else {
        let answered = [
            "redirect",
            "direct_response",
            "filter_action",
            "non_forwarding_action",
        ]
        .iter()
        .find_map(|key| proto_field(node, loc, key));
        let Some((_, action_loc)) = answered else {
            return Err(bad_value(
                file,
                loc,
                "this route has no action (`route`, `redirect` or `direct_response`): Envoy refuses it",
            ));
        };
        (retry::Retries::answered_by_envoy(&action_loc), None)
    };
    let route = Route {
        loc: loc.clone(),
        name,
        matches,
        implicit: retries.implicit,
        policy: retries.policy,
        budget_only: false,
        retried_methods: retries.retried_methods,
        unsupported: retries.unsupported,
    };
    Ok((route, budget))
}

/// The retry budget of the cluster a route action sends to; with `weighted_clusters`, only
/// when every cluster has one. A cluster named by a request header is unknown: no budget.
fn route_budget(
    file: &SourceFile,
    action: &Node,
    loc: &Loc,
    clusters: &Clusters<'_>,
) -> Result<Option<Loc>, InputError> {
    let priority = match proto_field(action, loc, "priority") {
        Some((p, p_loc)) => priority_name(text(file, p, &p_loc, "priority")?),
        None => "DEFAULT",
    };
    let mut names = Vec::new();
    if let Some((cluster, cluster_loc)) = proto_field(action, loc, "cluster") {
        names.push(text(file, cluster, &cluster_loc, "cluster")?);
    } else if let Some((weighted, weighted_loc)) = proto_field(action, loc, "weighted_clusters") {
        for (item, item_loc) in items(weighted, &weighted_loc, "clusters") {
            if let Some((name, name_loc)) = proto_field(item, &item_loc, "name") {
                names.push(text(file, name, &name_loc, "name")?);
            }
        }
    }
    if names.is_empty() {
        return Ok(None);
    }
    let budgets: Option<Vec<Loc>> = names
        .iter()
        .map(|name| clusters.retry_budget(name, priority))
        .collect();
    Ok(budgets.and_then(|b| b.into_iter().next()))
}
