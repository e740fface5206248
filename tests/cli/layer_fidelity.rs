//! A layer file cannot switch its own findings off: route patterns are read by the engine
//! of the proxy that matches them (and one retrylint cannot evaluate stops the run at the
//! pattern), Istio's empty `retryOn` keeps its defaults, and numbers at the edge of their
//! types saturate or are input errors, never an overflow that reads as "not retried".

use crate::common;

use std::path::Path;

use common::{fired_rules, retrylint_in, scratch};

/// A description with one write, `POST {path}`, and `root` (YAML lines) at its root.
fn write_description_with(dir: &Path, root: &str, path: &str) {
    std::fs::write(
        dir.join("openapi.yaml"),
        format!(
            "openapi: 3.0.3\ninfo: {{ title: t, version: '1' }}\nservers: [{{ url: http://p }}]\n{root}paths:\n  {path}:\n    post:\n      operationId: write\n      responses:\n        '201': {{ description: done }}\n        '503': {{ description: busy }}\n"
        ),
    )
    .expect("written");
}

/// A description with one write, `POST {path}`.
fn write_description(dir: &Path, path: &str) {
    write_description_with(dir, "", path);
}

/// An Istio `VirtualService` for host `p` with these `http` routes.
fn virtual_service(routes: &str) -> String {
    format!(
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {{ name: p }}\nspec:\n  hosts: [p]\n  http:\n{routes}"
    )
}

fn check(dir: &Path, layer: &str) -> common::Run {
    retrylint_in(dir, &["check", "openapi.yaml", "-p", layer, "--host", "p"])
}

/// Checks one Istio route matching `uri.regex: pattern`, which must be refused at its line
/// with a message that says `why`.
fn assert_pattern_refused(scratch_name: &str, pattern: &str, why: &str) {
    let dir = scratch(scratch_name);
    write_description(&dir, "/payments");
    std::fs::write(
        dir.join("vs.yaml"),
        virtual_service(&format!(
            "  - match:\n    - uri: {{ regex: '{pattern}' }}\n    route: [{{ destination: {{ host: p }} }}]\n"
        )),
    )
    .expect("written");
    let run = check(&dir, "vs.yaml");
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains(why), "{}", run.stderr);
    assert!(run.stderr.contains("vs.yaml:8"), "{}", run.stderr);
}

#[test]
fn a_route_pattern_too_big_to_compile_is_an_input_error_at_the_pattern() {
    // Valid syntax; its automaton is past the size limit. It used to match nothing, so
    // the route (Istio's default retries, for a POST) vanished from the findings.
    assert_pattern_refused(
        "fidelity-regex-size",
        "/payments(?:(?:[a-z]{1000}){1000})?",
        "too big",
    );
}

#[test]
fn a_pattern_rust_reads_otherwise_than_re2_is_an_input_error_at_the_pattern() {
    // RE2 reads `[[s]]` as the class {[, s} then `]`; Rust's regex as a nested class.
    assert_pattern_refused("fidelity-regex-re2-syntax", "/payment[[s]]", "RE2");
}

/// Checks `layer` (written as `name`) against a description whose one write is
/// `POST {path}`: the run must succeed and fire `rule`.
fn assert_fires(scratch_name: &str, path: &str, name: &str, layer: &str, rule: &str) {
    let dir = scratch(scratch_name);
    write_description(&dir, path);
    std::fs::write(dir.join(name), layer).expect("written");
    let run = check(&dir, name);
    assert_ne!(run.code, 2, "{layer}\n{}", run.transcript());
    assert!(
        fired_rules(&run.stdout).contains(&rule.to_string()),
        "{layer}\n{}",
        run.transcript()
    );
}

/// RE2's `\w` is `[0-9A-Za-z_]` (google/re2 `re2/perl_groups.cc`; Envoy matches
/// `safe_regex` with RE2, envoyproxy/envoy `source/common/common/regex.cc`, and Istio's
/// `uri.regex` becomes one). The first route does not take `/café/{id}` in the proxy: the
/// request falls through to the second, Istio's default retries, which retry the POST.
#[test]
fn istio_route_classes_are_re2_ascii_classes() {
    assert_fires(
        "fidelity-regex-re2-classes",
        "/café/{id}",
        "vs.yaml",
        &virtual_service(
            "  - match:\n    - uri: { regex: '/caf\\w/.*' }\n    retries: { attempts: 0 }\n    route: [{ destination: { host: p } }]\n  - route: [{ destination: { host: p } }]\n",
        ),
        "implicit-mesh-retry",
    );
}

/// linkerd/linkerd2-proxy `linkerd/service-profiles/src/proto.rs` compiles `pathRegex`
/// with Rust's `regex` crate, whose `\w` is Unicode: there the first route takes
/// `/café/{id}` and retries it within the budget.
#[test]
fn linkerd_route_classes_stay_unicode() {
    assert_fires(
        "fidelity-regex-linkerd-classes",
        "/café/{id}",
        "sp.yaml",
        "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: { name: p }\nspec:\n  routes:\n  - name: writes\n    condition: { pathRegex: '/caf\\w/.*' }\n    isRetryable: true\n  - name: rest\n    condition: { pathRegex: '/.*' }\n  retryBudget: { retryRatio: 0.2, minRetriesPerSecond: 10, ttl: 10s }\n",
        "unprotected-write-retry",
    );
}

/// istio/istio `pilot/pkg/networking/core/route/retry/retry.go` (`ConvertPolicy`) replaces
/// the default `RetryOn` only `if in.RetryOn != ""`: an empty value, as an empty Helm
/// value renders, keeps connect-failure,refused-stream,unavailable,cancelled.
#[test]
fn istio_empty_retry_on_keeps_the_default_conditions() {
    for retry_on in ["\"\"", "''", "null"] {
        assert_fires(
            "fidelity-istio-empty-retry-on",
            "/payments",
            "vs.yaml",
            &virtual_service(&format!(
                "  - timeout: 10s\n    retries: {{ attempts: 3, perTryTimeout: 1s, retryOn: {retry_on} }}\n    route: [{{ destination: {{ host: p }} }}]\n"
            )),
            "unprotected-write-retry",
        );
    }
}

/// An `x-speakeasy-retries` description whose backoff is `backoff`.
fn speakeasy(dir: &Path, backoff: &str) {
    write_description_with(
        dir,
        &format!(
            "x-speakeasy-retries:\n  strategy: backoff\n  backoff: {backoff}\n  statusCodes: [5XX]\n  retryConnectionErrors: true\n"
        ),
        "/payments",
    );
}

#[test]
fn a_huge_speakeasy_exponent_saturates_instead_of_switching_retries_off() {
    let dir = scratch("fidelity-speakeasy-exponent");
    for exponent in ["1e306", "1e308", "1.7976931348623157e308", "1e400"] {
        speakeasy(
            &dir,
            &format!(
                "{{ initialInterval: 500, maxInterval: 10000, maxElapsedTime: 60000, exponent: {exponent} }}"
            ),
        );
        let run = retrylint_in(&dir, &["check", "openapi.yaml"]);
        assert_eq!(run.code, 1, "exponent {exponent}\n{}", run.transcript());
        let rules = fired_rules(&run.stdout);
        assert!(
            rules.contains(&"unprotected-write-retry".to_string()),
            "exponent {exponent}\n{}",
            run.transcript()
        );
        // The first wait is 500ms, not a base rounded to nothing.
        assert!(
            !rules.contains(&"immediate-retry".to_string()),
            "exponent {exponent}\n{}",
            run.transcript()
        );
        // The TypeScript SDK waits nothing, 500ms, then the 10s cap (9 attempts in the
        // minute); Python's `exponent**retries` overflows on the third wait and ends its
        // loop; Go's interval overflows to Inf, and jitter of −Inf makes it NaN, no wait at
        // all (mistralai/client-ts `src/lib/retries.ts`, mistralai/client-python
        // `src/mistralai/client/utils/retries.py`, dubinc/dub-go `internal/utils/retries.go`).
        assert!(
            run.stdout
                .contains("Go's retries the most (TypeScript 9, Python 3, Go without end)"),
            "exponent {exponent}\n{}",
            run.transcript()
        );
        let plan = retrylint_in(&dir, &["plan", "openapi.yaml"]);
        assert!(
            plan.stdout.contains("unbounded requests per call"),
            "exponent {exponent}\n{}",
            plan.transcript()
        );
    }
}

/// Extreme numbers in every layer format: a finding or an input error at the value
/// (exit 1 or 2), never a panic, and never a silent exit 0.
#[test]
fn extreme_numbers_in_layer_files_saturate_or_are_errors_at_the_value() {
    let dir = scratch("fidelity-extreme-numbers");
    write_description(&dir, "/payments");
    let istio = |retries: &str, timeout: &str| {
        virtual_service(&format!(
            "  - timeout: {timeout}\n    retries: {retries}\n    route: [{{ destination: {{ host: p }} }}]\n"
        ))
    };
    let envoy = |policy: &str, timeout: &str| {
        format!(
            "virtual_hosts:\n- name: p\n  domains: ['*']\n  routes:\n  - match: {{ prefix: / }}\n    route:\n      cluster: p\n      timeout: {timeout}\n      retry_policy: {policy}\n"
        )
    };
    let gateway = |retry: &str, timeouts: &str| {
        format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{ name: p }}\nspec:\n  parentRefs: [{{ name: g }}]\n  rules:\n  - timeouts: {timeouts}\n    retry: {retry}\n"
        )
    };
    let profile = |timeout: &str, budget: &str| {
        format!(
            "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: {{ name: p }}\nspec:\n  routes:\n  - name: all\n    condition: {{ pathRegex: '/.*' }}\n    isRetryable: true\n    timeout: {timeout}\n  retryBudget: {budget}\n"
        )
    };
    let cases = [
        istio("{ attempts: 18446744073709551616 }", "10s"),
        istio("{ attempts: 9223372036854775807, retryOn: 5xx }", "10s"),
        istio("{ attempts: -1 }", "10s"),
        istio("{ attempts: 1e308 }", "10s"),
        istio(
            "{ attempts: 3, perTryTimeout: 99999999999999999999s }",
            "10s",
        ),
        istio("{ attempts: 3, retryOn: 5xx }", "99999999999999999999s"),
        istio(
            "{ attempts: 3, retryOn: 5xx, backoff: 2562047h }",
            "2562047h",
        ),
        istio("{ attempts: 3, backoff: 1e400s }", "10s"),
        envoy("{ retry_on: 5xx, num_retries: 4294967296 }", "10s"),
        envoy("{ retry_on: 5xx, num_retries: 4294967295 }", "10s"),
        envoy("{ retry_on: 5xx, per_try_timeout: 1e308s }", "1e308s"),
        envoy(
            "{ retry_on: 5xx, per_try_timeout: 99999999999999999999s }",
            "10s",
        ),
        envoy(
            "{ retry_on: 5xx, per_try_timeout: { seconds: 99999999999999999999 } }",
            "10s",
        ),
        envoy("{ retry_on: 5xx, per_try_timeout: { seconds: -5 } }", "10s"),
        envoy("{ retry_on: 5xx }", "{ seconds: -5 }"),
        envoy(
            "{ retry_on: 5xx, retry_back_off: { base_interval: 1e308s, max_interval: 1e400s } }",
            "10s",
        ),
        envoy(
            "{ retry_on: 5xx, retry_back_off: { base_interval: { seconds: 9223372036854775807, nanos: 999999999 } } }",
            "10s",
        ),
        gateway(
            "{ attempts: 18446744073709551616, codes: [503] }",
            "{ request: 10s }",
        ),
        gateway(
            "{ attempts: 18446744073709551615, codes: [503] }",
            "{ request: 10s }",
        ),
        gateway(
            "{ attempts: 2, codes: [503], backoff: 99999999999999999999s }",
            "{ request: 2562047h, backendRequest: 2562047h }",
        ),
        profile("99999999999999999999s", "{ retryRatio: 0.2, ttl: 10s }"),
        profile(
            "5s",
            "{ retryRatio: 1e308, minRetriesPerSecond: 10, ttl: 10s }",
        ),
        profile("5s", "{ retryRatio: 1e400, ttl: 10s }"),
        profile(
            "5s",
            "{ retryRatio: 0.2, minRetriesPerSecond: 18446744073709551616 }",
        ),
    ];
    for layer in cases {
        std::fs::write(dir.join("layer.yaml"), &layer).expect("written");
        let run = check(&dir, "layer.yaml");
        assert_finding_or_error_at(&run, "layer.yaml:", &layer);
    }
    for backoff in [
        "{ initialInterval: 18446744073709551615, maxInterval: 10000, maxElapsedTime: 60000 }",
        "{ initialInterval: 18446744073709551616 }",
        "{ initialInterval: 1, maxInterval: 1, maxElapsedTime: 18446744073709551615, exponent: 1e308 }",
        "{ initialInterval: 500, maxInterval: 18446744073709551615, maxElapsedTime: 18446744073709551615, exponent: 1e308 }",
        "{ initialInterval: 1, maxInterval: 18446744073709551615, maxElapsedTime: 18446744073709551615, exponent: 1.0000001 }",
        "{ exponent: -1 }",
        "{ exponent: 0 }",
    ] {
        speakeasy(&dir, backoff);
        let run = retrylint_in(&dir, &["check", "openapi.yaml"]);
        assert_finding_or_error_at(&run, "openapi.yaml:", backoff);
    }
}

/// A run that reports findings (exit 1), or stops with an input error located in `file`
/// (exit 2); `input` is what was checked, for the message.
fn assert_finding_or_error_at(run: &common::Run, file: &str, input: &str) {
    match run.code {
        1 => assert!(
            fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
            "{input}\n{}",
            run.transcript()
        ),
        2 => assert!(run.stderr.contains(file), "{input}\n{}", run.transcript()),
        _ => panic!("{input}\n{}", run.transcript()),
    }
}
