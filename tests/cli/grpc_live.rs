//! The gRPC service config proved against a real gRPC client: `tests/live/grpc_retries.py`
//! runs a grpcio server whose one generic handler fails each call with the status a case
//! asks for (with or without `grpc-retry-pushback-ms`) and counts the calls it receives,
//! and a grpcio client channel configured with `tests/live/grpc_service_config.json` as
//! `grpc.service_config`, retries enabled, that makes one call per case. What the server
//! counted is compared with what retrylint reads from the same file: the route the call's
//! path binds to (the exact method, else its service, else the default entry), its
//! `maxAttempts` when its `retryOn` holds the status, else one.
//!
//! Where grpcio does less than the service config says, and retrylint's model says more,
//! the case names why (`exception`): C-core does not hedge, a negative or unreadable
//! pushback stops retries, which retrylint does not model (gRPC reads no `Retry-After`),
//! and grpcio schedules a retry pushed back 0 ms that never starts.
//!
//! Ignored by default (it needs Python with grpcio: `RETRYLINT_GRPC_PYTHON`, else
//! `target/grpc-venv/bin/python`, else `python3`); `.ci/run` installs grpcio into
//! `target/grpc-venv` and runs it with `--include-ignored`. Without grpcio it says
//! `SKIPPED` and passes. The table it prints is the one in `docs/src/grpc.md`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use retrylint::analysis::layers::detect::{Detected, detect, import};
use retrylint::analysis::layers::{PathMatch, Route};
use retrylint::input::policy::{GrpcCode, Signal};

const CONFIG: &str = "tests/live/grpc_service_config.json";
const SCRIPT: &str = "tests/live/grpc_retries.py";

/// The cases: the call's path, the status the server answers, the pushback it sends.
const CASES: &[(&str, &str, Option<&str>)] = &[
    ("/live.Svc/Exact3", "UNAVAILABLE", None),
    ("/live.Svc/Exact3", "RESOURCE_EXHAUSTED", None),
    ("/live.Svc/Exact3", "INTERNAL", None),
    ("/live.Svc/Exact3", "OK", None),
    ("/live.Svc/Other", "UNAVAILABLE", None),
    ("/live.Svc/Other", "INTERNAL", None),
    ("/live.Svc/Other", "ABORTED", None),
    ("/live.Svc/Other", "RESOURCE_EXHAUSTED", None),
    ("/live.Svc/Other", "OK", None),
    ("/live.Svc/Other", "UNAVAILABLE", Some("0")),
    ("/live.Svc/Other", "UNAVAILABLE", Some("20")),
    ("/live.Svc/Other", "UNAVAILABLE", Some("-1")),
    ("/live.Svc/Other", "UNAVAILABLE", Some("soon")),
    ("/live.Svc/Other", "INVALID_ARGUMENT", Some("0")),
    ("/live.Svc/NoRetry", "UNAVAILABLE", None),
    ("/live.Svc/NoRetry", "INTERNAL", None),
    ("/live.Clamp/Any", "UNAVAILABLE", None),
    ("/live.Clamp/Any", "DEADLINE_EXCEEDED", None),
    ("/live.Clamp/Any", "UNKNOWN", None),
    ("/live.Clamp/Any", "DATA_LOSS", None),
    ("/live.Clamp/Any", "INVALID_ARGUMENT", None),
    ("/live.Many/All", "CANCELLED", None),
    ("/live.Many/All", "UNKNOWN", None),
    ("/live.Many/All", "INVALID_ARGUMENT", None),
    ("/live.Many/All", "DEADLINE_EXCEEDED", None),
    ("/live.Many/All", "NOT_FOUND", None),
    ("/live.Many/All", "ALREADY_EXISTS", None),
    ("/live.Many/All", "PERMISSION_DENIED", None),
    ("/live.Many/All", "RESOURCE_EXHAUSTED", None),
    ("/live.Many/All", "FAILED_PRECONDITION", None),
    ("/live.Many/All", "ABORTED", None),
    ("/live.Many/All", "OUT_OF_RANGE", None),
    ("/live.Many/All", "UNIMPLEMENTED", None),
    ("/live.Many/All", "INTERNAL", None),
    ("/live.Many/All", "UNAVAILABLE", None),
    ("/live.Many/All", "DATA_LOSS", None),
    ("/live.Many/All", "UNAUTHENTICATED", None),
    ("/live.Many/Other", "CANCELLED", None),
    ("/live.Hedge/Any", "UNAVAILABLE", None),
    ("/live.Other/Listed", "PERMISSION_DENIED", None),
    ("/live.Other/Second", "PERMISSION_DENIED", None),
    ("/live.Other/Unlisted", "PERMISSION_DENIED", None),
    ("/elsewhere.Svc/Call", "CANCELLED", None),
    ("/elsewhere.Svc/Call", "NOT_FOUND", None),
    ("/elsewhere.Svc/Call", "UNAVAILABLE", None),
    (TIMING, "UNAVAILABLE", None),
];

/// The case whose waits are measured: 5 attempts, every nominal delay 200 ms.
const TIMING: &str = "/live.Timing/Call";

/// What a wait may take beyond its drawn delay on a loaded machine: the next attempt's trip
/// to the server and its handler's start.
const SLACK_MS: f64 = 60.0;

/// Why grpcio makes fewer attempts than retrylint's model of a case, where it does.
fn exception(route: &Route, pushback: Option<&str>) -> Option<&'static str> {
    let hedged = route
        .policy
        .max_attempts
        .as_ref()
        .and_then(|f| f.loc.note_text())
        .is_some_and(|n| n.contains("grpc-java hedges"));
    if hedged {
        return Some("C-core does not hedge");
    }
    match pushback.map(str::parse::<i32>) {
        Some(Ok(ms)) if ms < 0 => Some("negative pushback: no retry"),
        // grpcio 1.85's retry filter logs "retrying failed call in 0 ms" and never starts
        // the attempt: the call ends at its deadline.
        Some(Ok(0)) => Some("grpcio never starts a retry pushed back 0 ms"),
        Some(Err(_)) => Some("unreadable pushback: no retry"),
        _ => None,
    }
}

fn python() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = std::env::var_os("RETRYLINT_GRPC_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            root.join("target/grpc-venv/bin/python"),
            PathBuf::from("python3"),
        ]);
    candidates.into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import grpc"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// The route a call's path binds to: routes come most specific first.
fn route_of<'a>(routes: &'a [Route], path: &str) -> &'a Route {
    routes
        .iter()
        .find(|r| match &r.matches[0].path {
            PathMatch::Exact(p) => p == path,
            PathMatch::Prefix(p) => path.starts_with(p.as_str()),
            PathMatch::Any => true,
            _ => false,
        })
        .unwrap_or_else(|| panic!("no route binds {path}"))
}

/// The attempts retrylint reads for a call answered with `code`.
fn retrylint_attempts(route: &Route, code: &str) -> i64 {
    let attempts = route.policy.max_attempts.as_ref().map_or(1, |f| f.value);
    let Some(code) = GrpcCode::from_name(code) else {
        return 1;
    };
    let retried = route
        .policy
        .retry_on
        .as_ref()
        .is_some_and(|on| on.value.iter().any(|s| s.value == Signal::Grpc(code)));
    if retried { attempts } else { 1 }
}

#[test]
#[ignore = "runs a real grpcio client and server: .ci/run runs it with --include-ignored"]
fn grpcio_retries_what_retrylint_reads() {
    let Some(python) = python() else {
        eprintln!("SKIPPED: Python with grpcio is not installed (pip install grpcio)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = root.join(CONFIG);
    let options = retrylint::input::load::LoadOptions::default();
    let Detected::Layers(file) = detect(&config, false, &options).unwrap() else {
        panic!("{CONFIG} is not read as a gRPC service config");
    };
    let layers = import(&file, 0).unwrap();
    let routes = &layers[0].routes;

    let cases: Vec<serde_json::Value> = CASES
        .iter()
        .map(|(path, code, pushback)| {
            serde_json::json!({ "path": path, "code": code, "pushback": pushback })
        })
        .collect();
    let mut child = Command::new(&python)
        .arg(root.join(SCRIPT))
        .arg(&config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&cases).unwrap().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let measured: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(measured.len(), CASES.len());
    let seen: Vec<i64> = measured
        .iter()
        .map(|m| m["calls"].as_i64().unwrap())
        .collect();

    let mut table = vec![
        "| case | call | status | pushback | retrylint attempts | grpcio attempts | why they differ |"
            .to_string(),
        "|---|---|---|---|---|---|---|".to_string(),
    ];
    let mut disagreements = Vec::new();
    for (i, ((path, code, pushback), seen)) in CASES.iter().zip(&seen).enumerate() {
        let case = i + 1;
        let route = route_of(routes, path);
        let said = retrylint_attempts(route, code);
        let why = exception(route, *pushback).filter(|_| *code != "OK" && said > 1);
        let expected = if why.is_some() { 1 } else { said };
        table.push(format!(
            "| {case} | `{path}` | {code} | {} | {said} | {seen} | {} |",
            pushback.map_or("—".to_string(), |p| format!("`{p}`")),
            why.unwrap_or("")
        ));
        if *seen != expected {
            disagreements.push(format!(
                "case {case}: {path} {code} (pushback {pushback:?}): grpcio made {seen} calls, retrylint says {said}{}",
                why.map_or(String::new(), |w| format!(" ({w}: 1 expected)"))
            ));
        }
    }
    eprintln!("{}", table.join("\n"));
    let page = std::fs::read_to_string(root.join("docs/src/grpc.md")).unwrap();
    for row in &table {
        assert!(
            page.contains(row.as_str()),
            "docs/src/grpc.md lacks the row {row}"
        );
    }
    assert!(CASES.len() >= 30, "{} cases", CASES.len());
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));

    // The waits: C-core draws 200 ms × random(0.8, 1.2); retrylint reads equal jitter of
    // 1.2 × 200 ms, from 120 ms to 240 ms. Full jitter (A6's random(0, 200 ms)) would put
    // most of four waits below 160 ms.
    let timing = CASES.iter().position(|(p, _, _)| *p == TIMING).unwrap();
    let gaps: Vec<f64> = measured[timing]["gaps_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_f64().unwrap())
        .collect();
    eprintln!("waits between the attempts of {TIMING}: {gaps:?} ms");
    let route = route_of(routes, TIMING);
    let field = |f: &Option<
        std::sync::Arc<retrylint::input::policy::Spanned<retrylint::input::policy::Duration>>,
    >| { f.as_ref().unwrap().value.as_secs_f64() * 1000.0 };
    let (base, cap) = (
        field(&route.policy.backoff_base),
        field(&route.policy.backoff_cap),
    );
    let longest = cap.min(base * route.policy.backoff_multiplier.as_ref().unwrap().value);
    assert_eq!(
        route.policy.jitter.as_ref().unwrap().value,
        retrylint::input::policy::Jitter::Equal
    );
    assert_eq!(gaps.len(), 4, "{gaps:?}");
    for gap in &gaps {
        assert!(
            *gap >= 160.0 && *gap <= 240.0 + SLACK_MS,
            "grpcio waited {gap} ms, outside 200 ms × random(0.8, 1.2)"
        );
        assert!(
            *gap >= longest / 2.0 && *gap <= longest + SLACK_MS,
            "grpcio waited {gap} ms, outside retrylint's {}..{longest} ms",
            longest / 2.0
        );
    }
}

/// A service config of one default entry whose `retryPolicy` is `RETRY` with `from`
/// replaced by `to`, and the words both grpcio and retrylint refuse it with.
const RETRY: &str = r#"{"methodConfig": [{"name": [{}], "timeout": "5s", "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}], "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}"#;

const REFUSALS: &[(&str, &str, &str)] = &[
    (
        "\"maxAttempts\": 3",
        "\"maxAttempts\": 1",
        "must be at least 2",
    ),
    (
        "\"maxAttempts\": 3",
        "\"maxAttempts\": \"x\"",
        "failed to parse",
    ),
    (
        "\"maxAttempts\": 3",
        "\"maxAttempts\": 2.5",
        "failed to parse",
    ),
    ("\"maxAttempts\": 3, ", "", "field not present"),
    ("\"0.1s\"", "\".1s\"", "not a number of seconds"),
    ("\"0.1s\"", "\"100ms\"", "not a number of seconds"),
    ("\"0.1s\"", "\"0.1\"", "no s suffix"),
    ("\"0.1s\"", "\"0s\"", "must be greater than 0"),
    (
        "\"0.1s\"",
        "\"-1s\"",
        "seconds must be in the range [0, 315576000000]",
    ),
    (
        "\"1s\"",
        "\"1.0123456789s\"",
        "too many digits after decimal",
    ),
    (
        "\"backoffMultiplier\": 2",
        "\"backoffMultiplier\": 0",
        "must be greater than 0",
    ),
    (
        "[\"UNAVAILABLE\"]",
        "[\"unavailable\"]",
        "failed to parse status code",
    ),
    (
        "[\"UNAVAILABLE\"]",
        "[\"SOMETIMES\"]",
        "failed to parse status code",
    ),
    ("[\"UNAVAILABLE\"]", "[14]", "is not a string"),
    ("[\"UNAVAILABLE\"]", "[]", "must be non-empty"),
    ("\"5s\"", "\"5\"", "no s suffix"),
    (
        "[{}]",
        "[{\"method\": \"Call\"}]",
        "method name populated without service name",
    ),
    (
        "[{}]",
        "[{\"service\": \"pkg.Svc\"}, {\"service\": \"pkg.Svc\", \"method\": null}]",
        "multiple method configs for path /pkg.Svc/",
    ),
    (
        "[{}]",
        "[{}, {\"service\": \"\"}]",
        "duplicate default method config",
    ),
    (
        "\"maxTokens\": 10",
        "\"maxTokens\": 0",
        "must be greater than 0",
    ),
    (
        "\"tokenRatio\": 0.1",
        "\"tokenRatio\": 0",
        "must be greater than 0",
    ),
];

#[test]
#[ignore = "runs a real grpcio client: .ci/run runs it with --include-ignored"]
fn grpcio_refuses_what_retrylint_refuses_in_the_same_words() {
    let Some(python) = python() else {
        eprintln!("SKIPPED: Python with grpcio is not installed (pip install grpcio)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let configs: Vec<String> = REFUSALS
        .iter()
        .map(|(from, to, _)| {
            assert!(RETRY.contains(from), "{from}");
            RETRY.replacen(from, to, 1)
        })
        .chain([RETRY.to_string()])
        .collect();
    let mut child = Command::new(&python)
        .arg(root.join(SCRIPT))
        .arg("--refusals")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&configs).unwrap().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let said: Vec<String> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(said.len(), configs.len());
    // The unchanged config is taken by both.
    assert_eq!(said[REFUSALS.len()], "", "grpcio refused the valid config");
    let dir = std::env::temp_dir().join(format!("retrylint-grpc-refusals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let options = retrylint::input::load::LoadOptions::default();
    let mut disagreements = Vec::new();
    for (i, ((_, to, words), grpcio)) in REFUSALS.iter().zip(&said).enumerate() {
        let path = dir.join(format!("sc{i}.json"));
        std::fs::write(&path, &configs[i]).unwrap();
        let ours = match detect(&path, false, &options) {
            Err(error) => error.message,
            Ok(_) => String::new(),
        };
        let has = |text: &str| text.to_lowercase().contains(&words.to_lowercase());
        if !has(grpcio) || !has(&ours) {
            disagreements.push(format!(
                "{to}: expected `{words}`; grpcio said `{grpcio}`; retrylint said `{ours}`"
            ));
        }
    }
    let valid = dir.join("valid.json");
    std::fs::write(&valid, RETRY).unwrap();
    assert!(detect(&valid, false, &options).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
