//! HAProxy's `haproxy.cfg` through the real binary: `check` and `plan` of the fixture
//! (`fixtures/layers/haproxy/`), the report and the simulator over it, and syntax errors
//! and bad values as input errors at their line.

use crate::common;

use common::{retrylint, retrylint_in, scratch};

const FOLDER: &str = "fixtures/layers/haproxy";

fn args<'a>(command: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        command,
        "fixtures/layers/haproxy/openapi.yaml",
        "-p",
        "fixtures/layers/haproxy/retry-policy.yaml",
        "-p",
        "fixtures/layers/haproxy/haproxy.cfg",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn haproxy_retries_are_checked_in_the_configuration() {
    let check = retrylint(&args("check", &[]));
    assert_eq!(check.code, 1, "{}", check.transcript());
    // The write's backend retries an empty response: at its `retry-on` line.
    assert!(
        check.stdout.contains("haproxy.cfg:45:2"),
        "{}",
        check.stdout
    );
    assert!(
        check
            .stdout
            .contains("built-in default of HAProxy: retries 3 (CONN_RETRIES)"),
        "{}",
        check.stdout
    );
    insta::assert_snapshot!("haproxy-check", check.transcript());
    let plan = retrylint(&args("plan", &[]));
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    assert!(
        plan.stdout
            .contains("edge: HAProxy frontend public, route default_backend orders"),
        "{}",
        plan.stdout
    );
    insta::assert_snapshot!("haproxy-plan", plan.transcript());
}

#[test]
fn the_report_and_the_simulator_show_the_haproxy_layer() {
    let report = retrylint(&args("report", &["--format", "json"]));
    assert_eq!(report.code, 0, "{}", report.transcript());
    let json: serde_json::Value = serde_json::from_str(&report.stdout).expect("JSON");
    let create = json["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .find(|o| o["operationId"] == "createOrder")
        .expect("createOrder");
    // The client makes 1 attempt, the write's backend 4 (`retries` 3 unless written).
    assert_eq!(create["amplification"], 4, "{create}");
    assert!(
        report.stdout.contains("HAProxy frontend public"),
        "{}",
        report.stdout
    );

    let run = retrylint(&args(
        "simulate",
        &[
            "--operation",
            "listOrders",
            "--fault",
            "503@0s..600s",
            "--clients",
            "10",
            "--format",
            "json",
        ],
    ));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let positions: Vec<&str> = json["scenario"]["loops"][0]["loops"]
        .as_array()
        .expect("loops")
        .iter()
        .filter_map(|l| l["position"].as_str())
        .collect();
    assert_eq!(positions, ["client", "edge"]);
    // The client's 2 attempts each meet HAProxy's 3 (`retries 2`, `retry-on … 503`).
    assert_eq!(json["variants"][0]["requests"], 60, "{}", run.stdout);
}

#[test]
fn a_haproxy_syntax_error_or_bad_value_is_an_input_error_at_its_line() {
    let dir = scratch("layers-haproxy-bad");
    let spec = format!("{}/{FOLDER}/openapi.yaml", env!("CARGO_MANIFEST_DIR"));
    let base = "defaults\n  mode http\nfrontend f\n  bind :80\n  default_backend b\nbackend b\n  server a 127.0.0.1:1\n";
    for (text, line, message) in [
        (
            "retries 3\nbackend b\n  server a 127.0.0.1:1\n".to_string(),
            "haproxy.cfg:1",
            "outside any section",
        ),
        (
            format!("{base}  http-request set-header X \"unclosed\n"),
            "haproxy.cfg:8",
            "never closed",
        ),
        (
            format!("{base}  retries abc\n"),
            "haproxy.cfg:8",
            "whole number of retries",
        ),
        (
            format!("{base}  retry-on 503 sometimes\n"),
            "haproxy.cfg:8",
            "`sometimes` is not a retry-on keyword",
        ),
        (
            format!("{base}  timeout server soon\n"),
            "haproxy.cfg:8",
            "takes a time",
        ),
        (
            base.replace(
                "default_backend b",
                "use_backend nowhere if { path_beg /a }",
            ),
            "haproxy.cfg:5",
            "no `backend` or `listen` section is named `nowhere`",
        ),
    ] {
        std::fs::write(dir.join("haproxy.cfg"), &text).expect("written");
        let run = retrylint_in(&dir, &["check", &spec, "-p", "haproxy.cfg"]);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(run.stderr.contains(line), "{line}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{message}: {}", run.stderr);
    }
    // A `.cfg` of another program (here YAML whose keys are HAProxy's words) is no HAProxy
    // configuration.
    std::fs::write(dir.join("app.cfg"), "backend: sqlite\nlisten: 80\n").expect("written");
    let run = retrylint_in(&dir, &["check", &spec, "-p", "app.cfg"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("of no kind retrylint reads"),
        "{}",
        run.stderr
    );
}
