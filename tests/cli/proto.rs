//! gRPC `.proto` descriptions (docs/src/proto.md) through the real binary: each rpc is
//! `POST /package.Service/Method`, its effect comes from `option idempotency_level`
//! (google/protobuf/descriptor.proto, `MethodOptions.IdempotencyLevel`), findings point
//! into the `.proto`, and the rules about HTTP statuses and headers stay silent on rpcs.
//! Bad input is `proto_input.rs`'s.

use crate::common;

use common::{fired_rules, json_findings, retrylint, retrylint_in, sarif_errors, scratch};

pub(crate) const PROTO: &str = "fixtures/proto/payments/acme/payments/v1/payments.proto";
const POLICY: &str = "fixtures/proto/payments/retry-policy.yaml";
const ROUTE: &str = "fixtures/proto/payments/layers/grpcroute.yaml";

fn check(format: &str) -> common::Run {
    retrylint(&[
        "check",
        PROTO,
        "--policy",
        POLICY,
        "--show-infos",
        "--format",
        format,
    ])
}

#[test]
fn check_reads_every_rpc_as_an_operation_and_points_into_the_proto() {
    let run = check("human");
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.is_empty() || !run.stderr.contains("panicked"));
    // The charge: no idempotency_level, so a write that promises nothing.
    assert!(
        run.stdout.contains(
            "error[unprotected-write-retry]: POST /acme.payments.v1.Payments/CreatePayment"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("[fixtures/proto/payments/acme/payments/v1/payments.proto:29:3]"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("in 7 operations"), "{}", run.stdout);
    insta::assert_snapshot!("proto-check", run.transcript());
}

#[test]
fn concise_output_places_each_finding_at_its_rpc() {
    let run = check("concise");
    assert!(
        run.stdout.contains(&format!(
            "{PROTO}:29:3: warning[unknown-outcome-unhandled] POST /acme.payments.v1.Payments/CreatePayment"
        )),
        "{}",
        run.stdout
    );
}

#[test]
fn plan_says_where_each_effect_comes_from_and_what_streams() {
    let run = retrylint(&["plan", PROTO, "--policy", POLICY]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let out = &run.stdout;
    for line in [
        "POST /acme.payments.v1.Payments/GetPayment (Payments_GetPayment)\n  gRPC acme.payments.v1.Payments/GetPayment (unary): no side effects (option idempotency_level = NO_SIDE_EFFECTS, fixtures/proto/payments/acme/payments/v1/payments.proto:20:5)",
        "  gRPC acme.payments.v1.Payments/CreatePayment (unary): non-idempotent (no idempotency_level: unknown)",
        "  gRPC acme.payments.v1.Payments/CapturePayment (unary): idempotent (option idempotency_level = IDEMPOTENT, fixtures/proto/payments/acme/payments/v1/payments.proto:33:5)",
        "  gRPC acme.payments.v1.Payments/WatchPayments (server streaming): no side effects",
        "  a stream is retried only until the server's response headers arrive",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
    insta::assert_snapshot!("proto-plan", run.stdout);
}

#[test]
fn json_output_names_the_rpcs_and_their_places_in_the_proto() {
    let run = check("json");
    assert_eq!(run.code, 1, "{}", run.transcript());
    let findings = json_findings(&run.stdout);
    let unprotected = findings
        .iter()
        .find(|f| f["rule"] == "unprotected-write-retry")
        .expect("the charge's finding");
    let text = unprotected.to_string();
    assert!(
        text.contains("/acme.payments.v1.Payments/CreatePayment"),
        "{text}"
    );
    assert!(text.contains("payments.proto"), "{text}");
    insta::assert_snapshot!("proto-json", run.stdout);
}

#[test]
fn sarif_output_is_valid_and_its_results_point_into_the_proto() {
    let run = check("sarif");
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert_eq!(sarif_errors(&run.stdout), Vec::<String>::new());
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let on_proto = results.iter().any(|r| {
        r["locations"].to_string().contains("payments.proto")
            && r["locations"].to_string().contains("\"startLine\":29")
    });
    assert!(on_proto, "{}", run.stdout);
    let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).expect("the crate root");
    let base = format!("file://{}/", root.display());
    insta::assert_snapshot!("proto-sarif", run.stdout.replace(&base, "file:///[ROOT]/"));
}

#[test]
fn github_annotations_point_into_the_proto() {
    let run = check("github");
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("::warning ") && l.contains(&format!("file={PROTO},line=29,"))),
        "{}",
        run.stdout
    );
}

#[test]
fn the_level_decides_what_a_retry_may_repeat() {
    // Only the write without a level is an unprotected retry: the IDEMPOTENT capture and
    // cancel and the NO_SIDE_EFFECTS reads are retried as safely as a PUT and a GET.
    let run = check("json");
    let unprotected: Vec<String> = json_findings(&run.stdout)
        .iter()
        .filter(|f| f["rule"] == "unprotected-write-retry")
        .map(|f| {
            f["operation"]["path"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(unprotected, ["/acme.payments.v1.Payments/CreatePayment"]);
}

#[test]
fn selectors_take_the_path_the_operation_id_and_the_service_tag() {
    for selector in [
        "POST /acme.payments.v1.Payments/CreatePayment",
        "Payments_CreatePayment",
    ] {
        let run = retrylint(&["plan", PROTO, "--policy", POLICY, "--operation", selector]);
        assert_eq!(run.code, 0, "{}", run.transcript());
        assert_eq!(
            run.stdout.lines().next(),
            Some("POST /acme.payments.v1.Payments/CreatePayment (Payments_CreatePayment)"),
            "{selector}"
        );
        assert_eq!(run.stdout.matches("\nPOST ").count(), 0, "{selector}");
    }
    for selector in [
        "tag:acme.payments.v1.Payments",
        "* /acme.payments.v1.Payments/*",
    ] {
        let run = retrylint(&["plan", PROTO, "--operation", selector]);
        assert_eq!(run.stdout.matches("POST /acme.").count(), 7, "{selector}");
    }
    // The policy's `POST /…/RefundPayment` entry set maxAttempts: 1.
    let refund = retrylint(&[
        "plan",
        PROTO,
        "--policy",
        POLICY,
        "--operation",
        "Payments_RefundPayment",
    ]);
    assert!(
        refund.stdout.contains("not retried (maxAttempts: 1)"),
        "{}",
        refund.stdout
    );
}

/// A scratch repository holding `files` (name, text).
pub(crate) fn repository(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join(".git")).expect("a repository");
    for (file, text) in files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("a folder");
        std::fs::write(path, text).expect("written");
    }
    dir
}

pub(crate) const SERVICE: &str = "syntax = \"proto3\";\npackage s.v1;\nservice S {\n  rpc Get(A) returns (B) { option idempotency_level = NO_SIDE_EFFECTS; }\n  rpc Put(A) returns (B) { option idempotency_level = IDEMPOTENT; }\n  rpc Post(A) returns (B);\n}\nmessage A {}\nmessage B {}\n";

#[test]
fn rules_about_http_statuses_and_headers_stay_silent_on_grpc() {
    // Every one of these fields makes an HTTP rule fire on an OpenAPI operation that
    // declares no 409, 429, Retry-After or key header.
    let policy = "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 5s\n  perAttemptTimeout: 1s\n  backoff: {base: 100ms, cap: 1s, jitter: full}\n  retryOn: [409, 429, 503]\n  retryAfter: {honor: false}\n  idempotency: {keyHeader: Idempotency-Key, keyRetention: 24h}\n  onUnknownOutcome: retry-same-key\n";
    let dir = repository(
        "proto-http-rules",
        &[("s.proto", SERVICE), ("retry-policy.yaml", policy)],
    );
    let run = retrylint_in(&dir, &["check", "s.proto", "--show-infos"]);
    assert!(run.code == 0 || run.code == 1, "{}", run.transcript());
    let fired = fired_rules(&run.stdout);
    for silent in [
        "throttle-status-undeclared",
        "retry-status-undeclared",
        "retry-after-header-undeclared",
        "retry-after-ignored",
        "idempotency-key-undeclared",
        "key-conflict-response-undeclared",
        "idempotency-key-optional",
        "request-id-as-idempotency-key",
    ] {
        assert!(
            !fired.contains(&silent.to_string()),
            "{silent} fired: {fired:?}"
        );
    }
    // The same policy on the same calls written as OpenAPI fires them: the silence is
    // the gRPC description's, not the policy's.
    let openapi = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /s.v1.S/Post:\n    post:\n      responses: {'200': {description: ok}}\n";
    std::fs::write(dir.join("openapi.yaml"), openapi).expect("written");
    let http = retrylint_in(&dir, &["check", "openapi.yaml", "--show-infos"]);
    let fired_http = fired_rules(&http.stdout);
    for loud in [
        "retry-status-undeclared",
        "idempotency-key-undeclared",
        "retry-after-ignored",
    ] {
        assert!(
            fired_http.contains(&loud.to_string()),
            "{loud}: {fired_http:?}"
        );
    }
}

#[test]
fn a_policy_side_effect_overrides_the_level_and_plan_says_so() {
    let policy = "version: 1\ndefaults: {maxAttempts: 2, deadline: 5s, perAttemptTimeout: 1s, retryOn: [503]}\noperations:\n  S_Post: {sideEffect: idempotent}\n";
    let dir = repository(
        "proto-side-effect",
        &[("s.proto", SERVICE), ("retry-policy.yaml", policy)],
    );
    let run = retrylint_in(&dir, &["plan", "s.proto", "--operation", "S_Post"]);
    assert!(
        run.stdout.contains("idempotent (sideEffect in the policy, retry-policy.yaml:4:12; the description: no idempotency_level: unknown)"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_grpc_route_binds_to_the_rpcs_by_their_paths() {
    let run = retrylint(&[
        "plan",
        PROTO,
        "--policy",
        POLICY,
        "-p",
        ROUTE,
        "--host",
        "payments",
        "--operation",
        "Payments_GetPayment",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .contains("mesh: Gateway API GRPCRoute payments, route reads:"),
        "{}",
        run.stdout
    );
    let write = retrylint(&[
        "plan",
        PROTO,
        "--policy",
        POLICY,
        "-p",
        ROUTE,
        "--host",
        "payments",
        "--operation",
        "Payments_CreatePayment",
    ]);
    assert!(
        write.stdout.contains("route everything-else"),
        "{}",
        write.stdout
    );
}

#[test]
fn report_and_simulate_read_a_proto() {
    let report = retrylint(&["report", PROTO, "--policy", POLICY, "--format", "json"]);
    assert_eq!(report.code, 0, "{}", report.transcript());
    assert!(
        report
            .stdout
            .contains("\"effect\": \"non-idempotent (operationId `CreatePayment`)\"")
            && report
                .stdout
                .contains("\"effect\": \"none (option idempotency_level = NO_SIDE_EFFECTS)\""),
        "{}",
        report.stdout
    );
    let simulate = retrylint(&[
        "simulate",
        PROTO,
        "--policy",
        POLICY,
        "--operation",
        "Payments_CreatePayment",
    ]);
    assert_eq!(simulate.code, 0, "{}", simulate.transcript());
}

#[test]
fn a_status_endpoint_is_an_rpc_with_no_side_effects() {
    let policy = |endpoint: &str| {
        format!(
            "version: 1\ndefaults: {{maxAttempts: 2, deadline: 5s, perAttemptTimeout: 1s, retryOn: [503]}}\noperations:\n  S_Post:\n    idempotency: {{statusEndpoint: \"{endpoint}\"}}\n    onUnknownOutcome: reconcile\n  S_Get:\n    sideEffect: non-idempotent\n"
        )
    };
    let dir = repository(
        "proto-status",
        &[
            ("s.proto", SERVICE),
            ("retry-policy.yaml", &policy("S_Get")),
        ],
    );
    let run = retrylint_in(&dir, &["check", "s.proto", "--show-infos"]);
    let fired = fired_rules(&run.stdout);
    assert!(
        !fired.contains(&"status-endpoint-missing".to_string()),
        "{}",
        run.stdout
    );
    // A NO_SIDE_EFFECTS rpc said to have side effects is a safe method said to.
    assert!(
        run.stdout
            .contains("the rpc says `idempotency_level = NO_SIDE_EFFECTS`"),
        "{}",
        run.stdout
    );
    std::fs::write(dir.join("retry-policy.yaml"), policy("POST /s.v1.S/Put")).expect("written");
    let run = retrylint_in(&dir, &["check", "s.proto"]);
    assert!(
        run.stdout.contains("is the rpc s.v1.S/Put, which is not `idempotency_level = NO_SIDE_EFFECTS` (option idempotency_level = IDEMPOTENT)"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_write_finding_says_whether_the_level_or_the_policy_made_it_a_write() {
    let policy = "version: 1\ndefaults: {maxAttempts: 2, deadline: 5s, perAttemptTimeout: 1s, retryOn: [503], onUnknownOutcome: fail}\noperations:\n  S_Put: {sideEffect: non-idempotent}\n";
    let dir = repository(
        "proto-write-label",
        &[("s.proto", SERVICE), ("retry-policy.yaml", policy)],
    );
    let run = retrylint_in(&dir, &["check", "s.proto", "--format", "json"]);
    let labels: Vec<String> = json_findings(&run.stdout)
        .iter()
        .filter(|f| f["rule"] == "unprotected-write-retry")
        .flat_map(|f| f["related"].as_array().cloned().unwrap_or_default())
        .filter_map(|r| r["message"].as_str().map(str::to_string))
        .collect();
    assert!(
        labels.contains(
            &"POST /s.v1.S/Put is declared here (non-idempotent: sideEffect in the policy)"
                .to_string()
        ),
        "{labels:#?}"
    );
    assert!(
        labels.contains(
            &"POST /s.v1.S/Post is declared here (non-idempotent: no idempotency_level: unknown)"
                .to_string()
        ),
        "{labels:#?}"
    );
}
