//! A layer file cannot switch its own findings off: route patterns are read by the engine
//! of the proxy that matches them (and one retrylint cannot evaluate stops the run at the
//! pattern), and Istio's empty `retryOn` keeps its defaults.

mod common;

use std::path::Path;

use common::{fired_rules, retrylint_in, scratch};

/// A description with one write, `POST {path}`.
fn write_description(dir: &Path, path: &str) {
    std::fs::write(
        dir.join("openapi.yaml"),
        format!(
            "openapi: 3.0.3\ninfo: {{ title: t, version: '1' }}\nservers: [{{ url: http://p }}]\npaths:\n  {path}:\n    post:\n      operationId: write\n      responses:\n        '201': {{ description: done }}\n        '503': {{ description: busy }}\n"
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
