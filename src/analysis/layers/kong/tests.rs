//! The Kong importer's tests: a service's retries and timeouts with their places and
//! notes, the methods nginx sends again, route order and recognition.

use crate::analysis::layers::k8s::testing::{
    attempts, import_error, import_fixture, import_text, path_text, retry_on,
};
use crate::analysis::layers::test_support::{loc, note, value};
use crate::analysis::layers::{Format, Position};
use crate::input::policy::{Duration, Signal};

#[test]
fn the_fixture_reads_retries_timeouts_and_routes_longest_first() {
    let imported = import_fixture("kong/kong.yaml");
    let layers = imported.of(Format::Kong);
    assert_eq!(layers.len(), 1);
    let layer = layers[0];
    assert_eq!(layer.position, Position::Gateway);
    assert_eq!(layer.hosts, ["orders.shop.example"]);
    let names: Vec<_> = layer.routes.iter().map(|r| r.name.to_string()).collect();
    // `/reports` is longer than `/orders`; each route is its resendable methods, then all.
    assert_eq!(
        names,
        [
            "reports-export",
            "reports-export",
            "orders-api",
            "orders-api"
        ]
    );
    let reports = &layer.routes[0];
    assert_eq!(attempts(reports), 2);
    assert_eq!(
        imported.text_at(&loc(&reports.policy.max_attempts)),
        "retries: 1"
    );
    assert_eq!(
        value(&reports.policy.per_attempt_timeout),
        Duration::from_millis(120_000)
    );
    let orders = &layer.routes[2];
    // Kong/kong kong/db/schema/entities/services.lua: `retries` default = 5.
    assert_eq!(attempts(orders), 6);
    assert!(
        note(&orders.policy.max_attempts)
            .unwrap()
            .contains("5 unless written")
    );
    assert_eq!(path_text(&orders.matches[0].path), "prefix /orders");
    assert_eq!(
        imported.text_at(&loc(&orders.policy.per_attempt_timeout)),
        "read_timeout: 10000"
    );
}

#[test]
fn writes_are_sent_again_only_when_the_connection_failed() {
    let text = "_format_version: '3.0'\nservices:\n- name: s\n  url: http://s\n  routes:\n  - name: r\n    paths: [/a]\n";
    let imported = import_text(text);
    let routes = &imported.of(Format::Kong)[0].routes;
    assert_eq!(routes.len(), 2);
    let method = routes[0].matches[0].method.as_ref().unwrap();
    assert!(method.matches("GET") && !method.matches("POST"));
    assert_eq!(
        retry_on(&routes[0]),
        [Signal::ConnectFailure, Signal::Reset, Signal::Timeout]
    );
    assert!(routes[1].matches[0].method.is_none());
    assert_eq!(retry_on(&routes[1]), [Signal::ConnectFailure]);
    assert_eq!(
        value(&routes[0].policy.per_attempt_timeout),
        Duration::from_millis(60_000)
    );
    // A route for POST alone keeps the connection failures only.
    let text = text.replace("paths: [/a]", "paths: [/a]\n    methods: [POST]");
    let imported = import_text(&text);
    let routes = &imported.of(Format::Kong)[0].routes;
    assert_eq!(routes.len(), 1);
    assert_eq!(retry_on(&routes[0]), [Signal::ConnectFailure]);
}

#[test]
fn bad_values_are_located_and_other_yaml_is_not_kong() {
    let (message, at) = import_error(
        "_format_version: '3.0'\nservices:\n- name: s\n  retries: 40000\n  routes: [{paths: [/a]}]\n",
    );
    assert!(message.contains("32767"), "{message}");
    assert_eq!(at, "retries: 40000");
    let other = import_text("services:\n- name: s\n  retries: 3\n");
    assert!(other.of(Format::Kong).is_empty());
}
