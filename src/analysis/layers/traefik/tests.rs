//! The Traefik importer's tests: the retry middleware's values, places and notes, the
//! methods whose statuses are retried, rules, router order and recognition.

use crate::analysis::layers::k8s::testing::{
    attempts, import_error, import_fixture, import_text, path_text, retry_on,
};
use crate::analysis::layers::test_support::{loc, note, value};
use crate::analysis::layers::{Format, Position};
use crate::input::policy::{Duration, Signal};

/// A dynamic configuration with one router `api` (`rule`) using middleware `r` (`retry`,
/// YAML lines at its indentation).
fn dynamic(rule: &str, retry: &str) -> String {
    format!(
        "http:\n  routers:\n    api:\n      rule: {rule}\n      middlewares: [r@file]\n      service: s\n  middlewares:\n    r:\n      retry:\n{retry}"
    )
}

#[test]
fn the_fixture_reads_attempts_statuses_and_backoff_with_places() {
    let imported = import_fixture("traefik/dynamic.yaml");
    let layers = imported.of(Format::Traefik);
    assert_eq!(layers.len(), 1);
    let layer = layers[0];
    assert_eq!(layer.position, Position::Gateway);
    assert_eq!(layer.hosts, ["orders.shop.example"]);
    // `orders-api` has the longer rule: it is tried first.
    let names: Vec<_> = layer.routes.iter().map(|r| r.name.to_string()).collect();
    assert_eq!(names, ["orders-api", "orders-health"]);
    let api = &layer.routes[0];
    assert_eq!(attempts(api), 4);
    assert_eq!(
        imported.text_at(&loc(&api.policy.max_attempts)),
        "attempts: 4"
    );
    assert_eq!(path_text(&api.matches[0].path), "prefix /orders");
    assert_eq!(
        retry_on(api),
        [
            Signal::ConnectFailure,
            Signal::ResetBeforeRequest,
            Signal::Status(502),
            Signal::Status(503),
            Signal::Status(504),
        ]
    );
    let signals = &api.policy.retry_on.as_ref().unwrap().value;
    assert!(signals[0].loc.note_text().unwrap().contains("v3.7"));
    assert_eq!(imported.text_at(&signals[2].loc), "\"502-504\"");
    // The first wait is `initialInterval`; the multiplier 2^(1/3) takes the last to twice it.
    let multiplier: f64 = value(&api.policy.backoff_multiplier);
    assert!((multiplier - 2f64.powf(1.0 / 3.0)).abs() < 1e-9);
    assert_eq!(value(&api.policy.backoff_cap), Duration::from_millis(200));
    assert_eq!(
        imported.text_at(&loc(&api.policy.backoff_base)),
        "initialInterval: 100ms"
    );
    let health = &layer.routes[1];
    assert_eq!(attempts(health), 1);
    assert!(health.implicit);
    assert!(
        note(&health.policy.max_attempts)
            .unwrap()
            .contains("does not retry")
    );
}

#[test]
fn statuses_are_retried_for_writes_only_with_retry_non_idempotent_method() {
    // traefik/traefik pkg/middlewares/retry/retry.go: `isIdempotent := req.Method !=
    // http.MethodPost && req.Method != http.MethodPatch && req.Method != "LOCK"`.
    let text = dynamic(
        "PathPrefix(`/a`)",
        "        attempts: 3\n        status: [\"500-599\"]\n",
    );
    let imported = import_text(&text);
    let routes = &imported.of(Format::Traefik)[0].routes;
    assert_eq!(routes.len(), 2);
    assert!(routes[0].matches[0].method.as_ref().unwrap().matches("GET"));
    assert!(
        !routes[0].matches[0]
            .method
            .as_ref()
            .unwrap()
            .matches("POST")
    );
    assert!(retry_on(&routes[0]).contains(&Signal::Class(5)));
    assert!(routes[1].matches[0].method.is_none());
    assert_eq!(
        retry_on(&routes[1]),
        [Signal::ConnectFailure, Signal::ResetBeforeRequest]
    );
    // A router for POST alone keeps only the network errors.
    let text = dynamic(
        "PathPrefix(`/a`) && Method(`POST`)",
        "        attempts: 3\n        status: [\"503\"]\n",
    );
    let imported = import_text(&text);
    let routes = &imported.of(Format::Traefik)[0].routes;
    assert_eq!(routes.len(), 1);
    assert!(!retry_on(&routes[0]).contains(&Signal::Status(503)));
    // With `retryNonIdempotentMethod`, one route for every method.
    let text = dynamic(
        "PathPrefix(`/a`)",
        "        attempts: 3\n        status: [\"503\"]\n        retryNonIdempotentMethod: true\n",
    );
    let imported = import_text(&text);
    let routes = &imported.of(Format::Traefik)[0].routes;
    assert_eq!(routes.len(), 1);
    assert!(retry_on(&routes[0]).contains(&Signal::Status(503)));
}

#[test]
fn without_initial_interval_it_retries_at_once_and_network_errors_can_be_off() {
    let text = dynamic(
        "Path(`/a`)",
        "        attempts: 2\n        disableRetryOnNetworkError: true\n        status: [\"503\"]\n        retryNonIdempotentMethod: true\n",
    );
    let imported = import_text(&text);
    let route = &imported.of(Format::Traefik)[0].routes[0];
    assert_eq!(path_text(&route.matches[0].path), "exact /a");
    assert_eq!(retry_on(route), [Signal::Status(503)]);
    assert_eq!(value(&route.policy.backoff_base), Duration::ZERO);
    assert!(
        note(&route.policy.backoff_base)
            .unwrap()
            .contains("at once")
    );
}

#[test]
fn rules_with_other_matchers_are_conditions_and_alternatives_are_matches() {
    let text = dynamic(
        "\"Path(`/a`) || PathPrefix(`/b`) && Header(`X-Canary`, `1`)\"",
        "        attempts: 2\n",
    );
    let imported = import_text(&text);
    let layer = imported.of(Format::Traefik)[0];
    assert!(layer.hosts.is_empty());
    let matches = &layer.routes[0].matches;
    assert_eq!(matches.len(), 2);
    assert!(matches[0].condition.is_none());
    assert!(matches[1].condition.as_deref().unwrap().contains("Header"));
}

#[test]
fn bad_values_are_located_and_other_yaml_is_not_traefik() {
    let (message, at) = import_error(&dynamic("Path(`/a`)", "        attempts: 0\n"));
    assert!(message.contains("attempts"), "{message}");
    assert_eq!(at, "attempts: 0");
    let (_, at) = import_error(&dynamic(
        "Path(`/a`)",
        "        attempts: 2\n        status: [\"5xx\"]\n",
    ));
    assert_eq!(at, "\"5xx\"");
    let other = import_text("http:\n  routers: {}\nversion: 1\n");
    assert!(other.of(Format::Traefik).is_empty());
}
