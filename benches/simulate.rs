//! `cargo bench --bench simulate`: the storm simulation's figure of the product
//! specification — 100,000 clients with 5 attempts each in under a second on one core.
//!
//! The clients call the storm fixture's `GET /feed` (5 attempts, exponential backoff with
//! full jitter) through an outage that outlasts every call, so every call makes all five
//! attempts: 500,000 requests. The scenario and policy are loaded once; what is timed is
//! the simulation itself (arrivals, the event loop, the outcome). The median of several
//! runs is printed.
//!
//! Two pathological scenarios follow, each expected to scale linearly: 20,000 fault windows
//! (the server fails two seconds in every four for a day) for 100,000 clients, and 1,000
//! `--compare` variants of 1,000 clients each.

use std::path::Path;
use std::time::{Duration, Instant};

use retrylint::analysis::check::{analyze, load_policy};
use retrylint::input::load::LoadOptions;
use retrylint::rendering::simulate::scenario::{Scenario, ScenarioFlags};
use retrylint::rendering::simulate::variant::Variant;
use retrylint::rendering::simulate::{Target, simulate};

fn main() {
    let runs = if std::env::args().any(|a| a == "--quick") {
        3
    } else {
        7
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/simulate/storm");
    let options = LoadOptions::default();
    let policy = load_policy(&root.join("retry-policy.yaml"), &options).expect("the policy loads");
    let analysis =
        analyze(&root.join("openapi.yaml"), Some(&policy), &options).expect("the fixture loads");
    let index = analysis
        .api
        .operations
        .iter()
        .position(|op| op.operation_id.as_deref() == Some("getFeed"))
        .expect("getFeed exists");
    let five = Variant::parse("maxAttempts=5").expect("a variant");
    let target = Target {
        operation: analysis.api.operations[index].key(),
        policy: five.apply(&analysis.effective[index]),
        layers: Vec::new(),
    };
    let faults = ["503@0s..10m".to_string()];
    let scenario = Scenario::from_flags(&ScenarioFlags {
        clients: 100_000,
        arrival: "uniform:60s",
        capacity: "200/s",
        faults: &faults,
        latency: "50ms",
        seed: 1,
    })
    .expect("a scenario");
    let (median, requests) = median_of(runs, || {
        simulate(&scenario, std::slice::from_ref(&target), &[])
            .iter()
            .map(|o| o.requests)
            .sum()
    });
    println!(
        "simulate: 100,000 clients x 5 attempts ({requests} requests): median {:.1} ms of {runs} runs, {:.0} ns per request (figure: under 1,000 ms)",
        median.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e9 / requests.max(1) as f64,
    );
    pathological(runs, &target);
}

/// The median time of `runs` runs of `f`, and the requests its last run counted.
fn median_of(runs: usize, mut f: impl FnMut() -> u64) -> (Duration, u64) {
    let mut requests = 0;
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            requests = f();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], requests)
}

/// 20,000 fault windows and 1,000 compared variants.
fn pathological(runs: usize, target: &Target) {
    let windows: Vec<String> = (0..20_000)
        .map(|i| format!("503@{}s..{}s", i * 4, i * 4 + 2))
        .collect();
    let scenario = Scenario::from_flags(&ScenarioFlags {
        clients: 100_000,
        arrival: "uniform:80000s",
        capacity: "200/s",
        faults: &windows,
        latency: "50ms",
        seed: 1,
    })
    .expect("a scenario");
    let (median, requests) = median_of(runs, || {
        simulate(&scenario, std::slice::from_ref(target), &[])
            .iter()
            .map(|o| o.requests)
            .sum()
    });
    println!(
        "simulate: 20,000 fault windows, 100,000 clients ({requests} requests): median {:.1} ms of {runs} runs",
        median.as_secs_f64() * 1e3,
    );
    let variants: Vec<Variant> = (0..1_000)
        .map(|i| Variant::parse(&format!("base={}ms", 100 + i)).expect("a variant"))
        .collect();
    let scenario = Scenario::from_flags(&ScenarioFlags {
        clients: 1_000,
        arrival: "uniform:60s",
        capacity: "200/s",
        faults: &["503@10s..40s".to_string()],
        latency: "50ms",
        seed: 1,
    })
    .expect("a scenario");
    let (median, requests) = median_of(runs, || {
        simulate(&scenario, std::slice::from_ref(target), &variants)
            .iter()
            .map(|o| o.requests)
            .sum()
    });
    println!(
        "simulate: 1,000 --compare variants of 1,000 clients ({requests} requests): median {:.1} ms of {runs} runs",
        median.as_secs_f64() * 1e3,
    );
}
