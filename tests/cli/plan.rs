//! `retrylint plan` through the real binary.

use crate::common;

use common::retrylint;

#[test]
fn plan_prints_the_worst_case_schedule_of_every_operation() {
    let run = retrylint(&["plan", "fixtures/shop/openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("GET /health (getHealth)\n  not retried (maxAttempts: 1)"),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!("plan-shop", run.stdout);
}

#[test]
fn plan_filters_by_selector() {
    let run = retrylint(&[
        "plan",
        "fixtures/shop/openapi.yaml",
        "--operation",
        "createOrder",
    ]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout.lines().next(),
        Some("POST /orders (createOrder)")
    );
    assert!(
        run.stdout
            .contains("  3        0s–400ms, Retry-After ≤ 2s  8s         10s      2s"),
        "{}",
        run.stdout
    );
    let tagged = retrylint(&[
        "plan",
        "fixtures/shop/openapi.yaml",
        "--operation",
        "tag:payments",
    ]);
    assert!(tagged.stdout.contains("(payOrder)") && !tagged.stdout.contains("(createOrder)"));
    let none = retrylint(&[
        "plan",
        "fixtures/shop/openapi.yaml",
        "--operation",
        "GET /nothing",
    ]);
    assert_eq!(none.stdout, "no operation matches\n");
    let bad = retrylint(&[
        "plan",
        "fixtures/shop/openapi.yaml",
        "--operation",
        "/orders",
    ]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("has no method"), "{}", bad.stderr);
}

#[test]
fn plan_shows_when_the_deadline_cuts_attempts() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("plan-deadline");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: {'200': {description: ok}}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        "version: 1\ndefaults:\n  maxAttempts: 5\n  deadline: 7s\n  perAttemptTimeout: 2s\n  backoff: {base: 100ms, cap: 2s, jitter: none}\n",
    )
    .unwrap();
    let run = common::retrylint_in(&dir, &["plan", "openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("(3 of 5 attempts run)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("worst case 6.6s of a 7s deadline; all 5 attempts would need 13s"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("the next wait would end past the deadline"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("attempts would need"), "{}", run.stdout);
}

/// A folder with a one-operation description (`POST /a`, declaring 429 and 503 with
/// `Retry-After`) and `policy` as its retry-policy.yaml.
fn folder(name: &str, policy: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: getA\n      responses:\n        '200': {description: ok}\n        '429': {description: slow down, headers: {Retry-After: {schema: {type: integer}}}}\n        '503': {description: busy, headers: {Retry-After: {schema: {type: integer}}}}\n",
    )
    .unwrap();
    std::fs::write(dir.join("retry-policy.yaml"), policy).unwrap();
    dir
}

#[test]
fn the_worst_case_of_thousands_of_attempts_is_summarised_truthfully() {
    let dir = folder(
        "plan-2000",
        "version: 1\ndefaults:\n  maxAttempts: 2000\n  deadline: 1h\n  perAttemptTimeout: 1ms\n  backoff: {base: 100ms, cap: 2s, jitter: full}\n  retryOn: [timeout]\n",
    );
    let run = common::retrylint_in(&dir, &["plan", "openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // 200 + 400 + 800 + 1600 ms, then 2 s: attempt 1802 starts at 3,598,801 ms.
    assert!(
        run.stdout
            .contains("attempts 1001 to 1802 not listed (the first 1000 are)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("stops after attempt 1802: the next wait would end past the deadline (1802 of 2000 attempts run)"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("maxAttempts is 2000"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "worst case 59m58.802s of a 1h deadline; all 2000 attempts would need 1h6m35s"
        ),
        "{}",
        run.stdout
    );
    let check = common::retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert!(
        common::fired_rules(&check.stdout).contains(&"attempts-exceed-deadline".to_string()),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains("only 1802 run in full"),
        "{}",
        check.stdout
    );
}

#[test]
fn an_honoured_retry_after_is_part_of_the_worst_case() {
    let dir = folder(
        "plan-retry-after",
        "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 10s\n  perAttemptTimeout: 2s\n  backoff: {base: 100ms, cap: 2s, jitter: full}\n  retryOn: [429, 503, timeout]\n  retryAfter: {honor: true, max: 5s}\n",
    );
    let run = common::retrylint_in(&dir, &["plan", "openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The backoff range and the Retry-After ceiling, side by side.
    assert!(
        run.stdout.contains("0s–200ms, Retry-After ≤ 5s"),
        "{}",
        run.stdout
    );
    // 2 s, a 5 s wait, 2 s; the next 5 s wait would end at 14 s.
    assert!(
        run.stdout.contains(
            "worst case 9s of a 10s deadline; all 3 attempts would need 16s; includes Retry-After waits of up to 5s"
        ),
        "{}",
        run.stdout
    );
    let check = common::retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert!(
        check.stdout.contains("they need 16s, 6s more"),
        "{}",
        check.stdout
    );
    let report = common::retrylint_in(&dir, &["report", "openapi.yaml", "--format", "markdown"]);
    // Markdown escapes punctuation; read it as a person sees it.
    let shown = report.stdout.replace('\\', "");
    assert!(
        shown.contains(
            "worst case 9s (waits: backoff up to 200ms, Retry-After up to 5s) (2 of 3 attempts run)"
        ),
        "{}",
        report.stdout
    );
    // No retryAfter.max: said, not hidden.
    let unbounded = folder(
        "plan-retry-after-unbounded",
        "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 10s\n  perAttemptTimeout: 2s\n  backoff: {base: 100ms, cap: 2s, jitter: full}\n  retryOn: [503]\n  retryAfter: {honor: true}\n",
    );
    let run = common::retrylint_in(&unbounded, &["plan", "openapi.yaml"]);
    assert!(
        run.stdout
            .contains("not included: Retry-After is honoured with no retryAfter.max"),
        "{}",
        run.stdout
    );
}

#[test]
fn waits_alone_can_make_attempts_unreachable() {
    let dir = folder(
        "plan-waits-alone",
        "version: 1\ndefaults:\n  maxAttempts: 5\n  deadline: 3s\n  backoff: {base: 1s}\n  retryOn: [timeout]\n",
    );
    let check = common::retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert!(
        common::fired_rules(&check.stdout).contains(&"attempts-exceed-deadline".to_string()),
        "{}",
        check.stdout
    );
    // Waits of 2 s, 4 s, 8 s, 16 s: attempt 2 starts at 2 s, attempt 3 would at 6 s.
    assert!(
        check.stdout.contains("they add up to 30s for 5 attempts, so even if every attempt failed at once only 2 could start"),
        "{}",
        check.stdout
    );
}

#[test]
fn a_zero_base_never_waits_the_cap() {
    let dir = folder(
        "plan-zero-base",
        "version: 1\ndefaults:\n  maxAttempts: 4\n  deadline: 10s\n  perAttemptTimeout: 1s\n  backoff: {base: 0ms, cap: 2s, multiplier: 1e300}\n  retryOn: [timeout]\n",
    );
    let run = common::retrylint_in(&dir, &["plan", "openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Every wait is 0 s, none the cap: attempt 3 starts when attempt 2 ends.
    assert!(
        run.stdout.contains("  3        0s           2s         3s"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("worst case 4s of a 10s deadline"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_cap_below_base_is_invalid_everywhere() {
    let dir = folder(
        "plan-cap-below-base",
        "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 10s\n  perAttemptTimeout: 1s\n  backoff: {base: 500ms, cap: 100ms, jitter: full}\n  retryOn: [timeout, 503]\n",
    );
    let run = common::retrylint_in(&dir, &["plan", "openapi.yaml"]);
    assert!(
        run.stdout.contains("stops after attempt 1: invalid-delay (backoff.cap 100ms is below backoff.base 500ms); no retry is made"),
        "{}",
        run.stdout
    );
    let check = common::retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert!(
        check.stdout.contains("plan_retry stops with invalid-delay"),
        "{}",
        check.stdout
    );
    let sim = common::retrylint_in(
        &dir,
        &[
            "simulate",
            "openapi.yaml",
            "--clients",
            "50",
            "--fault",
            "503@0s..1h",
            "--format",
            "json",
        ],
    );
    assert_eq!(sim.code, 0, "{}", sim.stderr);
    assert!(
        sim.stderr.contains("every retry stops with invalid-delay"),
        "{}",
        sim.stderr
    );
    let doc: serde_json::Value = serde_json::from_str(&sim.stdout).unwrap();
    let policy = &doc["variants"][0];
    assert_eq!(policy["requests"], 50, "{policy}");
    assert_eq!(policy["stopped"]["invalid-delay"], 50, "{policy}");
}

#[test]
fn retry_after_fallbacks_are_parsed_checked_and_shown() {
    let dir = folder(
        "plan-fallbacks",
        "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 10s\n  perAttemptTimeout: 1s\n  backoff: {base: 100ms, cap: 1s, jitter: full}\n  retryOn: [429]\n  retryAfter: {honor: true, max: 2s, onMissing: backoff, onInvalid: stop}\n",
    );
    let run = common::retrylint_in(&dir, &["plan", "openapi.yaml"]);
    assert!(
        run.stdout.contains("a 429/503 without Retry-After: waits the backoff; an unreadable one: stops (invalid-retry-after)"),
        "{}",
        run.stdout
    );
    let typo = folder(
        "plan-fallback-typo",
        "version: 1\ndefaults:\n  retryAfter: {honor: true, onInvalid: stp}\n",
    );
    let run = common::retrylint_in(&typo, &["check", "openapi.yaml"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("did you mean `stop`"), "{}", run.stderr);
    let schema = common::retrylint(&["schema"]);
    assert!(
        schema.stdout.contains("onInvalid"),
        "the schema lists onInvalid"
    );
}
