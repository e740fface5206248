//! The Envoy importer's tests: documents and virtual hosts here; retry policies, route
//! matches and the fixtures in the submodules.

mod fixtures;
mod matches;
mod policy;

use std::sync::Arc;

use super::RouteConfig;
use crate::analysis::layers::bind::{Budget, Service, path_matches};
use crate::analysis::layers::test_support::{api, fixture_layers, layers, note, operation, value};
use crate::analysis::layers::{Importer, Layer, PathMatch, Position, Route, StringMatch};
use crate::error::InputError;
use crate::input::policy::{Duration, GrpcCode, Jitter, Signal};
use crate::input::source::{ParseLimits, SourceFile};
use crate::location::Loc;

/// The layers of an Envoy file, or the error reading it.
fn read(text: &str) -> Result<(Vec<Layer>, Arc<SourceFile>), InputError> {
    let name = if text.trim_start().starts_with('{') {
        "routes.json"
    } else {
        "envoy.yaml"
    };
    layers(name, text)
}

fn read_ok(text: &str) -> (Vec<Layer>, Arc<SourceFile>) {
    read(text).unwrap_or_else(|e| panic!("{e}"))
}

/// What a location underlines.
fn written<'a>(file: &'a SourceFile, loc: &Loc) -> &'a str {
    &file.text[loc.span.range()]
}

/// The error reading `text`, and what it underlines.
fn error(text: &str) -> (String, String) {
    let Err(e) = read(text) else {
        panic!("no error for:\n{text}")
    };
    let site = e.site.as_ref().unwrap_or_else(|| panic!("no site: {e}"));
    (e.message.clone(), site.text[site.span.range()].to_string())
}

fn ms(n: i64) -> Duration {
    Duration::from_millis(n)
}

fn signals(route: &Route) -> Vec<Signal> {
    value(&route.policy.retry_on)
        .into_iter()
        .map(|s| s.value)
        .collect()
}

/// An RDS document with one virtual host and the given routes (YAML lines, indented as
/// list items of `routes`), and an optional virtual host `retry_policy`.
fn rds(host_policy: &str, routes: &str) -> String {
    format!(
        "virtual_hosts:\n- name: api\n  domains: [api.example.com]\n{host_policy}  routes:\n{routes}"
    )
}

fn recognised(text: &str) -> bool {
    let file = SourceFile::parse_documents("t.yaml".into(), text.into(), ParseLimits::default())
        .unwrap_or_else(|(_, e)| panic!("{}", e.message));
    file.root
        .as_seq()
        .unwrap_or_default()
        .iter()
        .any(|doc| RouteConfig.recognises(doc))
}

#[test]
fn recognises_bootstraps_route_configurations_and_discovery_responses() {
    let bootstrap = "static_resources:\n  listeners:\n  - filter_chains:\n    - filters:\n      - typed_config:\n          route_config: { virtual_hosts: [] }\n";
    assert!(recognised(bootstrap));
    assert!(recognised("name: r\nvirtual_hosts: []\n"));
    assert!(recognised(
        r#"{"@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "name": "r"}"#
    ));
    assert!(recognised(
        r#"{"versionInfo": "1", "resources": [{"@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "virtualHosts": []}]}"#
    ));
    assert!(recognised(
        "resources:\n- resource: { '@type': envoy.config.route.v3.RouteConfiguration }\n"
    ));
    // A bootstrap that takes its routes over RDS has nothing to read; neither has a
    // Kubernetes object or a kustomization.
    assert!(!recognised(
        "static_resources:\n  listeners:\n  - filter_chains:\n    - filters:\n      - typed_config: { rds: { route_config_name: r } }\n"
    ));
    assert!(!recognised(
        "apiVersion: v1\nkind: Service\nmetadata: { name: x }\n"
    ));
    assert!(!recognised("resources: [deployment.yaml, service.yaml]\n"));
    assert!(!recognised("version: 1\n"));
}

#[test]
fn a_virtual_host_is_an_edge_layer_of_its_domains_with_routes_in_order() {
    let (layers, file) = read_ok(&rds(
        "",
        "  - name: first\n    match: { prefix: /a }\n    route: { cluster: c }\n  - match: { path: /b }\n    route: { cluster: c }\n",
    ));
    let [layer] = &layers[..] else {
        panic!("{layers:?}")
    };
    assert_eq!(layer.name, "Envoy virtual host api");
    assert_eq!(layer.position, Position::Edge);
    assert_eq!(layer.hosts, ["api.example.com"]);
    assert_eq!(written(&file, &layer.loc), "name: api");
    let names: Vec<&str> = layer.routes.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["first", "routes[1]"]);
    assert!(layer.budget.is_none());
}

#[test]
fn without_a_retry_policy_a_route_makes_one_attempt_within_the_default_timeout() {
    let (layers, file) = read_ok(&rds(
        "",
        "  - match: { prefix: / }\n    route: { cluster: c }\n",
    ));
    let route = &layers[0].routes[0];
    assert_eq!(value(&route.policy.max_attempts), 1);
    assert_eq!(
        note(&route.policy.max_attempts).as_deref(),
        Some("Envoy retries only with a retry_policy")
    );
    assert!(route.implicit);
    assert_eq!(value(&route.policy.deadline), ms(15_000));
    assert_eq!(
        note(&route.policy.deadline).as_deref(),
        Some("Envoy's default route timeout, which includes retries")
    );
    let at = &route
        .policy
        .deadline
        .as_ref()
        .map_or_else(|| panic!(), |d| d.loc.clone());
    assert_eq!(written(&file, at), "route");
    assert!(route.policy.retry_on.is_none());
}

#[test]
fn the_virtual_host_policy_applies_unless_a_route_has_its_own_and_they_never_merge() {
    let host = "  retry_policy:\n    retry_on: 5xx,reset\n    num_retries: 2\n";
    let (layers, file) = read_ok(&rds(
        host,
        "  - match: { prefix: /own }\n    route:\n      cluster: c\n      retry_policy: { retry_on: connect-failure }\n  - match: { prefix: / }\n    route: { cluster: c, timeout: 3s }\n",
    ));
    let (own, inherited) = (&layers[0].routes[0], &layers[0].routes[1]);
    // The route's own policy: no num_retries, so Envoy's default, not the host's 2.
    assert_eq!(value(&own.policy.max_attempts), 2);
    assert_eq!(
        note(&own.policy.max_attempts).as_deref(),
        Some("Envoy's default num_retries: 1")
    );
    assert_eq!(signals(own), [Signal::ConnectFailure]);
    // The inherited policy is located in the virtual host; the deadline is the route's.
    assert_eq!(value(&inherited.policy.max_attempts), 3);
    let at = inherited
        .policy
        .max_attempts
        .as_ref()
        .map_or_else(|| panic!(), |m| m.loc.clone());
    assert_eq!(written(&file, &at), "num_retries: 2");
    assert_eq!(
        signals(inherited),
        [
            Signal::Class(5),
            Signal::Reset,
            Signal::ConnectFailure,
            Signal::RefusedStream
        ]
    );
    assert_eq!(value(&inherited.policy.deadline), ms(3_000));
    assert!(!inherited.implicit);
}

#[test]
fn redirects_and_direct_responses_forward_nothing() {
    let (layers, _) = read_ok(&rds(
        "  retry_policy: { retry_on: 5xx }\n",
        "  - match: { prefix: /old }\n    redirect: { path_redirect: /new }\n",
    ));
    let route = &layers[0].routes[0];
    assert_eq!(value(&route.policy.max_attempts), 1);
    assert!(
        note(&route.policy.max_attempts).is_some_and(|n| n.contains("answers this route itself"))
    );
    assert!(route.policy.deadline.is_none());
}

#[test]
fn protobuf_json_names_are_read_as_well() {
    let (layers, _) = read_ok(
        r#"{"versionInfo": "7", "typeUrl": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
 "resources": [{"@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "name": "r",
  "virtualHosts": [{"name": "api", "domains": ["*"], "routes": [{"match": {"prefix": "/"},
   "route": {"cluster": "c", "retryPolicy": {"retryOn": "gateway-error", "numRetries": 4, "perTryTimeout": "1s"}}}]}]}]}"#,
    );
    let route = &layers[0].routes[0];
    assert_eq!(value(&route.policy.max_attempts), 5);
    assert_eq!(value(&route.policy.per_attempt_timeout), ms(1_000));
    assert!(signals(route).contains(&Signal::Status(502)));
}
