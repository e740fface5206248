//! The HTML report: one self-contained page that loads nothing.
//!
//! CSS, JavaScript and the SVG timelines are all inline, and a Content-Security-Policy
//! forbids any fetch. Every string from the report is escaped. Each operation is a
//! `<tbody>` whose `data-` attributes carry what the filters and the sorting need; the
//! script only reads them. The page is a pure function of the report: no timestamps.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{FindingReport, OperationReport, Readiness, Report};
use crate::analysis::contract::ContractState;
use crate::escape;

const CSS: &str = include_str!("html/report.css");
const JS: &str = include_str!("html/report.js");

/// The readiness levels, worst first.
const LEVELS: [Readiness; 3] = [Readiness::Unsafe, Readiness::NeedsWork, Readiness::Ready];

/// Writes to a `String`, which cannot fail.
macro_rules! w {
    ($out:expr, $($arg:tt)*) => {
        {
            let _ = write!($out, $($arg)*);
        }
    };
}

mod summary;
pub(crate) mod timeline;

use summary::{label, readiness_count, state_label};

/// Renders the report as one HTML page.
pub(crate) fn render(report: &Report) -> String {
    let mut out = String::with_capacity(16_384 + report.operations.len() * 6_144);
    head(&mut out, report);
    summary::header(&mut out, report);
    out.push_str("<main class=\"wrap\">\n");
    summary::summary(&mut out, report);
    operations(&mut out, report);
    out.push_str("</main>\n");
    w!(
        out,
        "<footer class=\"wrap foot\"><p>retrylint {} · {} report, format v{} · \
         self-contained: this page loads nothing from the network.</p></footer>\n\
         <script>\n{JS}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        kind(report),
        report.version
    );
    out
}

/// `readiness` with a client policy, `contract` without one.
fn kind(report: &Report) -> &'static str {
    if report.summary.readiness.is_some() {
        "readiness"
    } else {
        "contract"
    }
}

/// Text escaped for HTML content and attribute values.
pub(crate) fn esc(s: &str) -> escape::Html<'_> {
    escape::html(s)
}

fn head(out: &mut String, report: &Report) {
    w!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <meta name=\"generator\" content=\"retrylint\">\n\
         <title>Retry {} · {}</title>\n<style>\n{CSS}</style>\n\
         <noscript><style>.op .detail{{display:table-row}}.js-only,.tog{{display:none}}</style></noscript>\n\
         </head>\n<body>\n",
        kind(report),
        esc(&report.description)
    );
}

/// The distinct values of one column with their counts, in a stable order.
fn tally<'a>(values: impl Iterator<Item = &'a str>) -> BTreeMap<&'a str, usize> {
    let mut map = BTreeMap::new();
    for v in values {
        *map.entry(v).or_insert(0) += 1;
    }
    map
}

fn select(out: &mut String, name: &str, title: &str, options: &[(String, String)]) {
    w!(
        out,
        "<div class=\"field\"><label for=\"f-{name}\">{title}</label><select id=\"f-{name}\" name=\"{name}\">\
         <option value=\"\">All</option>"
    );
    for (value, text) in options {
        w!(
            out,
            "<option value=\"{}\">{}</option>",
            esc(value),
            esc(text)
        );
    }
    out.push_str("</select></div>\n");
}

fn method_rank(m: &str) -> usize {
    const ORDER: [&str; 8] = [
        "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "POST", "PATCH", "DELETE",
    ];
    ORDER.iter().position(|o| *o == m).unwrap_or(ORDER.len())
}

fn filters(out: &mut String, report: &Report) {
    let ops = &report.operations;
    out.push_str(
        "<form class=\"filters js-only\" id=\"filters\" role=\"search\" aria-label=\"Filter operations\">\n\
         <div class=\"field grow\"><label for=\"f-q\">Search</label><input type=\"search\" id=\"f-q\" name=\"q\" \
         placeholder=\"Path, operationId or tag — press /\" autocomplete=\"off\" spellcheck=\"false\"></div>\n",
    );
    if report.summary.readiness.is_some() {
        let levels: Vec<(String, String)> = LEVELS
            .iter()
            .map(|r| {
                (
                    r.as_str().to_string(),
                    format!("{} ({})", label(*r), readiness_count(report, *r)),
                )
            })
            .collect();
        select(out, "readiness", "Readiness", &levels);
    }
    let states: Vec<(String, String)> = ContractState::ALL
        .iter()
        .map(|s| {
            (
                s.as_str().to_string(),
                format!(
                    "{} ({})",
                    state_label(*s),
                    report.summary.contract.states.get(*s)
                ),
            )
        })
        .collect();
    select(out, "contract", "Contract", &states);
    let mut methods: Vec<(&str, usize)> = tally(ops.iter().map(|o| o.method.as_str()))
        .into_iter()
        .collect();
    methods.sort_by_key(|(m, _)| (method_rank(m), *m));
    let methods: Vec<(String, String)> = methods
        .into_iter()
        .map(|(m, n)| (m.to_string(), format!("{m} ({n})")))
        .collect();
    select(out, "method", "Method", &methods);
    let tags: Vec<(String, String)> =
        tally(ops.iter().flat_map(|o| o.tags.iter().map(String::as_str)))
            .into_iter()
            .map(|(t, n)| (t.to_string(), format!("{t} ({n})")))
            .collect();
    select(out, "tag", "Tag", &tags);
    let rules: Vec<(String, String)> = report
        .summary
        .rules
        .iter()
        .map(|r| (r.rule.to_string(), format!("{} ({})", r.rule, r.count)))
        .collect();
    select(out, "rule", "Rule", &rules);
    out.push_str("<div class=\"field btns\"><button type=\"reset\" class=\"btn\">Reset</button></div>\n</form>\n");
}

fn operations(out: &mut String, report: &Report) {
    let total = report.operations.len();
    w!(
        out,
        "<section class=\"ops\" id=\"operations\" aria-labelledby=\"ops-h\">\n<div class=\"ops-head\">\
         <h2 id=\"ops-h\">Operations</h2><p class=\"shown\" id=\"shown\" aria-live=\"polite\">{} operations</p>\
         <div class=\"tools js-only\"><button type=\"button\" class=\"btn\" id=\"expand-all\">Expand all</button>\
         <button type=\"button\" class=\"btn\" id=\"collapse-all\">Collapse all</button></div></div>\n",
        count(total)
    );
    filters(out, report);
    out.push_str("<div class=\"table-wrap\"><table class=\"ops-table\" id=\"ops\">\n<thead><tr><th class=\"c-tog\"><span class=\"sr\">Details</span></th>");
    let policy_view = report.summary.readiness.is_some();
    let readiness = policy_view.then_some(("readiness", "Readiness", "c-r"));
    let columns = [
        ("contract", "Contract", "c-c"),
        ("method", "Method", "c-m"),
        ("path", "Path", "c-p"),
        ("id", "operationId", "c-id"),
        ("tags", "Tags", "c-t"),
        ("reason", "Reason", "c-why"),
        ("findings", "Findings", "c-f"),
    ];
    // The report's own order: by readiness with a policy, by contract state without.
    let first = if policy_view { "readiness" } else { "contract" };
    for (key, title, class) in readiness.into_iter().chain(columns) {
        let sort = if key == first { "ascending" } else { "none" };
        w!(
            out,
            "<th class=\"{class}\" aria-sort=\"{sort}\"><button type=\"button\" data-sort=\"{key}\">{title}\
             <span class=\"arrow\" aria-hidden=\"true\"></span></button></th>"
        );
    }
    out.push_str("</tr></thead>\n");
    for (i, op) in report.operations.iter().enumerate() {
        operation(out, i, op, &report.description, policy_view);
    }
    out.push_str(
        "</table></div>\n<p class=\"empty\" id=\"empty\" hidden>No operation matches these filters.</p>\n</section>\n",
    );
}

fn operation(
    out: &mut String,
    i: usize,
    op: &OperationReport,
    description: &str,
    policy_view: bool,
) {
    let id = i + 1;
    let mut rules: Vec<&str> = op.findings.iter().map(|f| f.rule).collect();
    rules.sort_unstable();
    rules.dedup();
    let r = op.readiness.map_or("", Readiness::as_str);
    let c = op.contract.state.as_str();
    let op_id = op.operation_id.as_deref().unwrap_or("");
    let name = format!("{} {}", op.method, op.path);
    w!(
        out,
        "<tbody class=\"op\" data-op=\"{id}\" data-i=\"{i}\" data-readiness=\"{r}\" data-contract=\"{c}\" \
         data-method=\"{}\" data-path=\"{}\" \
         data-id=\"{}\" data-tags=\"{}\" data-effect=\"{}\" data-rules=\"{}\" data-findings=\"{}\">\n\
         <tr class=\"row\"><td class=\"c-tog\"><button type=\"button\" class=\"tog\" aria-expanded=\"false\" \
         aria-controls=\"op-{id}-d\"><span class=\"sr\">Details of {}</span></button></td>",
        esc(&op.method),
        esc(&op.path),
        esc(op_id),
        esc(&op.tags.join("\n")),
        esc(&op.effect),
        esc(&rules.join(" ")),
        op.findings.len(),
        esc(&name),
    );
    if policy_view {
        w!(
            out,
            "<td class=\"c-r\"><span class=\"badge r-{r}\">{r}</span></td>"
        );
    }
    w!(
        out,
        "<td class=\"c-c\"><span class=\"badge s-{c}\">{c}</span></td>\
         <td class=\"c-m\"><span class=\"method m-{}\">{}</span></td><td class=\"c-p\"><code>",
        esc(&op.method.to_ascii_lowercase()),
        esc(&op.method),
    );
    path(out, &op.path);
    out.push_str("</code></td><td class=\"c-id\">");
    match &op.operation_id {
        Some(o) => {
            out.push_str("<code>");
            breakable(out, o);
            out.push_str("</code>");
        }
        None => out.push_str("<span class=\"muted\">—</span>"),
    }
    out.push_str("</td><td class=\"c-t\">");
    for t in &op.tags {
        w!(out, "<span class=\"tag\">{}</span>", esc(t));
    }
    out.push_str("</td><td class=\"c-why\">");
    rich(out, &op.reason);
    w!(
        out,
        "</td><td class=\"c-f\"><span class=\"fc\">{}</span>",
        op.findings.len()
    );
    for (sev, short) in [("error", "e"), ("warning", "w"), ("info", "i")] {
        let n = op.findings.iter().filter(|f| f.severity == sev).count();
        if n > 0 {
            let plural = if n == 1 { "" } else { "s" };
            w!(
                out,
                "<span class=\"pip p-{short}\" title=\"{n} {sev}{plural}\">{n}</span>"
            );
        }
    }
    w!(
        out,
        "</td></tr>\n<tr class=\"detail\" id=\"op-{id}-d\"><td colspan=\"{}\"><div class=\"detail-body\">\n<div class=\"answers\">\n",
        if policy_view { 9 } else { 8 }
    );
    let a = &op.answers;
    let k = &op.contract;
    let contract = format!("{} — {}", k.state.as_str(), k.reason);
    let key = k.key.clone().unwrap_or_else(|| "none declared".into());
    let status = k
        .status_endpoint
        .clone()
        .unwrap_or_else(|| "none declared".into());
    let answers: Vec<(&str, &String)> = if policy_view {
        vec![
            ("What repeats", &a.effect),
            ("Why repeating is safe", &a.safety),
            ("Time and attempts", &a.budget),
            ("Unknown outcome", &a.unknown_outcome),
            ("Contract", &contract),
            ("Throttling", &k.throttling),
        ]
    } else {
        vec![
            ("What repeats", &k.effect),
            ("Contract", &contract),
            ("Idempotency key", &key),
            ("Status endpoint", &status),
            ("Throttling", &k.throttling),
        ]
    };
    let layers = a.layers.as_ref().map(|text| ("Layers", text));
    for (title, text) in answers.into_iter().chain(layers) {
        let weak = text.starts_with("not safe")
            || text == "not said"
            || text.starts_with("unprotected")
            || text.starts_with("no 429");
        w!(
            out,
            "<div class=\"ans{}\"><h4>{title}</h4><p>{}</p></div>\n",
            if weak { " weak" } else { "" },
            esc(text)
        );
    }
    out.push_str("</div>\n");
    if let Some(s) = &op.schedule {
        timeline::render(out, &name, s);
        // The simulator shows what this schedule does to a server in an outage. The
        // command is quoted for a POSIX shell: each value stays one literal argument.
        let command = format!(
            "retrylint simulate {} --operation {} --fault 503@10s..40s --compare jitter=none --format html -o simulation.html",
            escape::shell(description),
            escape::shell(&format!("{} {}", op.method, op.path))
        );
        w!(
            out,
            "<p class=\"simulate\">What these retries do in an outage: <code>{}</code></p>\n",
            esc(&command)
        );
    }
    w!(
        out,
        "<div class=\"fx\"><h4>Findings <span class=\"pill\">{}</span></h4>\n",
        op.findings.len()
    );
    if op.findings.is_empty() {
        out.push_str(
            "<p class=\"none\">No findings: nothing to fix before enabling retries.</p>\n",
        );
    } else {
        findings(out, &op.findings);
    }
    w!(
        out,
        "</div>\n<p class=\"permalink\"><a href=\"#op-{id}\">Link to this operation</a></p>\n</div></td></tr>\n</tbody>\n"
    );
}

/// A path with its `{parameters}` marked and a line-break opportunity before each `/`.
fn path(out: &mut String, p: &str) {
    for (k, segment) in p.split('/').enumerate() {
        match k {
            0 => {}
            1 => out.push('/'),
            _ => out.push_str("<wbr>/"),
        }
        let mut rest = segment;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|c| open + c) else {
                break;
            };
            w!(
                out,
                "{}<span class=\"param\">{}</span>",
                esc(&rest[..open]),
                esc(&rest[open..=close])
            );
            rest = &rest[close + 1..];
        }
        w!(out, "{}", esc(rest));
    }
}

/// An operationId with a line-break opportunity after each `/`.
fn breakable(out: &mut String, text: &str) {
    for (k, part) in text.split('/').enumerate() {
        if k > 0 {
            out.push_str("/<wbr>");
        }
        w!(out, "{}", esc(part));
    }
}

fn findings(out: &mut String, list: &[FindingReport]) {
    out.push_str("<ul class=\"findings\">\n");
    for f in list {
        let l = &f.location;
        w!(
            out,
            "<li class=\"finding f-{0}\"><p class=\"f-head\"><span class=\"sev sev-{0}\">{0}</span>\
             <code class=\"rule\">{1}</code></p><p class=\"f-msg\">",
            esc(f.severity),
            esc(f.rule),
        );
        rich(out, &f.message);
        out.push_str("</p>");
        if let Some(help) = &f.help {
            out.push_str("<p class=\"f-help\"><span>help</span>");
            rich(out, help);
            out.push_str("</p>");
        }
        w!(
            out,
            "<p class=\"f-loc\"><code>{}:{}:{}</code>",
            esc(&l.file),
            l.line,
            l.column
        );
        if !l.pointer.is_empty() {
            w!(out, "<code class=\"ptr\">{}</code>", esc(&l.pointer));
        }
        out.push_str("</p></li>\n");
    }
    out.push_str("</ul>\n");
}

/// Text with its `backquoted` parts set as code.
fn rich(out: &mut String, text: &str) {
    let parts: Vec<&str> = text.split('`').collect();
    // An odd count of backquotes leaves them as they are.
    let paired = !parts.len().is_multiple_of(2);
    for (k, part) in parts.iter().enumerate() {
        if k % 2 == 1 && paired {
            w!(out, "<code>{}</code>", esc(part));
        } else if k > 0 && !paired {
            w!(out, "`{}", esc(part));
        } else {
            w!(out, "{}", esc(part));
        }
    }
}

/// A number for an attribute: at most one decimal, no trailing zero.
fn num(x: f64) -> String {
    let x = if x.is_finite() { x } else { 0.0 };
    let s = format!("{x:.1}");
    s.strip_suffix(".0").unwrap_or(&s).to_string()
}

/// A count with thousands separators.
fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("<a href=\"x\">&'").to_string(),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(esc("plain é").to_string(), "plain é");
    }

    #[test]
    fn inline_assets_cannot_close_their_elements() {
        assert!(!JS.to_ascii_lowercase().contains("</script"));
        assert!(!CSS.to_ascii_lowercase().contains("</style"));
        assert!(!CSS.contains("url(") && !CSS.contains("@import"));
    }

    #[test]
    fn backquotes_become_code() {
        let rich = |text: &str| {
            let mut out = String::new();
            super::rich(&mut out, text);
            out
        };
        assert_eq!(rich("set `a<b` now"), "set <code>a&lt;b</code> now");
        assert_eq!(rich("one ` only"), "one ` only");
        assert_eq!(rich("plain"), "plain");
    }

    #[test]
    fn formats_numbers() {
        assert_eq!(count(1_223), "1,223");
        assert_eq!(count(12), "12");
        assert_eq!(num(62.5), "62.5");
        assert_eq!(num(100.0), "100");
        assert_eq!(num(f64::NAN), "0");
    }
}
