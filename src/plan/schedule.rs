//! The worst-case schedule of a policy: every attempt runs to its per-attempt timeout and
//! every wait is the longest its jitter allows, computed step by step with [`plan_retry`].

use super::{Backoff, Decision, Protections, RetryInput, StopReason, millis, ms, plan_retry};
use crate::policy::{Duration, Effective, Jitter, SideEffect, Signal};

/// One attempt of the schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The shortest and longest wait before this attempt (zero for the first).
    pub wait_min: Duration,
    pub wait_max: Duration,
    /// When the attempt starts and ends at the latest.
    pub start: Duration,
    pub end: Duration,
    /// What is left of the deadline when the attempt ends.
    pub deadline_left: Option<Duration>,
}

/// The worst case of one operation's policy.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub rows: Vec<Row>,
    /// Why the last row is the last attempt.
    pub stop: StopReason,
    /// When the last attempt ends at the latest.
    pub worst_case: Duration,
    /// What all `maxAttempts` would take with full timeouts and the longest waits, ignoring
    /// the deadline; `None` without a per-attempt timeout.
    pub needed: Option<Duration>,
    pub deadline: Option<Duration>,
    pub max_attempts: u32,
}

impl Schedule {
    /// The attempts the deadline cuts off: needed, but never started in full.
    pub fn unreachable_attempts(&self) -> u32 {
        self.max_attempts.saturating_sub(self.rows.len() as u32)
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
    let step =
        |attempts_made: u32, now_ms: f64, random: f64, previous: Option<f64>, deadline_ms: f64| {
            plan_retry(&RetryInput {
                side_effect: SideEffect::None,
                signal: Signal::Timeout,
                attempts_made,
                now_ms,
                deadline_ms,
                backoff,
                random,
                previous_delay_ms: previous,
                retry_after_ms: None,
                honor_retry_after: false,
                retry_after_max_ms: None,
                protections: Protections::default(),
            })
        };
    let deadline_ms = deadline.unwrap_or(f64::INFINITY);
    let mut rows = Vec::new();
    let mut now = 0.0f64;
    let (mut wait_min, mut wait_max) = (0.0, 0.0);
    let mut previous: Option<f64> = None;
    // Attempts beyond this are not listed: the schedule would be no clearer, only longer.
    let listed = backoff.max_attempts.min(1_000);
    let stop = loop {
        let attempt = rows.len() as u32 + 1;
        let left = deadline_ms - now;
        let duration = per_attempt.map_or(left, |t| t.min(left));
        let end = now + duration;
        rows.push(Row {
            attempt,
            wait_min: millis(wait_min),
            wait_max: millis(wait_max),
            start: millis(now),
            end: millis(end),
            deadline_left: deadline.map(|d| millis(d - end)),
        });
        if attempt >= listed {
            break StopReason::MaxAttempts;
        }
        let shortest = step(attempt, end, 0.0, previous, deadline_ms);
        match step(attempt, end, 1.0, previous, deadline_ms) {
            Decision::Retry { delay, .. } => {
                wait_max = ms(delay);
                wait_min = match shortest {
                    Decision::Retry { delay, .. } => ms(delay),
                    Decision::Stop(_) => wait_max,
                };
                previous = Some(wait_max);
                now = end + wait_max;
            }
            Decision::Stop(reason) => break reason,
        }
    };
    let worst_case = rows.last().map_or(Duration::ZERO, |r| r.end);
    Some(Schedule {
        needed: per_attempt.map(|t| millis(needed_ms(backoff, t, &step))),
        rows,
        stop,
        worst_case,
        deadline: deadline.map(millis),
        max_attempts: backoff.max_attempts,
    })
}

/// All attempts with full timeouts and the longest waits, with no deadline.
fn needed_ms(
    backoff: Backoff,
    per_attempt: f64,
    step: &dyn Fn(u32, f64, f64, Option<f64>, f64) -> Decision,
) -> f64 {
    let attempts = backoff.max_attempts.min(1_000);
    let mut total = per_attempt;
    let mut previous = None;
    for made in 1..attempts {
        if let Decision::Retry { delay, .. } = step(made, total, 1.0, previous, f64::INFINITY) {
            total += ms(delay);
            previous = Some(ms(delay));
        }
        total += per_attempt;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::location::Loc;
    use crate::policy::{Effect, EffectSource, PolicyObject, Spanned};

    fn at<T>(value: T) -> Option<Spanned<T>> {
        Some(Spanned::new(
            value,
            Loc::new(0, "", crate::source::Span::default()),
        ))
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
                source: EffectSource::Method,
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
        assert!(worst_case(&policy(0, Some(1_000), 1_000, Jitter::Full)).is_none());
    }
}
