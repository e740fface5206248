//! The Envoy Gateway `BackendTrafficPolicy` importer's tests: written values and their
//! places, Envoy Gateway's defaults and their notes, recognition, bad values.

use crate::analysis::layers::k8s::testing::{attempts, import_error, import_text, retry_on};
use crate::analysis::layers::test_support::{loc, note, value};
use crate::analysis::layers::{Format, Position};
use crate::input::policy::{Duration, GrpcCode, Jitter, Signal};

fn policy(spec: &str) -> String {
    format!(
        "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: orders-retry\n  namespace: shop\nspec:\n  targetRefs:\n  - group: gateway.networking.k8s.io\n    kind: HTTPRoute\n    name: orders\n{spec}"
    )
}

#[test]
fn written_retries_are_read_with_their_places() {
    let text = policy(
        "  retry:\n    numRetries: 5\n    retryOn:\n      triggers: [connect-failure, retriable-status-codes]\n      httpStatusCodes: [500, 502]\n    perRetry:\n      timeout: 250ms\n      backOff:\n        baseInterval: 100ms\n        maxInterval: 2s\n",
    );
    let imported = import_text(&text);
    let layers = imported.of(Format::EnvoyGateway);
    assert_eq!(layers.len(), 1);
    let layer = layers[0];
    assert_eq!(
        layer.name,
        "Envoy Gateway BackendTrafficPolicy orders-retry"
    );
    assert_eq!(layer.position, Position::Gateway);
    assert!(layer.hosts.is_empty());
    let route = &layer.routes[0];
    assert!(route.matches.is_empty(), "the policy takes every request");
    assert!(route.retried_methods.is_none(), "every method is retried");
    assert_eq!(attempts(route), 6);
    let p = &route.policy;
    assert_eq!(imported.text_at(&loc(&p.max_attempts)), "numRetries: 5");
    assert_eq!(note(&p.max_attempts), None);
    assert_eq!(
        retry_on(route),
        [
            Signal::ConnectFailure,
            Signal::Status(500),
            Signal::Status(502)
        ]
    );
    let signals = &p.retry_on.as_ref().unwrap().value;
    assert_eq!(imported.text_at(&signals[1].loc), "500");
    assert_eq!(value(&p.per_attempt_timeout), Duration::from_millis(250));
    assert_eq!(
        imported.text_at(&loc(&p.per_attempt_timeout)),
        "timeout: 250ms"
    );
    // The first retry waits up to `baseInterval`: base × 2 in retrylint's model.
    assert_eq!(value(&p.backoff_base), Duration::from_millis(50));
    assert_eq!(
        imported.text_at(&loc(&p.backoff_base)),
        "baseInterval: 100ms"
    );
    assert_eq!(value(&p.backoff_cap), Duration::from_millis(2000));
    assert_eq!(value(&p.jitter), Jitter::Full);
    assert!(route.unsupported.contains(&"Retry-After"));
}

#[test]
fn an_empty_retry_takes_envoy_gateways_defaults_with_notes() {
    let imported = import_text(&policy("  retry: {}\n"));
    let route = &imported.of(Format::EnvoyGateway)[0].routes[0];
    let p = &route.policy;
    // envoyproxy/gateway internal/xds/translator/route.go: retryDefaultNumRetries = 2.
    assert_eq!(attempts(route), 3);
    assert!(
        note(&p.max_attempts)
            .unwrap()
            .starts_with("built-in default of Envoy Gateway")
    );
    // retryDefaultRetryOn and retryDefaultRetriableStatusCode.
    assert_eq!(
        retry_on(route),
        [
            Signal::ConnectFailure,
            Signal::RefusedStream,
            Signal::Grpc(GrpcCode::Unavailable),
            Signal::Grpc(GrpcCode::Cancelled),
            Signal::Status(503),
        ]
    );
    let signals = &p.retry_on.as_ref().unwrap().value;
    assert!(signals[4].loc.note_text().unwrap().contains("503"));
    assert_eq!(value(&p.backoff_base), Duration::from_micros(12_500));
    assert_eq!(value(&p.backoff_cap), Duration::from_millis(250));
    assert!(note(&p.backoff_cap).unwrap().contains("10 × base"));
    assert!(p.per_attempt_timeout.is_none());
}

#[test]
fn status_codes_count_only_with_their_trigger() {
    let text =
        policy("  retry:\n    retryOn:\n      triggers: [5xx]\n      httpStatusCodes: [429]\n");
    let imported = import_text(&text);
    let route = &imported.of(Format::EnvoyGateway)[0].routes[0];
    assert!(!retry_on(route).contains(&Signal::Status(429)));
    assert!(retry_on(route).contains(&Signal::Class(5)));
    // `retryOn` without triggers keeps the default triggers, with the written statuses.
    let text = policy("  retry:\n    retryOn:\n      httpStatusCodes: [429]\n");
    let imported = import_text(&text);
    let route = &imported.of(Format::EnvoyGateway)[0].routes[0];
    assert!(retry_on(route).contains(&Signal::Status(429)));
    assert!(!retry_on(route).contains(&Signal::Status(503)));
}

#[test]
fn no_retries_and_no_retry_stanza() {
    let imported = import_text(&policy("  retry:\n    numRetries: 0\n"));
    assert_eq!(attempts(&imported.of(Format::EnvoyGateway)[0].routes[0]), 1);
    let imported = import_text(&policy("  timeout:\n    http:\n      requestTimeout: 5s\n"));
    assert!(imported.of(Format::EnvoyGateway).is_empty());
}

#[test]
fn the_gateway_api_policy_of_the_same_name_is_not_this_one() {
    let text = "apiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XBackendTrafficPolicy\nmetadata:\n  name: budget\nspec:\n  retryConstraint:\n    budget:\n      percent: 20\n";
    let imported = import_text(text);
    assert!(imported.of(Format::EnvoyGateway).is_empty());
    assert_eq!(imported.of(Format::GatewayApi).len(), 1);
}

#[test]
fn bad_values_are_located() {
    let (message, at) = import_error(&policy(
        "  retry:\n    retryOn:\n      triggers: [sometimes]\n",
    ));
    assert!(message.contains("trigger"), "{message}");
    assert_eq!(at, "sometimes");
    let (_, at) = import_error(&policy(
        "  retry:\n    perRetry:\n      backOff:\n        baseInterval: 1s\n        maxInterval: 100ms\n",
    ));
    assert_eq!(at, "maxInterval: 100ms");
    let (_, at) = import_error(&policy("  retry:\n    numRetries: many\n"));
    assert!(at.contains("many"), "{at}");
}

#[test]
fn the_request_timeout_is_the_deadline() {
    let text =
        policy("  timeout:\n    http:\n      requestTimeout: 4s\n  retry:\n    numRetries: 1\n");
    let imported = import_text(&text);
    let p = &imported.of(Format::EnvoyGateway)[0].routes[0].policy;
    assert_eq!(value(&p.deadline), Duration::from_millis(4000));
    assert_eq!(imported.text_at(&loc(&p.deadline)), "requestTimeout: 4s");
    // Unset: Envoy's route timeout of 15s, noted.
    let imported = import_text(&policy("  retry:\n    numRetries: 1\n"));
    let p = &imported.of(Format::EnvoyGateway)[0].routes[0].policy;
    assert_eq!(value(&p.deadline), Duration::from_millis(15_000));
    assert!(note(&p.deadline).unwrap().contains("15s"));
    // `0s` turns it off.
    let text =
        policy("  timeout:\n    http:\n      requestTimeout: 0s\n  retry:\n    numRetries: 1\n");
    let imported = import_text(&text);
    assert!(
        imported.of(Format::EnvoyGateway)[0].routes[0]
            .policy
            .deadline
            .is_none()
    );
}
