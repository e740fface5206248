//! `retrylint simulate`: the storm simulation, through the real binary and the library.

use crate::common;

use common::retrylint;
use serde_json::Value;

const SHOP: &str = "fixtures/shop/openapi.yaml";
const STORM: &str = "fixtures/simulate/storm/openapi.yaml";

/// The storm of `docs/src/simulate.md`: 1,000 clients in two seconds, a 20 s outage, with and without jitter.
const STORM_EXAMPLE: [&str; 9] = [
    STORM,
    "--operation",
    "getFeed",
    "--arrival",
    "uniform:2s",
    "--fault",
    "503@0s..20s",
    "--compare",
    "jitter=none",
];
const PAY: &str = "POST /orders/{orderId}/payments";

fn json(args: &[&str]) -> Value {
    common::simulate_json(args)
}

fn variant<'a>(document: &'a Value, name: &str) -> &'a Value {
    common::simulate_variant(document, name)
}

/// The most requests in one second at or after `from` seconds.
fn peak_from(variant: &Value, from: u64) -> u64 {
    variant["loadCurve"].as_array().map_or(0, |points| {
        points
            .iter()
            .filter(|p| p["t"].as_u64().is_some_and(|t| t >= from))
            .filter_map(|p| p["requests"].as_u64())
            .max()
            .unwrap_or(0)
    })
}

#[test]
fn without_jitter_the_wave_after_the_outage_is_far_higher() {
    // 1,000 clients fail together in the first two seconds of a 20 s outage.
    let mut args = STORM_EXAMPLE.to_vec();
    args.extend([
        "--compare",
        "jitter=full",
        "--compare",
        "jitter=equal",
        "--compare",
        "jitter=decorrelated",
    ]);
    let document = json(&args);
    let none = peak_from(variant(&document, "jitter=none"), 20);
    let full = peak_from(variant(&document, "jitter=full"), 20);
    assert!(
        none >= 3 * full,
        "after the outage: none {none}/s, full {full}/s"
    );
    assert!(none > 200, "the wave exceeds the capacity: {none}/s");
    // The policy as written says `jitter: full`.
    assert_eq!(
        variant(&document, "policy")["loadCurve"],
        variant(&document, "jitter=full")["loadCurve"]
    );
    for name in ["jitter=equal", "jitter=decorrelated"] {
        let peak = peak_from(variant(&document, name), 20);
        assert!(peak < none, "{name}: {peak}/s");
    }
}

#[test]
fn a_post_retried_after_a_lost_response_writes_twice_unless_it_sends_a_key() {
    let document = json(&[
        SHOP,
        "--operation",
        PAY,
        "--fault",
        "timeout-after-processing@10s..40s",
        "--compare",
        "keyHeader=Idempotency-Key",
    ]);
    let without = variant(&document, "policy");
    let with = variant(&document, "keyHeader=Idempotency-Key");
    assert!(
        without["duplicates"].as_u64().unwrap_or(0) > 100,
        "{without}"
    );
    assert_eq!(with["duplicates"], 0);
    // Same requests: the key changes what the server does, not what the client sends.
    assert_eq!(without["requests"], with["requests"]);
    // Without a lost response nothing is written twice, key or not.
    let outage = json(&[SHOP, "--operation", PAY, "--fault", "503@10s..40s"]);
    assert_eq!(variant(&outage, "policy")["duplicates"], 0);
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_another_seed_differs() {
    let base = [
        "simulate",
        STORM,
        "--arrival",
        "poisson:50/s",
        "--fault",
        "503@5s..15s",
        "--fault",
        "429 retry-after=2s@15s..20s",
        "--compare",
        "jitter=none",
    ];
    for format in ["text", "json", "html"] {
        let run = |seed: &str| {
            let mut args = base.to_vec();
            args.extend_from_slice(&["--format", format, "--seed", seed]);
            let run = retrylint(&args);
            assert_eq!(run.code, 0, "{}", run.stderr);
            run.stdout
        };
        let first = run("42");
        assert_eq!(first, run("42"), "{format}");
        assert_ne!(first, run("43"), "{format}");
    }
}

#[test]
fn without_operation_every_retried_operation_is_simulated() {
    let document = json(&[SHOP]);
    let operations: Vec<&str> = document["scenario"]["operations"]
        .as_array()
        .map(|ops| ops.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert_eq!(operations.len(), 7, "{operations:?}");
    assert!(!operations.iter().any(|o| o.contains("/health")));
    assert!(operations.contains(&"POST /orders/{orderId}/payments (payOrder)"));
    // A selector picks operations whether or not they are retried.
    let health = json(&[SHOP, "--operation", "getHealth", "--fault", "503@0s..1m"]);
    let policy = variant(&health, "policy");
    assert_eq!(policy["requests"], policy["calls"]);
    assert_eq!(policy["stopped"]["max-attempts"], 1_000);
}

#[test]
fn the_json_document_has_the_documented_shape() {
    let document = json(&[SHOP, "--operation", PAY, "--fault", "503@10s..40s"]);
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let mut top = keys(&document);
    top.sort();
    assert_eq!(top, ["scenario", "variants", "version"]);
    assert_eq!(document["version"], 1);
    let mut fields = keys(variant(&document, "policy"));
    fields.sort();
    assert_eq!(
        fields,
        [
            "amplification",
            "calls",
            "duplicates",
            "earlierThanRetryAfter",
            "loadCurve",
            "name",
            "operation",
            "peakAfterRecoveryOverCapacity",
            "peakAfterRecoveryRequestsPerSecond",
            "peakRequestsPerSecond",
            "requests",
            "secondsOverCapacity",
            "secondsOverCapacityAfterRecovery",
            "stopped",
            "succeeded"
        ]
    );
    let policy = variant(&document, "policy");
    assert_eq!(policy["operation"], PAY);
    let curve = policy["loadCurve"].as_array().cloned().unwrap_or_default();
    let total: u64 = curve.iter().filter_map(|p| p["requests"].as_u64()).sum();
    assert_eq!(Some(total), policy["requests"].as_u64());
    assert_eq!(curve[0]["t"], 0);
    // The storm numbers are read off the load curve: after the fault ends (40 s), and
    // against the capacity (200/s).
    let load = |from: u64| {
        curve
            .iter()
            .filter(move |p| p["t"].as_u64().unwrap() >= from)
            .map(|p| p["requests"].as_u64().unwrap())
    };
    let peak = load(40).max().unwrap();
    assert_eq!(policy["peakAfterRecoveryRequestsPerSecond"], peak);
    let ratio = policy["peakAfterRecoveryOverCapacity"].as_f64().unwrap();
    assert!((ratio - peak as f64 / 200.0).abs() < 0.001, "{ratio}");
    assert_eq!(
        policy["secondsOverCapacity"],
        load(0).filter(|&r| r > 200).count()
    );
    assert_eq!(
        policy["secondsOverCapacityAfterRecovery"],
        load(40).filter(|&r| r > 200).count()
    );
    // Without a capacity there is nothing to be over.
    let unlimited = json(&[
        SHOP,
        "--operation",
        PAY,
        "--fault",
        "503@10s..40s",
        "--capacity",
        "unlimited",
    ]);
    let policy = variant(&unlimited, "policy");
    assert!(policy["peakAfterRecoveryOverCapacity"].is_null());
    assert!(policy["secondsOverCapacity"].is_null());
}

/// The storm of `docs/src/simulate.md`: 1,000 clients fail together in a 20 s outage. Without jitter they
/// come back in step, 2.6 times what the server can take; with full jitter the busiest
/// second after the outage is half its capacity. The table says so before the chart.
#[test]
fn the_storm_table_shows_that_jitter_wins() {
    let mut args = vec!["simulate"];
    args.extend(STORM_EXAMPLE);
    let document = json(&STORM_EXAMPLE);
    let jitter = variant(&document, "policy");
    let none = variant(&document, "jitter=none");
    let ratio = |v: &Value| v["peakAfterRecoveryOverCapacity"].as_f64().unwrap();
    assert!(ratio(jitter) < 1.0, "{}", ratio(jitter));
    assert!(ratio(none) > 2.0, "{}", ratio(none));
    assert_eq!(jitter["secondsOverCapacityAfterRecovery"], 0);
    assert!(none["secondsOverCapacityAfterRecovery"].as_u64().unwrap() > 0);
    let text = retrylint(&args).stdout;
    let table: Vec<&str> = text.lines().skip(4).collect();
    assert!(table[0].ends_with("policy  jitter=none"), "{text}");
    assert!(
        table[1].starts_with("after recovery: peak requests/s"),
        "{text}"
    );
    assert!(
        table[2].starts_with("after recovery: peak ÷ capacity (200/s)"),
        "{text}"
    );
    let cells: Vec<&str> = table[2].split_whitespace().rev().take(2).collect();
    assert_eq!(cells, ["2.6", "0.5"], "{text}");
}

#[test]
fn the_html_page_is_self_contained() {
    let run = retrylint(&[
        "simulate",
        SHOP,
        "--operation",
        PAY,
        "--fault",
        "503@10s..40s",
        "--compare",
        "jitter=none",
        "--compare",
        "keyHeader=Idempotency-Key",
        "--format",
        "html",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = &run.stdout;
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<svg") && page.contains("</svg>"));
    assert_eq!(page.matches("<polyline").count(), 3, "one line per variant");
    assert!(page.contains("capacity 200/s"));
    assert!(page.contains("<title>503@10s..40s</title></rect>"));
    for outside in ["http://", "https://", "<script", "src=", "url("] {
        assert!(!page.contains(outside), "{outside}");
    }
    // The SVG is well-formed XML.
    let start = page.find("<svg").unwrap_or(0);
    let end = page.find("</svg>").map_or(page.len(), |i| i + 6);
    roxmltree::Document::parse(&page[start..end]).expect("the SVG parses");
}

#[test]
fn bad_flags_exit_2_with_a_clear_message() {
    let cases: [(&[&str], &str); 9] = [
        (&["--clients", "0"], "bad --clients 0"),
        (
            &["--arrival", "burst:5s"],
            "unknown arrival process `burst`",
        ),
        (&["--arrival", "poisson:50"], "has no unit: write 50/s"),
        (&["--capacity", "fast"], "bad --capacity `fast`"),
        (&["--fault", "503@40s..10s"], "end after it starts"),
        (&["--fault", "timeout@0s..1s"], "unknown signal `timeout`"),
        (&["--latency", "50"], "has no unit"),
        (&["--compare", "jiter=none"], "unknown policy field `jiter`"),
        (&["--operation", "POST /order"], "matches no operation"),
    ];
    for (flags, message) in cases {
        let mut args = vec!["simulate", SHOP];
        args.extend_from_slice(flags);
        let run = retrylint(&args);
        assert_eq!(run.code, 2, "{flags:?}");
        assert!(run.stderr.contains(message), "{flags:?}: {}", run.stderr);
        assert!(run.stdout.is_empty());
    }
    let typo = retrylint(&["simulate", SHOP, "--compare", "jiter=none"]);
    assert!(
        typo.stderr.contains("did you mean `jitter`?"),
        "{}",
        typo.stderr
    );
    let output = retrylint(&["simulate", SHOP, "--format", "xml"]);
    assert_eq!(output.code, 2);
}

#[test]
fn snapshot_of_the_demo_scenario() {
    let args = [
        "simulate",
        SHOP,
        "--operation",
        PAY,
        "--fault",
        "503@10s..40s",
        "--compare",
        "jitter=none",
        "--compare",
        "keyHeader=Idempotency-Key",
    ];
    let text = retrylint(&args);
    assert_eq!(text.code, 0, "{}", text.stderr);
    insta::assert_snapshot!("simulate-demo-text", text.stdout);
    let mut json_args = args.to_vec();
    json_args.extend_from_slice(&["--format", "json"]);
    let json = retrylint(&json_args);
    insta::assert_snapshot!("simulate-demo-json", json.stdout);
}

/// The example of `docs/src/simulate.md`: the demo's payment through 30 s of lost responses.
const README_EXAMPLE: &[&str] = &[
    "simulate",
    SHOP,
    "--operation",
    PAY,
    "--fault",
    "timeout-after-processing@10s..40s",
    "--compare",
    "jitter=none",
    "--compare",
    "keyHeader=Idempotency-Key",
];

#[test]
fn snapshot_of_the_readme_example() {
    let run = retrylint(README_EXAMPLE);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("simulate-readme", run.stdout);
}

#[test]
fn the_simulate_page_shows_the_simulation_as_it_is() {
    let page = common::docs::page("simulate.md");
    let section = page
        .find("# Simulate an outage")
        .map(|i| &page[i..])
        .expect("the page's title");
    let start = section.find("```console\n").expect("a console block") + "```console\n".len();
    let end = start + section[start..].find("```").expect("the block ends");
    // The output after the command (`$ retrylint simulate …` and its continued lines).
    let shown: String = section[start..end]
        .lines()
        .skip_while(|l| l.starts_with("$ ") || l.starts_with("  --"))
        .map(|l| format!("{l}\n"))
        .collect();
    let run = retrylint(README_EXAMPLE);
    assert_eq!(shown, run.stdout);
    // The storm's numbers, as the page quotes them.
    let storm = json(&STORM_EXAMPLE);
    let none = peak_from(variant(&storm, "jitter=none"), 20);
    let full = peak_from(variant(&storm, "policy"), 20);
    assert!(
        section.contains(&format!("{none} requests in one second")),
        "{none}"
    );
    assert!(
        section.contains(&format!("the busiest second after the outage has {full}")),
        "{full}"
    );
}

#[test]
fn a_scenario_file_says_what_the_flags_say() {
    let spec = STORM;
    let mut args = vec!["simulate"];
    args.extend(STORM_EXAMPLE);
    let flags = retrylint(&args);
    let file = retrylint(&[
        "simulate",
        spec,
        "--operation",
        "getFeed",
        "--scenario",
        "fixtures/simulate/storm/scenario.yaml",
    ]);
    assert_eq!(flags.code, 0, "{}", flags.stderr);
    assert_eq!(file.code, 0, "{}", file.stderr);
    assert_eq!(flags.stdout, file.stdout);
    // A flag wins over the file.
    let seeded = retrylint(&[
        "simulate",
        spec,
        "--operation",
        "getFeed",
        "--scenario",
        "fixtures/simulate/storm/scenario.yaml",
        "--seed",
        "2",
    ]);
    assert_ne!(seeded.stdout, file.stdout);
    assert!(seeded.stdout.contains("seed 2"), "{}", seeded.stdout);
    // A misspelt key is an input error with a suggestion.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("scenario-typo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("scenario.yaml"), "scenario:\n  client: 10\n").unwrap();
    let typo = retrylint(&[
        "simulate",
        spec,
        "--scenario",
        dir.join("scenario.yaml").to_str().unwrap(),
    ]);
    assert_eq!(typo.code, 2);
    assert!(
        typo.stderr.contains("did you mean `clients`?"),
        "{}",
        typo.stderr
    );
}

/// Every mistake of a scenario file is reported in one run, each at its line.
#[test]
fn a_scenario_file_reports_all_its_errors_at_once() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("scenario-errors");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scenario.yaml");
    std::fs::write(
        &path,
        "scenario:\n  client: 10\n  seed: -1\n  faults: [503@1s..2s, [x]]\n",
    )
    .unwrap();
    let run = retrylint(&["simulate", STORM, "--scenario", path.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    for (message, at) in [
        ("unknown key `client` in `scenario`", "scenario.yaml:2:3"),
        ("did you mean `clients`?", "scenario.yaml:2:3"),
        (
            "`seed` must be a whole number of zero or more, found `-1`",
            "scenario.yaml:3:9",
        ),
        (
            "`faults[1]` must be a string, found a list",
            "scenario.yaml:4:24",
        ),
    ] {
        assert!(run.stderr.contains(message), "{message}: {}", run.stderr);
        assert!(run.stderr.contains(at), "{at}: {}", run.stderr);
    }
}

#[test]
fn takes_the_policy_and_layer_inputs_check_takes() {
    let base = [
        "simulate",
        SHOP,
        "--operation",
        "listOrders",
        "--clients",
        "50",
        "--fault",
        "503@1s..20s",
    ];
    let plain = retrylint(&base);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let mut args = base.to_vec();
    args.extend([
        "-p",
        "fixtures/shop/retry-policy.yaml",
        "--host",
        "shop.internal",
        "--host",
        "orders",
    ]);
    let given = retrylint(&args);
    assert_eq!(given.code, 0, "{}", given.stderr);
    assert_eq!(given.stdout, plain.stdout);
    // With no layer in front of the backend, no loop but the client's is listed.
    assert!(!plain.stdout.contains("loops"));
    // Two retrylint policies: the same error as check's.
    args.extend(["-p", "fixtures/simulate/storm/retry-policy.yaml"]);
    let twice = retrylint(&args);
    assert_eq!(twice.code, 2);
    assert!(
        twice.stderr.contains("two retry policies given"),
        "{}",
        twice.stderr
    );
}
