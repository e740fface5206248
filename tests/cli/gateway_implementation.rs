//! Gateway API routes read as their implementation runs them: `GRPCRoute` matches as the
//! paths of gRPC calls, and Istio's default retries for the rules Istio implements, known
//! from the `Gateway` and `GatewayClass` objects among the `-p` files. Each test names the
//! source it follows.

use crate::common;

use std::path::Path;

use common::{check_layers, check_layers_as, fired_rules, retrylint_in, scratch};

/// A description of service `p` with the gRPC calls `pay.v1.Payments/Create` and
/// `pay.v1.Payments/List` (each a POST) and a plain `POST /payments`.
fn payments(dir: &Path) {
    let op = |id: &str| {
        format!(
            "    post:\n      operationId: {id}\n      responses:\n        '200': {{ description: done }}\n"
        )
    };
    std::fs::write(
        dir.join("openapi.yaml"),
        format!(
            "openapi: 3.0.3\ninfo: {{ title: t, version: '1' }}\nservers: [{{ url: http://p }}]\npaths:\n  /pay.v1.Payments/Create:\n{}  /pay.v1.Payments/List:\n{}  /payments:\n{}",
            op("create"),
            op("list"),
            op("pay")
        ),
    )
    .expect("written");
}

/// A `GatewayClass` of `controller` and a `Gateway` `gw` of that class.
fn gateway(controller: &str) -> String {
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {{ name: cls }}\nspec: {{ controllerName: {controller} }}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {{ name: gw }}\nspec:\n  gatewayClassName: cls\n  listeners: [{{ name: http, port: 80, protocol: HTTP }}]\n"
    )
}

/// A route of `kind` for host `p` on `Gateway` `gw`, with `rules` (YAML lines).
fn route(kind: &str, rules: &str) -> String {
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: {kind}\nmetadata: {{ name: p }}\nspec:\n  parentRefs: [{{ name: gw }}]\n  hostnames: [p]\n  rules:\n{rules}"
    )
}

/// Checks the payments description against the files `files` (name, text), each given
/// with `-p`.
fn check(scratch_name: &str, files: &[(&str, &str)]) -> common::Run {
    let dir = scratch(scratch_name);
    payments(&dir);
    check_layers(&dir, files)
}

/// The `implicit-mesh-retry` findings of a route of `kind` with `rules` on an Istio
/// `Gateway`, one line per operation each finding affects.
fn implicit_under_istio(scratch_name: &str, kind: &str, rules: &str) -> Vec<String> {
    let dir = scratch(scratch_name);
    payments(&dir);
    let run = check_layers_as(
        &dir,
        &[
            ("gateway.yaml", &gateway(ISTIO)),
            ("route.yaml", &route(kind, rules)),
        ],
        "json",
    );
    assert_ne!(run.code, 2, "{}", run.transcript());
    per_operation(&run, "implicit-mesh-retry")
}

/// `METHOD path | message` for every operation a finding of `rule` in the JSON output of
/// `run` affects: a finding shared by the operations of a route names them once, in its
/// `operations`.
fn per_operation(run: &common::Run, rule: &str) -> Vec<String> {
    let json: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("JSON output ({e}): {}", run.transcript()));
    let mut lines = Vec::new();
    for finding in json["findings"].as_array().into_iter().flatten() {
        if finding["rule"] != rule {
            continue;
        }
        let message = finding["message"].as_str().unwrap_or_default();
        let single = finding.get("operation").filter(|o| !o.is_null());
        let ops = finding["operations"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for op in single.into_iter().chain(ops.iter()) {
            lines.push(format!("{} {} | {message}", op["method"], op["path"]).replace('"', ""));
        }
    }
    lines
}

const ISTIO: &str = "istio.io/gateway-controller";
const PLAIN_RULE: &str = "  - backendRefs: [{ name: p, port: 80 }]\n";

/// istio/istio `pilot/pkg/config/kube/gateway/conversion.go` (`convertHTTPRoute`): a rule
/// without `retry` becomes a `VirtualService` route without `retries`, which Istio retries
/// by its default policy. The implementation is Istio's when the route's `Gateway` has a
/// class of controller `istio.io/gateway-controller` (`pkg/config/constants/constants.go`);
/// under another controller the rule does not retry.
#[test]
fn an_http_route_rule_without_retry_gets_istio_defaults_under_istio() {
    let implicit = implicit_under_istio("gateway-impl-http-istio", "HTTPRoute", PLAIN_RULE);
    assert!(
        implicit.iter().any(|l| l.contains("POST /payments")
            && l.contains("3 attempts")
            && l.contains("Gateway API HTTPRoute p")),
        "{implicit:#?}"
    );
    // Named as what it is: Istio's default for a Gateway API rule, not a mesh route's.
    assert!(
        implicit
            .iter()
            .all(|l| l.contains("Istio's default policy, as the Gateway API implementation")),
        "{implicit:#?}"
    );
    let envoy_gateway = check(
        "gateway-impl-http-other",
        &[
            (
                "gateway.yaml",
                &gateway("gateway.envoyproxy.io/gatewayclass-controller"),
            ),
            ("route.yaml", &route("HTTPRoute", PLAIN_RULE)),
        ],
    );
    assert_ne!(envoy_gateway.code, 2, "{}", envoy_gateway.transcript());
    assert!(
        !fired_rules(&envoy_gateway.stdout).contains(&"implicit-mesh-retry".to_string()),
        "{}",
        envoy_gateway.transcript()
    );
}

/// The same, with the `GatewayClass`, `Gateway` and `HTTPRoute` in one file; a rule that
/// writes `retry` keeps its own policy (`convertHTTPRoute` reads `r.Retry`).
#[test]
fn an_http_route_rule_with_retry_keeps_its_own_under_istio() {
    let rules = "  - name: own\n    matches: [{ path: { type: Exact, value: /payments } }]\n    retry: { attempts: 0 }\n    backendRefs: [{ name: p, port: 80 }]\n  - name: defaulted\n    backendRefs: [{ name: p, port: 80 }]\n";
    let file = format!("{}---\n{}", gateway(ISTIO), route("HTTPRoute", rules));
    let dir = scratch("gateway-impl-http-one-file");
    payments(&dir);
    let run = check_layers_as(&dir, &[("all.yaml", &file)], "json");
    assert_ne!(run.code, 2, "{}", run.transcript());
    let implicit = per_operation(&run, "implicit-mesh-retry");
    assert!(
        implicit.iter().any(|l| l.contains("defaulted")),
        "{}",
        run.transcript()
    );
    assert!(
        !implicit.iter().any(|l| l.contains("POST /payments")),
        "{}",
        run.transcript()
    );
}

/// istio/istio `pilot/pkg/config/kube/gateway/conversion.go` (`createGRPCURIMatch`): a
/// service and a method make the exact path `/S/M`, a service alone the prefix `/S/`;
/// `convertGRPCRoute` writes no `retries`, so every rule gets Istio's default policy.
/// kubernetes-sigs/gateway-api `apis/v1/grpcroute_types.go`: a gRPC call is a POST.
#[test]
fn a_grpc_route_rule_takes_its_calls_and_gets_istio_defaults() {
    let rules = "  - name: create-call\n    matches: [{ method: { service: pay.v1.Payments, method: Create } }]\n    backendRefs: [{ name: p, port: 80 }]\n  - name: payments-service\n    matches: [{ method: { service: pay.v1.Payments } }]\n    backendRefs: [{ name: p, port: 80 }]\n";
    let implicit = implicit_under_istio("gateway-impl-grpc", "GRPCRoute", rules);
    let by = |op: &str, rule: &str| {
        implicit
            .iter()
            .any(|l| l.contains(op) && l.contains(rule) && l.contains("Gateway API GRPCRoute p"))
    };
    assert!(
        by("/pay.v1.Payments/Create", "create-call"),
        "{implicit:#?}"
    );
    assert!(
        by("/pay.v1.Payments/List", "payments-service"),
        "{implicit:#?}"
    );
    // `POST /payments` is no call of the service: no rule takes it.
    assert!(
        !implicit.iter().any(|l| l.contains("POST /payments ")),
        "{implicit:#?}"
    );
}

/// istio/istio `createGRPCURIMatch`: a method alone is the regex `/[^/]+/M`; a match with
/// `headers` takes only the calls that carry them (`createGRPCHeadersMatch`), so ordinary
/// calls fall through to the next rule, and both rules are bound.
#[test]
fn a_grpc_route_header_rule_takes_only_calls_with_the_header() {
    let rules = "  - name: canary\n    matches: [{ method: { method: List }, headers: [{ name: x-canary, value: 'yes' }] }]\n    backendRefs: [{ name: p-canary, port: 80 }]\n  - name: stable\n    backendRefs: [{ name: p, port: 80 }]\n";
    let implicit = implicit_under_istio("gateway-impl-grpc-header", "GRPCRoute", rules);
    let list: Vec<&String> = implicit
        .iter()
        .filter(|l| l.contains("/pay.v1.Payments/List"))
        .collect();
    assert!(
        list.iter()
            .any(|l| l.contains("route canary") && l.contains("header x-canary")),
        "{implicit:#?}"
    );
    assert!(
        list.iter().any(|l| l.contains("route stable")),
        "{implicit:#?}"
    );
    // `Create` is not `List`: only the stable rule takes it.
    assert!(
        !implicit
            .iter()
            .any(|l| l.contains("/pay.v1.Payments/Create") && l.contains("route canary")),
        "{implicit:#?}"
    );
}

/// kubernetes-sigs/gateway-api `apis/v1/grpcroute_types.go` (`GRPCMethodMatch`): at least
/// one of `service` and `method`, and `type` is `Exact` or `RegularExpression`.
#[test]
fn a_bad_grpc_method_match_is_an_input_error() {
    for (scratch_name, method, expected) in [
        (
            "gateway-impl-grpc-empty",
            "{ type: Exact }",
            "names a `service`, a `method` or both",
        ),
        (
            "gateway-impl-grpc-type",
            "{ type: Prefix, service: pay.v1.Payments }",
            "`Prefix` is not a gRPC method match type",
        ),
    ] {
        let rules = format!(
            "  - matches: [{{ method: {method} }}]\n    backendRefs: [{{ name: p, port: 80 }}]\n"
        );
        let run = check(scratch_name, &[("route.yaml", &route("GRPCRoute", &rules))]);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(run.stderr.contains(expected), "{}", run.transcript());
        assert!(run.stderr.contains("route.yaml:"), "{}", run.transcript());
    }
}

/// `Gateway` and `GatewayClass` objects carry no retry settings: a folder of nothing else
/// is still a folder `-p` reads nothing from.
#[test]
fn a_folder_of_gateways_alone_is_read_for_nothing() {
    let dir = scratch("gateway-impl-folder");
    payments(&dir);
    std::fs::create_dir_all(dir.join("deploy")).expect("folder");
    std::fs::write(dir.join("deploy/gateway.yaml"), gateway(ISTIO)).expect("written");
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "-p", "deploy"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("holds no file -p reads"),
        "{}",
        run.transcript()
    );
    std::fs::write(
        dir.join("deploy/route.yaml"),
        route("GRPCRoute", PLAIN_RULE),
    )
    .expect("written");
    let run = retrylint_in(
        &dir,
        &["check", "openapi.yaml", "-p", "deploy", "--host", "p"],
    );
    assert_ne!(run.code, 2, "{}", run.transcript());
    assert!(
        fired_rules(&run.stdout).contains(&"implicit-mesh-retry".to_string()),
        "{}",
        run.transcript()
    );
}
