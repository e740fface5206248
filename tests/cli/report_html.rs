//! `retrylint report --format html`, through the real binary: one self-contained page.

use crate::common;

use common::{retrylint, retrylint_in};
use serde_json::Value;

const DEMO: &str = "fixtures/shop/openapi.yaml";

fn html(args: &[&str]) -> String {
    let run = retrylint(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

fn demo_html() -> String {
    html(&["report", DEMO, "--format", "html"])
}

/// The values of every `name="…"` attribute in the page.
fn attribute_values<'a>(page: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!(" {name}=\"");
    page.match_indices(&needle)
        .filter_map(|(i, _)| {
            let rest = &page[i + needle.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

/// The page cut into one chunk per operation, in report order.
fn operation_chunks(page: &str) -> Vec<&str> {
    page.split("<tbody class=\"op\"").skip(1).collect()
}

#[test]
fn html_report_is_one_self_contained_page() {
    let page = demo_html();
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..60]);
    assert!(page.trim_end().ends_with("</html>"));
    let lower = page.to_ascii_lowercase();
    for forbidden in [
        "http://",
        "https://",
        "<link",
        "<script src",
        "@import",
        "url(",
        "<img",
        "<iframe",
        "<object",
        "<embed",
    ] {
        assert!(
            !lower.contains(forbidden),
            "the page contains {forbidden:?}"
        );
    }
    for attribute in ["src", "href", "xlink:href", "action"] {
        for value in attribute_values(&page, attribute) {
            assert!(
                value.starts_with('#') && !value.contains("//"),
                "{attribute}=\"{value}\" points outside the page"
            );
        }
    }
    // Only inline styles and scripts may run, and nothing may be fetched.
    assert!(page.contains(
        "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\""
    ));
    assert_eq!(lower.matches("<script").count(), 1);
    assert_eq!(
        lower.matches("<style").count(),
        2,
        "the stylesheet and its no-script part"
    );
    // Both colour schemes, and a printable layout.
    assert!(page.contains("@media (prefers-color-scheme: dark)"));
    assert!(page.contains("@media print"));
}

#[test]
fn html_report_has_a_row_per_operation_and_a_timeline_per_retried_one() {
    let page = demo_html();
    let json = retrylint(&["report", DEMO, "--format", "json"]);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    let ops = report["operations"].as_array().unwrap();
    let scheduled = ops.iter().filter(|o| !o["schedule"].is_null()).count();
    assert_eq!((ops.len(), scheduled), (8, 7));
    assert_eq!(page.matches("<tr class=\"row\">").count(), ops.len());
    assert_eq!(page.matches("<tr class=\"detail\"").count(), ops.len());
    assert_eq!(page.matches("<svg class=\"tl\"").count(), scheduled);
    // The timelines and the logo: no other drawing.
    assert_eq!(page.matches("<svg").count(), scheduled + 1);
    let chunks = operation_chunks(&page);
    assert_eq!(chunks.len(), ops.len());
    for (op, chunk) in ops.iter().zip(&chunks) {
        let readiness = op["readiness"].as_str().unwrap();
        assert!(
            chunk.contains(&format!("data-readiness=\"{readiness}\"")),
            "{chunk}"
        );
        assert!(chunk.contains(&format!(
            "data-method=\"{}\"",
            op["method"].as_str().unwrap()
        )));
        assert_eq!(
            chunk.contains("<svg class=\"tl\""),
            !op["schedule"].is_null()
        );
        assert_eq!(
            chunk.matches("<li class=\"finding").count(),
            op["findings"].as_array().unwrap().len()
        );
        for answer in ["effect", "safety", "budget", "unknownOutcome"] {
            // The page escapes the description's words (quotes included).
            let text = op["answers"][answer].as_str().unwrap();
            assert!(
                common::html_unescape(chunk).contains(text),
                "{answer}: {text}"
            );
        }
    }
}

#[test]
fn html_report_summarises_readiness_rules_and_policy_findings() {
    let page = demo_html();
    assert!(page.contains("<h1>fixtures/shop/openapi.yaml</h1>"));
    assert!(page.contains("<code>fixtures/shop/retry-policy.yaml</code>"));
    // The legend: every readiness with its meaning.
    for (readiness, count) in [("unsafe", 5), ("needs-work", 2), ("ready", 1)] {
        let card = format!("class=\"card r-{readiness}\"");
        let start = page.find(&card).expect(readiness);
        let end = start + page[start..].find("</button>").unwrap();
        assert!(page[start..end].contains(&format!("<span class=\"card-n\">{count}<small>")));
    }
    assert!(page.contains("an error finding: retrying as configured can repeat a write"));
    // Rules by severity, then count: one error before seven warnings.
    let rules = page.find("<ol class=\"rules\">").unwrap();
    let first = page[rules..].find("backoff-without-jitter").unwrap();
    let second = page[rules..].find("retry-after-header-undeclared").unwrap();
    assert!(first < second);
    // The contract beside the readiness: a card per state, and the answer in words.
    for (state, count) in [
        ("unprotected", 1),
        ("key-incomplete", 0),
        ("retry-safe-with-reconcile", 0),
        ("retry-safe", 7),
    ] {
        let card = format!("class=\"card s-{state}\" data-set=\"contract\"");
        let start = page.find(&card).expect(state);
        let end = start + page[start..].find("</button>").unwrap();
        assert!(page[start..end].contains(&format!("<span class=\"card-n\">{count}<small>")));
    }
    assert!(page.contains("<strong>2 of 3 writes can be retried safely</strong>"));
    // The policy-level finding, with its place in the policy.
    assert!(page.contains("matches no operation of fixtures/shop/openapi.yaml"));
    assert!(page.contains("<code>fixtures/shop/retry-policy.yaml:38:3</code>"));
}

#[test]
fn html_report_filters_and_sorts_with_labelled_controls() {
    let page = demo_html();
    for name in ["q", "readiness", "contract", "method", "tag", "rule"] {
        assert!(
            page.contains(&format!("<label for=\"f-{name}\">")),
            "{name}"
        );
        assert!(
            page.contains(&format!("id=\"f-{name}\" name=\"{name}\"")),
            "{name}"
        );
    }
    for key in [
        "readiness",
        "contract",
        "method",
        "path",
        "id",
        "tags",
        "reason",
        "findings",
    ] {
        assert!(
            page.contains(&format!("<button type=\"button\" data-sort=\"{key}\">")),
            "{key}"
        );
    }
    assert!(page.contains("<option value=\"payments\">payments (3)</option>"));
    assert!(page.contains("<option value=\"DELETE\">DELETE (1)</option>"));
    // Each row carries its rules for the rule filter, and a toggle for its details.
    let pay = operation_chunks(&page)[0];
    assert!(pay.contains(
        "data-rules=\"retry-after-header-undeclared unknown-outcome-unhandled unprotected-write-retry\""
    ));
    assert!(pay.contains("aria-expanded=\"false\" aria-controls=\"op-1-d\""));
    assert!(pay.contains("data-readiness=\"unsafe\" data-contract=\"unprotected\""));
    // The reason column is the first finding's message, without the operation.
    assert!(pay.contains(
        "<td class=\"c-why\">is retried on 503 and timeout with no idempotency key or status endpoint: a retry can repeat the write</td>"
    ));
    assert!(page.contains("<tr class=\"detail\" id=\"op-1-d\">"));
}

#[test]
fn html_timelines_show_waits_the_deadline_and_the_stop() {
    let page = demo_html();
    let chunks = operation_chunks(&page);
    let find = |id: &str| {
        *chunks
            .iter()
            .find(|c| c.contains(&format!("data-id=\"{id}\"")))
            .unwrap_or_else(|| panic!("{id}"))
    };
    let pay = find("payOrder");
    assert!(pay.contains(
        "aria-label=\"Worst-case schedule of POST /orders/{orderId}/payments: 3 attempts · deadline 20s · worst case 19s · stops: max-attempts\""
    ));
    assert!(pay.contains("<title>Worst-case schedule of POST /orders/{orderId}/payments"));
    assert_eq!(pay.matches("<rect class=\"att\"").count(), 3);
    // Each wait may be a 2 s Retry-After (honoured up to retryAfter.max).
    assert!(pay.contains("wait 0–2s"));
    assert!(pay.contains("<line class=\"dl\""));
    assert!(pay.contains(">deadline 20s</text>"));
    assert!(pay.contains(">max-attempts at 19s</text>"));
    // No deadline: no deadline line, and the drawing says so.
    let payment = find("getPayment");
    assert_eq!(payment.matches("<rect class=\"att\"").count(), 5);
    assert!(!payment.contains("<line class=\"dl\""));
    assert!(payment.contains(">no deadline</text>"));
    // Not retried: no timeline.
    assert!(!find("getHealth").contains("<svg"));
}

#[test]
fn html_report_escapes_hostile_strings() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-html-hostile");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  '/items/<script>alert(1)</script>&\"q\"':\n    post:\n      operationId: '<script>&\"op''s'\n      tags: ['<b>&\"tag\"']\n      responses:\n        '503': {description: busy}\n        default: {description: e}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        "version: 1\ndefaults: {maxAttempts: 3, deadline: 10s, perAttemptTimeout: 2s, retryOn: [503, timeout], backoff: {base: 100ms, cap: 2s, jitter: full}}\n",
    )
    .unwrap();
    let run = retrylint_in(&dir, &["report", "openapi.yaml", "--format", "html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = run.stdout;
    // Only the page's own script; the hostile strings appear escaped, in text and attributes.
    assert_eq!(page.matches("<script").count(), 1);
    assert!(!page.contains("<b>"));
    assert!(!page.contains("&\"q"));
    assert!(
        page.contains(
            "data-path=\"/items/&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;q&quot;\""
        )
    );
    assert!(page.contains("data-id=\"&lt;script&gt;&amp;&quot;op&#39;s\""));
    assert!(page.contains("<span class=\"tag\">&lt;b&gt;&amp;&quot;tag&quot;</span>"));
    assert!(page.contains(
        "<p class=\"f-msg\">POST /items/&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;q&quot; "
    ));
    assert!(page.contains(
        "aria-label=\"Worst-case schedule of POST /items/&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;q&quot;:"
    ));
}

#[test]
fn html_report_is_byte_identical_across_runs() {
    let first = demo_html();
    let second = demo_html();
    assert!(first == second, "two runs differ");
    // Written to a file, it is the same page.
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-html-demo.html");
    let run = retrylint(&[
        "report",
        DEMO,
        "--format",
        "html",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(std::fs::read_to_string(&out).unwrap() == first);
}

#[test]
#[cfg(unix)]
fn html_report_points_each_retried_operation_to_a_simulation_that_runs() {
    let run = common::retrylint(&["report", "fixtures/shop/openapi.yaml", "--format", "html"]);
    assert_eq!(run.code, 0);
    let start = run
        .stdout
        .find("<code>retrylint simulate ")
        .expect("a simulate command")
        + "<code>retrylint ".len();
    let end = start + run.stdout[start..].find("</code>").unwrap();
    let command = common::html_unescape(&run.stdout[start..end]);
    // `simulate SPEC --operation 'METHOD /path' --fault … -o simulation.html`, as a shell
    // reads it: run it, writing elsewhere.
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("simulation.html");
    let mut args = common::shell_words(&command);
    let o = args.iter().position(|a| a == "-o").unwrap();
    args[o + 1] = out.to_string_lossy().into_owned();
    assert!(args.contains(&"--operation".to_string()), "{command}");
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let sim = common::retrylint(&argv);
    assert_eq!(sim.code, 0, "{command}: {}", sim.stderr);
    assert!(std::fs::read_to_string(&out).unwrap().contains("<svg"));
    let retried = run.stdout.matches("<p class=\"simulate\">").count();
    assert_eq!(retried, 7, "one per retried operation of the demo");
}

#[test]
fn html_report_without_a_policy_shows_contract_states_and_never_ready() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-contract");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    common::copy_fixture("fixtures/contract/openapi.yaml", &dir, "openapi.yaml");
    let run = common::retrylint_in(&dir, &["report", "openapi.yaml", "--format", "html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = run.stdout;
    assert!(page.contains("<title>Retry contract · openapi.yaml</title>"));
    assert!(page.contains("none: what the description alone lets any client do"));
    // No readiness anywhere: no card, no filter, no column, no badge.
    assert!(!page.contains("data-set=\"readiness\""));
    assert!(!page.contains("id=\"f-readiness\""));
    assert!(!page.contains("data-sort=\"readiness\""));
    assert!(!page.contains("class=\"badge r-") && !page.contains("class=\"card r-"));
    // 8 writes: 4 with a status endpoint and 1 with a required key and its conflict
    // responses can be retried; 2 keys are optional; 1 write has nothing.
    assert!(page.contains("<strong>5 of 8 writes can be retried safely</strong>"));
    for state in [
        "unprotected",
        "key-incomplete",
        "retry-safe-with-reconcile",
        "retry-safe",
    ] {
        assert!(
            page.contains(&format!("<span class=\"badge s-{state}\">{state}</span>")),
            "{state}"
        );
    }
    // The table's first column sorts by contract state.
    assert!(page.contains(
        "<th class=\"c-c\" aria-sort=\"ascending\"><button type=\"button\" data-sort=\"contract\">"
    ));
    assert!(page.contains("<h3 id=\"tags-h\">Writes by tag</h3>"));
}

/// Whether `text` holds a C0 or C1 control other than the tab and line breaks a page's
/// source may have: a terminal showing the page would obey it.
fn has_raw_control(text: &str) -> bool {
    text.chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

#[test]
fn html_pages_show_control_characters_from_layer_files_as_text() {
    let dir = common::scratch("report-html-controls");
    // ESC and BEL in an operationId of the description, too.
    let description = std::fs::read_to_string(common::layers_demo::DEMO)
        .unwrap()
        .replace(
            "operationId: createPayment",
            "operationId: \"create\\e[1mPayment\\a\"",
        );
    std::fs::write(dir.join("openapi.yaml"), description).unwrap();
    common::copy_fixture(
        "fixtures/layers/payments/retry-policy.yaml",
        &dir,
        "retry-policy.yaml",
    );
    // ESC, BEL and a C1 control in the object's name and the route's.
    std::fs::write(
        dir.join("mesh.yaml"),
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: \"pay\\e[2J\\a\\x9bments\", namespace: prod}\nspec:\n  hosts: [payments.prod.svc.cluster.local]\n  http:\n  - name: \"all\\e]0;title\\a\"\n    route: [{destination: {host: payments}}]\n",
    )
    .unwrap();
    // A page of each command that writes HTML, from the same inputs.
    let page = |command: &[&str]| {
        let mut args = vec![command[0], "openapi.yaml", "-p", "retry-policy.yaml"];
        args.extend(["-p", "mesh.yaml", "--format", "html"]);
        args.extend(&command[1..]);
        let run = retrylint_in(&dir, &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            !has_raw_control(&run.stdout),
            "a raw control in {command:?}"
        );
        run.stdout
    };
    let report = page(&["report"]);
    assert!(report.contains("Istio VirtualService pay\\e[2J\\u{7}\\u{9b}ments"));
    let simulation = page(&["simulate", "--operation", "POST /payments"]);
    assert!(simulation.contains("create\\e[1mPayment\\u{7}"));
}
