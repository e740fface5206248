//! Tests of the gRPC service config importer: attempts and their clamp, name matching and
//! its order, durations and status codes as C-core reads them, hedging, throttling, and the
//! configs a client refuses.

use super::*;
use crate::analysis::layers::test_support::{layers, loc, note, value};
use crate::input::policy::GrpcCode;

fn config(method_config: &str, rest: &str) -> String {
    format!("{{\"methodConfig\": [{method_config}]{rest}}}")
}

const RETRY: &str = r#""retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED"]}"#;

fn read(text: &str) -> (Layer, String) {
    let (mut layers, _) = layers("service_config.json", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(layers.len(), 1);
    (layers.remove(0), text.to_string())
}

fn refused(text: &str) -> (String, String) {
    let error = layers("service_config.json", text).unwrap_err();
    let span = error.site.as_ref().map(|s| s.span).unwrap();
    (error.message.clone(), text[span.range()].to_string())
}

#[test]
fn a_retry_policy_becomes_attempts_backoff_and_codes() {
    let text = config(
        &format!(
            r#"{{"name": [{{"service": "pkg.Svc", "method": "Get"}}], "timeout": "2.5s", {RETRY}}}"#
        ),
        "",
    );
    let (layer, text) = read(&text);
    assert_eq!(layer.format, Format::Grpc);
    assert_eq!(layer.position, Position::Client);
    let route = &layer.routes[0];
    assert_eq!(route.name.to_string(), "pkg.Svc/Get");
    let p = &route.policy;
    assert_eq!(value(&p.max_attempts), 4);
    assert_eq!(
        &text[loc(&p.max_attempts).span.range()],
        r#""maxAttempts": 4"#
    );
    assert_eq!(value(&p.deadline), Duration::from_millis(2_500));
    // C-core's first retry waits initialBackoff × random(0.8, 1.2): retrylint's first wait,
    // base × multiplier, with equal jitter, is up to 1.2 × initialBackoff.
    assert_eq!(value(&p.backoff_base), Duration::from_millis(60));
    assert_eq!(value(&p.backoff_cap), Duration::from_millis(1_200));
    assert_eq!(value(&p.jitter), Jitter::Equal);
    assert!(note(&p.backoff_cap).unwrap().contains("random(0.8, 1.2)"));
    let on: Vec<Signal> = value(&p.retry_on).iter().map(|s| s.value).collect();
    assert_eq!(
        on,
        [
            Signal::Grpc(GrpcCode::Unavailable),
            Signal::Grpc(GrpcCode::ResourceExhausted)
        ]
    );
    assert!(route.unsupported.contains(&"Retry-After"));
    assert!(layer.budget.is_none());
}

#[test]
fn attempts_above_five_are_read_as_five_and_say_so() {
    let retry = RETRY.replace("\"maxAttempts\": 4", "\"maxAttempts\": \"9\"");
    let text = config(&format!(r#"{{"name": [{{}}], {retry}}}"#), "");
    let (layer, _) = read(&text);
    let p = &layer.routes[0].policy;
    assert_eq!(value(&p.max_attempts), 5);
    assert!(note(&p.max_attempts).unwrap().contains("above 5 as 5"));
}

#[test]
fn names_bind_exact_then_service_then_default() {
    let text = config(
        &format!(
            r#"{{"name": [{{}}], {RETRY}}},
               {{"name": [{{"service": "pkg.Svc"}}], {RETRY}}},
               {{"name": [{{"service": "pkg.Svc", "method": "Pay"}}, {{"service": "other.Svc", "method": null}}], "timeout": "1s"}}"#
        ),
        "",
    );
    let (layer, _) = read(&text);
    let names: Vec<String> = layer.routes.iter().map(|r| r.name.to_string()).collect();
    assert_eq!(
        names,
        ["pkg.Svc/Pay", "pkg.Svc/*", "other.Svc/*", "default"]
    );
    assert!(matches!(&layer.routes[0].matches[0].path, PathMatch::Exact(p) if p == "/pkg.Svc/Pay"));
    assert!(matches!(&layer.routes[1].matches[0].path, PathMatch::Prefix(p) if p == "/pkg.Svc/"));
    assert!(matches!(layer.routes[3].matches[0].path, PathMatch::Any));
    assert!(layer.routes[3].matches[0].method.is_none());
    assert!(
        layer.routes[0].matches[0]
            .method
            .as_ref()
            .unwrap()
            .matches("POST")
    );
    // The exact entry has no retryPolicy: it turns its service's retries off.
    assert_eq!(value(&layer.routes[0].policy.max_attempts), 1);
    assert!(
        note(&layer.routes[0].policy.max_attempts)
            .unwrap()
            .contains("does not retry")
    );
}

#[test]
fn an_entry_without_name_binds_nothing() {
    let (layer, _) = read(&config(
        &format!("{{{RETRY}}}, {{\"name\": [], {RETRY}}}"),
        "",
    ));
    assert!(layer.routes.is_empty());
}

#[test]
fn throttling_is_a_budget() {
    let text = config(
        &format!(r#"{{"name": [{{}}], {RETRY}}}"#),
        r#", "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}"#,
    );
    let (layer, text) = read(&text);
    let budget = layer.budget.unwrap();
    assert!(text[budget.span.range()].starts_with("\"retryThrottling\""));
    let (message, at) = refused(&text.replace("0.1}", "0.0001}"));
    assert!(
        message.contains("`tokenRatio` must be greater than 0"),
        "{message}"
    );
    assert_eq!(at, "\"tokenRatio\": 0.0001");
    let (message, _) = refused(&text.replace("\"maxTokens\": 10", "\"maxTokens\": 0"));
    assert!(
        message.contains("`maxTokens` must be greater than 0"),
        "{message}"
    );
}

#[test]
fn hedging_repeats_the_call_after_each_delay() {
    let text = config(
        r#"{"name": [{"service": "pkg.Svc"}], "hedgingPolicy": {"maxAttempts": 7, "hedgingDelay": "0.5s", "nonFatalStatusCodes": ["UNAVAILABLE", "ABORTED"]}}"#,
        "",
    );
    let (layer, _) = read(&text);
    let p = &layer.routes[0].policy;
    assert_eq!(value(&p.max_attempts), 5);
    let said = note(&p.max_attempts).unwrap();
    assert!(
        said.contains("above 5 as 5") && said.contains("grpc-java hedges"),
        "{said}"
    );
    let on: Vec<Signal> = value(&p.retry_on).iter().map(|s| s.value).collect();
    assert!(on.contains(&Signal::Timeout) && on.contains(&Signal::Grpc(GrpcCode::Aborted)));
    assert_eq!(value(&p.per_attempt_timeout), Duration::from_millis(500));
}

#[test]
fn values_a_client_refuses_are_input_errors_at_their_place() {
    let entry = |retry: &str| config(&format!(r#"{{"name": [{{}}], {retry}}}"#), "");
    let cases = [
        (
            "\"maxAttempts\": 4",
            "\"maxAttempts\": 1",
            "must be at least 2",
            "\"maxAttempts\": 1",
        ),
        (
            "\"maxAttempts\": 4",
            "\"maxAttempts\": \"x\"",
            "failed to parse",
            "\"maxAttempts\": \"x\"",
        ),
        (
            "\"maxAttempts\": 4",
            "\"maxAttempts\": 2.5",
            "failed to parse",
            "\"maxAttempts\": 2.5",
        ),
        (
            "\"0.1s\"",
            "\"0.1\"",
            "no s suffix",
            "\"initialBackoff\": \"0.1\"",
        ),
        (
            "\"0.1s\"",
            "\".1s\"",
            "not a number of seconds",
            "\"initialBackoff\": \".1s\"",
        ),
        (
            "\"0.1s\"",
            "\"0s\"",
            "must be greater than 0",
            "\"initialBackoff\": \"0s\"",
        ),
        (
            "\"0.1s\"",
            "\"-1s\"",
            "range [0, 315576000000]",
            "\"initialBackoff\": \"-1s\"",
        ),
        (
            "\"1s\"",
            "\"1.0123456789s\"",
            "too many digits",
            "\"maxBackoff\": \"1.0123456789s\"",
        ),
        (
            "\"backoffMultiplier\": 2",
            "\"backoffMultiplier\": 0",
            "must be greater than 0",
            "\"backoffMultiplier\": 0",
        ),
        (
            "\"UNAVAILABLE\", ",
            "\"unavailable\", ",
            "names are upper case: UNAVAILABLE",
            "\"unavailable\"",
        ),
        ("\"UNAVAILABLE\", ", "14, ", "is not a string", "14"),
        (
            "\"UNAVAILABLE\", ",
            "\"SOMETIMES\", ",
            "failed to parse status code",
            "\"SOMETIMES\"",
        ),
        (
            "[\"UNAVAILABLE\", \"RESOURCE_EXHAUSTED\"]",
            "[]",
            "must be non-empty",
            "\"retryableStatusCodes\"",
        ),
        (
            "\"maxAttempts\": 4, ",
            "",
            "`retryPolicy.maxAttempts` is required",
            "",
        ),
    ];
    for (from, to, said, at) in cases {
        let text = entry(&RETRY.replacen(from, to, 1));
        let (message, place) = refused(&text);
        assert!(message.contains(said), "{to}: {message}");
        assert!(message.contains("gRPC clients refuse"), "{to}: {message}");
        if !at.is_empty() {
            assert_eq!(place, at, "{to}");
        }
    }
}

#[test]
fn names_a_client_refuses() {
    let both = config(
        &format!(r#"{{"name": [{{}}], {RETRY}, "hedgingPolicy": {{"maxAttempts": 2}}}}"#),
        "",
    );
    let (message, at) = refused(&both);
    assert!(message.contains("cannot both be specified"), "{message}");
    assert!(at.starts_with("\"hedgingPolicy\""));
    let dup = config(
        &format!(
            r#"{{"name": [{{"service": "a.B"}}], {RETRY}}}, {{"name": [{{"service": "a.B", "method": ""}}]}}"#
        ),
        "",
    );
    let (message, at) = refused(&dup);
    assert!(
        message.contains("multiple method configs for path /a.B/"),
        "{message}"
    );
    assert_eq!(at, r#"{"service": "a.B", "method": ""}"#);
    let defaults = config(r#"{"name": [{}]}, {"name": [{"service": ""}]}"#, "");
    assert!(
        refused(&defaults)
            .0
            .contains("duplicate default method config")
    );
    let orphan = config(r#"{"name": [{"method": "Get"}]}"#, "");
    assert!(
        refused(&orphan)
            .0
            .contains("method name populated without service name")
    );
    let timeout = config(r#"{"name": [{}], "timeout": "1.5"}"#, "");
    assert!(refused(&timeout).0.contains("no s suffix"));
}

#[test]
fn yaml_of_the_same_shape_is_read() {
    let text = "methodConfig:\n- name:\n  - service: pkg.Svc\n  retryPolicy:\n    maxAttempts: 3\n    initialBackoff: 0.2s\n    maxBackoff: 2s\n    backoffMultiplier: 1.5\n    retryableStatusCodes: [UNAVAILABLE]\n";
    let (layer, _) = read(text);
    assert_eq!(value(&layer.routes[0].policy.max_attempts), 3);
}

#[test]
fn only_service_configs_are_recognised() {
    let parse = |text: &str| {
        crate::input::source::parse(text, crate::input::source::ParseLimits::default())
            .unwrap()
            .0
    };
    assert!(ServiceConfig.recognises(&parse("{\"methodConfig\": []}")));
    assert!(ServiceConfig.recognises(&parse("retryThrottling: {maxTokens: 1, tokenRatio: 1}")));
    assert!(!ServiceConfig.recognises(&parse("apiVersion: v1\nkind: ConfigMap\nmethodConfig: []")));
    assert!(!ServiceConfig.recognises(&parse("openapi: 3.1.0\nmethodConfig: []")));
    assert!(!ServiceConfig.recognises(&parse("loadBalancingConfig: []")));
}
