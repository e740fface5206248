//! The top of the HTML report: the page header, and the summary that answers at a
//! glance — how many writes a client can retry safely, the contract states (and the
//! policy's readiness, when there is one) as cards that filter the table, the writes per
//! tag, and the findings by rule, errors first.

use std::fmt::Write;

use super::{LEVELS, count, esc, findings, num};
use crate::analysis::contract::ContractState;
use crate::rendering::report::contract::UNTAGGED;
use crate::rendering::report::{Readiness, Report};

/// How many tags the per-tag table lists.
const TAGS_LISTED: usize = 20;

pub(super) fn header(out: &mut String, report: &Report) {
    let s = &report.summary;
    let kind = if s.readiness.is_some() {
        "retry readiness report"
    } else {
        "retry contract report"
    };
    w!(
        out,
        "<header class=\"top\"><div class=\"wrap\">\n<p class=\"brand\">{LOGO}<span>retrylint</span>\
         <span class=\"sep\">/</span>{kind}</p>\n<h1>{}</h1>\n<dl class=\"meta\">\
         <div><dt>Policy</dt><dd>{}</dd></div>\
         <div><dt>Operations</dt><dd>{}</dd></div>\
         <div><dt>Retried</dt><dd>{}</dd></div>\
         <div><dt>Findings</dt><dd>{}</dd></div></dl>\n</div></header>\n",
        esc(&report.description),
        match (&report.policy, &s.readiness) {
            (Some(p), _) => format!("<code>{}</code>", esc(p)),
            (None, Some(_)) => "the description's own <code>x-retry-policy</code>".to_string(),
            (None, None) => "none: what the description alone lets any client do".to_string(),
        },
        count(s.operations),
        count(s.retried),
        count(s.rules.iter().map(|r| r.count).sum()),
    );
}

const LOGO: &str = "<svg class=\"logo\" viewBox=\"0 0 24 24\" aria-hidden=\"true\" focusable=\"false\">\
<path d=\"M20 12a8 8 0 1 1-2.34-5.66\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"2.4\" \
stroke-linecap=\"round\"/><path d=\"M20 3.5v5h-5\" fill=\"none\" stroke=\"currentColor\" \
stroke-width=\"2.4\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/></svg>";

/// How many operations are at a readiness (none without a policy).
pub(super) fn readiness_count(report: &Report, r: Readiness) -> usize {
    report.summary.readiness.as_ref().map_or(0, |c| c.get(r))
}

pub(super) fn label(r: Readiness) -> &'static str {
    match r {
        Readiness::Unsafe => "Unsafe",
        Readiness::NeedsWork => "Needs work",
        Readiness::Ready => "Ready",
    }
}

pub(super) fn state_label(state: ContractState) -> &'static str {
    match state {
        ContractState::Unprotected => "Unprotected",
        ContractState::KeyIncomplete => "Key incomplete",
        ContractState::RetrySafeWithReconcile => "Retry-safe with reconcile",
        ContractState::RetrySafe => "Retry-safe",
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// One summary card that filters the table on `field = value`.
fn card(
    out: &mut String,
    class: &str,
    (field, value): (&str, &str),
    title: &str,
    n: usize,
    of: usize,
    meaning: &str,
) {
    w!(
        out,
        "<button type=\"button\" class=\"card {class}\" data-set=\"{field}\" data-value=\"{value}\" \
         title=\"Show only these operations\"><span class=\"card-l\"><span class=\"dot\"></span>{title}</span>\
         <span class=\"card-n\">{}<small>{:.0}%</small></span><span class=\"card-m\">{}</span></button>\n",
        count(n),
        percent(n, of),
        esc(meaning),
    );
}

/// A bar of the shares of `parts` (class, count) in `whole`.
fn meter(out: &mut String, label: &str, parts: &[(String, usize)], whole: usize) {
    w!(
        out,
        "<div class=\"meter\" role=\"img\" aria-label=\"{}\">",
        esc(label)
    );
    for (class, n) in parts {
        if *n > 0 {
            w!(
                out,
                "<span class=\"{class}\" style=\"width:{}%\"></span>",
                num(percent(*n, whole))
            );
        }
    }
    out.push_str("</div>\n");
}

pub(super) fn summary(out: &mut String, report: &Report) {
    let s = &report.summary;
    let c = &s.contract;
    out.push_str(
        "<section class=\"summary\" aria-labelledby=\"summary-h\">\n<h2 id=\"summary-h\">Summary</h2>\n",
    );
    // The answer first.
    let writes = if c.writes == 0 {
        "<strong>No operation is a non-idempotent write</strong>: repeating any of them is harmless."
            .to_string()
    } else {
        format!(
            "<strong>{} of {} writes can be retried safely</strong> by any client: {} through a promised key, {} through a status endpoint; {} unprotected, {} with a key the contract does not promise.",
            count(c.writes_retry_safe),
            count(c.writes),
            count(
                c.writes_retry_safe
                    .saturating_sub(c.states.retry_safe_with_reconcile)
            ),
            count(c.states.retry_safe_with_reconcile),
            count(c.states.unprotected),
            count(c.states.key_incomplete),
        )
    };
    w!(
        out,
        "<p class=\"answer\">{writes} {} of {} operations declare neither 429 nor 503; {} declare them without saying when to come back.</p>\n",
        count(c.without_throttle_status),
        count(s.operations),
        count(c.without_wait_hint)
    );
    if s.readiness.is_some() {
        out.push_str("<div class=\"cards\">\n");
        for r in LEVELS {
            card(
                out,
                &format!("r-{}", r.as_str()),
                ("readiness", r.as_str()),
                label(r),
                readiness_count(report, r),
                s.operations,
                r.meaning(),
            );
        }
        w!(
            out,
            "<div class=\"card retried\"><span class=\"card-l\"><span class=\"dot\"></span>Retried</span>\
             <span class=\"card-n\">{}<small>of {}</small></span><span class=\"card-m\">operations the policy \
             retries; the others make one attempt</span></div>\n</div>\n",
            count(s.retried),
            count(s.operations)
        );
        let parts: Vec<(String, usize)> = LEVELS
            .iter()
            .map(|r| (format!("r-{}", r.as_str()), readiness_count(report, *r)))
            .collect();
        let label = format!(
            "{} unsafe, {} needs work, {} ready",
            parts[0].1, parts[1].1, parts[2].1
        );
        meter(out, &label, &parts, s.operations);
    }
    out.push_str("<div class=\"cards contract\">\n");
    for state in ContractState::ALL {
        card(
            out,
            &format!("s-{}", state.as_str()),
            ("contract", state.as_str()),
            state_label(state),
            c.states.get(state),
            s.operations,
            state.meaning(),
        );
    }
    out.push_str("</div>\n");
    let parts: Vec<(String, usize)> = ContractState::ALL
        .iter()
        .map(|state| (format!("s-{}", state.as_str()), c.states.get(*state)))
        .collect();
    let label = ContractState::ALL
        .iter()
        .map(|state| format!("{} {}", c.states.get(*state), state.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    meter(out, &label, &parts, s.operations);
    out.push_str("<div class=\"cols\">\n<section class=\"panel\" aria-labelledby=\"rules-h\"><h3 id=\"rules-h\">Findings by rule</h3>\n");
    if s.rules.is_empty() {
        out.push_str("<p class=\"none\">No findings.</p>\n");
    } else {
        let most = s.rules.iter().map(|r| r.count).max().unwrap_or(1).max(1);
        out.push_str("<ol class=\"rules\">\n");
        // `summary.rules` is ordered by severity, then count.
        for r in &s.rules {
            w!(
                out,
                "<li><button type=\"button\" data-set=\"rule\" data-value=\"{0}\" title=\"Show only operations with {0}\">\
                 <span class=\"sev sev-{1}\">{1}</span><code>{0}</code><span class=\"rbar b-{1}\"><span style=\"width:{2}%\"></span></span>\
                 <span class=\"rc\">{3}</span></button></li>\n",
                esc(r.rule),
                esc(r.severity),
                num(percent(r.count, most)),
                count(r.count)
            );
        }
        out.push_str("</ol>\n");
    }
    out.push_str("</section>\n");
    by_tag(out, report);
    if s.readiness.is_some() {
        w!(
            out,
            "<section class=\"panel\" aria-labelledby=\"policy-h\"><h3 id=\"policy-h\">Policy findings \
             <span class=\"pill\">{}</span></h3>\n",
            s.policy_findings.len()
        );
        if s.policy_findings.is_empty() {
            out.push_str(
                "<p class=\"none\">None: every part of the policy applies to some operation.</p>\n",
            );
        } else {
            findings(out, &s.policy_findings);
        }
        out.push_str("</section>\n");
    }
    out.push_str("</div>\n</section>\n");
}

/// The writes of each tag, the tags with the most unprotected writes first; a tag
/// filters the table.
fn by_tag(out: &mut String, report: &Report) {
    let mut tags: Vec<_> = report
        .summary
        .contract
        .by_tag
        .iter()
        .filter(|t| t.writes > 0)
        .collect();
    out.push_str("<section class=\"panel\" aria-labelledby=\"tags-h\"><h3 id=\"tags-h\">Writes by tag</h3>\n");
    if tags.is_empty() {
        out.push_str("<p class=\"none\">No non-idempotent write.</p>\n</section>\n");
        return;
    }
    tags.sort_by(|a, b| {
        (b.states.unprotected, b.states.key_incomplete)
            .cmp(&(a.states.unprotected, a.states.key_incomplete))
            .then(a.tag.cmp(&b.tag))
    });
    out.push_str(
        "<table class=\"tags\"><thead><tr><th>Tag</th><th>Writes</th><th>Retry-safe</th>\
         <th>Unprotected</th><th>Key incomplete</th></tr></thead>\n<tbody>\n",
    );
    for t in tags.iter().take(TAGS_LISTED) {
        // Operations without a tag are counted together, under a name no filter has.
        let name = if t.tag == UNTAGGED {
            format!("<span class=\"muted\">{}</span>", esc(UNTAGGED))
        } else {
            format!(
                "<button type=\"button\" class=\"linkish\" data-set=\"tag\" data-value=\"{0}\" \
                 title=\"Show only operations tagged {0}\">{0}</button>",
                esc(&t.tag)
            )
        };
        w!(
            out,
            "<tr><td>{0}</td><td>{1}</td><td>{2}</td>\
             <td class=\"{3}\">{4}</td><td>{5}</td></tr>\n",
            name,
            count(t.writes),
            count(t.writes_retry_safe),
            if t.states.unprotected > 0 { "bad" } else { "" },
            count(t.states.unprotected),
            count(t.states.key_incomplete),
        );
    }
    out.push_str("</tbody></table>\n");
    if tags.len() > TAGS_LISTED {
        w!(
            out,
            "<p class=\"muted\">… and {} more tags with writes: filter the table by tag.</p>\n",
            tags.len() - TAGS_LISTED
        );
    }
    out.push_str("</section>\n");
}
