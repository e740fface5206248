//! The HTML page of a simulation: one self-contained file that loads nothing.
//!
//! An inline SVG chart shows the requests per second over time, one line per variant,
//! with the fault windows shaded and the server's capacity as a dashed line; a table
//! below holds the same numbers as the text output. No script; a Content-Security-Policy
//! forbids any fetch; every string from the input is escaped. The page is a pure function
//! of the report: the same seed gives the same bytes.

use std::fmt::Write;

use super::Outcome;
use super::output::Report;
use super::scenario::Capacity;
use crate::rendering::report::html::esc;
use crate::rendering::report::html::timeline::round_step;

/// Writes to a `String`, which cannot fail.
macro_rules! w {
    ($out:expr, $($arg:tt)*) => {
        {
            let _ = write!($out, $($arg)*);
        }
    };
}

/// Line colours, one per variant (repeated beyond six), readable on white.
const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
];

/// Dash patterns, so that a variant drawn over an identical one leaves it visible.
const DASHES: [&str; 4] = ["none", "8 4", "3 3", "12 3 3 3"];

const CSS: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:960px;\
padding:0 1rem;color:#222}h1{font-size:1.4rem}code{font-size:.95em}\
table{border-collapse:collapse;margin:1rem 0}th,td{padding:.25rem .75rem;text-align:right;\
border-bottom:1px solid #ddd}th:first-child,td:first-child{text-align:left}\
.key{display:inline-block;width:1.2em;height:.3em;vertical-align:middle;margin-right:.3em}\
svg{max-width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:#444}\
.legend span{margin-right:1.2rem;white-space:nowrap}";

/// The chart's size and margins, in SVG units.
const WIDTH: f64 = 880.0;
const HEIGHT: f64 = 340.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 16.0;
const BOTTOM: f64 = 36.0;

/// Renders the page.
pub fn render(report: &Report) -> String {
    let s = &report.scenario;
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    w!(
        out,
        "<title>Retry storm: {}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(&report.operations.join(", "))
    );
    w!(
        out,
        "<h1>Retry storm: {}</h1>\n",
        esc(&report.operations.join(", "))
    );
    out.push_str("<p>");
    w!(
        out,
        "{} clients, arrival <code>{}</code>, capacity <code>{}</code>, latency <code>{}</code>, seed <code>{}</code>. ",
        s.clients,
        s.arrival,
        s.capacity,
        s.latency,
        s.seed
    );
    if s.faults.is_empty() {
        out.push_str("No fault.");
    } else {
        out.push_str("Faults: ");
        let faults: Vec<String> = s
            .faults
            .iter()
            .map(|f| format!("<code>{}</code>", esc(&f.to_string())))
            .collect();
        out.push_str(&faults.join(", "));
        out.push('.');
    }
    out.push_str("</p>\n");
    let loops = report.loop_lines();
    if !loops.is_empty() {
        w!(
            out,
            "<p>Retry loops, client first{}:</p>\n<ul>\n",
            esc(report.loops_note())
        );
        for (operation, text) in &loops {
            w!(
                out,
                "<li>{}: <code>{}</code></li>\n",
                esc(operation),
                esc(text)
            );
        }
        out.push_str("</ul>\n");
    }
    chart(&mut out, report);
    legend(&mut out, report);
    table(&mut out, report);
    out.push_str("</body>\n</html>\n");
    out
}

/// A round step for about `target` ticks over `0..max`.
fn step(max: f64, target: f64) -> f64 {
    // Whole requests and seconds: steps of at least one, never 2.5.
    round_step((max / target).max(1.0), &[1.0, 2.0, 5.0, 10.0])
}

fn chart(out: &mut String, report: &Report) {
    let s = &report.scenario;
    let seconds = report
        .seconds()
        .max((s.recovery().as_micros() / 1_000_000) as usize) as f64;
    let capacity = match s.capacity {
        Capacity::PerSecond(n) => Some(n as f64),
        Capacity::Unlimited => None,
    };
    let peak = f64::from(report.outcomes.iter().map(Outcome::peak).max().unwrap_or(0));
    let y_step = step(peak.max(capacity.unwrap_or(0.0)).max(1.0), 5.0);
    let y_max = ((peak.max(capacity.unwrap_or(0.0)) / y_step).floor() + 1.0) * y_step;
    let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let x = |t: f64| LEFT + t / seconds * plot_w;
    let y = |v: f64| TOP + plot_h - v / y_max * plot_h;
    w!(
        out,
        "<svg viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\" aria-label=\"requests per second over time\">\n"
    );
    for fault in &s.faults {
        let from = fault.from.as_secs_f64().min(seconds);
        let to = fault.to.as_secs_f64().min(seconds);
        w!(
            out,
            "<rect x=\"{:.1}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{plot_h}\" fill=\"#f4cccc\" fill-opacity=\"0.6\"><title>{}</title></rect>\n",
            x(from),
            (x(to) - x(from)).max(0.0),
            esc(&fault.to_string())
        );
        w!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>\n",
            x(from) + 4.0,
            TOP + 14.0,
            esc(&fault.signal())
        );
    }
    // Axes and ticks.
    let mut v = 0.0;
    while v <= y_max + 1e-9 {
        w!(
            out,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#eee\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            WIDTH - RIGHT,
            y(v),
            y(v),
            LEFT - 6.0,
            y(v) + 4.0,
            v
        );
        v += y_step;
    }
    let x_step = step(seconds, 10.0);
    let mut t = 0.0;
    while t <= seconds + 1e-9 {
        w!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}s</text>\n",
            x(t),
            HEIGHT - BOTTOM + 16.0,
            t
        );
        t += x_step;
    }
    w!(
        out,
        "<line x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{TOP}\" y2=\"{:.1}\" stroke=\"#888\"/><line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#888\"/>\n",
        TOP + plot_h,
        WIDTH - RIGHT,
        TOP + plot_h,
        TOP + plot_h
    );
    w!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">time</text>\n",
        WIDTH - RIGHT,
        HEIGHT - 4.0
    );
    if let Some(c) = capacity {
        w!(
            out,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#555\" stroke-dasharray=\"6 4\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">capacity {c}/s</text>\n",
            WIDTH - RIGHT,
            y(c),
            y(c),
            WIDTH - RIGHT - 4.0,
            y(c) - 5.0
        );
    }
    for (i, outcome) in report.outcomes.iter().enumerate() {
        let points: Vec<String> = outcome
            .load
            .iter()
            .enumerate()
            .flat_map(|(second, &n)| {
                let second = second as f64;
                [
                    format!("{:.1},{:.1}", x(second), y(f64::from(n))),
                    format!("{:.1},{:.1}", x(second + 1.0), y(f64::from(n))),
                ]
            })
            .collect();
        w!(
            out,
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\" stroke-dasharray=\"{}\" points=\"{}\"><title>{}</title></polyline>\n",
            COLOURS[i % COLOURS.len()],
            DASHES[i % DASHES.len()],
            points.join(" "),
            esc(&outcome.name)
        );
    }
    out.push_str("</svg>\n");
}

fn legend(out: &mut String, report: &Report) {
    out.push_str("<p class=\"legend\">");
    for (i, outcome) in report.outcomes.iter().enumerate() {
        w!(
            out,
            "<span><span class=\"key\" style=\"background:{}\"></span>{} (peak {}/s)</span>",
            COLOURS[i % COLOURS.len()],
            esc(&outcome.name),
            outcome.peak()
        );
    }
    out.push_str("</p>\n");
}

fn table(out: &mut String, report: &Report) {
    let outcomes = &report.outcomes;
    out.push_str("<table>\n<thead><tr><th></th>");
    for o in outcomes {
        w!(out, "<th>{}</th>", esc(&o.name));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (label, cells) in report.rows() {
        w!(out, "<tr><td>{}</td>", esc(&label));
        for cell in cells {
            w!(out, "<td>{}</td>", esc(&cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_round() {
        assert_eq!(step(71.0, 5.0), 20.0);
        assert_eq!(step(1_000.0, 5.0), 200.0);
        assert_eq!(step(60.0, 10.0), 10.0);
        assert_eq!(step(3.0, 10.0), 1.0);
        assert_eq!(esc("<a & 'b'>").to_string(), "&lt;a &amp; &#39;b&#39;&gt;");
    }
}
