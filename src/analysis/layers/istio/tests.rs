//! The Istio importer's tests: routes, the mesh default, positions, bad values.

use crate::analysis::layers::k8s::testing::{
    attempts, import_error, import_fixture, import_text, path_text, retry_on,
};
use crate::analysis::layers::{Format, Position, StringMatch};
use crate::input::policy::{Duration, GrpcCode, Jitter, Signal};

fn virtual_service(spec: &str) -> String {
    format!(
        "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata:\n  name: ratings\nspec:\n{spec}"
    )
}

#[test]
fn explicit_retries_count_the_first_attempt_and_are_located() {
    let text = virtual_service(
        "  hosts: [ratings]\n  http:\n  - timeout: 5s\n    retries:\n      attempts: 3\n      perTryTimeout: 2s\n      retryOn: gateway-error,connect-failure,503\n      backoff: 100ms\n",
    );
    let imported = import_text(&text);
    let layer = &imported.layers[0];
    assert_eq!(layer.format, Format::Istio);
    assert_eq!(layer.name, "Istio VirtualService ratings");
    assert_eq!(layer.hosts, ["ratings"]);
    assert_eq!(layer.position, Position::Mesh);
    let route = &layer.routes[0];
    assert_eq!(route.name, "http[0]");
    assert!(!route.implicit);
    assert_eq!(attempts(route), 4);
    let max = route.policy.max_attempts.as_ref().unwrap();
    assert_eq!(imported.text_at(&max.loc), "attempts: 3");
    assert_eq!(imported.line_of(&max.loc), 10);
    assert!(max.loc.note.is_none());
    let p = &route.policy;
    assert_eq!(
        p.deadline.as_ref().unwrap().value,
        Duration::from_millis(5000)
    );
    assert_eq!(
        p.per_attempt_timeout.as_ref().unwrap().value,
        Duration::from_millis(2000)
    );
    // gateway-error also retries resets and connect failures, and with a per-try timeout
    // an attempt that timed out.
    assert_eq!(
        retry_on(route),
        [
            Signal::Status(502),
            Signal::Status(503),
            Signal::Status(504),
            Signal::Reset,
            Signal::ConnectFailure,
            Signal::RefusedStream,
            Signal::Timeout,
        ]
    );
    let base = p.backoff_base.as_ref().unwrap();
    // The first retry waits up to the written base: base × 2 in retrylint's model.
    assert_eq!(base.value, Duration::from_millis(50));
    assert!(base.loc.note.is_none());
    let cap = p.backoff_cap.as_ref().unwrap();
    assert_eq!(cap.value, Duration::from_millis(1000));
    assert!(cap.loc.note_text().unwrap().contains("10 times"));
    assert_eq!(p.jitter.as_ref().unwrap().value, Jitter::Full);
    assert!(p.retry_after_honor.is_none());
    assert_eq!(route.unsupported, ["Retry-After", "a retry budget"]);
}

#[test]
fn a_route_without_retries_gets_the_mesh_default() {
    let text = virtual_service("  hosts: [ratings]\n  http:\n  - name: writes\n    route: []\n");
    let imported = import_text(&text);
    let route = &imported.layers[0].routes[0];
    assert_eq!(route.name, "writes");
    assert!(route.implicit);
    assert_eq!(attempts(route), 3);
    let max = route.policy.max_attempts.as_ref().unwrap();
    assert_eq!(max.loc, route.loc.noted(max.loc.note_text().unwrap()));
    assert!(max.loc.note_text().unwrap().contains("Istio"));
    assert_eq!(
        retry_on(route),
        [
            Signal::ConnectFailure,
            Signal::RefusedStream,
            Signal::Grpc(GrpcCode::Unavailable),
            Signal::Grpc(GrpcCode::Cancelled),
        ]
    );
    let on = route.policy.retry_on.as_ref().unwrap();
    let note = on.loc.note_text().unwrap();
    assert!(
        note.contains("istio/istio#52111") && note.contains("503"),
        "{note}"
    );
    let base = route.policy.backoff_base.as_ref().unwrap();
    // The first retry waits up to the written base: base × 2 in retrylint's model.
    assert_eq!(base.value, Duration::from_micros(12_500));
    assert!(base.loc.note_text().unwrap().contains("Envoy"));
    assert!(route.policy.deadline.is_none());
    assert!(route.policy.per_attempt_timeout.is_none());
}

#[test]
fn zero_attempts_or_none_written_turn_retries_off() {
    let text = virtual_service(
        "  http:\n  - retries: {attempts: 0}\n  - retries: {perTryTimeout: 1s}\n  - redirect: {uri: /v2}\n",
    );
    let imported = import_text(&text);
    let routes = &imported.layers[0].routes;
    assert!(routes.iter().all(|r| attempts(r) == 1 && !r.implicit));
    let written = routes[0].policy.max_attempts.as_ref().unwrap();
    assert_eq!(imported.text_at(&written.loc), "attempts: 0");
    assert!(routes[0].policy.retry_on.is_none());
    let defaulted = routes[1].policy.max_attempts.as_ref().unwrap();
    assert!(
        defaulted
            .loc
            .note
            .as_deref()
            .unwrap()
            .contains("0 attempts")
    );
    assert!(routes[1].policy.per_attempt_timeout.is_none());
    let redirect = routes[2].policy.max_attempts.as_ref().unwrap();
    assert!(redirect.loc.note_text().unwrap().contains("redirect"));
}

#[test]
fn retries_without_retry_on_keep_the_default_conditions() {
    let text = virtual_service("  http:\n  - retries:\n      attempts: 1\n");
    let imported = import_text(&text);
    let route = &imported.layers[0].routes[0];
    assert_eq!(attempts(route), 2);
    assert!(!route.implicit);
    assert_eq!(retry_on(route).len(), 4);
    let on = route.policy.retry_on.as_ref().unwrap();
    assert_eq!(imported.text_at(&on.loc), "retries");
    assert!(on.loc.note_text().unwrap().contains("Istio"));
}

#[test]
fn an_empty_retry_on_keeps_the_default_conditions_and_a_blank_one_retries_nothing() {
    // istio/istio pilot/pkg/networking/core/route/retry/retry.go: `if in.RetryOn != ""`
    // keeps the defaults for an empty value; " " replaces them with nothing.
    for empty in ["''", "null"] {
        let text = virtual_service(&format!(
            "  http:\n  - retries:\n      attempts: 1\n      retryOn: {empty}\n"
        ));
        let imported = import_text(&text);
        let route = &imported.layers[0].routes[0];
        assert_eq!(retry_on(route).len(), 4, "{empty}");
        let on = route.policy.retry_on.as_ref().unwrap();
        assert_eq!(imported.text_at(&on.loc), format!("retryOn: {empty}"));
        assert!(on.loc.note_text().unwrap().contains("empty retryOn"));
    }
    let blank = virtual_service("  http:\n  - retries:\n      attempts: 1\n      retryOn: ' '\n");
    assert!(retry_on(&import_text(&blank).layers[0].routes[0]).is_empty());
}

#[test]
fn matches_read_uri_and_method() {
    let text = virtual_service(
        "  http:\n  - match:\n    - uri: {exact: /a}\n      method: {exact: GET}\n    - uri: {prefix: /b}\n    - uri: {regex: '/c/[0-9]+'}\n      method: {regex: 'P(UT|OST)'}\n    - headers: {x-canary: {exact: 'yes'}}\n",
    );
    let imported = import_text(&text);
    let matches = &imported.layers[0].routes[0].matches;
    let paths: Vec<String> = matches.iter().map(|m| path_text(&m.path)).collect();
    assert_eq!(paths, ["exact /a", "prefix /b", "regex /c/[0-9]+", "any"]);
    assert!(matches!(&matches[0].method, Some(StringMatch::Exact(m)) if m == "GET"));
    assert!(matches[1].method.is_none());
    let method = matches[2].method.as_ref().unwrap();
    assert!(method.matches("PUT") && method.matches("POST") && !method.matches("PATCH"));
    assert!(matches[3].method.is_none());
}

#[test]
fn gateways_place_the_layer() {
    let at = |gateways: &str| {
        let text = virtual_service(&format!("  gateways: {gateways}\n  http: []\n"));
        import_text(&text).layers[0].position
    };
    assert_eq!(at("[istio-system/public]"), Position::Gateway);
    assert_eq!(at("[public, mesh]"), Position::Mesh);
    assert_eq!(at("[]"), Position::Mesh);
}

#[test]
fn bad_values_are_errors_at_the_value() {
    let (message, at) = import_error(&virtual_service(
        "  http:\n  - retries: {attempts: 2, perTryTimeout: 2 seconds}\n",
    ));
    assert_eq!(at, "perTryTimeout: 2 seconds");
    assert!(message.contains("2 seconds"), "{message}");
    let (message, at) = import_error(&virtual_service(
        "  http:\n  - match: [{uri: {regex: '/a(['}}]\n",
    ));
    assert_eq!(at, "regex: '/a(['");
    assert!(message.contains("regular expression"), "{message}");
    let (message, at) = import_error(&virtual_service(
        "  http:\n  - retries: {attempts: 2, retryOn: '5xx,sometimes'}\n",
    ));
    assert_eq!(at, "retryOn: '5xx,sometimes'");
    assert!(message.contains("`sometimes`"), "{message}");
    let (message, at) = import_error(&virtual_service("  http:\n  - retries: {attempts: -1}\n"));
    assert_eq!(at, "attempts: -1");
    assert!(message.contains("-1"), "{message}");
    let (_, at) = import_error(&virtual_service("  http: {retries: 1}\n"));
    assert_eq!(at, "http");
}

#[test]
fn the_payments_fixture() {
    let imported = import_fixture("istio/payments-virtualservice.yaml");
    assert_eq!(
        imported.layers.len(),
        1,
        "the Deployment and Service are skipped"
    );
    let layer = imported.of(Format::Istio)[0];
    assert_eq!(layer.name, "Istio VirtualService payments");
    assert_eq!(layer.hosts, ["payments.prod.svc.cluster.local"]);
    assert_eq!(layer.position, Position::Mesh);
    let [read, create] = &layer.routes[..] else {
        panic!("two routes")
    };
    assert_eq!(read.name, "read-payments");
    assert_eq!(attempts(read), 3);
    let max = read.policy.max_attempts.as_ref().unwrap();
    assert_eq!(imported.line_of(&max.loc), 58);
    assert_eq!(
        read.policy.per_attempt_timeout.as_ref().unwrap().value,
        Duration::from_millis(1000)
    );
    assert_eq!(
        retry_on(read),
        [
            Signal::Status(502),
            Signal::Status(503),
            Signal::Status(504),
            Signal::Reset,
            Signal::ConnectFailure,
            Signal::RefusedStream,
            Signal::Timeout,
        ]
    );
    assert_eq!(path_text(&read.matches[0].path), "prefix /payments");
    assert_eq!(create.name, "create-payment");
    assert!(create.implicit);
    assert_eq!(attempts(create), 3);
    assert!(!retry_on(create).contains(&Signal::Status(503)));
    assert_eq!(path_text(&create.matches[0].path), "exact /payments");
    assert!(matches!(&create.matches[0].method, Some(StringMatch::Exact(m)) if m == "POST"));
    assert_eq!(
        create.policy.deadline.as_ref().unwrap().value,
        Duration::from_millis(10_000)
    );
}
