//! The ingress-nginx importer's tests: which `Ingress` is the controller's, the
//! annotations read as NGINX directives with the controller's defaults, the locations its
//! paths become, and bad values located at the annotation.

use crate::analysis::layers::k8s::testing::{
    attempts, import_error, import_fixture, import_text, path_text, retry_on,
};
use crate::analysis::layers::test_support::{loc, note, value};
use crate::analysis::layers::{Format, Position, UNBOUNDED_ATTEMPTS};
use crate::input::policy::{Duration, Signal};

/// An `Ingress` with `annotations` (indented lines) and `extra` spec keys before `rules`.
fn ingress(annotations: &str, extra: &str, paths: &str) -> String {
    format!(
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: orders\n  annotations:\n    x: y\n{annotations}spec:\n{extra}  rules:\n  - host: orders.example\n    http:\n      paths:\n{paths}"
    )
}

const PREFIX_ORDERS: &str = "      - path: /orders\n        pathType: Prefix\n";
const CLASS: &str = "  ingressClassName: nginx\n";

#[test]
fn the_fixture_reads_the_annotations_at_their_place() {
    let imported = import_fixture("ingress-nginx/ingress.yaml");
    let layers = imported.of(Format::IngressNginx);
    assert_eq!(layers.len(), 1);
    let layer = layers[0];
    assert_eq!(layer.position, Position::Edge);
    assert_eq!(layer.hosts, ["orders.shop.example"]);
    assert_eq!(layer.name.to_string(), "ingress-nginx Ingress orders");
    let names: Vec<_> = layer.routes.iter().map(|r| r.name.to_string()).collect();
    // nginx takes the exact location first.
    assert_eq!(names, ["Exact /healthz", "Prefix /orders"]);
    let orders = &layer.routes[1];
    assert_eq!(path_text(&orders.matches[0].path), "segments /orders");
    assert_eq!(attempts(orders), 4);
    assert_eq!(
        imported.text_at(&loc(&orders.policy.max_attempts)),
        "nginx.ingress.kubernetes.io/proxy-next-upstream-tries: \"4\""
    );
    assert_eq!(
        retry_on(orders),
        [
            Signal::ConnectFailure,
            Signal::Reset,
            Signal::Timeout,
            Signal::Status(503)
        ]
    );
    // `non_idempotent`: every method is retried.
    assert!(orders.retried_methods.is_none());
    assert_eq!(
        value(&orders.policy.per_attempt_timeout),
        Duration::from_millis(10_000)
    );
}

#[test]
fn defaults_are_the_controllers_three_tries_whatever_the_endpoints() {
    // kubernetes/ingress-nginx internal/ingress/controller/config/config.go:
    // ProxyNextUpstream "error timeout", ProxyNextUpstreamTries 3, ProxyReadTimeout 60;
    // rootfs/etc/nginx/lua/balancer.lua adds a try on every try (set_more_tries(1)).
    let imported = import_text(&ingress("", CLASS, PREFIX_ORDERS));
    let route = &imported.of(Format::IngressNginx)[0].routes[0];
    assert_eq!(attempts(route), 3);
    assert!(
        note(&route.policy.max_attempts)
            .unwrap()
            .contains("proxy-next-upstream-tries 3")
    );
    assert_eq!(
        retry_on(route),
        [Signal::ConnectFailure, Signal::Reset, Signal::Timeout]
    );
    assert!(
        note(&route.policy.retry_on)
            .unwrap()
            .contains("retry-non-idempotent false")
    );
    // Without `non_idempotent`, POST, LOCK and PATCH are not sent again.
    assert!(!route.retries_method("POST") && route.retries_method("GET"));
    assert_eq!(
        value(&route.policy.per_attempt_timeout),
        Duration::from_millis(60_000)
    );
}

#[test]
fn zero_tries_are_unbounded_and_off_is_one_attempt() {
    let zero = "    nginx.ingress.kubernetes.io/proxy-next-upstream-tries: \"0\"\n";
    let imported = import_text(&ingress(zero, CLASS, PREFIX_ORDERS));
    let route = &imported.of(Format::IngressNginx)[0].routes[0];
    assert_eq!(attempts(route), UNBOUNDED_ATTEMPTS);
    assert!(
        note(&route.policy.max_attempts)
            .unwrap()
            .contains("set_more_tries")
    );
    let off = "    nginx.ingress.kubernetes.io/proxy-next-upstream: \"off\"\n";
    let imported = import_text(&ingress(off, CLASS, PREFIX_ORDERS));
    assert_eq!(attempts(&imported.of(Format::IngressNginx)[0].routes[0]), 1);
}

#[test]
fn which_ingress_is_ingress_nginxs() {
    let retry = "    nginx.ingress.kubernetes.io/proxy-next-upstream-tries: \"2\"\n";
    let count = |annotations: &str, extra: &str| {
        import_text(&ingress(annotations, extra, PREFIX_ORDERS))
            .of(Format::IngressNginx)
            .len()
    };
    // The class `nginx`, either way, with or without annotations.
    assert_eq!(count("", CLASS), 1);
    assert_eq!(count("    kubernetes.io/ingress.class: nginx\n", ""), 1);
    // Another class named by the legacy annotation is another controller's.
    assert_eq!(
        count(
            &format!("    kubernetes.io/ingress.class: traefik\n{retry}"),
            ""
        ),
        0
    );
    // ingressClassName takes precedence over the annotation.
    assert_eq!(
        count(
            "    kubernetes.io/ingress.class: traefik\n",
            "  ingressClassName: nginx\n"
        ),
        1
    );
    // Another class name, or none: the annotations say it is ingress-nginx's.
    assert_eq!(count(retry, "  ingressClassName: internal\n"), 1);
    assert_eq!(count("", "  ingressClassName: internal\n"), 0);
    assert_eq!(count(retry, ""), 1);
    assert_eq!(count("", ""), 0);
    // A canary is merged into the main Ingress: it makes no layer.
    assert_eq!(
        count("    nginx.ingress.kubernetes.io/canary: \"true\"\n", CLASS),
        0
    );
}

#[test]
fn paths_become_locations_as_the_controller_writes_them() {
    let paths = "      - path: /a\n        pathType: ImplementationSpecific\n      - path: /orders/\n        pathType: Prefix\n      - path: /orders\n        pathType: Exact\n      - path: /\n        pathType: Prefix\n";
    let imported = import_text(&ingress("", CLASS, paths));
    let routes = &imported.of(Format::IngressNginx)[0].routes;
    let shown: Vec<_> = routes
        .iter()
        .map(|r| path_text(&r.matches[0].path))
        .collect();
    assert_eq!(
        shown,
        ["exact /orders", "prefix /orders/", "prefix /a", "prefix /"]
    );
    // `use-regex`: `~* "^path"`, longest first, case-insensitive.
    let regex = "    nginx.ingress.kubernetes.io/use-regex: \"true\"\n";
    let paths = "      - path: /v1\n        pathType: ImplementationSpecific\n      - path: /v1/orders/[0-9]+\n        pathType: ImplementationSpecific\n";
    let imported = import_text(&ingress(regex, CLASS, paths));
    let routes = &imported.of(Format::IngressNginx)[0].routes;
    assert_eq!(
        routes[0].name.to_string(),
        "ImplementationSpecific /v1/orders/[0-9]+"
    );
    let crate::analysis::layers::PathMatch::Regex(first) = &routes[0].matches[0].path else {
        panic!("a regex")
    };
    assert!(first.is_match("/V1/Orders/12/items"));
    assert!(!first.is_match("/x/v1/orders/12"));
    // A `rewrite-target` makes regexes only when it differs from a path (`needsRewrite`).
    let is_regex = |target: &str| {
        let annotation = format!("    nginx.ingress.kubernetes.io/rewrite-target: {target}\n");
        let imported = import_text(&ingress(&annotation, CLASS, PREFIX_ORDERS));
        matches!(
            imported.of(Format::IngressNginx)[0].routes[0].matches[0].path,
            crate::analysis::layers::PathMatch::Regex(_)
        )
    };
    assert!(is_regex("/$2"));
    assert!(!is_regex("/orders"));
}

#[test]
fn rules_of_several_hosts_are_one_layer_each() {
    let text = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: shop}\nspec:\n  ingressClassName: nginx\n  rules:\n  - host: a.example\n    http: {paths: [{path: /a, pathType: Prefix}]}\n  - http: {paths: [{path: /b, pathType: Prefix}]}\n  - host: a.example\n    http: {paths: [{path: /c, pathType: Prefix}]}\n";
    let imported = import_text(text);
    let layers = imported.of(Format::IngressNginx);
    assert_eq!(layers.len(), 2);
    assert_eq!(layers[0].hosts, ["a.example"]);
    assert_eq!(layers[0].routes.len(), 2);
    assert_eq!(
        layers[0].name.to_string(),
        "ingress-nginx Ingress shop a.example"
    );
    assert!(layers[1].hosts.is_empty());
}

#[test]
fn bad_values_are_errors_at_the_annotation() {
    let cases = [
        ("proxy-next-upstream: \"error http_418\"", "http_418"),
        ("proxy-next-upstream-tries: \"three\"", "whole number"),
        ("proxy-next-upstream-tries: \"-1\"", "whole number"),
        ("proxy-read-timeout: \"60s\"", "seconds"),
        ("proxy-next-upstream-timeout: \"1m\"", "seconds"),
    ];
    for (annotation, said) in cases {
        let line = format!("    nginx.ingress.kubernetes.io/{annotation}\n");
        let (message, underlined) = import_error(&ingress(&line, CLASS, PREFIX_ORDERS));
        assert!(message.contains(said), "{annotation}: {message}");
        assert_eq!(
            underlined,
            format!("nginx.ingress.kubernetes.io/{annotation}")
        );
    }
    let (message, underlined) = import_error(&ingress(
        "",
        CLASS,
        "      - path: /a\n        pathType: Regex\n",
    ));
    assert!(message.contains("pathType"), "{message}");
    assert_eq!(underlined, "pathType: Regex");
}
