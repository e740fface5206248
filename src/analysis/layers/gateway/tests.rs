//! The Gateway API importer's tests: rules in precedence order, retries, timeouts, budgets.

use crate::analysis::layers::k8s::testing::{
    attempts, import_error, import_fixture, import_text, path_text, retry_on,
};
use crate::analysis::layers::{Format, Position, StringMatch};
use crate::input::policy::{Duration, Signal};

fn http_route(spec: &str) -> String {
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: books\n  namespace: shop\nspec:\n{spec}"
    )
}

#[test]
fn a_retry_stanza_counts_retries_and_adds_connection_errors() {
    let imported = import_text(&http_route(
        "  rules:\n  - timeouts: {request: 4s, backendRequest: 1s}\n    retry:\n      attempts: 3\n      codes: [503, 504]\n      backoff: 50ms\n",
    ));
    let layer = &imported.layers[0];
    assert_eq!(layer.format, Format::GatewayApi);
    assert_eq!(layer.name, "Gateway API HTTPRoute books");
    assert_eq!(layer.position, Position::Gateway);
    assert!(layer.hosts.is_empty());
    let route = &layer.routes[0];
    assert_eq!(route.name, "rules[0]");
    assert_eq!(attempts(route), 4);
    let max = route.policy.max_attempts.as_ref().unwrap();
    assert_eq!(imported.text_at(&max.loc), "attempts: 3");
    assert_eq!(imported.line_of(&max.loc), 10);
    assert_eq!(
        retry_on(route),
        [
            Signal::Status(503),
            Signal::Status(504),
            Signal::ConnectFailure,
            Signal::RefusedStream,
            Signal::Timeout,
        ]
    );
    let signals = &route.policy.retry_on.as_ref().unwrap().value;
    assert_eq!(imported.text_at(&signals[0].loc), "503");
    assert!(signals[2].loc.note_text().unwrap().contains("GEP-1731"));
    assert_eq!(imported.text_at(&signals[4].loc), "backendRequest: 1s");
    let p = &route.policy;
    assert_eq!(
        p.deadline.as_ref().unwrap().value,
        Duration::from_millis(4000)
    );
    assert_eq!(
        p.per_attempt_timeout.as_ref().unwrap().value,
        Duration::from_millis(1000)
    );
    // The first retry waits up to the written base: base × 2 in retrylint's model.
    assert_eq!(
        p.backoff_base.as_ref().unwrap().value,
        Duration::from_millis(25)
    );
    assert!(p.backoff_cap.is_none() && p.jitter.is_none());
    assert_eq!(route.unsupported, ["Retry-After"]);
    assert!(
        route
            .matches
            .iter()
            .all(|m| path_text(&m.path) == "segments /")
    );
}

#[test]
fn attempts_unwritten_zero_or_no_retry_at_all() {
    let imported = import_text(&http_route(
        "  rules:\n  - retry: {codes: [503]}\n    matches: [{path: {type: Exact, value: /a}}]\n  - retry: {attempts: 0, codes: [503]}\n    matches: [{path: {type: Exact, value: /b}}]\n  - matches: [{path: {type: Exact, value: /c}}]\n",
    ));
    let routes = &imported.layers[0].routes;
    assert_eq!(attempts(&routes[0]), 3);
    let unwritten = routes[0].policy.max_attempts.as_ref().unwrap();
    assert!(
        unwritten
            .loc
            .note
            .as_deref()
            .unwrap()
            .contains("implementation-specific")
    );
    assert_eq!(attempts(&routes[1]), 1);
    assert!(routes[1].policy.retry_on.is_none());
    assert_eq!(attempts(&routes[2]), 1);
    let none = routes[2].policy.max_attempts.as_ref().unwrap();
    assert!(
        none.loc
            .note
            .as_deref()
            .unwrap()
            .contains("without `retry`")
    );
    assert!(!routes.iter().any(|r| r.implicit));
}

#[test]
fn rules_are_ordered_by_precedence_and_split_when_their_matches_rank_apart() {
    let imported = import_text(&http_route(
        "  rules:
  - name: catch-all
  - name: mixed
    matches:
    - path: {type: PathPrefix, value: /books}
    - path: {type: Exact, value: /books/featured}
  - name: regex
    matches: [{path: {type: RegularExpression, value: '/books/[0-9]+'}}]
  - name: longer
    matches: [{path: {value: /books/archive}}]
  - name: with-method
    matches: [{path: {value: /books}, method: POST}]
",
    ));
    let names: Vec<&str> = imported.layers[0]
        .routes
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "mixed matches[1]",
            "longer",
            "with-method",
            "mixed matches[0]",
            "catch-all",
            "regex"
        ]
    );
    let routes = &imported.layers[0].routes;
    assert_eq!(
        path_text(&routes[0].matches[0].path),
        "exact /books/featured"
    );
    assert!(matches!(&routes[2].matches[0].method, Some(StringMatch::Exact(m)) if m == "POST"));
    assert_eq!(path_text(&routes[4].matches[0].path), "segments /");
    assert_eq!(routes[4].matches[0].loc, routes[4].loc);
}

#[test]
fn a_service_parent_puts_the_route_in_the_mesh() {
    let imported = import_text(&http_route(
        "  hostnames: [books.example.com]\n  parentRefs:\n  - {group: '', kind: Service, name: books, port: 80}\n  rules: [{retry: {attempts: 1}}]\n",
    ));
    let layer = &imported.layers[0];
    assert_eq!(layer.position, Position::Mesh);
    assert_eq!(
        layer.hosts,
        ["books.example.com", "books", "books.shop.svc.cluster.local"]
    );
    let gateway = import_text(&http_route(
        "  parentRefs: [{name: public}]\n  rules: [{retry: {attempts: 1}}]\n",
    ));
    assert_eq!(gateway.layers[0].position, Position::Gateway);
}

#[test]
fn backend_traffic_policies_are_budget_layers() {
    let imported = import_text(
        "apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackendTrafficPolicy
metadata: {name: books-budget, namespace: shop}
spec:
  targetRefs: [{group: '', kind: Service, name: books}]
  retryConstraint:
    budget: {percent: 20, interval: 10s}
    minRetryRate: {count: 10, interval: 1s}
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: draft}
spec:
  targetRefs: [{kind: Service, name: authors}]
  retry: {budgetPercent: 30, budgetInterval: 5s}
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackendTrafficPolicy
metadata: {name: sessions-only}
spec:
  sessionPersistence: {sessionName: cart}
",
    );
    let [current, draft] = &imported.layers[..] else {
        panic!("two budget layers, none for session persistence")
    };
    assert_eq!(
        current.name,
        "Gateway API XBackendTrafficPolicy books-budget"
    );
    assert_eq!(current.position, Position::Gateway);
    assert!(current.routes.is_empty());
    assert_eq!(current.hosts, ["books", "books.shop.svc.cluster.local"]);
    assert_eq!(
        imported.text_at(current.budget.as_ref().unwrap()),
        "retryConstraint"
    );
    assert_eq!(draft.name, "Gateway API BackendTrafficPolicy draft");
    assert_eq!(draft.hosts, ["authors"]);
    assert_eq!(imported.text_at(draft.budget.as_ref().unwrap()), "retry");
}

#[test]
fn bad_values_are_errors_at_the_value() {
    let (message, at) = import_error(&http_route(
        "  rules: [{matches: [{path: {type: Glob, value: /a}}]}]\n",
    ));
    assert_eq!(at, "type: Glob");
    assert!(message.contains("`Glob`"), "{message}");
    let (_, at) = import_error(&http_route("  rules: [{retry: {codes: [503, 600]}}]\n"));
    assert_eq!(at, "600");
    let (message, at) = import_error(&http_route("  rules: [{timeouts: {request: soon}}]\n"));
    assert_eq!(at, "request: soon");
    assert!(message.contains("soon"), "{message}");
    let (_, at) = import_error(&http_route(
        "  rules: [{matches: [{path: {type: RegularExpression, value: '(/a'}}]}]\n",
    ));
    assert_eq!(at, "value: '(/a'");
    let (_, at) = import_error(&http_route("  rules: [{retry: {attempts: -2}}]\n"));
    assert_eq!(at, "attempts: -2");
    let (_, at) = import_error(
        "apiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XBackendTrafficPolicy\nspec:\n  retryConstraint: {budget: {percent: 120}}\n",
    );
    assert_eq!(at, "percent: 120");
}

#[test]
fn the_payments_fixture() {
    let imported = import_fixture("gateway/payments-httproute.yaml");
    let [layer] = &imported.of(Format::GatewayApi)[..] else {
        panic!("one layer")
    };
    assert_eq!(layer.name, "Gateway API HTTPRoute payments");
    assert_eq!(layer.position, Position::Gateway);
    assert_eq!(layer.hosts, ["api.example.com"]);
    let [reads, rest] = &layer.routes[..] else {
        panic!("two routes")
    };
    assert_eq!(reads.name, "reads");
    assert_eq!(attempts(reads), 3);
    let max = reads.policy.max_attempts.as_ref().unwrap();
    assert_eq!(imported.line_of(&max.loc), 28);
    assert_eq!(
        retry_on(reads),
        [
            Signal::Status(502),
            Signal::Status(503),
            Signal::Status(504),
            Signal::ConnectFailure,
            Signal::RefusedStream,
            Signal::Timeout,
        ]
    );
    let p = &reads.policy;
    // The first retry waits up to the written base: base × 2 in retrylint's model.
    assert_eq!(
        p.backoff_base.as_ref().unwrap().value,
        Duration::from_millis(50)
    );
    assert_eq!(
        p.deadline.as_ref().unwrap().value,
        Duration::from_millis(5000)
    );
    assert_eq!(
        p.per_attempt_timeout.as_ref().unwrap().value,
        Duration::from_millis(1000)
    );
    assert_eq!(path_text(&reads.matches[0].path), "segments /payments");
    assert_eq!(rest.name, "everything-else");
    assert_eq!(attempts(rest), 1);
    assert_eq!(
        rest.policy.deadline.as_ref().unwrap().value,
        Duration::from_millis(10_000)
    );
}
