//! The retry loops of the SDKs Speakeasy generates, per language: how many attempts one
//! `x-speakeasy-retries` allows, and what each does with `Retry-After`.
//!
//! Every generated SDK loops the same way: an attempt; when it fails with a retried status
//! or error, stop if more than `maxElapsedTime` has passed since the first attempt began,
//! else wait and try again. Elapsed time is checked *before* each wait, so one more
//! attempt always follows the last wait that starts in time, and `maxElapsedTime` never
//! cuts an attempt or a wait short. Nothing counts the attempts. The languages differ in
//! the wait before retry `n` (`n` = 0, 1, 2 …), which each caps at `maxInterval` after
//! adding its jitter:
//!
//! | SDK | backoff wait | jitter | stops when elapsed | `Retry-After` |
//! |---|---|---|---|---|
//! | TypeScript | `initialInterval × n^exponent` (the first is 0) | + [0, 1 s) | > maxElapsedTime | seconds or HTTP-date, capped at `maxInterval` |
//! | Python | `initialInterval × exponent^n` | + [0, 1 s) | > maxElapsedTime | seconds or HTTP-date, not capped |
//! | Go | `initialInterval × (n + 1)^exponent` (none once that overflows) | ± 25 % | ≥ maxElapsedTime | seconds, RFC 1123 date or `retry-after-ms`, not capped |
//!
//! Read in the generated code of public SDKs: TypeScript `src/lib/retries.ts`
//! (mistralai/client-ts, Speakeasy 1.763.6), Python `src/mistralai/client/utils/retries.py`
//! (mistralai/client-python; Retry-After since Speakeasy 1.685.0, ignored before), Go
//! `internal/utils/retries.go` and `retry/config.go` (dubinc/dub-go).
//!
//! The count bounds the attempts from above: attempts take no time, and jitter adds its
//! least (nothing in TypeScript and Python, −25 % in Go), since shorter waits let more
//! attempts start within `maxElapsedTime`. The SDK's own waits are counted: a server whose
//! `Retry-After` asks for less than the backoff gets more attempts than this.

#[cfg(test)]
mod tests;

use crate::analysis::layers::UNBOUNDED_ATTEMPTS;

/// A language Speakeasy generates SDKs in, whose retry loop is known here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    TypeScript,
    Python,
    Go,
}

impl Language {
    /// Every language, in the order a tie between their counts is settled.
    pub const ALL: [Language; 3] = [Language::TypeScript, Language::Python, Language::Go];

    pub fn name(self) -> &'static str {
        match self {
            Language::TypeScript => "TypeScript",
            Language::Python => "Python",
            Language::Go => "Go",
        }
    }

    /// Whether the loop stops, `elapsed` after the first attempt began.
    fn stops(self, elapsed: f64, max_elapsed: f64) -> bool {
        match self {
            Language::TypeScript | Language::Python => elapsed > max_elapsed,
            Language::Go => elapsed >= max_elapsed,
        }
    }

    /// How the SDK waits what `Retry-After` asks, for a note.
    pub fn retry_after(self) -> &'static str {
        match self {
            Language::TypeScript => {
                "the Speakeasy TypeScript SDK waits what Retry-After asks (seconds or an HTTP-date), at most maxInterval"
            }
            Language::Python => {
                "the Speakeasy Python SDK waits what Retry-After asks (seconds or an HTTP-date), however long (SDKs generated before Speakeasy 1.685.0 ignore it)"
            }
            Language::Go => {
                "the Speakeasy Go SDK waits what Retry-After or retry-after-ms asks, however long"
            }
        }
    }

    /// Whether the SDK caps the wait `Retry-After` asks for at `maxInterval`.
    pub fn caps_retry_after(self) -> bool {
        self == Language::TypeScript
    }

    /// How the SDK's backoff waits grow, for a note.
    pub fn growth(self) -> &'static str {
        match self {
            Language::TypeScript => {
                "the Speakeasy TypeScript SDK waits initialInterval × n^exponent (n = 0, 1, 2 …) plus up to 1 s, at most maxInterval"
            }
            Language::Python => {
                "the Speakeasy Python SDK waits initialInterval × exponent^n (n = 0, 1, 2 …) plus up to 1 s, at most maxInterval"
            }
            Language::Go => {
                "the Speakeasy Go SDK waits initialInterval × (n + 1)^exponent (n = 0, 1, 2 …) ± 25 %, at most maxInterval"
            }
        }
    }
}

/// An `x-speakeasy-retries` backoff, in milliseconds (and the exponent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Backoff {
    pub initial_interval: f64,
    pub max_interval: f64,
    pub exponent: f64,
    pub max_elapsed_time: f64,
}

/// The longest timer JavaScript runtimes keep (2³¹ − 1 ms, 24.8 days): a longer one fires
/// at once (Node.js: after 1 ms), as their `setTimeout` documentation says.
const JS_TIMER_MAX_MS: f64 = 2_147_483_647.0;

/// The longest `time.sleep` Python takes (2⁶³ ns, in milliseconds): a longer one raises
/// `OverflowError`, which ends the loop.
const PYTHON_SLEEP_MAX_MS: f64 = 9.223_372_036_854_776e12;

/// Waits counted one by one before the rest is bounded in closed form.
const STEPS: u32 = 100_000;

/// The most attempts the SDK of `language` makes with `backoff`, or
/// [`UNBOUNDED_ATTEMPTS`] when waits of nothing let attempts go on without end.
pub(super) fn attempts(language: Language, backoff: &Backoff) -> i64 {
    let limit = backoff.max_elapsed_time;
    let mut elapsed = 0.0_f64;
    // Waits made so far; the next is wait `waits`.
    let mut waits = 0.0_f64;
    for _ in 0..STEPS {
        if language.stops(elapsed, limit) {
            return count(waits + 1.0);
        }
        if let Some(run) = steady_run(language, backoff, waits) {
            let left = waits_before_stop(language, run.wait, limit - elapsed);
            match run.end {
                Some(end) if waits + left > end => {
                    if run.ends_loop {
                        return count(end + 1.0);
                    }
                    elapsed += (end - waits) * run.wait;
                    waits = end;
                    continue;
                }
                _ => return count(waits + left + 1.0),
            }
        }
        if let Some(total) = shrinking(language, backoff, waits) {
            return count(waits + total.waits_within(limit - elapsed) + 1.0);
        }
        let Some(wait) = shortest_wait(language, backoff, waits) else {
            return count(waits + 1.0);
        };
        elapsed += wait;
        waits += 1.0;
    }
    // Waits still growing slowly (a tiny exponent, or one just over 1 in Python): each
    // wait to come is at least the next one, which bounds the rest from above.
    if language.stops(elapsed, limit) {
        return count(waits + 1.0);
    }
    if language == Language::Python && backoff.exponent < 1.0 {
        // Shrinking waits have no least one: nothing smaller bounds them.
        return UNBOUNDED_ATTEMPTS;
    }
    let Some(mut least) = shortest_wait(language, backoff, waits) else {
        return count(waits + 1.0);
    };
    if language == Language::TypeScript && backoff.max_interval > JS_TIMER_MAX_MS {
        least = 0.0;
    }
    let left = waits_before_stop(language, least, limit - elapsed);
    match language {
        Language::Python => match overflow_index(language, backoff) {
            Some(end) => count(waits + left.min(end - waits) + 1.0),
            None => count(waits + left + 1.0),
        },
        // Go's waits are nothing once the interval overflows.
        Language::Go => match go_overflow(backoff) {
            Some(end) if waits + left > end => UNBOUNDED_ATTEMPTS,
            _ => count(waits + left + 1.0),
        },
        Language::TypeScript => count(waits + left + 1.0),
    }
}

/// `attempts` as an integer, [`UNBOUNDED_ATTEMPTS`] past what one holds.
fn count(attempts: f64) -> i64 {
    if attempts.is_finite() && attempts < UNBOUNDED_ATTEMPTS as f64 {
        attempts as i64
    } else {
        UNBOUNDED_ATTEMPTS
    }
}

/// How many waits of `wait` each start before the loop stops, `left` before
/// `maxElapsedTime` (infinite for waits of nothing).
fn waits_before_stop(language: Language, wait: f64, left: f64) -> f64 {
    if wait.is_nan() || wait <= 0.0 {
        return f64::INFINITY;
    }
    let fit = left / wait;
    match language {
        // A wait starts while elapsed ≤ maxElapsedTime.
        Language::TypeScript | Language::Python => fit.floor() + 1.0,
        // A wait starts while elapsed < maxElapsedTime.
        Language::Go => fit.ceil(),
    }
}

/// The shortest wait before retry `n` (jitter adding its least), or `None` where the
/// loop ends there instead of waiting (Python's `OverflowError`).
pub(super) fn shortest_wait(language: Language, b: &Backoff, n: f64) -> Option<f64> {
    match language {
        Language::TypeScript => {
            // `Math.min(initialInterval * Math.pow(x, exponent) + jitter, maxInterval)`;
            // 0 × Infinity is NaN, whose timer fires at once.
            let wait = (b.initial_interval * n.powf(b.exponent)).min(b.max_interval);
            Some(if wait.is_nan() || wait > JS_TIMER_MAX_MS {
                0.0
            } else {
                wait
            })
        }
        Language::Python => {
            // `exponent**retries` raises `OverflowError` past the largest double.
            let growth = b.exponent.powf(n);
            if !growth.is_finite() {
                return None;
            }
            let wait = (b.initial_interval * growth).min(b.max_interval);
            (wait <= PYTHON_SLEEP_MAX_MS).then_some(wait)
        }
        Language::Go => {
            // Jitter takes up to a quarter off; a wait of nothing becomes initialInterval.
            // An interval past the largest double takes ±Inf of jitter: −Inf makes it NaN,
            // which no comparison caps, and `time.Duration(NaN)` is no wait at all.
            let interval = b.initial_interval * (n + 1.0).powf(b.exponent);
            if interval.is_infinite() {
                return Some(0.0);
            }
            let shortest = if interval.is_nan() {
                0.0
            } else {
                interval * 0.75
            };
            let shortest = if shortest <= 0.0 {
                b.initial_interval
            } else {
                shortest
            };
            Some(shortest.min(b.max_interval))
        }
    }
}

/// Waits that stay the same from some wait on.
struct SteadyRun {
    wait: f64,
    /// The wait where the run ends, if it does.
    end: Option<f64>,
    /// Whether the loop ends there (Python's `OverflowError`), rather than waits changing.
    ends_loop: bool,
}

/// The run of equal waits starting at wait `n`, if the waits stay the same from there.
fn steady_run(language: Language, b: &Backoff, n: f64) -> Option<SteadyRun> {
    let wait = shortest_wait(language, b, n)?;
    let raw = |n: f64| match language {
        Language::TypeScript => b.initial_interval * n.powf(b.exponent),
        Language::Python => b.initial_interval * b.exponent.powf(n),
        Language::Go => b.initial_interval * (n + 1.0).powf(b.exponent) * 0.75,
    };
    let run = |end: Option<f64>, ends_loop: bool| SteadyRun {
        wait,
        end,
        ends_loop,
    };
    match language {
        Language::Python if b.exponent == 1.0 => Some(run(None, false)),
        Language::Python if b.exponent == 0.0 => (n >= 1.0).then(|| run(None, false)),
        Language::Python if b.exponent < 1.0 => {
            // Shrinking waits stay at the cap until initialInterval × exponentⁿ is below it.
            (raw(n) >= b.max_interval).then(|| run(Some(first_below_cap(b, n)), false))
        }
        Language::Python => {
            (raw(n) >= b.max_interval).then(|| run(overflow_index(language, b), true))
        }
        _ if b.exponent == 0.0 => Some(run(None, false)),
        _ if b.initial_interval <= 0.0 => Some(run(None, false)),
        Language::Go if raw(n).is_infinite() => Some(run(None, false)),
        // Go's waits stay at the cap until the interval overflows (waits of nothing).
        Language::Go => (raw(n) >= b.max_interval).then(|| run(go_overflow(b), false)),
        Language::TypeScript => (raw(n) >= b.max_interval && n >= 1.0).then(|| run(None, false)),
    }
}

/// The first wait whose Go interval `initialInterval × (n + 1)^exponent` overflows, if
/// any wait's does.
fn go_overflow(b: &Backoff) -> Option<f64> {
    let overflows = |k: f64| (b.initial_interval * (k + 1.0).powf(b.exponent)).is_infinite();
    let estimate = (f64::MAX / b.initial_interval).powf(1.0 / b.exponent) - 1.0;
    if !estimate.is_finite() || estimate >= f64::MAX / 2.0 {
        return None;
    }
    let mut k = estimate.floor().max(0.0);
    for _ in 0..4 {
        if k > 0.0 && overflows(k - 1.0) {
            k -= 1.0;
        } else if !overflows(k) {
            k += 1.0;
        }
    }
    overflows(k).then_some(k)
}

/// The first wait from `n` on whose backoff falls below the cap (Python, exponent < 1).
fn first_below_cap(b: &Backoff, n: f64) -> f64 {
    let below = |k: f64| b.initial_interval * b.exponent.powf(k) < b.max_interval;
    let estimate = ((b.max_interval / b.initial_interval).ln() / b.exponent.ln()).ceil();
    let mut k = if estimate.is_finite() {
        estimate.max(n)
    } else {
        n
    };
    for _ in 0..4 {
        if k > n && below(k - 1.0) {
            k -= 1.0;
        } else if !below(k) {
            k += 1.0;
        }
    }
    k
}

/// The wait at which Python's `exponent**retries` overflows and ends the loop.
fn overflow_index(language: Language, b: &Backoff) -> Option<f64> {
    if language != Language::Python || b.exponent <= 1.0 {
        return None;
    }
    let overflows = |k: f64| !b.exponent.powf(k).is_finite();
    let mut k = (f64::MAX.ln() / b.exponent.ln()).floor().max(0.0);
    for _ in 0..4 {
        if k > 0.0 && overflows(k - 1.0) {
            k -= 1.0;
        } else if !overflows(k) {
            k += 1.0;
        }
    }
    Some(k)
}

/// Python's shrinking waits (exponent < 1) once below the cap: a geometric series.
struct Shrinking {
    first: f64,
    ratio: f64,
}

fn shrinking(language: Language, b: &Backoff, n: f64) -> Option<Shrinking> {
    if language != Language::Python || !(b.exponent > 0.0 && b.exponent < 1.0) {
        return None;
    }
    let first = b.initial_interval * b.exponent.powf(n);
    (first < b.max_interval).then_some(Shrinking {
        first,
        ratio: b.exponent,
    })
}

impl Shrinking {
    /// The total of the first `k` waits.
    fn total(&self, k: f64) -> f64 {
        self.first * (1.0 - self.ratio.powf(k)) / (1.0 - self.ratio)
    }

    /// How many waits start while elapsed ≤ maxElapsedTime, `left` before it: without
    /// end when all of them add up to no more than that.
    fn waits_within(&self, left: f64) -> f64 {
        if self.first <= 0.0 || self.first / (1.0 - self.ratio) <= left {
            return f64::INFINITY;
        }
        // Wait k starts when total(k) ≤ left: k ≤ ln(1 − left(1 − r)/first) / ln r.
        let estimate = ((1.0 - left * (1.0 - self.ratio) / self.first).ln() / self.ratio.ln())
            .floor()
            .max(0.0);
        let mut k = if estimate.is_finite() { estimate } else { 0.0 };
        for _ in 0..4 {
            if k > 0.0 && self.total(k) > left {
                k -= 1.0;
            } else if self.total(k + 1.0) <= left {
                k += 1.0;
            }
        }
        k + 1.0
    }
}
