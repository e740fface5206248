//! The gRPC service config as a client layer, through the real binary: the fixture
//! (`fixtures/layers/grpc/`, a description whose paths are the `POST /package.Service/Method`
//! calls gRPC sends) checked, planned, reported and simulated, the values a gRPC client
//! refuses reported as input errors at their place, and files that are not service configs
//! left alone. What each value means is read from gRPC's source (see `docs/src/grpc.md`).

use crate::common;

use common::{retrylint, retrylint_in, scratch};

const SPEC: &str = "fixtures/layers/grpc/openapi.yaml";
const CONFIG: &str = "fixtures/layers/grpc/service_config.json";

#[test]
fn the_fixture_is_checked_and_planned() {
    let check = retrylint(&["check", SPEC, "-p", CONFIG]);
    assert_eq!(check.code, 1, "{}", check.transcript());
    // CreatePayment has its own retryPolicy; RefundPayment gets its service's.
    assert!(
        check.stdout.contains(
            "POST /acme.payments.v1.Payments/CreatePayment is retried on gRPC unavailable"
        ),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains("route acme.payments.v1.Payments/*"),
        "{}",
        check.stdout
    );
    insta::assert_snapshot!("grpc-check", check.transcript());
    let plan = retrylint(&["plan", SPEC, "-p", CONFIG]);
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    // maxAttempts 8 is read as 5, and the plan says so.
    assert!(plan.stdout.contains("of 5 attempts"), "{}", plan.stdout);
    insta::assert_snapshot!("grpc-plan", plan.transcript());
}

#[test]
fn report_and_simulate_show_the_layer() {
    let report = retrylint(&["report", SPEC, "-p", CONFIG]);
    assert!(
        report.stdout.contains("gRPC service config"),
        "{}",
        report.transcript()
    );
    let simulate = retrylint(&[
        "simulate",
        SPEC,
        "-p",
        CONFIG,
        "--operation",
        "POST /acme.payments.v1.Payments/CreatePayment",
    ]);
    assert_eq!(simulate.code, 0, "{}", simulate.transcript());
    assert!(
        simulate
            .stderr
            .contains("gRPC service config service_config.json retries it"),
        "{}",
        simulate.transcript()
    );
}

#[test]
fn a_finding_on_the_attempts_says_they_were_read_as_five() {
    let dir = scratch("grpc-clamp");
    description(&dir);
    std::fs::write(
        dir.join("sc.json"),
        r#"{"methodConfig": [{"name": [{"service": "pkg.Svc", "method": "Get"}], "retryPolicy": {"maxAttempts": 9, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#,
    )
    .expect("written");
    let run = retrylint_in(
        &dir,
        &["check", "openapi.yaml", "-p", "sc.json", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let finding = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "missing-deadline")
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let text = finding.to_string();
    assert!(text.contains("make up to 5 attempts"), "{text}");
    assert!(text.contains("above 5 as 5"), "{text}");
}

/// A description of two calls of service `pkg.Svc`, `Get` (no side effect) and `Pay`.
fn description(dir: &std::path::Path) {
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: { title: t, version: '1' }\npaths:\n  /pkg.Svc/Get:\n    post:\n      operationId: Get\n      x-retry-policy: { sideEffect: none }\n      responses: { '200': { description: ok } }\n  /pkg.Svc/Pay:\n    post:\n      operationId: Pay\n      responses: { '200': { description: ok } }\n",
    )
    .expect("written");
}

#[test]
fn hedging_a_write_is_an_unprotected_write_retry() {
    let dir = scratch("grpc-hedging");
    description(&dir);
    std::fs::write(
        dir.join("sc.json"),
        r#"{"methodConfig": [{"name": [{"service": "pkg.Svc"}], "timeout": "5s", "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "0.2s"}}]}"#,
    )
    .expect("written");
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "-p",
            "sc.json",
            "--format",
            "concise",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stdout
            .lines()
            .any(|l| l.contains("unprotected-write-retry") && l.contains("POST /pkg.Svc/Pay")),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout
            .lines()
            .any(|l| l.contains("unprotected-write-retry") && l.contains("POST /pkg.Svc/Get")),
        "{}",
        run.stdout
    );
}

#[test]
fn values_a_client_refuses_are_input_errors_at_their_line() {
    let dir = scratch("grpc-bad");
    description(&dir);
    let retry = |attempts: &str, backoff: &str, code: &str| {
        format!(
            "{{\n\"methodConfig\": [{{\n\"name\": [{{\"service\": \"pkg.Svc\"}}],\n\"retryPolicy\": {{\n\"maxAttempts\": {attempts},\n\"initialBackoff\": {backoff},\n\"maxBackoff\": \"1s\",\n\"backoffMultiplier\": 2,\n\"retryableStatusCodes\": [{code}]\n}}}}]}}\n"
        )
    };
    let cases = [
        (
            retry("1", "\"0.1s\"", "\"UNAVAILABLE\""),
            "sc.json:5",
            "must be at least 2",
        ),
        (
            retry("\"x\"", "\"0.1s\"", "\"UNAVAILABLE\""),
            "sc.json:5",
            "failed to parse",
        ),
        (
            retry("3", "\"100ms\"", "\"UNAVAILABLE\""),
            "sc.json:6",
            "`100ms` is not a duration",
        ),
        (
            retry("3", "\"0.1s\"", "\"UNAVALIABLE\""),
            "sc.json:9",
            "status code",
        ),
        (
            retry("3", "\"0.1s\"", "\"UNAVAILABLE\"").replace(
                "\"retryPolicy\"",
                "\"hedgingPolicy\": {\"maxAttempts\": 2},\n\"retryPolicy\"",
            ),
            "sc.json:4",
            "cannot both be specified",
        ),
    ];
    for (text, at, said) in cases {
        std::fs::write(dir.join("sc.json"), &text).expect("written");
        let run = retrylint_in(&dir, &["check", "openapi.yaml", "-p", "sc.json"]);
        assert_eq!(run.code, 2, "{text}: {}", run.transcript());
        assert!(run.stderr.contains(said), "{text}: {}", run.stderr);
        assert!(run.stderr.contains(at), "{at}: {}", run.stderr);
    }
}

#[test]
fn other_files_with_similar_keys_are_not_service_configs() {
    let dir = scratch("grpc-not-a-config");
    description(&dir);
    // A Kubernetes object that happens to carry the key, and a file of other gRPC settings.
    std::fs::write(
        dir.join("cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\nmethodConfig: []\n",
    )
    .expect("written");
    std::fs::write(
        dir.join("lb.json"),
        r#"{"loadBalancingConfig": [{"round_robin": {}}]}"#,
    )
    .expect("written");
    for file in ["cm.yaml", "lb.json"] {
        let run = retrylint_in(&dir, &["check", "openapi.yaml", "-p", file]);
        assert_eq!(run.code, 2, "{file}: {}", run.transcript());
        assert!(
            run.stderr.contains("or a gRPC service config"),
            "{file}: {}",
            run.stderr
        );
    }
}
