//! The SVG timeline of an operation's worst-case retry schedule.
//!
//! One lane per attempt: a bar from its start to the end of its timeout, and before it the
//! wait (the shortest wait as a line, the jitter up to the longest as a band). A dashed
//! line marks the deadline; the last lane says why and when the client stops. The time
//! axis spans the larger of the deadline and the worst case.

use std::fmt::Write;

use super::{esc, num};
use crate::rendering::report::ScheduleReport;

/// A duration in milliseconds, in the unit a reader expects.
fn dur(ms: f64) -> String {
    if !ms.is_finite() {
        return "?".to_string();
    }
    let trim = |x: f64, unit: &str| {
        let s = format!("{x:.2}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        format!("{s}{unit}")
    };
    if ms == 0.0 {
        "0".to_string()
    } else if ms < 1_000.0 {
        trim(ms, "ms")
    } else if ms < 120_000.0 {
        trim(ms / 1_000.0, "s")
    } else if ms < 7_200_000.0 {
        trim(ms / 60_000.0, "min")
    } else {
        trim(ms / 3_600_000.0, "h")
    }
}

/// The shortest and longest wait, as one range.
fn wait_range(min: f64, max: f64) -> String {
    if min == max {
        dur(max)
    } else if max < 1_000.0 {
        format!("{}–{}", num(min), dur(max))
    } else {
        format!("{}–{}", dur(min), dur(max))
    }
}

/// A tick step of 1, 2, 2.5 or 5 times a power of ten, for about six ticks.
fn tick_step(scale: f64) -> f64 {
    round_step(scale / 6.0, &[1.0, 2.0, 2.5, 5.0, 10.0])
}

/// The smallest `multiple × 10^n` at or above `raw`: round steps for a chart's axis.
pub(crate) fn round_step(raw: f64, multiples: &[f64]) -> f64 {
    let magnitude = 10f64.powf(raw.log10().floor());
    multiples
        .iter()
        .map(|m| m * magnitude)
        .find(|step| *step >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// Lanes drawn at most: beyond, the middle attempts collapse into one lane.
const MAX_LANES: usize = 12;
const W: f64 = 880.0;
const L: f64 = 150.0;
const R: f64 = 20.0;
const TOP: f64 = 28.0;
const LANE: f64 = 24.0;
const BAR: f64 = 14.0;

fn finite(x: f64) -> f64 {
    if x.is_finite() { x.max(0.0) } else { 0.0 }
}

/// The worst-case schedule as an SVG timeline: a lane per attempt, waits between them.
pub(super) fn render(out: &mut String, name: &str, s: &ScheduleReport) {
    let deadline = s.deadline_ms.map(finite);
    let worst = finite(s.worst_case_ms);
    let scale = deadline.unwrap_or(0.0).max(worst).max(1.0);
    let x = |t: f64| L + (finite(t) / scale).min(1.0) * (W - L - R);
    let n = s.attempts.len();
    // The attempts to draw, `None` standing for the ones left out.
    let lanes: Vec<Option<usize>> = if n <= MAX_LANES {
        (0..n).map(Some).collect()
    } else {
        (0..MAX_LANES - 2)
            .map(Some)
            .chain([None, Some(n - 1)])
            .collect()
    };
    let stop_y = TOP + LANE * lanes.len() as f64 + 14.0;
    let axis_y = stop_y + 14.0;
    let stop = s.stop.as_str();
    let mut facts = vec![if n == 1 {
        "1 attempt".to_string()
    } else {
        format!("{n} attempts")
    }];
    facts.push(match deadline {
        Some(d) => format!("deadline {}", dur(d)),
        None => "no deadline".to_string(),
    });
    facts.push(format!("worst case {}", dur(worst)));
    if let Some(needed) = s.needed_ms.filter(|n| *n > worst + 0.5) {
        facts.push(format!("{} needed without the deadline", dur(needed)));
    }
    facts.push(format!("stops: {stop}"));
    let summary = esc(&facts.join(" · ")).to_string();
    let name = esc(name);
    w!(
        out,
        "<figure class=\"timeline\"><figcaption><strong>Worst-case schedule</strong><span>{summary}</span></figcaption>\n\
         <svg class=\"tl\" viewBox=\"0 0 {W} {}\" role=\"img\" aria-label=\"Worst-case schedule of {name}: {summary}\">\
         <title>Worst-case schedule of {name}: {summary}</title>\n",
        num(axis_y + 24.0),
    );
    let step = tick_step(scale);
    for k in 0..=((scale / step + 1e-6).floor() as usize).min(20) {
        let t = k as f64 * step;
        let tx = num(x(t));
        w!(
            out,
            "<line class=\"grid\" x1=\"{tx}\" y1=\"{}\" x2=\"{tx}\" y2=\"{}\"/><text class=\"tick\" x=\"{tx}\" y=\"{}\">{}</text>",
            num(TOP - 6.0),
            num(axis_y),
            num(axis_y + 16.0),
            dur(t)
        );
    }
    w!(
        out,
        "\n<line class=\"axis\" x1=\"{L}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\"/>\n",
        num(axis_y),
        num(W - R)
    );
    for (lane, attempt) in lanes.iter().enumerate() {
        let cy = TOP + LANE * lane as f64 + LANE / 2.0;
        match attempt {
            Some(i) => draw_attempt(out, s, *i, cy, &x),
            None => w!(
                out,
                "<text class=\"lbl\" x=\"{}\" y=\"{}\"><tspan class=\"an\">⋯</tspan><tspan class=\"wt\" dx=\"6\">{} more</tspan></text>\n",
                L - 10.0,
                num(cy + 4.0),
                n + 1 - MAX_LANES
            ),
        }
    }
    let end = s.attempts.last().map_or(0.0, |a| a.end_ms);
    let ex = x(end);
    let stop_text = format!("{stop} at {}", dur(end));
    let right = ex + 10.0 + 6.6 * stop_text.chars().count() as f64 <= W - R;
    let (anchor, tx) = if right {
        ("start", ex + 8.0)
    } else {
        ("end", ex - 8.0)
    };
    w!(
        out,
        "<g class=\"stop\"><line class=\"stopline\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\
         <rect class=\"stopcap\" x=\"{3}\" y=\"{4}\" width=\"8\" height=\"8\" rx=\"1\"/>\
         <text class=\"lbl\" x=\"{5}\" y=\"{6}\"><tspan class=\"an\">stop</tspan></text>\
         <text class=\"stoptext\" x=\"{7}\" y=\"{6}\" text-anchor=\"{anchor}\">{8}</text></g>\n",
        num(ex),
        num(TOP),
        num(stop_y),
        num(ex - 4.0),
        num(stop_y - 4.0),
        L - 10.0,
        num(stop_y + 4.0),
        num(tx),
        esc(&stop_text)
    );
    match deadline {
        Some(d) => {
            let dx = x(d);
            let (anchor, lx) = if dx > W / 2.0 {
                ("end", dx - 6.0)
            } else {
                ("start", dx + 6.0)
            };
            w!(
                out,
                "<line class=\"dl\" x1=\"{0}\" y1=\"8\" x2=\"{0}\" y2=\"{1}\"/>\
                 <text class=\"dltext\" x=\"{2}\" y=\"16\" text-anchor=\"{anchor}\">deadline {3}</text>\n",
                num(dx),
                num(axis_y),
                num(lx),
                dur(d)
            );
        }
        None => w!(
            out,
            "<text class=\"dltext\" x=\"{}\" y=\"16\" text-anchor=\"end\">no deadline</text>\n",
            W - R
        ),
    }
    out.push_str(
        "</svg>\n<p class=\"tl-key\" aria-hidden=\"true\"><span><i class=\"k-att\"></i>attempt, up to its timeout</span>\
         <span><i class=\"k-wfix\"></i>shortest wait</span><span><i class=\"k-wband\"></i>jitter: up to the longest wait</span>",
    );
    if deadline.is_some() {
        out.push_str("<span><i class=\"k-dl\"></i>deadline</span>");
    }
    out.push_str("</p>\n</figure>\n");
}

/// One attempt's lane: its label, the wait before it, and its bar.
fn draw_attempt(out: &mut String, s: &ScheduleReport, i: usize, cy: f64, x: &dyn Fn(f64) -> f64) {
    let Some(a) = s.attempts.get(i) else {
        return;
    };
    let prev_end = i
        .checked_sub(1)
        .and_then(|p| s.attempts.get(p))
        .map(|p| p.end_ms);
    let range = wait_range(a.wait_min_ms, a.wait_max_ms);
    let after = if prev_end.is_some() {
        format!(", after a wait of {range}")
    } else {
        String::new()
    };
    w!(
        out,
        "<g><title>attempt {}: {} → {}{after}</title><text class=\"lbl\" x=\"{}\" y=\"{}\"><tspan class=\"an\">#{}</tspan>",
        a.attempt,
        dur(a.start_ms),
        dur(a.end_ms),
        L - 10.0,
        num(cy + 4.0),
        a.attempt
    );
    if let Some(prev_end) = prev_end {
        w!(
            out,
            "<tspan class=\"wt\" dx=\"6\">wait {range}</tspan></text>"
        );
        let (x0, x1, x2) = (
            x(prev_end),
            x(prev_end + a.wait_min_ms),
            x(prev_end + a.wait_max_ms),
        );
        w!(
            out,
            "<line class=\"wline\" x1=\"{}\" y1=\"{2}\" x2=\"{}\" y2=\"{2}\"/>",
            num(x0),
            num(x(a.start_ms)),
            num(cy)
        );
        if x1 > x0 {
            w!(
                out,
                "<line class=\"wfix\" x1=\"{}\" y1=\"{2}\" x2=\"{}\" y2=\"{2}\"/>",
                num(x0),
                num(x1),
                num(cy)
            );
        }
        if x2 > x1 {
            w!(
                out,
                "<rect class=\"wband\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"2\"/>",
                num(x1),
                num(cy - BAR / 4.0),
                num(x2 - x1),
                num(BAR / 2.0)
            );
        }
    } else {
        out.push_str("</text>");
    }
    let (bx, bw) = (x(a.start_ms), (x(a.end_ms) - x(a.start_ms)).max(1.0));
    w!(
        out,
        "<rect class=\"att\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{BAR}\" rx=\"3\"/>",
        num(bx),
        num(cy - BAR / 2.0),
        num(bw)
    );
    let length = dur(a.end_ms - a.start_ms);
    if bw > 12.0 + 7.0 * length.len() as f64 {
        w!(
            out,
            "<text class=\"in\" x=\"{}\" y=\"{}\">{length}</text>",
            num(bx + bw / 2.0),
            num(cy + 4.0)
        );
    }
    out.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rendering::report::AttemptReport;

    #[test]
    fn formats_durations() {
        assert_eq!(dur(0.0), "0");
        assert_eq!(dur(200.0), "200ms");
        assert_eq!(dur(6_600.0), "6.6s");
        assert_eq!(dur(15_000.0), "15s");
        assert_eq!(dur(180_000.0), "3min");
        assert_eq!(dur(f64::INFINITY), "?");
        assert_eq!(wait_range(0.0, 200.0), "0–200ms");
        assert_eq!(wait_range(500.0, 500.0), "500ms");
        assert_eq!(wait_range(1_000.0, 2_500.0), "1s–2.5s");
    }

    fn schedule(attempts: u32, deadline: Option<f64>) -> ScheduleReport {
        let rows: Vec<AttemptReport> = (0..attempts)
            .map(|i| AttemptReport {
                attempt: i + 1,
                wait_min_ms: 0.0,
                wait_max_ms: if i == 0 { 0.0 } else { 100.0 },
                start_ms: f64::from(i) * 1_100.0,
                end_ms: f64::from(i) * 1_100.0 + 1_000.0,
            })
            .collect();
        let worst = rows.last().map_or(0.0, |r| r.end_ms);
        ScheduleReport {
            deadline_ms: deadline,
            worst_case_ms: worst,
            needed_ms: Some(worst),
            max_attempts: attempts,
            stop: "max-attempts".to_string(),
            attempts: rows,
        }
    }

    #[test]
    fn draws_a_lane_per_attempt_and_the_deadline() {
        let mut out = String::new();
        render(&mut out, "GET /a", &schedule(3, Some(5_000.0)));
        assert_eq!(out.matches("<rect class=\"att\"").count(), 3);
        assert_eq!(
            out.matches("<tspan class=\"wt\" dx=\"6\">wait 0–100ms</tspan>")
                .count(),
            2
        );
        assert!(out.contains(">deadline 5s</text>"));
        assert!(out.contains(">max-attempts at 3.2s</text>"));
        assert!(out.contains("aria-label=\"Worst-case schedule of GET /a: 3 attempts · deadline 5s · worst case 3.2s · stops: max-attempts\""));
    }

    #[test]
    fn many_attempts_collapse_into_one_lane() {
        let mut out = String::new();
        render(&mut out, "GET /a", &schedule(100, None));
        assert_eq!(out.matches("<rect class=\"att\"").count(), MAX_LANES - 1);
        assert!(out.contains(">89 more</tspan>"));
        assert!(out.contains("<tspan class=\"an\">#100</tspan>"));
        assert!(out.contains(">no deadline</text>"));
        assert!(!out.contains("class=\"dl\""));
        assert!(out.matches("class=\"tick\"").count() <= 21);
    }

    #[test]
    fn ticks_fall_on_round_values() {
        assert_eq!(tick_step(20_000.0), 5_000.0);
        assert_eq!(tick_step(12_000.0), 2_000.0);
        assert_eq!(tick_step(6_600.0), 2_000.0);
        assert_eq!(tick_step(1.0), 0.2);
    }
}
