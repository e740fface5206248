//! `retrylint plan`: each operation's worst-case retry schedule as a table.

use std::fmt::Write;

use crate::analysis::check::Analysis;
use crate::analysis::plan::StopReason;
use crate::analysis::plan::schedule::{RetryAfterBound, Schedule, shown, worst_case};
use crate::input::model::{Operation, Streaming};
use crate::input::policy::{EffectSource, Effective, RetryAfterFallback, Selector, SideEffect};
use crate::location::Loc;

/// Renders the schedule of every operation (or those `only` selects).
pub fn render(analysis: &Analysis, only: Option<&Selector>) -> String {
    let mut out = String::new();
    let mut shown = 0usize;
    for (index, op) in analysis.api.operations.iter().enumerate() {
        if only.is_some_and(|s| !s.matches(op)) {
            continue;
        }
        if shown > 0 {
            out.push('\n');
        }
        shown += 1;
        out.push_str(&render_operation(analysis, index));
    }
    if shown == 0 {
        out.push_str("no operation matches\n");
    }
    out
}

/// Renders the schedule of the operation at `index` of `analysis.api.operations` (an
/// editor's hover shows it for one operation).
pub fn render_operation(analysis: &Analysis, index: usize) -> String {
    let mut out = String::new();
    let Some(op) = analysis.api.operations.get(index) else {
        return out;
    };
    let _ = writeln!(out, "{}", heading(op));
    grpc(&mut out, analysis, index);
    let layered = !analysis.layers.per_operation[index].is_empty();
    match (analysis.effective.get(index), layered) {
        (None, false) => out.push_str("  not retried: no policy\n"),
        (None, true) => out.push_str("  client: no retry policy\n"),
        (Some(policy), layered) => {
            if layered {
                out.push_str("  client:\n");
            }
            schedule(&mut out, policy);
        }
    }
    layers(&mut out, analysis, index);
    out
}

/// What a gRPC rpc is: its full name, whether it streams, and its effect with where that
/// comes from (the `idempotency_level` option's place, the policy's `sideEffect`, or the
/// default `IDEMPOTENCY_UNKNOWN`).
fn grpc(out: &mut String, analysis: &Analysis, index: usize) {
    let Some(op) = analysis.api.operations.get(index) else {
        return;
    };
    let Some(grpc) = &op.grpc else { return };
    let at = |loc: &Loc| {
        let file = &analysis.sources[loc.file];
        let p = file.position(loc.span.start);
        format!("{}:{}:{}", file.name(), p.line, p.column)
    };
    let level = match &grpc.idempotency {
        Some((_, loc)) => format!("{}, {}", grpc.level_source(), at(loc)),
        None => grpc.level_source(),
    };
    let effect = match analysis.effective.get(index).map(|p| &p.effect) {
        Some(effect) if matches!(effect.source, EffectSource::Policy(_)) => {
            let EffectSource::Policy(loc) = &effect.source else {
                return;
            };
            format!(
                "{} (sideEffect in the policy, {}; the description: {level})",
                effect_words(effect.side_effect),
                at(loc)
            )
        }
        _ => format!(
            "{} ({level})",
            effect_words(SideEffect::of_level(grpc.level()))
        ),
    };
    let text = format!(
        "gRPC {} ({}): {effect}",
        grpc.full_name(),
        grpc.streaming.describe()
    );
    let _ = writeln!(out, "  {}", crate::escape::terminal(&text));
    let commit = match grpc.streaming {
        Streaming::Unary => return,
        Streaming::Server => {
            "a stream is retried only until the server's response headers arrive: from then on the call is committed, and a broken stream is the application's to resume"
        }
        Streaming::Client | Streaming::Bidi => {
            "a stream is retried only until it is committed: when the server's response headers arrive, or when the messages sent outgrow the client's retry buffer"
        }
    };
    let _ = writeln!(out, "  {commit}");
}

/// A side effect in words: `no side effects`, `idempotent`, `non-idempotent`.
fn effect_words(effect: SideEffect) -> &'static str {
    match effect {
        SideEffect::None => "no side effects",
        other => other.as_str(),
    }
}

/// One retry loop's schedule: its table, or why it has none.
fn schedule(out: &mut String, policy: &Effective) {
    if !policy.is_retried() {
        let _ = writeln!(
            out,
            "  not retried (maxAttempts: {})",
            policy.max_attempts()
        );
        return;
    }
    match worst_case(policy) {
        Some(schedule) => table(out, policy, &schedule),
        None => out.push_str(
            "  no worst case: neither perAttemptTimeout nor deadline bounds an attempt\n",
        ),
    }
}

/// Each layer's schedule for the operation, then the requests that reach the backend.
fn layers(out: &mut String, analysis: &Analysis, index: usize) {
    let bound = &analysis.layers;
    if bound.per_operation[index].is_empty() {
        return;
    }
    for hop in analysis.layer_hops(index) {
        let (l, r, policy) = (hop.layer, hop.route, hop.policy);
        let how = if r.implicit {
            " — no retry settings: the format's default applies"
        } else {
            ""
        };
        let text = format!(
            "{}: {}, route {}{how}",
            l.position,
            l.name,
            hop.route_text()
        );
        let _ = writeln!(out, "  {}:", crate::escape::terminal(&text));
        if r.budget_only {
            let _ = writeln!(
                out,
                "  retries on {} with no count per request: bounded only by a retry budget{}",
                signals(policy),
                policy
                    .policy
                    .deadline
                    .as_ref()
                    .map_or(String::new(), |d| format!(" and a {} deadline", d.value))
            );
        } else {
            schedule(out, policy);
        }
        if !r.unsupported.is_empty() {
            let _ = writeln!(
                out,
                "  not supported by this layer: {}",
                r.unsupported.join(", ")
            );
        }
    }
    let chain = bound.chain(index, analysis.effective.get(index));
    let _ = writeln!(
        out,
        "  at the backend: {} per call in the worst case ({})",
        match chain.product() {
            Some(1) => "1 request".to_string(),
            Some(total) => format!("{total} requests"),
            None => "unbounded requests".to_string(),
        },
        chain.factors()
    );
}

/// `503, connect-failure`: what a loop retries on.
fn signals(policy: &Effective) -> String {
    let names: Vec<String> = policy
        .retry_on()
        .iter()
        .map(|s| s.value.to_string())
        .collect();
    if names.is_empty() {
        "nothing".to_string()
    } else {
        names.join(", ")
    }
}

/// The operation's method, path and operationId, on one line whatever they hold.
fn heading(op: &Operation) -> String {
    crate::escape::terminal(&op.title()).into_owned()
}

fn table(out: &mut String, policy: &Effective, schedule: &Schedule) {
    let rows: Vec<[String; 5]> = schedule
        .rows
        .iter()
        .map(|r| {
            let wait = if r.attempt == 1 {
                "-".to_string()
            } else {
                let backoff = if r.wait_min == r.backoff_max {
                    r.backoff_max.to_string()
                } else {
                    format!("{}–{}", r.wait_min, r.backoff_max)
                };
                if r.wait_max > r.backoff_max {
                    format!("{backoff}, Retry-After ≤ {}", r.wait_max)
                } else {
                    backoff
                }
            };
            [
                r.attempt.to_string(),
                wait,
                r.start.to_string(),
                r.end.to_string(),
                r.deadline_left.map_or("-".to_string(), |d| d.to_string()),
            ]
        })
        .collect();
    let header = [
        "attempt",
        "wait before",
        "starts by",
        "ends by",
        "deadline left",
    ];
    let widths: Vec<usize> = (0..5)
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 5]| {
        let mut text = String::from(" ");
        for (cell, width) in cells.iter().zip(&widths) {
            let _ = write!(text, " {cell:<width$} ");
        }
        text.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(header));
    for r in &rows {
        let _ = writeln!(out, "{}", line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
    let last = schedule.attempts;
    if schedule.is_cut() {
        let _ = writeln!(
            out,
            "  … attempts {} to {last} not listed (the first {} are)",
            schedule.rows.len() + 1,
            schedule.rows.len()
        );
    }
    let why = match schedule.stop {
        StopReason::MaxAttempts => format!(
            "stops after attempt {last}: maxAttempts is {}",
            policy.max_attempts()
        ),
        StopReason::DeadlineExhausted => format!(
            "stops after attempt {last}: the next wait would end past the deadline ({} of {} attempts run)",
            last, schedule.max_attempts
        ),
        StopReason::InvalidDelay => format!(
            "stops after attempt {last}: invalid-delay ({}); no retry is made",
            invalid_delay(policy)
        ),
        other => format!("stops after attempt {last}: {other}"),
    };
    let _ = writeln!(out, "  {why}");
    let mut budget = format!("  worst case {}", shown(schedule.worst_case));
    if let Some(deadline) = schedule.deadline {
        let _ = write!(budget, " of a {deadline} deadline");
    }
    if let Some(needed) = schedule.needed
        && schedule.deadline.is_some_and(|d| needed > d)
        && schedule.stop != StopReason::InvalidDelay
    {
        let _ = write!(
            budget,
            "; all {} attempts would need {}",
            schedule.max_attempts,
            shown(needed)
        );
    }
    match schedule.retry_after {
        RetryAfterBound::UpTo(max) => {
            let _ = write!(budget, "; includes Retry-After waits of up to {max}");
        }
        RetryAfterBound::Unbounded => {
            let _ = write!(
                budget,
                "; not included: Retry-After is honoured with no retryAfter.max, so the server can stretch any wait up to the deadline"
            );
        }
        RetryAfterBound::None => {}
    }
    let _ = writeln!(out, "{budget}");
    let p = &policy.policy;
    if policy.honors_retry_after()
        && (p.retry_after_on_missing.is_some() || p.retry_after_on_invalid.is_some())
    {
        let (missing, invalid) = policy.retry_after_fallbacks();
        let _ = writeln!(
            out,
            "  a 429/503 without Retry-After: {}; an unreadable one: {}",
            fallback(missing),
            fallback(invalid)
        );
    }
}

fn fallback(f: RetryAfterFallback) -> &'static str {
    match f {
        RetryAfterFallback::Backoff => "waits the backoff",
        RetryAfterFallback::Stop => "stops (invalid-retry-after)",
    }
}

/// Which backoff value is out of range.
fn invalid_delay(policy: &Effective) -> String {
    let p = &policy.policy;
    if let (Some(base), Some(cap)) = (&p.backoff_base, &p.backoff_cap)
        && cap.value < base.value
    {
        return format!(
            "backoff.cap {} is below backoff.base {}",
            cap.value, base.value
        );
    }
    if let Some(m) = &p.backoff_multiplier
        && m.value < 1.0
    {
        return format!("backoff.multiplier {} is below 1", m.value);
    }
    "a backoff value is out of range".to_string()
}
