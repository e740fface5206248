//! The backoff step and the longest waits of a schedule in closed form.
//!
//! The wait before the attempt with index `k` grows geometrically until it reaches the
//! cap and stays there, so the sum of the first `n` waits is a geometric series plus an
//! arithmetic one: computed without visiting every attempt, for any attempt count.

/// `min(cap, base × multiplier^k)`, never NaN: a zero base gives 0 whatever the exponent,
/// a product that overflows gives the cap. `base`, `cap` finite and non-negative,
/// `multiplier` finite and at least 1.
pub fn step(base: f64, multiplier: f64, cap: f64, k: u64) -> f64 {
    if base <= 0.0 {
        return 0.0_f64.min(cap);
    }
    (base * power(multiplier, k)).min(cap)
}

/// `g^k` for `g ≥ 1`: repeated squaring while the exponent fits an `i32`.
fn power(g: f64, k: u64) -> f64 {
    match i32::try_from(k) {
        Ok(k) => g.powi(k),
        Err(_) => g.powf(k as f64),
    }
}

/// The longest wait before each retry: `max(ceiling, min(cap, base × growth^k))` for
/// `k = 1, 2, …` (`ceiling` is the longest `Retry-After` honoured, 0 when none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Longest {
    pub base: f64,
    pub growth: f64,
    pub cap: f64,
    pub ceiling: f64,
}

/// Sums of this many terms or fewer are added term by term (exact for the usual policies).
const TERM_BY_TERM: u64 = 4_096;

impl Longest {
    /// The longest wait before the attempt with index `k` (`k ≥ 1` attempts made).
    pub fn at(&self, k: u64) -> f64 {
        step(self.base, self.growth, self.cap, k).max(self.ceiling)
    }

    /// The sum of the longest waits before attempts `1..=n` (the first `n` retries).
    pub fn sum(&self, n: u64) -> f64 {
        if n == 0 {
            return 0.0;
        }
        if n <= TERM_BY_TERM {
            return (1..=n).map(|k| self.at(k)).sum();
        }
        if self.base <= 0.0 || self.growth <= 1.0 || self.cap <= self.ceiling {
            // Constant from the first wait on.
            return n as f64 * self.at(1);
        }
        // k < grows: the ceiling; grows ≤ k < capped: geometric; k ≥ capped: the cap.
        let grows = self.first(|v| v > self.ceiling).min(n + 1);
        let capped = self.first(|v| v >= self.cap).min(n + 1);
        let flat_low = (grows - 1) as f64 * self.ceiling;
        let geometric = if capped > grows {
            let count = capped - grows;
            if count <= TERM_BY_TERM {
                (grows..capped).map(|k| self.at(k)).sum()
            } else {
                let g = self.growth;
                self.base * power(g, grows) * (power(g, count) - 1.0) / (g - 1.0)
            }
        } else {
            0.0
        };
        let flat_high = (n + 1 - capped) as f64 * self.cap.max(self.ceiling);
        flat_low + geometric + flat_high
    }

    /// The smallest `k ≥ 1` whose step `base × growth^k` (uncapped) satisfies `ok`, which
    /// must be monotone; `u64::MAX` when none does. Needs `base > 0` and `growth > 1`.
    fn first(&self, ok: impl Fn(f64) -> bool) -> u64 {
        let value = |k: u64| self.base * power(self.growth, k);
        if ok(value(1)) {
            return 1;
        }
        // Doubling then bisection: about 2 × 64 evaluations at most.
        let mut high = 2u64;
        while !ok(value(high)) {
            if high >= u64::MAX / 2 {
                return u64::MAX;
            }
            high *= 2;
        }
        let mut low = high / 2;
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if ok(value(mid)) {
                high = mid;
            } else {
                low = mid;
            }
        }
        high
    }

    /// The most attempts, up to `max`, that start before `deadline` when each runs
    /// `per_attempt` and waits the longest: the largest `j` with
    /// `(j − 1) × per_attempt + sum(j − 1) < deadline` (at least 1).
    pub fn attempts_before(&self, max: u64, per_attempt: f64, deadline: f64) -> u64 {
        let start = |j: u64| (j - 1) as f64 * per_attempt + self.sum(j - 1);
        if max <= 1 || start(max) < deadline {
            return max.max(1);
        }
        // start(1) = 0 < deadline (deadlines are positive); start(max) ≥ deadline.
        let (mut low, mut high) = (1u64, max);
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if start(mid) < deadline {
                low = mid;
            } else {
                high = mid;
            }
        }
        low
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(l: &Longest, n: u64) -> f64 {
        (1..=n).map(|k| l.at(k)).sum()
    }

    #[test]
    fn zero_base_is_zero_not_nan() {
        assert_eq!(step(0.0, 1e308, 2_000.0, 5_000), 0.0);
        assert_eq!(step(0.0, 2.0, 2_000.0, u64::MAX), 0.0);
        assert_eq!(step(100.0, 1e308, 2_000.0, u64::MAX), 2_000.0);
        assert_eq!(step(100.0, 2.0, f64::MAX, 100_000), f64::MAX);
    }

    #[test]
    fn the_closed_form_matches_the_sum_term_by_term() {
        for (base, growth, cap, ceiling) in [
            (100.0, 2.0, 2_000.0, 0.0),
            (100.0, 1.0001, 50_000.0, 0.0),
            (100.0, 1.001, 5_000.0, 1_000.0),
            (1.0, 1.0005, 1e6, 3.0),
            (100.0, 3.0, 2_000.0, 5_000.0),
            (0.0, 2.0, 2_000.0, 500.0),
        ] {
            let l = Longest {
                base,
                growth,
                cap,
                ceiling,
            };
            for n in [4_097, 10_000, 25_000] {
                let (fast, slow) = (l.sum(n), naive(&l, n));
                assert!(
                    (fast - slow).abs() <= slow.abs() * 1e-9 + 1e-6,
                    "{l:?} {n}: {fast} vs {slow}"
                );
            }
        }
    }

    #[test]
    fn a_billion_attempts_are_summed_at_once() {
        let l = Longest {
            base: 100.0,
            growth: 2.0,
            cap: 2_000.0,
            ceiling: 0.0,
        };
        // 200 + 400 + 800 + 1600, then 2 s each.
        let n = 1_000_000_000u64;
        assert_eq!(l.sum(n), 3_000.0 + (n - 4) as f64 * 2_000.0);
        // Starts: 0, 201, 602, 1403, 3004, 5005, 7006, 9007, then 11008.
        assert_eq!(l.attempts_before(2_000, 1.0, 10_000.0), 8);
    }
}
