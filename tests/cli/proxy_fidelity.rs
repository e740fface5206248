//! Layers read as the proxies behave: which requests a conditional route takes, what
//! Envoy's retry conditions cover, and Gateway API's retries under Istio and Envoy
//! Gateway. Each test names the source it follows.

use crate::common;

use std::path::Path;

use common::{check_layers, fired_rules, scratch};

/// A description of service `p` with `POST /payments` and `GET /payments`, whose 429
/// declares `Retry-After`.
fn payments(dir: &Path) {
    let responses = "      responses:\n        '200': { description: done }\n        '429':\n          description: busy\n          headers: { Retry-After: { schema: { type: integer } } }\n        '503': { description: down }\n";
    std::fs::write(
        dir.join("openapi.yaml"),
        format!(
            "openapi: 3.0.3\ninfo: {{ title: t, version: '1' }}\nservers: [{{ url: http://p }}]\npaths:\n  /payments:\n    post:\n      operationId: pay\n{responses}    get:\n      operationId: list\n{responses}"
        ),
    )
    .expect("written");
}

/// An Istio `VirtualService` for host `p` with these `http` routes.
fn virtual_service(routes: &str) -> String {
    format!(
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {{ name: p }}\nspec:\n  hosts: [p]\n  http:\n{routes}"
    )
}

/// Checks the payments description against the layer files `files` (name, text).
fn check(scratch_name: &str, files: &[(&str, &str)]) -> common::Run {
    let dir = scratch(scratch_name);
    payments(&dir);
    let run = check_layers(&dir, files);
    assert_ne!(run.code, 2, "{}", run.transcript());
    run
}

/// Checks the payments description against one layer file: `rule` must fire.
fn assert_fires(scratch_name: &str, name: &str, text: &str, rule: &str) {
    let run = check(scratch_name, &[(name, text)]);
    assert!(
        fired_rules(&run.stdout).contains(&rule.to_string()),
        "{}",
        run.transcript()
    );
}

/// The lines of findings of `rule`.
fn findings<'a>(run: &'a common::Run, rule: &str) -> Vec<&'a str> {
    let tag = format!("[{rule}]");
    run.stdout.lines().filter(|l| l.contains(&tag)).collect()
}

/// Checks one Istio route with `retries` against the payments description: the write's
/// `unprotected-write-retry` finding must name `signal` among what it is retried on.
fn assert_write_retried_on(scratch_name: &str, retries: &str, signal: &str) {
    let routes = format!(
        "  - timeout: 10s\n    retries: {retries}\n    route: [{{ destination: {{ host: p }} }}]\n"
    );
    let run = check(scratch_name, &[("vs.yaml", &virtual_service(&routes))]);
    assert!(
        findings(&run, "unprotected-write-retry")
            .iter()
            .any(|l| l.contains(signal)),
        "{}",
        run.transcript()
    );
}

/// envoyproxy/envoy `source/common/router/retry_state_impl.cc` (`wouldRetryFromReset`):
/// `gateway-error`, like `5xx`, retries every upstream reset and connect failure; and
/// `source/common/router/router.cc` retries an attempt past its per-try timeout under
/// `reset` as under `5xx` and `gateway-error`.
#[test]
fn gateway_error_retries_resets_and_reset_retries_per_try_timeouts() {
    assert_write_retried_on(
        "proxy-gateway-error",
        "{ attempts: 2, retryOn: gateway-error }",
        "reset",
    );
    assert_write_retried_on(
        "proxy-reset-timeout",
        "{ attempts: 2, perTryTimeout: 1s, retryOn: reset }",
        "timeout",
    );
}

/// envoyproxy/envoy `source/common/router/retry_state_impl.cc` retries under
/// `envoy-ratelimited` only a response carrying `x-envoy-ratelimited`, which Envoy's own
/// rate limiting adds: a backend's 429 with `Retry-After` is not retried by it.
#[test]
fn envoy_ratelimited_does_not_retry_a_backends_429() {
    let run = check(
        "proxy-envoy-ratelimited",
        &[(
            "vs.yaml",
            &virtual_service(
                "  - timeout: 10s\n    retries: { attempts: 2, retryOn: envoy-ratelimited }\n    route: [{ destination: { host: p } }]\n",
            ),
        )],
    );
    let fired = fired_rules(&run.stdout);
    assert!(
        !fired.contains(&"layer-ignores-retry-after".to_string()),
        "{}",
        run.transcript()
    );
    assert!(
        !fired.contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.transcript()
    );
}

/// The canary pattern of istio/istio `samples/bookinfo/networking/virtual-service-reviews-jason-v2-v3.yaml`:
/// a first route that matches `headers: {end-user: {exact: jason}}`, then a route for
/// everyone else. Istio's `HTTPMatchRequest` takes only the requests that carry the
/// header; ordinary traffic falls through to the second route, whose default retries
/// (no `retries` block) retry the POST.
#[test]
fn an_istio_header_route_takes_only_requests_with_the_header() {
    let run = check(
        "proxy-istio-canary",
        &[(
            "vs.yaml",
            &virtual_service(
                "  - match:\n    - headers:\n        end-user: { exact: jason }\n    retries: { attempts: 0 }\n    route: [{ destination: { host: p, subset: v2 } }]\n  - route: [{ destination: { host: p, subset: v3 } }]\n",
            ),
        )],
    );
    let implicit = findings(&run, "implicit-mesh-retry");
    assert!(
        implicit
            .iter()
            .any(|l| l.contains("POST /payments") && l.contains("error[")),
        "{}",
        run.transcript()
    );
    // The canary route retrying a write says which requests it takes.
    let run = check(
        "proxy-istio-canary-retrying",
        &[(
            "vs.yaml",
            &virtual_service(
                "  - match:\n    - headers:\n        end-user: { exact: jason }\n    timeout: 10s\n    retries: { attempts: 4, retryOn: 5xx }\n    route: [{ destination: { host: p, subset: v2 } }]\n  - timeout: 10s\n    retries: { attempts: 0 }\n    route: [{ destination: { host: p, subset: v3 } }]\n",
            ),
        )],
    );
    let write = findings(&run, "unprotected-write-retry");
    assert!(
        write
            .iter()
            .any(|l| l.contains("for requests with header end-user")),
        "{}",
        run.transcript()
    );
}

/// envoyproxy/envoy `api/envoy/config/route/v3/route_components.proto` (`RouteMatch`): a
/// route matches when the path *and* every `headers` and `query_parameters` matcher match;
/// `source/common/router/config_impl.cc` tries the next route otherwise. The first route
/// takes only `?debug` requests; ordinary ones reach the second, which retries the POST
/// on 5xx.
#[test]
fn an_envoy_query_route_takes_only_requests_with_the_parameter() {
    let envoy = "virtual_hosts:\n- name: p\n  domains: [p]\n  routes:\n  - match: { prefix: /, query_parameters: [{ name: debug, present_match: true }] }\n    route: { cluster: p }\n  - match: { prefix: / }\n    route: { cluster: p, timeout: 10s, retry_policy: { retry_on: 5xx, num_retries: 2 } }\n";
    assert_fires(
        "proxy-envoy-query",
        "envoy.yaml",
        envoy,
        "unprotected-write-retry",
    );
}

/// kubernetes-sigs/gateway-api `apis/v1/httproute_types.go` (`HTTPRouteMatch`): a request
/// matches when all of path, headers, query parameters and method match. A rule that
/// matches header `x-canary` outranks the plain rule, but takes only canary requests:
/// ordinary ones reach the rule that retries on 503.
#[test]
fn a_gateway_api_header_rule_takes_only_requests_with_the_header() {
    let route = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: p }\nspec:\n  hostnames: [p]\n  rules:\n  - matches: [{ path: { type: PathPrefix, value: / }, headers: [{ name: x-canary, value: 'yes' }] }]\n    backendRefs: [{ name: p-canary, port: 80 }]\n  - timeouts: { request: 10s }\n    retry: { attempts: 2, codes: [503] }\n    backendRefs: [{ name: p, port: 80 }]\n";
    assert_fires(
        "proxy-gateway-header",
        "route.yaml",
        route,
        "unprotected-write-retry",
    );
}

/// A Gateway API `HTTPRoute` for host `p` with one rule: `rule` (YAML lines of a rule).
fn http_route(rule: &str) -> String {
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{ name: p }}\nspec:\n  hostnames: [p]\n  rules:\n  - {rule}\n    backendRefs: [{{ name: p, port: 80 }}]\n"
    )
}

/// A `retry` stanza without `attempts` retries twice (3 attempts) under istio/istio
/// `pilot/pkg/config/kube/gateway/conversion.go` (`ptr.OrDefault(r.Retry.Attempts, 2)`) and
/// envoyproxy/gateway `internal/xds/translator/route.go` (`retryDefaultNumRetries = 2`):
/// more than 2 attempts with no budget anywhere.
#[test]
fn a_gateway_api_retry_without_attempts_retries_twice() {
    assert_fires(
        "proxy-gateway-default-attempts",
        "route.yaml",
        &http_route("timeouts: { request: 10s }\n    retry: { codes: [503] }"),
        "retry-budget-missing",
    );
}

/// istio/istio `pilot/pkg/networking/core/cluster_traffic_policy.go`: a `DestinationRule`'s
/// `connectionPool.http.maxRetries` (when above 0) becomes the cluster's `max_retries`,
/// the retries in flight to the host at once; without it Istio sets 2^32−1. A written
/// limit is a retry budget; an unset one is none.
#[test]
fn an_istio_destination_rule_max_retries_is_a_retry_budget() {
    let routes = virtual_service(
        "  - timeout: 10s\n    retries: { attempts: 3, retryOn: connect-failure }\n    route: [{ destination: { host: p } }]\n",
    );
    let rule = |pool: &str| {
        format!(
            "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {{ name: p }}\nspec:\n  host: p\n  trafficPolicy:\n    connectionPool:\n      http: {{ {pool} }}\n"
        )
    };
    let budget_missing = |scratch_name: &str, pool: &str| {
        let run = check(
            scratch_name,
            &[("vs.yaml", &routes), ("dr.yaml", &rule(pool))],
        );
        fired_rules(&run.stdout).contains(&"retry-budget-missing".to_string())
    };
    assert!(!budget_missing("proxy-istio-max-retries", "maxRetries: 10"));
    assert!(budget_missing(
        "proxy-istio-max-retries-unset",
        "http2MaxRequests: 100"
    ));
}
