//! The retry decision ([`plan_retry`]) and the worst-case [`schedule`] built from it.
//!
//! `plan_retry` is the one place that knows how long a client waits and when it stops;
//! the schedule rules, `retrylint plan` and the simulator all call it.

pub mod schedule;
pub mod waits;

use std::fmt;

use crate::input::model::Method;
use crate::input::policy::{Duration, Jitter, RetryAfterFallback, SideEffect, Signal};

/// Why a client stops retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StopReason {
    /// A non-idempotent request may have been processed and nothing makes a repeat safe.
    UnknownResult,
    /// The status says retrying cannot help.
    NotTransient,
    /// The attempt count makes no sense (no attempt made yet).
    InvalidAttempt,
    /// Every allowed attempt was made.
    MaxAttempts,
    /// A backoff parameter, the clock or the random unit is out of range: `base`, `cap`,
    /// `now` or a previous wait negative or not finite, `multiplier` below 1 or not
    /// finite, `cap` below `base`, a deadline that is negative or NaN, or a random unit
    /// outside [0, 1].
    InvalidDelay,
    /// The server's Retry-After is longer than `retryAfter.max`; or, on a 429/503, it is
    /// missing and `retryAfter.onMissing` is `stop`, or unreadable (negative, not finite)
    /// and `retryAfter.onInvalid` is `stop`.
    InvalidRetryAfter,
    /// The wait would end at or past the deadline.
    DeadlineExhausted,
}

impl StopReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::UnknownResult => "unknown-result",
            StopReason::NotTransient => "not-transient",
            StopReason::InvalidAttempt => "invalid-attempt",
            StopReason::MaxAttempts => "max-attempts",
            StopReason::InvalidDelay => "invalid-delay",
            StopReason::InvalidRetryAfter => "invalid-retry-after",
            StopReason::DeadlineExhausted => "deadline-exhausted",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the client does next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// Wait `delay`, then send again; `backoff` is the un-jittered exponential value.
    Retry {
        delay: Duration,
        backoff: Duration,
    },
    Stop(StopReason),
}

/// Backoff settings, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    pub base_ms: f64,
    pub cap_ms: f64,
    /// Growth per attempt; 2 when the policy does not say.
    pub multiplier: f64,
    pub jitter: Jitter,
    /// Total attempts allowed, the first included.
    pub max_attempts: u32,
}

/// What makes repeating a non-idempotent request safe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Protections {
    /// The client sends an idempotency key and reuses it on every retry.
    pub idempotency_key: bool,
    /// The client can ask a status endpoint what became of the first attempt.
    pub status_endpoint: bool,
}

/// Everything [`plan_retry`] decides from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryInput {
    pub side_effect: SideEffect,
    /// What the last attempt ended with.
    pub signal: Signal,
    /// Attempts already made (at least 1 when deciding about a retry).
    pub attempts_made: u32,
    /// Time since the call started.
    pub now_ms: f64,
    /// The call's absolute deadline on the same clock (`f64::INFINITY` for none).
    pub deadline_ms: f64,
    pub backoff: Backoff,
    /// A random number in [0, 1] that picks the jittered wait.
    pub random: f64,
    /// The wait before the previous attempt (decorrelated jitter grows from it).
    pub previous_delay_ms: Option<f64>,
    /// The server's `Retry-After`, when the response carried one.
    pub retry_after_ms: Option<f64>,
    /// Whether the client waits at least what `Retry-After` asks.
    pub honor_retry_after: bool,
    /// The longest `Retry-After` the client accepts.
    pub retry_after_max_ms: Option<f64>,
    /// What a 429/503 without `Retry-After` does (`retryAfter.onMissing`).
    pub on_missing_retry_after: RetryAfterFallback,
    /// What an unreadable `Retry-After` does (`retryAfter.onInvalid`): pass a negative or
    /// non-finite `retry_after_ms` (NaN for a header that does not parse).
    pub on_invalid_retry_after: RetryAfterFallback,
    pub protections: Protections,
}

impl SideEffect {
    /// The side effect a method implies: none for a safe method, idempotent for an
    /// idempotent one, by the IANA HTTP Method Registry (see [`Method::is_safe`]). A method
    /// the registry does not list promises nothing, so it is taken as non-idempotent.
    pub fn of_method(method: Method) -> SideEffect {
        SideEffect::of_repeat(crate::input::model::Repeat::of_method(method))
    }
}

/// Statuses worth retrying: 408, 409, 425, 429 and 5xx but 501 and 505.
pub fn is_transient_status(code: u16) -> bool {
    matches!(code, 408 | 409 | 425 | 429)
        || ((500..600).contains(&code) && !matches!(code, 501 | 505))
}

/// Decides whether to retry after an attempt, and how long to wait first.
///
/// Before the attempt with index `k` (`k` attempts made) the client waits
/// `jitter(min(cap, base × multiplier^k))`; with `Retry-After` honoured, at least what the
/// server asks. A wait that would end at or past the deadline stops the retries.
///
/// # Check order
/// When several stop reasons apply, the first of this list wins:
/// 1. `invalid-attempt`: no attempt made yet;
/// 2. `invalid-delay`: a value out of range (see [`StopReason::InvalidDelay`]), `cap < base`
///    included;
/// 3. `max-attempts`: every allowed attempt was made;
/// 4. `not-transient`: a status retrying cannot fix;
/// 5. `unknown-result`: a non-idempotent request that may have been processed, with
///    neither an idempotency key nor a status endpoint;
/// 6. `invalid-retry-after`: a `Retry-After` above `retryAfter.max`, or a missing or
///    unreadable one where `onMissing`/`onInvalid` say `stop` (only when honoured);
/// 7. `deadline-exhausted`: the wait would end at or past the deadline.
///
/// # Deliberate differences from the seed's `planRetry`
/// - `base × multiplier^k` never overflows into NaN: a zero base gives 0 whatever the
///   exponent (the seed computes `0 × ∞`), and a product that overflows is the cap.
///   The exponent is not clamped, so a multiplier just above 1 keeps growing.
/// - An unreadable `Retry-After` (negative, not finite) is ignored and the backoff used,
///   unless `on_invalid_retry_after` is `Stop`, which gives the seed's
///   `invalid-retry-after`. A 429/503 without one stops only when `on_missing_retry_after`
///   is `Stop`. Both follow the policy's `retryAfter.onInvalid`/`onMissing`, whose
///   default is `backoff`.
/// - `maxAttempts: 0` stops with `max-attempts` (the seed: `invalid-attempt`): zero
///   attempts allowed is a policy that never retries, not an attempt count out of range;
///   `invalid-attempt` is kept for `attempts_made < 1`.
/// - Waits are not floored to whole milliseconds: they are rounded to the microsecond, and
///   the deadline is checked against the wait returned (a wait that rounds up to end at
///   the deadline stops).
pub fn plan_retry(input: &RetryInput) -> Decision {
    let b = &input.backoff;
    if input.attempts_made < 1 {
        return Decision::Stop(StopReason::InvalidAttempt);
    }
    let finite_non_negative = |v: f64| v.is_finite() && v >= 0.0;
    let parameters_ok = finite_non_negative(b.base_ms)
        && finite_non_negative(b.cap_ms)
        && b.cap_ms >= b.base_ms
        && b.multiplier.is_finite()
        && b.multiplier >= 1.0
        && finite_non_negative(input.now_ms)
        && !input.deadline_ms.is_nan()
        && input.deadline_ms >= 0.0
        && (0.0..=1.0).contains(&input.random)
        && input.previous_delay_ms.is_none_or(finite_non_negative);
    if !parameters_ok {
        return Decision::Stop(StopReason::InvalidDelay);
    }
    if input.attempts_made >= b.max_attempts {
        return Decision::Stop(StopReason::MaxAttempts);
    }
    match input.signal {
        Signal::Status(code) if !is_transient_status(code) => {
            return Decision::Stop(StopReason::NotTransient);
        }
        Signal::Class(class) if class != 5 => return Decision::Stop(StopReason::NotTransient),
        _ => {}
    }
    let protected = input.protections.idempotency_key || input.protections.status_endpoint;
    if input.side_effect == SideEffect::NonIdempotent
        && !protected
        && !input.signal.is_unprocessed()
    {
        return Decision::Stop(StopReason::UnknownResult);
    }
    let backoff_ms = waits::step(
        b.base_ms,
        b.multiplier,
        b.cap_ms,
        u64::from(input.attempts_made),
    );
    let r = input.random;
    let mut delay_ms = match b.jitter {
        Jitter::None => backoff_ms,
        Jitter::Full => backoff_ms * r,
        Jitter::Equal => backoff_ms / 2.0 + backoff_ms / 2.0 * r,
        Jitter::Decorrelated => {
            let previous = input.previous_delay_ms.unwrap_or(b.base_ms);
            let high = (previous * 3.0).max(b.base_ms);
            (b.base_ms + (high - b.base_ms) * r).min(b.cap_ms)
        }
    };
    if input.honor_retry_after {
        let throttled = matches!(input.signal, Signal::Status(429 | 503));
        match input.retry_after_ms {
            None if throttled && input.on_missing_retry_after == RetryAfterFallback::Stop => {
                return Decision::Stop(StopReason::InvalidRetryAfter);
            }
            None => {}
            Some(asked)
                if !finite_non_negative(asked)
                    && input.on_invalid_retry_after == RetryAfterFallback::Stop =>
            {
                return Decision::Stop(StopReason::InvalidRetryAfter);
            }
            // Unreadable, `backoff`: as if the server had asked nothing.
            Some(asked) if !finite_non_negative(asked) => {}
            Some(asked) => {
                if input.retry_after_max_ms.is_some_and(|max| asked > max) {
                    return Decision::Stop(StopReason::InvalidRetryAfter);
                }
                delay_ms = delay_ms.max(asked);
            }
        }
    }
    // Decided on the wait returned, rounded to the microsecond: a wait that rounds up to
    // the deadline ends there, and stops.
    let delay = millis(delay_ms);
    if input.now_ms + ms(delay) >= input.deadline_ms {
        return Decision::Stop(StopReason::DeadlineExhausted);
    }
    Decision::Retry {
        delay,
        backoff: millis(backoff_ms),
    }
}

/// A duration from milliseconds, rounded to the microsecond and saturating.
pub fn millis(ms: f64) -> Duration {
    Duration::from_micros(
        (ms * 1_000.0)
            .round()
            .clamp(i64::MIN as f64, i64::MAX as f64) as i64,
    )
}

/// Milliseconds of a duration.
pub fn ms(d: Duration) -> f64 {
    d.as_micros() as f64 / 1_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's worked example: POST, 503, 2 attempts made, now 1000 ms, deadline
    /// 3000 ms, random 0.5, idempotency key, base 100 ms, cap 2 s, 3 attempts.
    fn seed() -> RetryInput {
        RetryInput {
            side_effect: SideEffect::of_method(Method::Post),
            signal: Signal::Status(503),
            attempts_made: 2,
            now_ms: 1_000.0,
            deadline_ms: 3_000.0,
            backoff: Backoff {
                base_ms: 100.0,
                cap_ms: 2_000.0,
                multiplier: 2.0,
                jitter: Jitter::Full,
                max_attempts: 3,
            },
            random: 0.5,
            previous_delay_ms: None,
            retry_after_ms: None,
            honor_retry_after: true,
            retry_after_max_ms: None,
            on_missing_retry_after: RetryAfterFallback::Backoff,
            on_invalid_retry_after: RetryAfterFallback::Backoff,
            protections: Protections {
                idempotency_key: true,
                status_endpoint: false,
            },
        }
    }

    #[test]
    fn the_seed_example_waits_200ms_of_a_400ms_backoff() {
        assert_eq!(
            plan_retry(&seed()),
            Decision::Retry {
                delay: Duration::from_millis(200),
                backoff: Duration::from_millis(400)
            }
        );
    }

    #[test]
    fn the_deadline_is_checked_against_the_wait_returned() {
        // A full-jitter wait of 2037 ms × 0.8627883268054575 = 1757.49982 ms rounds to
        // 1757.5 ms, which ends exactly at the deadline: it stops.
        let mut input = seed();
        input.attempts_made = 6;
        input.backoff = Backoff {
            base_ms: 37.0,
            cap_ms: 2_037.0,
            multiplier: 2.0,
            jitter: Jitter::Full,
            max_attempts: 7,
        };
        input.random = 0.862_788_326_805_457_5;
        input.now_ms = 2_732.532;
        input.deadline_ms = 4_490.032;
        assert_eq!(
            plan_retry(&input),
            Decision::Stop(StopReason::DeadlineExhausted)
        );
        // A microsecond more of deadline, and the same wait is returned.
        input.deadline_ms = 4_490.033;
        assert_eq!(
            plan_retry(&input),
            Decision::Retry {
                delay: Duration::from_micros(1_757_500),
                backoff: Duration::from_millis(2_037),
            }
        );
        // Over many inputs, no returned wait ends at or past the deadline.
        for step in 0..20_000u32 {
            let mut input = seed();
            input.random = f64::from(step) / 20_000.0;
            input.now_ms = 1_000.0 + f64::from(step % 997) * 0.001;
            input.deadline_ms = input.now_ms + 200.0 + f64::from(step % 13) * 0.0005;
            input.backoff.cap_ms = 400.0 + f64::from(step % 7) * 0.000_4;
            if let Decision::Retry { delay, .. } = plan_retry(&input) {
                assert!(input.now_ms + ms(delay) < input.deadline_ms, "{input:?}");
            }
        }
    }

    #[test]
    fn every_stop_reason_has_its_case() {
        let stop = |f: &dyn Fn(&mut RetryInput)| {
            let mut input = seed();
            f(&mut input);
            plan_retry(&input)
        };
        use StopReason::*;
        assert_eq!(
            stop(&|i| i.attempts_made = 0),
            Decision::Stop(InvalidAttempt)
        );
        assert_eq!(stop(&|i| i.attempts_made = 3), Decision::Stop(MaxAttempts));
        assert_eq!(
            stop(&|i| i.backoff.base_ms = -1.0),
            Decision::Stop(InvalidDelay)
        );
        assert_eq!(
            stop(&|i| i.backoff.cap_ms = f64::NAN),
            Decision::Stop(InvalidDelay)
        );
        assert_eq!(
            stop(&|i| i.now_ms = f64::INFINITY),
            Decision::Stop(InvalidDelay)
        );
        assert_eq!(stop(&|i| i.random = 1.5), Decision::Stop(InvalidDelay));
        assert_eq!(
            stop(&|i| i.retry_after_ms = Some(5_000.0)),
            Decision::Stop(DeadlineExhausted)
        );
        assert_eq!(
            stop(&|i| {
                i.retry_after_ms = Some(-1.0);
                i.on_invalid_retry_after = RetryAfterFallback::Stop;
            }),
            Decision::Stop(InvalidRetryAfter)
        );
        assert_eq!(
            stop(&|i| i.on_missing_retry_after = RetryAfterFallback::Stop),
            Decision::Stop(InvalidRetryAfter)
        );
        assert_eq!(
            stop(&|i| {
                i.backoff.base_ms = 300.0;
                i.backoff.cap_ms = 200.0;
            }),
            Decision::Stop(InvalidDelay)
        );
        assert_eq!(
            stop(&|i| {
                i.retry_after_ms = Some(1_500.0);
                i.retry_after_max_ms = Some(1_000.0);
            }),
            Decision::Stop(InvalidRetryAfter)
        );
        assert_eq!(
            stop(&|i| i.protections = Protections::default()),
            Decision::Stop(UnknownResult)
        );
        assert_eq!(
            stop(&|i| i.signal = Signal::Status(400)),
            Decision::Stop(NotTransient)
        );
        assert_eq!(
            stop(&|i| i.signal = Signal::Status(501)),
            Decision::Stop(NotTransient)
        );
        assert_eq!(
            stop(&|i| i.now_ms = 2_900.0),
            Decision::Stop(DeadlineExhausted)
        );
    }

    #[test]
    fn unprocessed_signals_are_safe_for_any_write() {
        let mut input = seed();
        input.protections = Protections::default();
        input.signal = Signal::ConnectFailure;
        assert!(matches!(plan_retry(&input), Decision::Retry { .. }));
        input.signal = Signal::Timeout;
        assert_eq!(
            plan_retry(&input),
            Decision::Stop(StopReason::UnknownResult)
        );
    }

    #[test]
    fn jitter_modes_and_retry_after() {
        let with = |jitter, random| {
            let mut input = seed();
            input.backoff.jitter = jitter;
            input.random = random;
            plan_retry(&input)
        };
        let delay = |d: Decision| match d {
            Decision::Retry { delay, .. } => delay,
            Decision::Stop(r) => panic!("stopped: {r}"),
        };
        assert_eq!(delay(with(Jitter::None, 0.0)), Duration::from_millis(400));
        assert_eq!(delay(with(Jitter::Equal, 0.0)), Duration::from_millis(200));
        assert_eq!(delay(with(Jitter::Equal, 1.0)), Duration::from_millis(400));
        assert_eq!(delay(with(Jitter::Full, 0.0)), Duration::ZERO);
        // Decorrelated: uniform in [base, previous × 3], capped.
        assert_eq!(
            delay(with(Jitter::Decorrelated, 1.0)),
            Duration::from_millis(300)
        );
        let mut input = seed();
        input.retry_after_ms = Some(1_000.0);
        assert_eq!(delay(plan_retry(&input)), Duration::from_millis(1_000));
        input.honor_retry_after = false;
        assert_eq!(delay(plan_retry(&input)), Duration::from_millis(200));
    }

    #[test]
    fn huge_values_saturate_instead_of_overflowing() {
        let mut input = seed();
        input.attempts_made = u32::MAX - 1;
        input.backoff.max_attempts = u32::MAX;
        input.backoff.multiplier = 1e308;
        input.deadline_ms = f64::INFINITY;
        match plan_retry(&input) {
            Decision::Retry { backoff, .. } => assert_eq!(backoff, Duration::from_millis(2_000)),
            other @ Decision::Stop(_) => panic!("{other:?}"),
        }
    }

    fn delay_of(d: Decision) -> Duration {
        match d {
            Decision::Retry { delay, .. } => delay,
            Decision::Stop(r) => panic!("stopped: {r}"),
        }
    }

    #[test]
    fn a_zero_base_waits_nothing_however_large_the_exponent() {
        let mut input = seed();
        input.backoff.base_ms = 0.0;
        input.backoff.jitter = Jitter::None;
        input.backoff.multiplier = 1e308;
        input.deadline_ms = f64::INFINITY;
        input.backoff.max_attempts = u32::MAX;
        for made in [1, 2, 1_000, 5_000, u32::MAX - 1] {
            input.attempts_made = made;
            assert_eq!(
                plan_retry(&input),
                Decision::Retry {
                    delay: Duration::ZERO,
                    backoff: Duration::ZERO
                },
                "{made}"
            );
        }
    }

    #[test]
    fn a_multiplier_just_above_one_keeps_growing_past_1024_attempts() {
        let mut input = seed();
        input.backoff.jitter = Jitter::None;
        input.backoff.multiplier = 1.001;
        input.backoff.cap_ms = 1e9;
        input.backoff.max_attempts = u32::MAX;
        input.deadline_ms = f64::INFINITY;
        input.attempts_made = 1_024;
        let at_1024 = delay_of(plan_retry(&input));
        input.attempts_made = 3_000;
        assert!(delay_of(plan_retry(&input)) > at_1024);
    }

    #[test]
    fn check_order_first_reason_wins() {
        use StopReason::*;
        let mut input = seed();
        // invalid-attempt before invalid-delay.
        input.attempts_made = 0;
        input.backoff.cap_ms = 1.0;
        assert_eq!(plan_retry(&input), Decision::Stop(InvalidAttempt));
        // invalid-delay (cap < base) before max-attempts.
        input.attempts_made = 3;
        assert_eq!(plan_retry(&input), Decision::Stop(InvalidDelay));
        // max-attempts before not-transient.
        input.backoff.cap_ms = 2_000.0;
        input.signal = Signal::Status(400);
        assert_eq!(plan_retry(&input), Decision::Stop(MaxAttempts));
        // not-transient before unknown-result.
        input.attempts_made = 1;
        input.protections = Protections::default();
        assert_eq!(plan_retry(&input), Decision::Stop(NotTransient));
        // unknown-result before invalid-retry-after.
        input.signal = Signal::Status(503);
        input.retry_after_ms = Some(9_000.0);
        input.retry_after_max_ms = Some(1_000.0);
        assert_eq!(plan_retry(&input), Decision::Stop(UnknownResult));
        // invalid-retry-after before deadline-exhausted.
        input.protections.idempotency_key = true;
        input.now_ms = 2_999.0;
        assert_eq!(plan_retry(&input), Decision::Stop(InvalidRetryAfter));
        input.retry_after_ms = None;
        assert_eq!(plan_retry(&input), Decision::Stop(DeadlineExhausted));
    }

    #[test]
    fn missing_and_unreadable_retry_after_follow_the_fallbacks() {
        let mut input = seed();
        // Unreadable, `backoff` (the default): the backoff wait.
        input.retry_after_ms = Some(f64::NAN);
        assert_eq!(delay_of(plan_retry(&input)), Duration::from_millis(200));
        input.on_invalid_retry_after = RetryAfterFallback::Stop;
        assert_eq!(
            plan_retry(&input),
            Decision::Stop(StopReason::InvalidRetryAfter)
        );
        // Missing on a 503, `stop`: gives up; on a timeout there is no header to miss.
        input.retry_after_ms = None;
        input.on_missing_retry_after = RetryAfterFallback::Stop;
        assert_eq!(
            plan_retry(&input),
            Decision::Stop(StopReason::InvalidRetryAfter)
        );
        input.signal = Signal::ConnectFailure;
        assert_eq!(delay_of(plan_retry(&input)), Duration::from_millis(200));
        // Not honoured: neither fallback applies.
        input.signal = Signal::Status(503);
        input.honor_retry_after = false;
        assert_eq!(delay_of(plan_retry(&input)), Duration::from_millis(200));
    }
}
