//! The fault windows of a scenario as one sorted timeline: which fault, if any, a request
//! sent at time `t` meets, in `O(log windows)`.
//!
//! Windows may overlap; where they do, the first one given applies. The timeline is built
//! once per scenario (`O(windows × log windows)`) and shared by every compared variant.

use std::collections::BTreeSet;

use super::scenario::{Fault, FaultKind};

/// Disjoint segments, sorted by start: from each start to the next, this fault applies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    starts: Vec<i64>,
    kinds: Vec<Option<FaultKind>>,
}

impl Timeline {
    pub fn new(faults: &[Fault]) -> Timeline {
        // (time, is_start, window index): ends before starts at the same instant, since a
        // window covers [from, to).
        let mut events: Vec<(i64, bool, usize)> = Vec::with_capacity(faults.len() * 2);
        for (i, f) in faults.iter().enumerate() {
            events.push((f.from.as_micros(), true, i));
            events.push((f.to.as_micros(), false, i));
        }
        events.sort_unstable();
        let mut active: BTreeSet<usize> = BTreeSet::new();
        let mut timeline = Timeline::default();
        let mut k = 0;
        while k < events.len() {
            let at = events[k].0;
            while k < events.len() && events[k].0 == at {
                let (_, start, i) = events[k];
                if start {
                    active.insert(i);
                } else {
                    active.remove(&i);
                }
                k += 1;
            }
            let kind = active.first().map(|&i| faults[i].kind);
            if timeline.kinds.last() != Some(&kind) {
                timeline.starts.push(at);
                timeline.kinds.push(kind);
            }
        }
        timeline
    }

    /// The fault a request sent at `t` meets.
    pub fn at(&self, t: i64) -> Option<FaultKind> {
        let after = self.starts.partition_point(|&s| s <= t);
        after.checked_sub(1).and_then(|i| self.kinds[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_window_given_wins_where_windows_overlap() {
        let faults: Vec<Fault> = [
            "503@10s..20s",
            "429@5s..15s",
            "connect-failure@15s..30s",
            "timeout-after-processing@0s..40s",
        ]
        .iter()
        .map(|f| Fault::parse(f).unwrap())
        .collect();
        let timeline = Timeline::new(&faults);
        let naive = |t: i64| {
            faults
                .iter()
                .find(|f| f.from.as_micros() <= t && t < f.to.as_micros())
                .map(|f| f.kind)
        };
        for t in (-1..45_000_001).step_by(250_000).chain([
            5_000_000, 9_999_999, 10_000_000, 19_999_999, 20_000_000, 40_000_000,
        ]) {
            assert_eq!(timeline.at(t), naive(t), "{t}");
        }
        assert_eq!(Timeline::new(&[]).at(0), None);
    }
}
