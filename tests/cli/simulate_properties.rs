//! `simulate`'s promises checked on the engine itself, over whole runs: nothing is sent
//! before an honoured Retry-After, no call outlives its deadline, and no call makes more
//! attempts than allowed.

use std::path::Path;

use retrylint::analysis::check::{analyze, load_policy};
use retrylint::analysis::plan::StopReason;
use retrylint::input::load::LoadOptions;
use retrylint::rendering::simulate::scenario::{Scenario, ScenarioFlags};
use retrylint::rendering::simulate::variant::Variant;
use retrylint::rendering::simulate::{Outcome, Target, simulate};

const SHOP: &str = "fixtures/shop/openapi.yaml";
const STORM: &str = "fixtures/simulate/storm/openapi.yaml";

/// A fixture operation (by operationId) with its effective policy.
fn target(spec: &str, operation_id: &str) -> Target {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = root.join(spec);
    let options = LoadOptions::default();
    let policy =
        load_policy(&spec.with_file_name("retry-policy.yaml"), &options).expect("the policy loads");
    let analysis = analyze(&spec, Some(&policy), &options).expect("the description loads");
    let index = analysis
        .api
        .operations
        .iter()
        .position(|op| op.operation_id.as_deref() == Some(operation_id))
        .expect("the operation exists");
    Target {
        operation: analysis.api.operations[index].key(),
        policy: analysis.effective[index].clone(),
        layers: Vec::new(),
    }
}

fn scenario(clients: u32, arrival: &str, faults: &[&str], seed: u64) -> Scenario {
    let faults: Vec<String> = faults
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    Scenario::from_flags(&ScenarioFlags {
        clients,
        arrival,
        capacity: "200/s",
        faults: &faults,
        latency: "50ms",
        seed,
    })
    .expect("a valid scenario")
}

fn variants(texts: &[&str]) -> Vec<Variant> {
    texts
        .iter()
        .map(|t| Variant::parse(t).expect("a valid variant"))
        .collect()
}

#[test]
fn nothing_is_sent_earlier_than_an_honoured_retry_after() {
    let targets = [target(STORM, "getFeed"), target(STORM, "createPost")];
    for seed in 1..=5 {
        let s = scenario(
            2_000,
            "poisson:100/s",
            &["429 retry-after=5s@0s..15s", "503 retry-after=2s@15s..20s"],
            seed,
        );
        let outcomes = simulate(
            &s,
            &targets,
            &variants(&[
                "jitter=none",
                "jitter=decorrelated",
                "honorRetryAfter=false",
            ]),
        );
        for o in &outcomes[..3] {
            assert_eq!(o.earlier_than_retry_after, 0, "{} seed {seed}", o.name);
            assert!(o.requests > o.calls, "{} retried", o.name);
        }
        assert!(outcomes[3].earlier_than_retry_after > 0);
    }
    // A Retry-After above retryAfter.max makes the client give up instead.
    let s = scenario(500, "uniform:10s", &["429 retry-after=5s@0s..1m"], 1);
    let capped = &simulate(&s, &targets[..1], &variants(&["retryAfterMax=2s"]))[1];
    assert_eq!(capped.requests, 500);
    assert_eq!(capped.stopped_by(StopReason::InvalidRetryAfter), 500);
}

#[test]
fn no_call_outlives_its_deadline() {
    let targets = [target(STORM, "getFeed")];
    let faults: [&[&str]; 4] = [
        &["timeout-before-processing@0s..30s"],
        &["503@0s..30s"],
        &["429 retry-after=3s@0s..30s"],
        &[
            "timeout-after-processing@5s..15s",
            "connect-failure@15s..25s",
        ],
    ];
    let mut exhausted = 0;
    for faults in faults {
        let s = scenario(1_000, "uniform:20s", faults, 3);
        let outcomes = simulate(
            &s,
            &targets,
            &variants(&[
                "deadline=3s",
                "deadline=7s perAttemptTimeout=none",
                "deadline=10s jitter=none",
                "deadline=5s maxAttempts=20 cap=1s",
            ]),
        );
        let deadlines = [60_000, 3_000, 7_000, 10_000, 5_000];
        for (o, deadline_ms) in outcomes.iter().zip(deadlines) {
            assert_eq!(o.past_deadline, 0, "{}", o.name);
            assert!(
                o.longest_call.as_micros() <= deadline_ms * 1_000,
                "{}: a call took {} of a {deadline_ms} ms deadline ({faults:?})",
                o.name,
                o.longest_call
            );
            exhausted += o.stopped_by(StopReason::DeadlineExhausted);
        }
    }
    assert!(exhausted > 0, "some calls ran out of time");
}

#[test]
fn amplification_never_exceeds_max_attempts() {
    let targets = [
        target(STORM, "getFeed"),
        target(STORM, "createPost"),
        target(SHOP, "payOrder"),
    ];
    for faults in [
        &["503@0s..1h"][..],
        &["timeout-after-processing@0s..1h"],
        &["connect-failure@5s..20s", "429 retry-after=1s@20s..30s"],
    ] {
        let s = scenario(3_000, "uniform:10s", faults, 7);
        for max in 1..=8 {
            let text = format!("maxAttempts={max}");
            let outcomes = simulate(&s, &targets, &variants(&[&text]));
            let o: &Outcome = &outcomes[1];
            assert!(
                o.amplification() <= f64::from(max),
                "{text}: {} ({faults:?})",
                o.amplification()
            );
            assert!(o.most_requests_per_call <= max, "{text}");
            assert_eq!(
                o.succeeded + o.stopped.iter().sum::<u64>(),
                o.calls,
                "every call ends once"
            );
        }
    }
    // An outage that outlasts every call: every call makes all its attempts.
    let s = scenario(1_000, "uniform:10s", &["503@0s..1h"], 1);
    let all = &simulate(&s, &targets[..1], &variants(&["maxAttempts=4 deadline=1m"]))[1];
    assert_eq!(all.amplification(), 4.0);
}
