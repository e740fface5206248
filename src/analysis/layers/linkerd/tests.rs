//! The Linkerd importers' tests: ServiceProfile conditions and budgets, annotations.

use crate::analysis::layers::k8s::testing::{
    attempts, import_error, import_fixture, import_text, path_text, retry_on,
};
use crate::analysis::layers::{Format, Position, StringMatch, UNBOUNDED_ATTEMPTS};
use crate::input::policy::{Duration, Signal};

fn profile(spec: &str) -> String {
    format!(
        "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: books.shop.svc.cluster.local\nspec:\n{spec}"
    )
}

fn service(annotations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: books\n  namespace: shop\n  annotations:\n{annotations}spec:\n  ports: [{{port: 80}}]\n"
    )
}

#[test]
fn retryable_routes_are_limited_by_the_budget_only() {
    let imported = import_fixture("linkerd/payments-serviceprofile.yaml");
    let [layer] = &imported.of(Format::LinkerdProfile)[..] else {
        panic!("one layer")
    };
    assert_eq!(
        layer.name,
        "Linkerd ServiceProfile payments.prod.svc.cluster.local"
    );
    assert_eq!(layer.hosts, ["payments.prod.svc.cluster.local"]);
    assert_eq!(layer.position, Position::Mesh);
    assert_eq!(
        imported.text_at(layer.budget.as_ref().unwrap()),
        "retryBudget"
    );
    let [read, create] = &layer.routes[..] else {
        panic!("two routes")
    };
    assert_eq!(read.name, "GET /payments/{id}");
    assert_eq!(attempts(read), 1);
    assert!(!read.budget_only);
    let not_retryable = read.policy.max_attempts.as_ref().unwrap();
    assert!(
        not_retryable
            .loc
            .note
            .as_deref()
            .unwrap()
            .contains("isRetryable")
    );
    assert_eq!(create.name, "POST /payments");
    assert!(create.budget_only);
    assert_eq!(attempts(create), UNBOUNDED_ATTEMPTS);
    let max = create.policy.max_attempts.as_ref().unwrap();
    assert_eq!(imported.text_at(&max.loc), "isRetryable: true");
    assert_eq!(imported.line_of(&max.loc), 21);
    assert_eq!(retry_on(create), [Signal::Class(5)]);
    let class = &create.policy.retry_on.as_ref().unwrap().value[0];
    assert!(class.loc.note.is_none(), "written in a response class");
    assert_eq!(
        create.policy.deadline.as_ref().unwrap().value,
        Duration::from_millis(5000)
    );
    let [m] = &create.matches[..] else {
        panic!("`all` makes one match")
    };
    assert_eq!(path_text(&m.path), "regex /payments");
    assert!(matches!(&m.method, Some(StringMatch::Exact(x)) if x == "POST"));
    assert_eq!(create.unsupported, ["Retry-After"]);
}

#[test]
fn defaults_are_noted() {
    let imported = import_text(&profile(
        "  routes:\n  - name: any-get\n    condition: {method: GET}\n    isRetryable: true\n",
    ));
    let layer = &imported.layers[0];
    let budget = layer.budget.as_ref().unwrap();
    assert!(budget.note_text().unwrap().contains("20%, 10/s, 10s"));
    assert_eq!(
        imported.text_at(budget),
        "name: books.shop.svc.cluster.local"
    );
    let route = &layer.routes[0];
    assert_eq!(retry_on(route), [Signal::Class(5)]);
    let failures = &route.policy.retry_on.as_ref().unwrap().value[0];
    assert!(failures.loc.note_text().unwrap().contains("5xx"));
    let deadline = route.policy.deadline.as_ref().unwrap();
    assert_eq!(deadline.value, Duration::from_millis(10_000));
    assert!(deadline.loc.note.is_some());
    assert_eq!(path_text(&route.matches[0].path), "any");
}

#[test]
fn response_classes_decide_in_order() {
    let imported = import_text(&profile(
        "  routes:
  - name: r
    isRetryable: true
    responseClasses:
    - condition: {status: {min: 500, max: 501}}
      isFailure: false
    - condition: {any: [{status: {min: 429, max: 429}}, {status: {min: 500, max: 503}}]}
      isFailure: true
",
    ));
    let route = &imported.layers[0].routes[0];
    let mut expected = vec![
        Signal::Status(429),
        Signal::Status(502),
        Signal::Status(503),
    ];
    expected.extend((504..=599).map(Signal::Status));
    assert_eq!(retry_on(route), expected);
}

#[test]
fn conditions_expand_to_alternatives() {
    let imported = import_text(&profile(
        "  routes:
  - name: reads
    condition:
      all:
      - any: [{method: GET}, {method: HEAD}]
      - pathRegex: /books/.*
  - name: excluded
    condition: {not: {method: POST}}
  - name: impossible
    condition: {all: [{method: GET}, {method: POST}]}
",
    ));
    let routes = &imported.layers[0].routes;
    assert_eq!(routes.len(), 2, "a route no request can match is left out");
    let methods: Vec<String> = routes[0]
        .matches
        .iter()
        .map(|m| match &m.method {
            Some(StringMatch::Exact(x)) => format!("{x} {}", path_text(&m.path)),
            _ => "?".into(),
        })
        .collect();
    assert_eq!(methods, ["GET regex /books/.*", "HEAD regex /books/.*"]);
    assert_eq!(path_text(&routes[1].matches[0].path), "any");
    assert!(routes[1].matches[0].method.is_none());
}

#[test]
fn profile_errors_are_located() {
    let (message, at) = import_error(&profile(
        "  routes: [{name: r, condition: {pathRegex: '/a(['}}]\n",
    ));
    assert_eq!(at, "pathRegex: '/a(['");
    assert!(message.contains("regular expression"), "{message}");
    let (_, at) = import_error(&profile("  routes: [{name: r, timeout: 3}]\n"));
    assert_eq!(at, "timeout: 3");
    let (_, at) = import_error(&profile(
        "  routes: [{name: r, responseClasses: [{condition: {status: {min: 504, max: 500}}}]}]\n",
    ));
    assert_eq!(at, "status");
    let deep = format!(
        "  routes: [{{name: r, condition: {}{{method: GET}}{}}}]\n",
        "{all: [".repeat(20),
        "]}".repeat(20)
    );
    let (message, _) = import_error(&profile(&deep));
    assert!(message.contains("nests"), "{message}");
    let (_, at) = import_error(&profile("  retryBudget: {retryRatio: lots}\n"));
    assert_eq!(at, "retryRatio: lots");
}

#[test]
fn service_annotations_retry_every_request() {
    let imported = import_fixture("linkerd/annotations.yaml");
    let [layer] = &imported.of(Format::LinkerdAnnotations)[..] else {
        panic!("one layer")
    };
    assert_eq!(layer.name, "Linkerd annotations on Service payments");
    assert_eq!(layer.position, Position::Mesh);
    assert_eq!(layer.hosts, ["payments", "payments.prod.svc.cluster.local"]);
    assert!(layer.budget.is_none());
    let [route] = &layer.routes[..] else {
        panic!("one route")
    };
    assert!(route.matches.is_empty());
    assert_eq!(attempts(route), 3);
    let max = route.policy.max_attempts.as_ref().unwrap();
    assert_eq!(imported.text_at(&max.loc), "retry.linkerd.io/limit: \"2\"");
    assert_eq!(imported.line_of(&max.loc), 10);
    assert_eq!(
        retry_on(route),
        [
            Signal::Status(502),
            Signal::Status(503),
            Signal::Status(504),
            Signal::Timeout
        ]
    );
    let p = &route.policy;
    assert_eq!(
        p.per_attempt_timeout.as_ref().unwrap().value,
        Duration::from_millis(300)
    );
    assert_eq!(
        p.deadline.as_ref().unwrap().value,
        Duration::from_millis(2000)
    );
    assert!(p.backoff_base.as_ref().unwrap().loc.note.is_some());
    assert_eq!(route.unsupported, ["Retry-After"]);
}

#[test]
fn what_the_annotations_leave_out() {
    let layer_of = |annotations: &str| import_text(&service(annotations)).layers;
    let zero = &layer_of("    retry.linkerd.io/http: 5xx\n    retry.linkerd.io/limit: '0'\n")[0];
    assert_eq!(attempts(&zero.routes[0]), 2);
    let note = zero.routes[0]
        .policy
        .max_attempts
        .as_ref()
        .unwrap()
        .loc
        .note
        .clone();
    assert!(note.unwrap().contains("limit of 0"));
    let default = &layer_of("    retry.linkerd.io/http: '503'\n")[0];
    assert_eq!(attempts(&default.routes[0]), 2);
    let limit_only = &layer_of("    retry.linkerd.io/limit: '3'\n")[0];
    assert_eq!(attempts(&limit_only.routes[0]), 1);
    let timeout_only = &layer_of("    retry.linkerd.io/timeout: 1s\n")[0];
    assert_eq!(attempts(&timeout_only.routes[0]), 2);
    assert_eq!(retry_on(&timeout_only.routes[0]), [Signal::Timeout]);
    let timeouts = &layer_of("    timeout.linkerd.io/response: 1s\n")[0];
    let route = &timeouts.routes[0];
    assert_eq!(attempts(route), 1);
    assert_eq!(
        route.policy.per_attempt_timeout.as_ref().unwrap().value,
        Duration::from_millis(1000)
    );
    assert!(layer_of("    prometheus.io/scrape: 'true'\n").is_empty());
}

#[test]
fn an_http_route_with_annotations_and_a_retry_stanza_is_two_layers() {
    let imported = import_text(
        "apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: books
  namespace: shop
  annotations:
    retry.linkerd.io/http: 5xx
spec:
  parentRefs: [{group: core, kind: Service, name: books, port: 80}]
  rules:
  - matches: [{path: {value: /books}}]
    timeouts: {request: 3s}
    retry: {attempts: 1}
  - matches: [{path: {type: Exact, value: /books/new}, method: POST}]
",
    );
    let gateway = imported.of(Format::GatewayApi);
    let linkerd = imported.of(Format::LinkerdAnnotations);
    assert_eq!((gateway.len(), linkerd.len()), (1, 1));
    let layer = linkerd[0];
    assert_eq!(layer.name, "Linkerd annotations on HTTPRoute books");
    assert_eq!(layer.hosts, ["books", "books.shop.svc.cluster.local"]);
    assert_eq!(gateway[0].position, Position::Mesh);
    let names: Vec<&str> = layer.routes.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["rules[1]", "rules[0]"]);
    assert!(layer.routes.iter().all(|r| attempts(r) == 2));
    assert_eq!(
        layer.routes[1].policy.deadline.as_ref().unwrap().value,
        Duration::from_millis(3000)
    );
    assert!(layer.routes[0].policy.deadline.is_none());
}

#[test]
fn a_gateway_route_is_not_linkerds() {
    let imported = import_text(
        "apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: public
  annotations: {retry.linkerd.io/http: 5xx}
spec:
  parentRefs: [{name: ingress}]
  rules: [{}]
",
    );
    assert!(imported.of(Format::LinkerdAnnotations).is_empty());
    assert_eq!(imported.of(Format::GatewayApi).len(), 1);
}

#[test]
fn annotation_errors_are_located() {
    let (message, at) = import_error(&service("    retry.linkerd.io/http: 5xx,teapot\n"));
    assert_eq!(at, "retry.linkerd.io/http: 5xx,teapot");
    assert!(message.contains("`teapot`"), "{message}");
    let (_, at) = import_error(&service("    timeout.linkerd.io/request: 2\n"));
    assert_eq!(at, "timeout.linkerd.io/request: 2");
    let (_, at) = import_error(&service(
        "    retry.linkerd.io/http: 5xx\n    retry.linkerd.io/limit: many\n",
    ));
    assert_eq!(at, "retry.linkerd.io/limit: many");
}
