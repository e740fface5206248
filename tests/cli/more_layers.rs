//! The YAML layer formats beyond the meshes: Envoy Gateway's `BackendTrafficPolicy`,
//! Traefik's dynamic configuration and Kong's declarative configuration,
//! through the real binary on each format's fixture (`fixtures/layers/<format>/`), and
//! defaults read from each system's source, each test naming the file it follows.

use crate::common;

use common::{check_and_plan, check_layers, fired_rules, payments, scratch};

const EG: &str = "fixtures/layers/envoy-gateway";
const TRAEFIK: &str = "fixtures/layers/traefik";
const KONG: &str = "fixtures/layers/kong";

#[test]
fn envoy_gateway_retries_are_checked_in_the_policy_file() {
    let (check, plan) = check_and_plan(EG, "backendtrafficpolicy.yaml");
    assert_eq!(check.code, 1, "{}", check.transcript());
    assert!(
        check.stdout.contains("backendtrafficpolicy.yaml:22:11"),
        "{}",
        check.stdout
    );
    insta::assert_snapshot!("envoy-gateway-check", check.transcript());
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    assert!(
        plan.stdout
            .contains("gateway: Envoy Gateway BackendTrafficPolicy orders-retry"),
        "{}",
        plan.stdout
    );
    insta::assert_snapshot!("envoy-gateway-plan", plan.transcript());
}

#[test]
fn envoy_gateway_retries_twice_on_503_whatever_the_method_when_retry_is_empty() {
    // envoyproxy/gateway internal/xds/translator/route.go: `retryDefaultNumRetries = 2`,
    // `retryDefaultRetryOn = "connect-failure,refused-stream,unavailable,cancelled,
    // retriable-status-codes"`, `retryDefaultRetriableStatusCode = 503`, and no
    // `RetriableRequestHeaders`: a POST is retried like any other request.
    let dir = scratch("more-layers-eg-defaults");
    payments(&dir);
    let policy = "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: { name: p }\nspec:\n  targetRefs: [{ group: gateway.networking.k8s.io, kind: HTTPRoute, name: p }]\n  retry: {}\n";
    let run = check_layers(&dir, &[("btp.yaml", policy)]);
    assert!(
        fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("gRPC cancelled and 503"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("built-in default of Envoy Gateway"),
        "{}",
        run.stdout
    );
    // `numRetries: 0` turns retries off.
    let off = policy.replace("retry: {}", "retry: { numRetries: 0 }");
    let run = check_layers(&dir, &[("btp.yaml", off.as_str())]);
    assert!(
        !fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
}

#[test]
fn traefik_retries_are_checked_in_the_dynamic_configuration() {
    let (check, plan) = check_and_plan(TRAEFIK, "dynamic.yaml");
    assert_eq!(check.code, 1, "{}", check.transcript());
    assert!(
        check.stdout.contains("dynamic.yaml:21:13"),
        "{}",
        check.stdout
    );
    insta::assert_snapshot!("traefik-check", check.transcript());
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    assert!(
        plan.stdout
            .contains("gateway: Traefik routers, route orders-api"),
        "{}",
        plan.stdout
    );
    insta::assert_snapshot!("traefik-plan", plan.transcript());
}

#[test]
fn traefik_retries_a_write_on_a_status_only_with_retry_non_idempotent_method() {
    // traefik/traefik pkg/middlewares/retry/retry.go (v3.7): statuses are retried when
    // `r.retryNonIdempotentMethod || isIdempotent`, and isIdempotent is false for POST,
    // PATCH and LOCK; a network error before the request is written is retried for any
    // method.
    let dir = scratch("more-layers-traefik-methods");
    payments(&dir);
    let config = |extra: &str| {
        format!(
            "http:\n  routers:\n    pay:\n      rule: Host(`p`) && PathPrefix(`/payments`)\n      middlewares: [retry]\n      service: p\n  middlewares:\n    retry:\n      retry:\n        attempts: 3\n        status: [\"503\"]\n{extra}"
        )
    };
    let run = check_layers(&dir, &[("dynamic.yaml", config("").as_str())]);
    assert!(
        !fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
    let all = config("        retryNonIdempotentMethod: true\n");
    let run = check_layers(&dir, &[("dynamic.yaml", all.as_str())]);
    assert!(
        fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
}

#[test]
fn kong_retries_are_checked_in_the_declarative_configuration() {
    let (check, plan) = check_and_plan(KONG, "kong.yaml");
    assert_eq!(check.code, 1, "{}", check.transcript());
    assert!(check.stdout.contains("kong.yaml:6:5"), "{}", check.stdout);
    insta::assert_snapshot!("kong-check", check.transcript());
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    assert!(
        plan.stdout
            .contains("gateway: Kong declarative configuration, route orders-api"),
        "{}",
        plan.stdout
    );
    insta::assert_snapshot!("kong-plan", plan.transcript());
}

#[test]
fn kong_retries_five_times_and_never_resends_a_written_post() {
    // Kong/kong kong/db/schema/entities/services.lua: `retries` has `default = 5`; Kong's
    // nginx template sets no proxy_next_upstream, and nginx's default does not pass a POST
    // to the next upstream once it was sent.
    let dir = scratch("more-layers-kong-defaults");
    payments(&dir);
    let config = "_format_version: '3.0'\nservices:\n- name: p\n  url: http://p\n  routes:\n  - name: pay\n    hosts: [p]\n    paths: [/payments]\n";
    let run = check_layers(&dir, &[("kong.yaml", config)]);
    let fired = fired_rules(&run.stdout);
    assert!(
        !fired.contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("6 attempts"), "{}", run.stdout);
    assert!(
        run.stdout.contains("built-in default of Kong"),
        "{}",
        run.stdout
    );
}
