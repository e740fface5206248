//! `retrylint plan` through the real binary.

mod common;

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
            .contains("  3        0s–400ms     4.6s       6.6s     5.4s"),
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
