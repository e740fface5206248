//! How a simulation is shown: a text summary (one column per variant, and a load
//! sparkline per variant) and a versioned JSON document. Both are pure functions of the
//! scenario and the outcomes, so the same seed gives the same bytes.

use std::fmt::Write;

use serde::Serialize;
use serde::ser::SerializeMap;

use super::loops::{self, LoopSummary};
use super::scenario::{Capacity, Scenario};
use super::{BUCKET_US, Outcome, STOP_REASONS};

/// The version of the JSON document's shape.
pub const VERSION: u32 = 1;

/// A simulation's result: the scenario, the operations, and one outcome per variant (the
/// policy as written first).
#[derive(Debug, Clone)]
pub struct Report {
    pub scenario: Scenario,
    /// `POST /orders (createOrder)`, one per simulated operation.
    pub operations: Vec<String>,
    /// Per operation, the retry loops of the policy as written, client first.
    pub loops: Vec<Vec<LoopSummary>>,
    pub outcomes: Vec<Outcome>,
}

impl Report {
    /// Per operation, its heading and its loops (`client 3 × mesh 3`), when a layer in
    /// front of the backend retries any of them; none when only clients retry.
    pub fn loop_lines(&self) -> Vec<(&str, String)> {
        if self.loops.iter().all(|l| l.len() < 2) {
            return Vec::new();
        }
        self.operations
            .iter()
            .zip(&self.loops)
            .map(|(operation, loops)| (operation.as_str(), loops::text(loops)))
            .collect()
    }

    /// What the outputs add after the loops when variants are compared.
    pub fn loops_note(&self) -> &'static str {
        if self.outcomes.len() > 1 {
            " (--compare changes the client loop only)"
        } else {
            ""
        }
    }

    /// How many one-second buckets the longest load curve has (at least one).
    pub fn seconds(&self) -> usize {
        self.outcomes
            .iter()
            .map(|o| o.load.len())
            .max()
            .unwrap_or(0)
            .max(1)
    }

    /// Calls per second while calls arrive: the load without any retry.
    pub fn steady(&self) -> f64 {
        self.scenario
            .arrival
            .steady_per_second(self.scenario.clients)
    }

    /// The server's capacity in requests per second (none when unlimited).
    pub fn capacity(&self) -> Option<u64> {
        match self.scenario.capacity {
            Capacity::PerSecond(rate) => Some(rate),
            Capacity::Unlimited => None,
        }
    }

    /// The first second after the last fault.
    fn recovery_second(&self) -> usize {
        (self.scenario.recovery().as_micros() / BUCKET_US) as usize
    }

    /// The storm a policy sends once the server is back: the busiest second after the
    /// last fault, against the capacity the server has — not against the arrival rate,
    /// which says nothing of what the server can take.
    pub fn storm(&self, outcome: &Outcome) -> Storm {
        let peak = outcome.peak_after(self.scenario.recovery());
        let capacity = self.capacity();
        Storm {
            peak_after_recovery: peak,
            peak_over_capacity: capacity.map(|c| f64::from(peak) / c as f64),
            seconds_over_capacity: capacity.map(|c| outcome.seconds_above(c, 0)),
            seconds_over_capacity_after_recovery: capacity
                .map(|c| outcome.seconds_above(c, self.recovery_second())),
        }
    }

    /// The comparison table: the storm after recovery first, then the totals. Text and
    /// HTML lay out these same rows.
    pub fn rows(&self) -> Vec<(String, Vec<String>)> {
        let outcomes = &self.outcomes;
        let storms: Vec<Storm> = outcomes.iter().map(|o| self.storm(o)).collect();
        let cells = |f: &dyn Fn(&Storm) -> String| storms.iter().map(f).collect::<Vec<_>>();
        let mut rows = Vec::new();
        if !self.scenario.faults.is_empty() {
            rows.push((
                "after recovery: peak requests/s".to_string(),
                cells(&|s| s.peak_after_recovery.to_string()),
            ));
            if let Some(capacity) = self.capacity() {
                rows.push((
                    format!("after recovery: peak ÷ capacity ({capacity}/s)"),
                    cells(&|s| format!("{:.1}", s.peak_over_capacity.unwrap_or(0.0))),
                ));
                rows.push((
                    "after recovery: seconds over capacity".to_string(),
                    cells(&|s| {
                        s.seconds_over_capacity_after_recovery
                            .unwrap_or(0)
                            .to_string()
                    }),
                ));
            }
        }
        if self.capacity().is_some() {
            rows.push((
                "seconds over capacity".to_string(),
                cells(&|s| s.seconds_over_capacity.unwrap_or(0).to_string()),
            ));
        }
        rows.push(row("calls", outcomes, |o| o.calls.to_string()));
        rows.push(row("requests", outcomes, |o| o.requests.to_string()));
        rows.push(row("amplification", outcomes, |o| {
            format!("{:.2}", o.amplification())
        }));
        rows.push(row("peak requests/s", outcomes, |o| o.peak().to_string()));
        rows.push(row("succeeded", outcomes, |o| o.succeeded.to_string()));
        for reason in STOP_REASONS {
            if outcomes.iter().any(|o| o.stopped_by(reason) > 0) {
                rows.push(row(&format!("stopped: {reason}"), outcomes, |o| {
                    o.stopped_by(reason).to_string()
                }));
            }
        }
        rows.push(row("duplicate writes", outcomes, |o| {
            o.duplicates.to_string()
        }));
        rows.push(row("earlier than Retry-After", outcomes, |o| {
            o.earlier_than_retry_after.to_string()
        }));
        rows
    }
}

/// The second wave a policy sends once the server is back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Storm {
    /// The most requests in one second after the last fault.
    pub peak_after_recovery: u32,
    /// That peak over the server's capacity (none when unlimited).
    pub peak_over_capacity: Option<f64>,
    /// Seconds with more requests than the capacity, over the whole run.
    pub seconds_over_capacity: Option<usize>,
    /// The same, after the last fault.
    pub seconds_over_capacity_after_recovery: Option<usize>,
}

/// A number rounded to what is worth reading.
fn round(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

/// The sparkline levels, lowest first.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The most characters a sparkline takes.
const SPARK_WIDTH: usize = 72;

/// Renders the text summary.
pub fn text(report: &Report) -> String {
    let s = &report.scenario;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "scenario: {} clients, arrival {}, capacity {}, latency {}, seed {}",
        s.clients, s.arrival, s.capacity, s.latency, s.seed
    );
    if s.faults.is_empty() {
        out.push_str("faults: none\n");
    } else {
        let faults: Vec<String> = s
            .faults
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        let _ = writeln!(out, "faults: {}", faults.join(", "));
    }
    let label = if report.operations.len() == 1 {
        "operation"
    } else {
        "operations"
    };
    let operations = report.operations.join(", ");
    let _ = writeln!(out, "{label}: {}", crate::escape::terminal(&operations));
    match report.loop_lines().as_slice() {
        [] => {}
        [(_, loops)] => {
            let _ = writeln!(out, "loops: {loops}{}", report.loops_note());
        }
        lines => {
            let _ = writeln!(out, "loops{}:", report.loops_note());
            for (operation, loops) in lines {
                let _ = writeln!(out, "  {}: {loops}", crate::escape::terminal(operation));
            }
        }
    }
    out.push('\n');
    table(&mut out, report);
    out.push('\n');
    sparklines(&mut out, report);
    out
}

fn table(out: &mut String, report: &Report) {
    let outcomes = &report.outcomes;
    let mut rows: Vec<(String, Vec<String>)> = vec![(
        String::new(),
        outcomes.iter().map(|o| o.name.clone()).collect(),
    )];
    rows.extend(report.rows());
    let label_width = rows.iter().map(|(l, _)| width(l)).max().unwrap_or(0);
    let column_widths: Vec<usize> = (0..outcomes.len())
        .map(|i| rows.iter().map(|(_, c)| width(&c[i])).max().unwrap_or(0))
        .collect();
    for (label, cells) in &rows {
        let mut line = format!("{label}{}", pad(label_width - width(label)));
        for (cell, w) in cells.iter().zip(&column_widths) {
            let _ = write!(line, "  {}{cell}", pad(w - width(cell)));
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

fn row(label: &str, outcomes: &[Outcome], f: impl Fn(&Outcome) -> String) -> (String, Vec<String>) {
    (label.to_string(), outcomes.iter().map(f).collect())
}

fn width(text: &str) -> usize {
    text.chars().count()
}

fn pad(n: usize) -> String {
    " ".repeat(n)
}

/// One sparkline per variant on a shared scale, with the fault windows marked below.
fn sparklines(out: &mut String, report: &Report) {
    let seconds = report.seconds();
    let group = seconds.div_ceil(SPARK_WIDTH);
    let columns = seconds.div_ceil(group);
    let peak = report
        .outcomes
        .iter()
        .map(Outcome::peak)
        .max()
        .unwrap_or(0)
        .max(1);
    let per_char = if group == 1 {
        "1 second".to_string()
    } else {
        format!("{group} seconds")
    };
    let capacity = match report.scenario.capacity {
        Capacity::PerSecond(n) => format!("capacity {n}/s"),
        Capacity::Unlimited => "unlimited capacity".to_string(),
    };
    let _ = writeln!(
        out,
        "requests per second, 0s to {seconds}s (one character per {per_char}; █ = {peak}/s; {capacity})"
    );
    let label_width = report
        .outcomes
        .iter()
        .map(|o| width(&o.name))
        .max()
        .unwrap_or(0)
        .max(width("fault"));
    for outcome in &report.outcomes {
        let line: String = (0..columns)
            .map(|c| {
                let value = outcome
                    .load
                    .iter()
                    .skip(c * group)
                    .take(group)
                    .copied()
                    .max()
                    .unwrap_or(0);
                bar(value, peak)
            })
            .collect();
        let _ = writeln!(
            out,
            "{}{}  {line}  peak {}/s",
            outcome.name,
            pad(label_width - width(&outcome.name)),
            outcome.peak()
        );
    }
    if !report.scenario.faults.is_empty() {
        let marks: String = (0..columns)
            .map(|c| {
                let from = (c * group) as i64 * BUCKET_US;
                let to = ((c + 1) * group) as i64 * BUCKET_US;
                let faulty = report
                    .scenario
                    .faults
                    .iter()
                    .any(|f| f.from.as_micros() < to && from < f.to.as_micros());
                if faulty { '▔' } else { ' ' }
            })
            .collect();
        let _ = writeln!(
            out,
            "fault{}  {}",
            pad(label_width - width("fault")),
            marks.trim_end()
        );
    }
}

/// The bar for `value` on a scale where `peak` is full; a second with any request shows.
fn bar(value: u32, peak: u32) -> char {
    if value == 0 {
        return ' ';
    }
    let level = (u64::from(value) * 8).div_ceil(u64::from(peak)).clamp(1, 8) as usize;
    BARS[level - 1]
}

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    scenario: JsonScenario<'a>,
    variants: Vec<JsonVariant<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonScenario<'a> {
    clients: u32,
    arrival: String,
    capacity: String,
    faults: Vec<String>,
    latency: String,
    seed: u64,
    operations: &'a [String],
    /// Per operation, the retry loops of the policy as written, when a layer retries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    loops: Vec<JsonLoops<'a>>,
    /// The width of a load-curve bucket, in seconds.
    bucket_seconds: u32,
    /// Calls per second while calls arrive.
    steady_requests_per_second: f64,
}

/// One operation's retry loops, client first.
#[derive(Serialize)]
struct JsonLoops<'a> {
    operation: &'a str,
    loops: &'a [LoopSummary],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonVariant<'a> {
    name: &'a str,
    operation: &'a str,
    calls: u64,
    requests: u64,
    amplification: f64,
    peak_requests_per_second: u32,
    succeeded: u64,
    stopped: Stopped<'a>,
    duplicates: u64,
    earlier_than_retry_after: u64,
    /// The most requests in one second after the last fault.
    peak_after_recovery_requests_per_second: u32,
    /// That peak over the server's capacity (`null` when it is unlimited).
    peak_after_recovery_over_capacity: Option<f64>,
    /// Seconds with more requests than the capacity (`null` when it is unlimited).
    seconds_over_capacity: Option<usize>,
    seconds_over_capacity_after_recovery: Option<usize>,
    load_curve: Vec<Point>,
}

/// The stop-reason histogram: the reasons that occurred, in a fixed order.
struct Stopped<'a>(&'a Outcome);

impl Serialize for Stopped<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let present: Vec<_> = STOP_REASONS
            .iter()
            .filter(|r| self.0.stopped_by(**r) > 0)
            .collect();
        let mut map = serializer.serialize_map(Some(present.len()))?;
        for reason in present {
            map.serialize_entry(reason.as_str(), &self.0.stopped_by(*reason))?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct Point {
    t: u64,
    requests: u32,
}

/// Renders the JSON document.
pub fn json(report: &Report) -> String {
    let s = &report.scenario;
    let document = Document {
        version: VERSION,
        scenario: JsonScenario {
            clients: s.clients,
            arrival: s.arrival.to_string(),
            capacity: s.capacity.to_string(),
            faults: s
                .faults
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
            latency: s.latency.to_string(),
            seed: s.seed,
            operations: &report.operations,
            loops: if report.loop_lines().is_empty() {
                Vec::new()
            } else {
                report
                    .operations
                    .iter()
                    .zip(&report.loops)
                    .map(|(operation, loops)| JsonLoops { operation, loops })
                    .collect()
            },
            bucket_seconds: 1,
            steady_requests_per_second: round(report.steady(), 3),
        },
        variants: report
            .outcomes
            .iter()
            .map(|o| (o, report.storm(o)))
            .map(|(o, storm)| JsonVariant {
                name: &o.name,
                operation: &o.operation,
                calls: o.calls,
                requests: o.requests,
                amplification: round(o.amplification(), 3),
                peak_requests_per_second: o.peak(),
                succeeded: o.succeeded,
                stopped: Stopped(o),
                duplicates: o.duplicates,
                earlier_than_retry_after: o.earlier_than_retry_after,
                peak_after_recovery_requests_per_second: storm.peak_after_recovery,
                peak_after_recovery_over_capacity: storm.peak_over_capacity.map(|r| round(r, 3)),
                seconds_over_capacity: storm.seconds_over_capacity,
                seconds_over_capacity_after_recovery: storm.seconds_over_capacity_after_recovery,
                load_curve: o
                    .load
                    .iter()
                    .enumerate()
                    .map(|(t, &requests)| Point {
                        t: t as u64,
                        requests,
                    })
                    .collect(),
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rendering::simulate::html;

    fn report(loops: Vec<Vec<LoopSummary>>, variants: usize) -> Report {
        let outcome = crate::rendering::simulate::run(&Scenario::default(), &[], &[]);
        Report {
            scenario: Scenario::default(),
            operations: vec!["GET /a".into(), "POST /b (b)".into()],
            loops,
            outcomes: vec![outcome; variants],
        }
    }

    fn mesh(attempts: Option<i64>, simulated: i64) -> LoopSummary {
        LoopSummary {
            position: "mesh",
            layer: Some("Linkerd ServiceProfile b".into()),
            route: Some("routes[0]".into()),
            attempts,
            simulated_attempts: simulated,
        }
    }

    #[test]
    fn the_outputs_list_the_loops_when_a_layer_retries() {
        let layered = report(
            vec![
                vec![LoopSummary::client(3)],
                vec![LoopSummary::client(2), mesh(None, 100)],
            ],
            2,
        );
        let shown = text(&layered);
        assert!(
            shown.contains(
                "loops (--compare changes the client loop only):\n  GET /a: client 3\n  POST /b (b): client 2 × mesh unbounded (capped at 100)\n"
            ),
            "{shown}"
        );
        let document: serde_json::Value = serde_json::from_str(&json(&layered)).unwrap();
        assert_eq!(document["version"], 1);
        let loops = &document["scenario"]["loops"];
        assert_eq!(loops[1]["operation"], "POST /b (b)");
        assert_eq!(loops[1]["loops"][1]["position"], "mesh");
        assert_eq!(loops[1]["loops"][1]["attempts"], serde_json::Value::Null);
        assert_eq!(loops[1]["loops"][1]["simulatedAttempts"], 100);
        assert_eq!(loops[0]["loops"][0]["attempts"], 3);
        assert!(html::render(&layered).contains("<li>POST /b (b): <code>client 2 × mesh"));
        let one = Report {
            operations: vec!["POST /b".into()],
            ..report(vec![vec![LoopSummary::client(3), mesh(Some(3), 3)]], 1)
        };
        assert!(text(&one).contains("\nloops: client 3 × mesh 3\n"));
    }

    #[test]
    fn without_layers_the_outputs_say_nothing_of_loops() {
        let plain = report(
            vec![vec![LoopSummary::client(3)], vec![LoopSummary::client(2)]],
            2,
        );
        assert!(!text(&plain).contains("loops"));
        assert!(!json(&plain).contains("loops"));
        assert!(!html::render(&plain).contains("Retry loops"));
    }
}
