//! `cargo bench --bench output`: human output on the inputs that used to make it huge or
//! panic, in process. Each case prints the median time of `check` plus rendering, and
//! the size of the output, which must stay small whatever the size of the line.
//!
//! 1. A policy whose every finding points into a 5 MB line.
//! 2. A minified description (one line of 1 MB, 5 MB, 20 MB) whose finding has labels at
//!    both ends of the line.

use std::path::Path;
use std::time::{Duration, Instant};

use retrylint::analysis::check::{CheckOptions, check_description, load_policy};
use retrylint::rendering::output::human;

fn main() {
    let runs = if std::env::args().any(|a| a == "--quick") {
        3
    } else {
        5
    };
    let work = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-output");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("a scratch folder");
    println!("human output on long lines (median of {runs})");
    for mb in [1usize, 5, 20] {
        let pad = mb * 1_000_000;
        let spec = work.join(format!("minified-{mb}mb.json"));
        std::fs::write(&spec, minified(pad)).expect("written");
        let policy = work.join(format!("policy-{mb}mb.yaml"));
        std::fs::write(&policy, long_line_policy(pad)).expect("written");
        let (time, bytes) = measure(runs, &spec, &policy);
        println!(
            "  {mb:>2} MB line: {:>8.1} ms, {bytes:>6} bytes of output",
            time.as_secs_f64() * 1e3
        );
    }
}

fn measure(runs: usize, spec: &Path, policy: &Path) -> (Duration, usize) {
    let options = CheckOptions {
        load: retrylint::input::load::LoadOptions {
            max_file_size: 64_000_000,
            ..Default::default()
        },
        ..CheckOptions::default()
    };
    let mut bytes = 0;
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let policy = load_policy(policy, &options.load).expect("the policy loads");
            let result = check_description(spec, Some(&policy), &options).expect("it checks");
            bytes = human::render(
                std::slice::from_ref(&result),
                false,
                retrylint::rendering::output::Shown::default(),
            )
            .len();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], bytes)
}

/// One line of JSON: the operation at the start, its shared header parameter at the end.
fn minified(pad: usize) -> String {
    format!(
        r##"{{"openapi":"3.0.3","info":{{"title":"t","version":"1"}},"paths":{{"/orders":{{"post":{{"operationId":"createOrder","parameters":[{{"$ref":"#/components/parameters/Key"}}],"responses":{{"201":{{"description":"ok"}}}}}}}}}},"x-pad":"{}","components":{{"parameters":{{"Key":{{"name":"Idempotency-Key","in":"header","required":false,"schema":{{"type":"string"}}}}}}}}}}"##,
        "y".repeat(pad)
    )
}

/// A policy whose defaults, which every finding points at, share one very long line.
fn long_line_policy(pad: usize) -> String {
    format!(
        "version: 1\ndefaults: {{maxAttempts: 3, deadline: 10s, perAttemptTimeout: 2s,{}backoff: {{base: 100ms, cap: 1s, jitter: full}}, retryOn: [503]}}\noperations:\n  createOrder:\n    sideEffect: non-idempotent\n    idempotency: {{keyHeader: Idempotency-Key, keyRetention: 24h}}\n    onUnknownOutcome: retry-same-key\n",
        " ".repeat(pad)
    )
}
