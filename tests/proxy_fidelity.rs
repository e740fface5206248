//! Layers read as the proxies behave: which requests a conditional route takes, what
//! Envoy's retry conditions cover, and Gateway API's retries under Istio and Envoy
//! Gateway. Each test names the source it follows.

mod common;

use std::path::Path;

use common::{fired_rules, retrylint_in, scratch};

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
    let mut args = vec!["check".to_string(), "openapi.yaml".to_string()];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("written");
        args.push("-p".into());
        args.push((*name).to_string());
    }
    args.extend(["--host".to_string(), "p".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = retrylint_in(&dir, &args);
    assert_ne!(run.code, 2, "{}", run.transcript());
    run
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
