//! The worst-case schedule of a policy: every attempt runs to its per-attempt timeout and
//! every wait is the longest its jitter — or the server's `Retry-After`, where the client
//! honours it — allows.
//!
//! The first [`LISTED`] attempts are computed step by step with [`plan_retry`]; how many
//! attempts start in all, when the last one ends and what every attempt would need are
//! computed in closed form ([`waits::Longest`]), so a policy of two thousand or two
//! billion attempts is summarised truthfully.

use super::waits::Longest;
use super::{Backoff, Decision, Protections, RetryInput, StopReason, millis, ms, plan_retry};
use crate::input::policy::{Duration, Effective, Jitter, RetryAfterFallback, SideEffect, Signal};

/// Attempts listed one by one; the rest are summarised.
pub const LISTED: u32 = 1_000;

/// One attempt of the schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The shortest and longest wait before this attempt (zero for the first).
    pub wait_min: Duration,
    pub wait_max: Duration,
    /// The longest wait the backoff alone gives (below `wait_max` when a `Retry-After`
    /// can ask for more).
    pub backoff_max: Duration,
    /// When the attempt starts and ends at the latest.
    pub start: Duration,
    pub end: Duration,
    /// What is left of the deadline when the attempt ends.
    pub deadline_left: Option<Duration>,
}

/// How long a `Retry-After` can make a wait, in the worst case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfterBound {
    /// Not honoured, or the operation is not retried on 429 or 503.
    None,
    /// Honoured up to `retryAfter.max`: included in the worst case.
    UpTo(Duration),
    /// Honoured with no `retryAfter.max`: the server can stretch any wait up to the
    /// deadline; not included in the figures.
    Unbounded,
}

/// The worst case of one operation's policy.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The first attempts, at most [`LISTED`].
    pub rows: Vec<Row>,
    /// Attempts that start in the worst case (may be more than `rows`).
    pub attempts: u32,
    /// Attempts that get their whole per-attempt timeout before the deadline.
    pub full_attempts: u32,
    /// Why the last attempt is the last.
    pub stop: StopReason,
    /// When the last attempt ends at the latest.
    pub worst_case: Duration,
    /// What all `maxAttempts` would take with full timeouts and the longest waits, ignoring
    /// the deadline; `None` without a per-attempt timeout.
    pub needed: Option<Duration>,
    /// The longest waits before every retry of `maxAttempts`, added up.
    pub waits_needed: Duration,
    /// Attempts that could start before the deadline even if every attempt failed at once
    /// (the waits alone decide).
    pub reachable_by_waits: u32,
    pub deadline: Option<Duration>,
    pub max_attempts: u32,
    pub retry_after: RetryAfterBound,
}

impl Schedule {
    /// The attempts the deadline cuts off: allowed, but never started.
    pub fn unreachable_attempts(&self) -> u32 {
        self.max_attempts.saturating_sub(self.attempts)
    }

    /// Whether the listed rows are only the first of the attempts that start.
    pub fn is_cut(&self) -> bool {
        (self.rows.len() as u32) < self.attempts
    }
}

/// A figure of the schedule as text; one too long for a duration to hold (the waits of a
/// policy without a cap, say) reads as such instead of as the largest number there is.
pub fn shown(d: Duration) -> String {
    if d.as_micros() == i64::MAX {
        "more than 290,000 years".to_string()
    } else {
        d.to_string()
    }
}

/// The backoff settings of an effective policy, with the defaults the policy format gives.
pub fn backoff_of(policy: &Effective) -> Backoff {
    let p = &policy.policy;
    Backoff {
        base_ms: p.backoff_base.as_ref().map_or(0.0, |b| ms(b.value)),
        cap_ms: p.backoff_cap.as_ref().map_or(f64::MAX, |c| ms(c.value)),
        multiplier: p.backoff_multiplier.as_ref().map_or(2.0, |m| m.value),
        jitter: p.jitter.as_ref().map_or(Jitter::None, |j| j.value),
        max_attempts: policy.max_attempts().clamp(0, i64::from(u32::MAX)) as u32,
    }
}

/// What a `Retry-After` can add to the waits of `policy`, and the status it comes with.
pub fn retry_after_bound(policy: &Effective) -> (RetryAfterBound, Signal) {
    let covers = |code| policy.retry_on().iter().any(|s| s.value.covers(code));
    let status = if covers(429) { 429 } else { 503 };
    if !policy.honors_retry_after() || !(covers(429) || covers(503)) {
        return (RetryAfterBound::None, Signal::Timeout);
    }
    let bound = match &policy.policy.retry_after_max {
        Some(max) => RetryAfterBound::UpTo(max.value),
        None => RetryAfterBound::Unbounded,
    };
    (bound, Signal::Status(status))
}

/// Computes the worst-case schedule; `None` when an attempt has no bound at all (neither
/// a per-attempt timeout nor a deadline) or a value is out of range.
pub fn worst_case(policy: &Effective) -> Option<Schedule> {
    let p = &policy.policy;
    let backoff = backoff_of(policy);
    if backoff.max_attempts < 1 {
        return None;
    }
    let per_attempt = p.per_attempt_timeout.as_ref().map(|t| ms(t.value));
    let deadline = p.deadline.as_ref().map(|d| ms(d.value));
    if per_attempt.is_none() && deadline.is_none() {
        return None;
    }
    if per_attempt.is_some_and(|t| t <= 0.0) || deadline.is_some_and(|d| d <= 0.0) {
        return None;
    }
    let (retry_after, throttled) = retry_after_bound(policy);
    let ceiling = match retry_after {
        RetryAfterBound::UpTo(max) => Some(ms(max).max(0.0)),
        _ => None,
    };
    let step = |attempts_made: u32, now_ms: f64, longest: bool, previous: Option<f64>| {
        plan_retry(&RetryInput {
            side_effect: SideEffect::None,
            signal: if longest && ceiling.is_some() {
                throttled
            } else {
                Signal::Timeout
            },
            attempts_made,
            now_ms,
            deadline_ms: deadline.unwrap_or(f64::INFINITY),
            backoff,
            random: if longest { 1.0 } else { 0.0 },
            previous_delay_ms: previous,
            retry_after_ms: if longest { ceiling } else { None },
            honor_retry_after: longest && ceiling.is_some(),
            retry_after_max_ms: ceiling,
            on_missing_retry_after: RetryAfterFallback::Backoff,
            on_invalid_retry_after: RetryAfterFallback::Backoff,
            protections: Protections::default(),
        })
    };
    let deadline_ms = deadline.unwrap_or(f64::INFINITY);
    let n = u64::from(backoff.max_attempts);
    let longest = longest_waits(backoff, ceiling.unwrap_or(0.0));
    // Closed form: how many attempts start, and when the last one ends.
    let started = match (per_attempt, deadline) {
        (Some(t), Some(_)) => longest.attempts_before(n, t, deadline_ms),
        // No deadline: every attempt runs, however long the waits grow.
        (Some(_), None) => n,
        (None, _) => 1,
    };
    let mut rows = Vec::new();
    let mut now = 0.0f64;
    let (mut wait_min, mut wait_max, mut backoff_max) = (0.0, 0.0, 0.0);
    let mut previous: Option<f64> = None;
    let listed = started.min(u64::from(LISTED)) as u32;
    let early_stop = loop {
        let attempt = rows.len() as u32 + 1;
        let left = deadline_ms - now;
        let duration = per_attempt.map_or(left, |t| t.min(left));
        let end = now + duration;
        rows.push(Row {
            attempt,
            wait_min: millis(wait_min),
            wait_max: millis(wait_max),
            backoff_max: millis(backoff_max),
            start: millis(now),
            end: millis(end),
            deadline_left: deadline.map(|d| millis(d - end)),
        });
        if attempt >= listed {
            break None;
        }
        let shortest = step(attempt, end, false, previous);
        match step(attempt, end, true, previous) {
            Decision::Retry { delay, .. } => {
                wait_max = ms(delay);
                backoff_max = longest_backoff(backoff, attempt, previous);
                wait_min = match shortest {
                    Decision::Retry { delay, .. } => ms(delay),
                    Decision::Stop(_) => wait_max,
                };
                previous = Some(wait_max);
                now = end + wait_max;
            }
            Decision::Stop(reason) => break Some(reason),
        }
    };
    let waits_needed = longest.sum(n - 1);
    let reachable_by_waits = match deadline {
        Some(_) => longest.attempts_before(n, 0.0, deadline_ms),
        None => n,
    };
    // `plan_retry` stopped before the closed form did: a value out of range.
    let (attempts, stop, worst_case) = if let Some(reason) = early_stop {
        let last = rows.last().map_or(Duration::ZERO, |r| r.end);
        (rows.len() as u32, reason, last)
    } else {
        let start =
            per_attempt.map_or(0.0, |t| (started - 1) as f64 * t) + longest.sum(started - 1);
        let end = per_attempt.map_or(deadline_ms, |t| (start + t).min(deadline_ms));
        let end = if started <= u64::from(LISTED) {
            rows.last().map_or(millis(end), |r| r.end)
        } else {
            millis(end)
        };
        let stop = if started < n {
            StopReason::DeadlineExhausted
        } else {
            StopReason::MaxAttempts
        };
        (started as u32, stop, end)
    };
    let full_attempts = match per_attempt {
        Some(t) => {
            let last_start = (u64::from(attempts).max(1) - 1) as f64 * t
                + longest.sum(u64::from(attempts).max(1) - 1);
            if last_start + t <= deadline_ms {
                attempts
            } else {
                attempts.saturating_sub(1)
            }
        }
        None => 0,
    };
    Some(Schedule {
        needed: per_attempt.map(|t| millis(n as f64 * t + waits_needed)),
        waits_needed: millis(waits_needed),
        reachable_by_waits: reachable_by_waits as u32,
        rows,
        attempts,
        full_attempts,
        stop,
        worst_case,
        deadline: deadline.map(millis),
        max_attempts: backoff.max_attempts,
        retry_after,
    })
}

/// The longest waits of `backoff` in closed form, with `ceiling` the longest
/// `Retry-After` honoured (0 for none).
fn longest_waits(backoff: Backoff, ceiling: f64) -> Longest {
    match backoff.jitter {
        // min(cap, max(base, previous × 3)): from `base` (or a third of a Retry-After
        // that lengthened the previous wait) it triples up to the cap.
        Jitter::Decorrelated => Longest {
            base: backoff.base_ms.max(ceiling / 3.0),
            growth: 3.0,
            cap: backoff.cap_ms,
            ceiling,
        },
        _ => Longest {
            base: backoff.base_ms,
            growth: backoff.multiplier,
            cap: backoff.cap_ms,
            ceiling,
        },
    }
}

/// The longest wait the backoff alone allows before attempt `made + 1`.
fn longest_backoff(backoff: Backoff, made: u32, previous: Option<f64>) -> f64 {
    match backoff.jitter {
        Jitter::Decorrelated => {
            let previous = previous.unwrap_or(backoff.base_ms);
            (previous * 3.0).max(backoff.base_ms).min(backoff.cap_ms)
        }
        _ => super::waits::step(
            backoff.base_ms,
            backoff.multiplier,
            backoff.cap_ms,
            u64::from(made),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::policy::{Effect, EffectSource, PolicyObject, Spanned};
    use crate::location::Loc;

    #[allow(
        clippy::unnecessary_wraps,
        reason = "it writes a policy's optional fields, which are all `Option`s"
    )]
    fn at<T>(value: T) -> Option<crate::input::policy::Field<T>> {
        crate::input::policy::field(
            value,
            Loc::new(0, "", crate::input::source::Span::default()),
        )
    }

    fn policy(attempts: i64, deadline_ms: Option<i64>, per_ms: i64, jitter: Jitter) -> Effective {
        Effective {
            policy: PolicyObject {
                max_attempts: at(attempts),
                deadline: deadline_ms.and_then(|d| at(Duration::from_millis(d))),
                per_attempt_timeout: at(Duration::from_millis(per_ms)),
                backoff_base: at(Duration::from_millis(100)),
                backoff_cap: at(Duration::from_millis(2_000)),
                jitter: at(jitter),
                ..PolicyObject::default()
            },
            effect: Effect {
                side_effect: SideEffect::None,
                source: EffectSource::Description,
            },
            description: None,
        }
    }

    #[test]
    fn attempts_and_longest_waits_add_up() {
        let s = worst_case(&policy(3, Some(10_000), 2_000, Jitter::Full)).unwrap();
        let ends: Vec<String> = s.rows.iter().map(|r| r.end.to_string()).collect();
        assert_eq!(ends, ["2s", "4.2s", "6.6s"]);
        assert_eq!(s.rows[2].wait_min, Duration::ZERO);
        assert_eq!(s.rows[2].wait_max, Duration::from_millis(400));
        assert_eq!(s.rows[2].deadline_left, Some(Duration::from_millis(3_400)));
        assert_eq!(s.stop, StopReason::MaxAttempts);
        assert_eq!(s.needed, Some(Duration::from_millis(6_600)));
    }

    #[test]
    fn the_deadline_cuts_later_attempts() {
        let s = worst_case(&policy(5, Some(7_000), 2_000, Jitter::None)).unwrap();
        assert_eq!(s.rows.len(), 3);
        assert_eq!(s.stop, StopReason::DeadlineExhausted);
        assert_eq!(s.unreachable_attempts(), 2);
        // 5 × 2s + 200 + 400 + 800 + 1600 ms.
        assert_eq!(s.needed, Some(Duration::from_millis(13_000)));
        // Equal jitter waits at least half the step.
        let s = worst_case(&policy(2, None, 1_000, Jitter::Equal)).unwrap();
        assert_eq!(s.rows[1].wait_min, Duration::from_millis(100));
        assert_eq!(s.rows[1].wait_max, Duration::from_millis(200));
    }

    #[test]
    fn huge_attempt_counts_stay_bounded() {
        let s = worst_case(&policy(i64::MAX, Some(3_600_000), 1, Jitter::Full)).unwrap();
        assert!(s.rows.len() <= 1_000);
        // 200 + 400 + 800 + 1600 ms, then 2 s waits: attempt 1,802 starts at
        // 1801 + 3000 + 1797 × 2000 ms = 3,598,801 ms, the next one would start past the hour.
        assert_eq!(s.attempts, 1_802);
        assert!(s.is_cut());
        assert_eq!(s.stop, StopReason::DeadlineExhausted);
        assert!(worst_case(&policy(0, Some(1_000), 1_000, Jitter::Full)).is_none());
    }

    /// Every attempt, step by step with `plan_retry` and no closed form: (attempts, end).
    fn step_by_step(policy: &Effective) -> (u32, f64) {
        let backoff = backoff_of(policy);
        let p = &policy.policy;
        let t = p.per_attempt_timeout.as_ref().map(|t| ms(t.value)).unwrap();
        let d = p.deadline.as_ref().map_or(f64::INFINITY, |d| ms(d.value));
        let ceiling = p.retry_after_max.as_ref().map(|m| ms(m.value));
        let (mut now, mut previous, mut made) = (0.0, None, 0u32);
        loop {
            made += 1;
            let end = (now + t).min(d);
            let decision = plan_retry(&RetryInput {
                side_effect: SideEffect::None,
                signal: Signal::Status(503),
                attempts_made: made,
                now_ms: end,
                deadline_ms: d,
                backoff,
                random: 1.0,
                previous_delay_ms: previous,
                retry_after_ms: ceiling,
                honor_retry_after: ceiling.is_some(),
                retry_after_max_ms: ceiling,
                on_missing_retry_after: RetryAfterFallback::Backoff,
                on_invalid_retry_after: RetryAfterFallback::Backoff,
                protections: Protections::default(),
            });
            match decision {
                Decision::Retry { delay, .. } => {
                    previous = Some(ms(delay));
                    now = end + ms(delay);
                }
                Decision::Stop(_) => return (made, end),
            }
        }
    }

    #[test]
    fn the_closed_form_agrees_with_plan_retry_step_by_step() {
        let jitters = [
            Jitter::None,
            Jitter::Full,
            Jitter::Equal,
            Jitter::Decorrelated,
        ];
        for jitter in jitters {
            for attempts in [2, 3, 7, 40] {
                for deadline in [Some(3_000), Some(10_000), Some(60_000), None] {
                    for per in [1, 500, 2_000] {
                        for ceiling in [None, Some(50), Some(1_500), Some(5_000)] {
                            let mut p = policy(attempts, deadline, per, jitter);
                            p.policy.backoff_multiplier = at(1.5);
                            if let Some(c) = ceiling {
                                p.policy.retry_after_honor = at(true);
                                p.policy.retry_after_max = at(Duration::from_millis(c));
                                p.policy.retry_on = at(vec![Spanned::new(
                                    Signal::Status(503),
                                    Loc::new(0, "", crate::input::source::Span::default()),
                                )]);
                            }
                            let s = worst_case(&p).unwrap();
                            let (made, end) = step_by_step(&p);
                            let case =
                                format!("{jitter:?} {attempts} {deadline:?} {per} {ceiling:?}");
                            assert_eq!(s.attempts, made, "{case}");
                            assert_eq!(s.rows.len() as u32, made, "{case}");
                            assert_eq!(s.worst_case, millis(end), "{case}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn past_the_listed_attempts_the_closed_form_still_agrees() {
        for jitter in [Jitter::Full, Jitter::Decorrelated] {
            for (attempts, deadline, per) in [
                (3_000, Some(3_600_000), 1),
                (3_000, Some(3_600_000), 500),
                (2_500, None, 7),
            ] {
                let mut p = policy(attempts, deadline, per, jitter);
                p.policy.backoff_multiplier = at(1.001);
                let s = worst_case(&p).unwrap();
                let (made, end) = step_by_step(&p);
                assert_eq!(s.attempts, made, "{jitter:?} {attempts} {per}");
                assert_eq!(s.rows.len() as u32, made.min(LISTED));
                // `plan_retry` rounds each wait to the microsecond: at most half a
                // microsecond apart per wait.
                let diff = (s.worst_case.as_micros() - millis(end).as_micros()).abs();
                assert!(
                    diff <= i64::from(made) / 2 + 1,
                    "{jitter:?} {attempts} {per}: {} vs {end}",
                    s.worst_case
                );
            }
        }
    }
}
