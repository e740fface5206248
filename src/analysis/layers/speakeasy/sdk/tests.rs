//! The counts against each SDK's loop, run wait by wait as the generated code runs it, with
//! attempts that take no time and the jitter that makes waits shortest.

use super::{Backoff, Language, attempts};
use crate::analysis::layers::UNBOUNDED_ATTEMPTS;

/// Where a simulation gives up: more attempts than this.
const SIMULATED: i64 = 100_000;

/// mistralai/client-ts `src/lib/retries.ts`, `retryBackoff`: elapsed is checked before
/// each wait (`elapsed > maxElapsedTime` stops), the wait is
/// `Math.min(initialInterval * Math.pow(x, exponent) + Math.random() * 1000, maxInterval)`
/// with `x` from 0, and `setTimeout` fires a wait past 2³¹ − 1 ms (or NaN) at once.
fn typescript_loop(b: &Backoff) -> Option<i64> {
    let (mut elapsed, mut x, mut attempts) = (0.0_f64, 0.0_f64, 1_i64);
    loop {
        if elapsed > b.max_elapsed_time {
            return Some(attempts);
        }
        let jitter = 0.0;
        let mut d = (b.initial_interval * x.powf(b.exponent) + jitter).min(b.max_interval);
        if d.is_nan() || d > 2_147_483_647.0 {
            d = 0.0;
        }
        elapsed += d;
        x += 1.0;
        attempts += 1;
        if attempts > SIMULATED {
            return None;
        }
    }
}

/// mistralai/client-python `src/mistralai/client/utils/retries.py`, `retry_with_backoff`
/// and `_get_sleep_interval`: `now - start > max_elapsed_time` stops, the sleep is
/// `min(initial_interval / 1000 * exponent**retries + random.uniform(0, 1), max_interval / 1000)`;
/// `exponent**retries` past a double, or a sleep past 2⁶³ ns, raises and ends the loop.
fn python_loop(b: &Backoff) -> Option<i64> {
    let (mut elapsed, mut retries, mut attempts) = (0.0_f64, 0.0_f64, 1_i64);
    loop {
        if elapsed > b.max_elapsed_time {
            return Some(attempts);
        }
        let growth = b.exponent.powf(retries);
        if growth.is_infinite() {
            return Some(attempts);
        }
        let jitter = 0.0;
        let sleep = (b.initial_interval * growth + jitter).min(b.max_interval);
        if sleep > 9.223_372_036_854_776e12 {
            return Some(attempts);
        }
        elapsed += sleep;
        retries += 1.0;
        attempts += 1;
        if attempts > SIMULATED {
            return None;
        }
    }
}

/// dubinc/dub-go `internal/utils/retries.go`, `retryWithBackoff` and `nextInterval`:
/// `time.Since(start) >= maxElapsedTime` stops; the interval is
/// `initialInterval * (attempt+1)^exponent`, jitter up to a quarter of it off, an interval
/// of nothing becomes `initialInterval`, then capped at `maxInterval`.
fn go_loop(b: &Backoff) -> Option<i64> {
    let (mut elapsed, mut attempt, mut attempts) = (0.0_f64, 0.0_f64, 1_i64);
    loop {
        if elapsed >= b.max_elapsed_time {
            return Some(attempts);
        }
        let mut interval = b.initial_interval * (attempt + 1.0).powf(b.exponent);
        let jitter = -0.25 * interval;
        interval += jitter;
        if interval <= 0.0 {
            interval = b.initial_interval;
        }
        if interval > b.max_interval {
            interval = b.max_interval;
        }
        // Inf − Inf is NaN, which neither comparison catches: `time.Duration(NaN)` is no
        // positive duration, and the timer fires at once.
        if interval.is_nan() {
            interval = 0.0;
        }
        elapsed += interval;
        attempt += 1.0;
        attempts += 1;
        if attempts > SIMULATED {
            return None;
        }
    }
}

fn simulated(language: Language, b: &Backoff) -> Option<i64> {
    match language {
        Language::TypeScript => typescript_loop(b),
        Language::Python => python_loop(b),
        Language::Go => go_loop(b),
    }
}

fn backoff(initial: f64, cap: f64, exponent: f64, window: f64) -> Backoff {
    Backoff {
        initial_interval: initial,
        max_interval: cap,
        exponent,
        max_elapsed_time: window,
    }
}

#[test]
fn counts_match_each_sdk_loop() {
    let mut compared = 0;
    for initial in [0.0, 1.0, 100.0, 500.0, 1_000.0, 7_000.0] {
        for cap in [0.0, 250.0, 1_000.0, 10_000.0, 60_000.0] {
            for exponent in [0.0, 0.5, 0.9, 1.0, 1.5, 2.0, 3.0, 10.0] {
                for window in [0.0, 1.0, 999.0, 60_000.0, 3_600_000.0] {
                    let b = backoff(initial, cap, exponent, window);
                    for language in Language::ALL {
                        let counted = attempts(language, &b);
                        match simulated(language, &b) {
                            Some(n) => assert_eq!(counted, n, "{language:?} {b:?}"),
                            None => assert!(counted > SIMULATED, "{language:?} {b:?}: {counted}"),
                        }
                        compared += 1;
                    }
                }
            }
        }
    }
    assert_eq!(compared, 6 * 5 * 8 * 5 * 3);
}

#[test]
fn one_more_attempt_follows_the_last_wait_that_starts_in_time() {
    // The fixture's backoff: 500 ms, 10 s, exponent 2, one minute.
    let b = backoff(500.0, 10_000.0, 2.0, 60_000.0);
    // TypeScript waits 0, 0.5, 2, 4.5, 8, then 10 s: the tenth wait starts at 55 s.
    assert_eq!(attempts(Language::TypeScript, &b), 11);
    // Python waits 0.5, 1, 2, 4, 8, then 10 s: the tenth starts at 55.5 s.
    assert_eq!(attempts(Language::Python, &b), 11);
    // Go waits at least 0.375, 1.5, 3.375, 6, 9.375, then 10 s, and stops at 60.625 s.
    assert_eq!(attempts(Language::Go, &b), 10);
    // Speakeasy's defaults: Python's twelve growing waits (128.7 s), then 58 of a minute.
    let defaults = backoff(500.0, 60_000.0, 1.5, 3_600_000.0);
    assert_eq!(attempts(Language::Python, &defaults), 71);
    assert_eq!(
        Some(attempts(Language::TypeScript, &defaults)),
        typescript_loop(&defaults)
    );
    // No time at all still retries in TypeScript (twice: its first wait is nothing) and
    // Python, never in Go.
    let none = backoff(500.0, 1_000.0, 2.0, 0.0);
    assert_eq!(attempts(Language::TypeScript, &none), 3);
    assert_eq!(attempts(Language::Python, &none), 2);
    assert_eq!(attempts(Language::Go, &none), 1);
}

#[test]
fn waits_of_nothing_retry_without_end() {
    for language in Language::ALL {
        assert_eq!(
            attempts(language, &backoff(0.0, 5_000.0, 1.0, 10_000.0)),
            UNBOUNDED_ATTEMPTS
        );
    }
    // A cap of nothing: Python's loop still ends where `2.0**1024` overflows.
    let no_cap = backoff(500.0, 0.0, 2.0, 10_000.0);
    assert_eq!(attempts(Language::TypeScript, &no_cap), UNBOUNDED_ATTEMPTS);
    assert_eq!(attempts(Language::Go, &no_cap), UNBOUNDED_ATTEMPTS);
    assert_eq!(attempts(Language::Python, &no_cap), 1_025);
    assert_eq!(python_loop(&no_cap), Some(1_025));
    // Python's shrinking waits add up to 2 s: in 10 s they never end.
    assert_eq!(
        attempts(Language::Python, &backoff(1_000.0, 5_000.0, 0.5, 10_000.0)),
        UNBOUNDED_ATTEMPTS
    );
    // A wait past what a JavaScript timer holds fires at once: TypeScript loops.
    let years = 365.0 * 86_400_000.0;
    assert_eq!(
        attempts(
            Language::TypeScript,
            &backoff(years, years, 1.5, 3_600_000.0)
        ),
        UNBOUNDED_ATTEMPTS
    );
    // Go waits its year once, then stops.
    assert_eq!(
        attempts(Language::Go, &backoff(years, years, 1.5, 3_600_000.0)),
        2
    );
}

#[test]
fn extreme_values_saturate() {
    let years = 100.0 * 365.0 * 86_400_000.0;
    for exponent in [1e306, 1e308, f64::MAX] {
        // Python's `exponent**retries` overflows on the third wait and ends the loop.
        let b = backoff(500.0, 10_000.0, exponent, 60_000.0);
        assert_eq!(attempts(Language::Python, &b), 3);
        // TypeScript waits 0, 0.5 s, then the 10 s cap: six more start within the minute.
        assert_eq!(attempts(Language::TypeScript, &b), 9);
        // Go waits at least 0.375 s, then its interval overflows: NaN, no wait at all.
        assert_eq!(attempts(Language::Go, &b), UNBOUNDED_ATTEMPTS);
        assert_eq!(go_loop(&b), None);
        // Intervals of a century, a window of a century.
        let huge = backoff(years, years, exponent, years);
        for language in Language::ALL {
            let n = attempts(language, &huge);
            assert!(n >= 1, "{language:?}: {n}");
        }
    }
    // Python's sleep past 2⁶³ ns raises: one attempt.
    assert_eq!(
        attempts(Language::Python, &backoff(1e13, 1e13, 1.0, 1e300)),
        1
    );
    // A slow-growing wait over a long window is bounded, not counted one by one.
    let slow = backoff(1.0, 1e9, 0.001, 1e12);
    for language in Language::ALL {
        let n = attempts(language, &slow);
        assert!(n > 1_000_000, "{language:?}: {n}");
    }
}
