//! Budgets from bootstrap clusters, the fixtures bound to a payments description, and
//! detection of `-p` files.

use super::*;

#[test]
fn budgets_come_from_the_clusters_routes_send_to() {
    let bootstrap = |routes: &str| {
        format!(
            "static_resources:
  listeners:
  - filter_chains:
    - filters:
      - typed_config:
          route_config:
            virtual_hosts:
            - name: api
              domains: ['*']
              retry_policy: {{ retry_on: 5xx }}
              routes:
{routes}
  clusters:
  - name: budgeted
    circuit_breakers:
      thresholds:
      - {{ priority: HIGH, max_retries: 9 }}
      - retry_budget: {{ budget_percent: {{ value: 25 }} }}
  - name: plain
    circuit_breakers: {{ thresholds: [{{ max_retries: 3 }}] }}
"
        )
    };
    let budget = |routes: &str| {
        let (layers, file) = read_ok(&bootstrap(routes));
        layers[0]
            .budget
            .as_ref()
            .map(|b| written(&file, b).to_string())
    };
    let to = |cluster: &str| {
        format!(
            "              - match: {{ prefix: / }}\n                route: {{ cluster: {cluster} }}"
        )
    };
    assert_eq!(budget(&to("budgeted")).as_deref(), Some("retry_budget"));
    assert_eq!(budget(&to("plain")), None);
    // Every retrying route must have one.
    assert_eq!(
        budget(&format!("{}\n{}", to("budgeted"), to("plain"))),
        None
    );
    let weighted = "              - match: { prefix: / }\n                route: { weighted_clusters: { clusters: [{ name: budgeted, weight: 50 }, { name: plain, weight: 50 }] } }";
    assert_eq!(budget(weighted), None);
    // A HIGH-priority route sees only HIGH thresholds.
    assert_eq!(
        budget(&to("budgeted").replace("cluster: budgeted", "cluster: budgeted, priority: HIGH")),
        None
    );
}

/// The description the fixtures front.
const PAYMENTS: &str = r#"openapi: 3.0.3
info: { title: Payments, version: "1" }
servers: [{ url: "https://api.payments.example.com" }]
paths:
  /payments:
    get: { responses: { "200": { description: ok } } }
    post: { responses: { "201": { description: created } } }
  /payments/{id}:
    get: { responses: { "200": { description: ok } } }
    delete: { responses: { "204": { description: deleted } } }
  /healthz:
    get: { responses: { "200": { description: ok } } }
"#;

/// The name of the route of `layer` that takes each operation (`-` for none).
fn bound(layer: &Layer) -> Vec<(String, String)> {
    let Ok((api, _)) = api(PAYMENTS) else {
        panic!("the description does not load")
    };
    let service = Service::new(["api.payments.example.com".to_string()], []);
    assert!(service.served_by(layer));
    [
        "GET /payments",
        "POST /payments",
        "GET /payments/{id}",
        "DELETE /payments/{id}",
        "GET /healthz",
    ]
    .iter()
    .map(|key| {
        let route = service
            .route_for(layer, operation(&api, key), &mut Budget::new(usize::MAX))
            .unwrap();
        (
            key.to_string(),
            route.map_or("-".into(), |r| layer.routes[r].name.to_string()),
        )
    })
    .collect()
}

#[test]
fn front_proxy_fixture() {
    let (layers, file) = fixture_layers("fixtures/layers/envoy/front-proxy.yaml");
    let [layer] = &layers[..] else {
        panic!("{layers:?}")
    };
    assert_eq!(layer.name, "Envoy virtual host payments_api");
    assert_eq!(layer.hosts, ["api.payments.example.com"]);
    assert_eq!(
        layer.budget.as_ref().map(|b| written(&file, b)),
        Some("retry_budget")
    );
    let pairs: Vec<(String, String)> = bound(layer);
    let expect = |key: &str, route: &str| (key.to_string(), route.to_string());
    assert_eq!(
        pairs,
        [
            expect("GET /payments", "list-payments"),
            expect("POST /payments", "create-payment"),
            expect("GET /payments/{id}", "list-payments"),
            expect("DELETE /payments/{id}", "-"),
            expect("GET /healthz", "health"),
        ]
    );
    let [list, create, health] = &layer.routes[..] else {
        panic!()
    };
    // Reading: its own policy, GET only.
    assert_eq!(value(&list.policy.max_attempts), 4);
    assert_eq!(
        signals(list),
        [
            Signal::ConnectFailure,
            Signal::RefusedStream,
            Signal::Status(503)
        ]
    );
    assert_eq!(value(&list.policy.deadline), ms(5_000));
    let methods = list
        .retried_methods
        .as_ref()
        .unwrap_or_else(|| panic!("no methods"));
    assert!(methods.iter().any(|m| m.matches("GET")) && !methods.iter().any(|m| m.matches("POST")));
    // Creating: the virtual host's policy, every method, a reset retried.
    assert_eq!(value(&create.policy.max_attempts), 3);
    assert!(create.retried_methods.is_none());
    assert!(signals(create).contains(&Signal::Reset) && signals(create).contains(&Signal::Timeout));
    assert_eq!(value(&create.policy.per_attempt_timeout), ms(2_000));
    assert_eq!(value(&create.policy.backoff_cap), ms(1_000));
    assert_eq!(value(&create.policy.deadline), ms(10_000));
    let at = create
        .policy
        .retry_on
        .as_ref()
        .map_or_else(|| panic!(), |r| r.loc.clone());
    assert_eq!(written(&file, &at), "retry_on: 5xx,reset");
    assert_eq!(value(&health.policy.max_attempts), 1);
}

#[test]
fn rds_json_fixture() {
    let (layers, file) = fixture_layers("fixtures/layers/envoy/rds.json");
    let [layer] = &layers[..] else {
        panic!("{layers:?}")
    };
    assert!(layer.budget.is_none(), "an RDS document has no clusters");
    let pairs = bound(layer);
    assert_eq!(
        pairs[2],
        ("GET /payments/{id}".to_string(), "get-payment".to_string())
    );
    assert_eq!(
        pairs[3],
        (
            "DELETE /payments/{id}".to_string(),
            "everything-else".to_string()
        )
    );
    let get = &layer.routes[0];
    assert_eq!(value(&get.policy.max_attempts), 3);
    assert!(signals(get).contains(&Signal::Status(429)));
    assert!(value(&get.policy.retry_after_honor));
    let at = get
        .policy
        .retry_after_honor
        .as_ref()
        .map_or_else(|| panic!(), |h| h.loc.clone());
    assert_eq!(written(&file, &at), r#""name": "retry-after""#);
    assert_eq!(value(&get.policy.retry_after_max), ms(3_000));
    // 50ms written: the first retry waits up to 50ms, base × multiplier in retrylint's model.
    assert_eq!(value(&get.policy.backoff_base), ms(25));
    assert_eq!(get.unsupported.len(), 1);
    let rest = &layer.routes[1];
    assert_eq!(value(&rest.policy.max_attempts), 1);
    assert_eq!(value(&rest.policy.deadline), ms(15_000));
}

#[test]
fn files_given_with_p_are_detected_as_envoy_whatever_their_syntax() {
    use crate::analysis::layers::detect::{Detected, detect};
    for fixture in ["front-proxy.yaml", "rds.json"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/layers/envoy")
            .join(fixture);
        let detected = detect(&path, false, &crate::input::load::LoadOptions::default());
        assert!(
            matches!(detected, Ok(Detected::Layers(_))),
            "{fixture}: {detected:?}"
        );
    }
}
