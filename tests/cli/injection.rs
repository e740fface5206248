//! Text from a description is data wherever it is printed: a terminal, a GitHub Actions
//! log, a generated policy, a Markdown comment, an HTML page, a shell command. Every
//! command runs on `fixtures/hostile`, whose paths, operationIds, summaries, header names
//! and policy selector hold ESC sequences, BEL, CR, LF, C1 controls, DEL, line
//! separators, workflow commands, YAML syntax, Markdown, HTML and shell syntax.

use crate::common;

use common::{Run, retrylint, retrylint_in};
use std::path::{Path, PathBuf};

const SPEC: &str = "fixtures/hostile/openapi.json";

/// Every command and format that prints to standard output, on `spec`.
fn every_command(spec: &str) -> Vec<Vec<String>> {
    let mut all: Vec<Vec<&str>> = vec![
        vec!["plan", spec],
        vec!["init", spec],
        vec!["report", spec],
        vec!["report", spec, "--format", "html"],
        vec!["report", spec, "--format", "json"],
        vec!["simulate", spec, "--operation", "PATCH /tags"],
        vec![
            "simulate",
            spec,
            "--operation",
            "PATCH /tags",
            "--format",
            "json",
        ],
        vec![
            "simulate",
            spec,
            "--operation",
            "PATCH /tags",
            "--format",
            "html",
        ],
        // An error that quotes the selector back.
        vec!["simulate", spec, "--operation", "GET /nope\n::error::arg"],
    ];
    for format in [
        "human", "concise", "json", "sarif", "github", "gitlab", "junit", "markdown",
    ] {
        all.push(vec!["check", spec, "--format", format]);
    }
    all.push(vec![
        "check",
        spec,
        "--format",
        "github",
        "--fail-on",
        "info",
    ]);
    all.push(vec!["check", spec, "--statistics"]);
    all.into_iter()
        .map(|args| args.into_iter().map(str::to_string).collect())
        .collect()
}

fn run(dir: &Path, args: &[String]) -> Run {
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = retrylint_in(dir, &argv);
    assert!(matches!(run.code, 0..=2), "{args:?} exit code {}", run.code);
    assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    run
}

/// A character that may not reach a terminal raw.
fn raw_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}')
}

fn is_github(args: &[String]) -> bool {
    args.windows(2)
        .any(|w| w[0] == "--format" && w[1] == "github")
}

/// Asserts no line starts a GitHub workflow command, except `--format github`'s own
/// annotations, each of which is one well-formed line per annotated finding (infos only
/// with `--fail-on info`), and its notice that Actions does not show them all; its
/// other lines are ours, starting with `retrylint: `.
fn no_workflow_command(args: &[String], run: &Run, findings: &Counts) {
    if is_github(args) {
        let every = args
            .windows(2)
            .any(|w| w[0] == "--fail-on" && w[1] == "info");
        let lines: Vec<&str> = run
            .stdout
            .lines()
            .filter(|l| !l.starts_with("retrylint: "))
            .filter(|l| !l.starts_with("::notice title=retrylint::"))
            .collect();
        assert_eq!(
            lines.len(),
            if every {
                findings.all
            } else {
                findings.annotated
            },
            "one line per finding: {}",
            run.stdout
        );
        for line in lines {
            let rest = line
                .strip_prefix("::error ")
                .or_else(|| line.strip_prefix("::warning "))
                .or_else(|| line.strip_prefix("::notice "))
                .unwrap_or_else(|| panic!("an annotation: {line}"));
            let (properties, _message) = rest.split_once("::").expect("properties::message");
            for property in properties.split(',') {
                let (key, _) = property.split_once('=').expect("key=value");
                assert!(
                    ["file", "line", "endLine", "col", "endColumn", "title"].contains(&key),
                    "{line}"
                );
            }
        }
    } else {
        for line in run.stdout.lines().chain(run.stderr.lines()) {
            assert!(!line.starts_with("::"), "{args:?} prints {line:?}");
        }
    }
}

/// How many findings a check reports, and how many of them are errors or warnings.
struct Counts {
    all: usize,
    annotated: usize,
}

fn finding_count(dir: &Path, spec: &str) -> Counts {
    let run = retrylint_in(dir, &["check", spec, "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = json["findings"].as_array().cloned().unwrap_or_default();
    Counts {
        all: findings.len(),
        annotated: findings.iter().filter(|f| f["severity"] != "info").count(),
    }
}

#[test]
fn no_command_prints_a_line_that_starts_a_workflow_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let findings = finding_count(root, SPEC);
    assert!(findings.annotated > 5, "the fixture has findings");
    for args in every_command(SPEC) {
        let run = run(root, &args);
        no_workflow_command(&args, &run, &findings);
    }
}

#[test]
fn junit_and_sarif_hold_description_text_as_data() {
    let junit = retrylint(&["check", SPEC, "--format", "junit"]);
    // The XML's own line breaks aside, nothing unsafe is written raw.
    if let Some(c) = junit.stdout.chars().find(|c| raw_control(*c)) {
        panic!("junit writes {c:?} raw:\n{}", junit.stdout);
    }
    assert!(junit.stdout.contains("pwned\\e[2J"), "{}", junit.stdout);
    // No SARIF message makes an embedded link out of a description's `[text](target)`.
    let dir = common::scratch("injection-sarif");
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a[l](https://e.example):\n    post:\n      responses: {'201': {description: ok}}\n",
    )
    .unwrap();
    let sarif = retrylint_in(&dir, &["check", "openapi.yaml", "--format", "sarif"]);
    let doc: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let texts: Vec<&str> = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["message"]["text"].as_str())
        .collect();
    assert!(!texts.is_empty(), "{}", sarif.stdout);
    for text in texts {
        assert!(!text.contains("[l]("), "{text}");
        assert!(text.contains("\\[l\\](https://e.example)"), "{text}");
    }
}

#[test]
fn human_output_shows_control_characters_escaped() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for args in every_command(SPEC) {
        let machine = args.windows(2).any(|w| {
            w[0] == "--format" && ["json", "sarif", "gitlab", "junit", "html"].contains(&&*w[1])
        });
        let run = run(root, &args);
        let shown = if machine {
            run.stderr.clone()
        } else {
            format!("{}{}", run.stdout, run.stderr)
        };
        if let Some(c) = shown.chars().find(|c| raw_control(*c)) {
            panic!("{args:?} prints {c:?} raw:\n{shown}");
        }
    }
    let check = retrylint(&["check", SPEC]);
    assert!(
        check.stdout.contains("pwned\\e[2J\\u{7}\\r\\u{85}"),
        "{}",
        check.stdout
    );
    let plan = retrylint(&["plan", SPEC]);
    assert!(
        plan.stdout.contains("POST /orders\\n::error"),
        "{}",
        plan.stdout
    );
}

/// A description file whose name holds a line break and an ESC sequence, and whose
/// comments hold raw control characters beside the lines findings point at.
#[cfg(unix)]
#[test]
fn file_names_and_raw_file_text_are_escaped_too() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("injection-names");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let name = "api\n::error::file\u{1b}[31m.yaml";
    std::fs::write(
        dir.join(name),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    # \u{1b}]0;title\u{7} \u{7f}::error::comment\n    post:\n      responses: {'201': {description: ok}}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        "version: 1\ndefaults: {maxAttempts: 3, deadline: 10s, perAttemptTimeout: 2s, retryOn: [503, timeout]}\n",
    )
    .unwrap();
    let findings = finding_count(&dir, name);
    assert!(findings.annotated > 0);
    for args in every_command(name) {
        if args[0] == "simulate" {
            continue;
        }
        let run = run(&dir, &args);
        no_workflow_command(&args, &run, &findings);
        if !args.iter().any(|a| a == "--format") {
            let shown = format!("{}{}", run.stdout, run.stderr);
            if let Some(c) = shown.chars().find(|c| raw_control(*c)) {
                panic!("{args:?} prints {c:?} raw:\n{shown}");
            }
        }
    }
    // The name is quoted into the comment that heads `init`'s policy: still one comment.
    let init = retrylint_in(&dir, &["init", name]);
    assert_eq!(
        parsed_selectors(&init.stdout),
        ["POST /a"],
        "{}",
        init.stdout
    );
    let check = retrylint_in(&dir, &["check", name]);
    assert!(
        check.stdout.contains("api\\n::error::file\\e[31m.yaml"),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains("\\e]0;title\\u{7} \\u{7f}::error"),
        "{}",
        check.stdout
    );
}

/// The operations `init` writes, parsed back with the project's own policy parser.
fn parsed_selectors(text: &str) -> Vec<String> {
    use retrylint::input::policy::parse_policy_file;
    use retrylint::input::source::{ParseLimits, SourceFile};
    let file = SourceFile::parse("init.yaml".into(), text.to_string(), ParseLimits::default())
        .unwrap_or_else(|(_, e)| panic!("init writes YAML: {e:?}\n{text}"));
    let policy = parse_policy_file(&file, 0, &retrylint::analysis::rules::names())
        .unwrap_or_else(|e| panic!("init writes a policy: {e}\n{text}"));
    policy
        .operations
        .iter()
        .map(|e| e.selector.to_string())
        .collect()
}

#[test]
fn init_keeps_description_text_out_of_the_yaml_structure() {
    let run = retrylint(&["init", SPEC]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let selectors = parsed_selectors(&run.stdout);
    let expected = [
        "POST /orders\n::error file=x::pwned\u{1b}[2J\u{7}\r\u{85}\u{2028}\u{7f} <img src=x onerror=alert(1)> ![i](https://e.example/x.png) [l](https://e.example) @octocat `tick`` | a | b |\n| c | d |",
        "POST /items",
        "POST /things",
        "PATCH /tags",
        "-x:#{a}&*!|>\"'`%@b,[c]",
        "put#1",
        "cleanId",
    ];
    let expected: Vec<String> = expected
        .iter()
        .map(|s| {
            retrylint::input::policy::Selector::parse(s)
                .unwrap()
                .to_string()
        })
        .collect();
    let mut got = selectors.clone();
    got.sort();
    let mut want = expected.clone();
    want.sort();
    assert_eq!(got, want, "{}", run.stdout);
    // Nothing but the intended keys: the header names stay values.
    assert!(!run.stdout.contains("\n# injected"), "{}", run.stdout);
    assert!(
        !run.stdout.lines().any(|l| l.starts_with("k: v")),
        "{}",
        run.stdout
    );
    // And `check` reads it back with every selector matching its operation.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("injection-init");
    std::fs::create_dir_all(&dir).unwrap();
    let policy = dir.join("policy.yaml");
    std::fs::write(&policy, &run.stdout).unwrap();
    let check = retrylint(&[
        "check",
        SPEC,
        "-p",
        policy.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_ne!(check.code, 2, "{}", check.stderr);
    assert!(
        !check.stdout.contains("policy-matches-nothing"),
        "{}",
        check.stdout
    );
}

#[test]
fn the_markdown_report_adds_nothing_from_the_description() {
    let run = retrylint(&["report", SPEC]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let markdown = common::outside_code_spans(&run.stdout);
    for (i, _) in markdown.match_indices('<') {
        if markdown[..i].ends_with('\\') {
            continue;
        }
        let tag = &markdown[i..];
        assert!(
            [
                "<details>",
                "</details>",
                "<summary>",
                "</summary>",
                "<code>",
                "</code>"
            ]
            .iter()
            .any(|t| tag.starts_with(t)),
            "raw HTML: {}",
            &tag[..tag.len().min(60)]
        );
    }
    for bad in ["![", "](", "@octocat", "| c | d |"] {
        assert!(!markdown.contains(bad), "{bad:?} in\n{markdown}");
    }
    // Every table line is one of the report's own: the same count as for a clean name.
    let rows = run.stdout.lines().filter(|l| l.starts_with('|')).count();
    let tables = run.stdout.matches("|---").count();
    assert!(rows > 0 && tables > 0);
    for line in run.stdout.lines().filter(|l| l.starts_with('|')) {
        let first = line.split('|').nth(1).unwrap_or_default().trim();
        assert!(
            first.starts_with('-')
                || first.starts_with('`')
                || first.parse::<u32>().is_ok()
                || ["readiness", "rule", "attempt", "contract", "tag"].contains(&first)
                || first.contains("unsafe")
                || first.contains("needs-work")
                || first.contains("ready")
                || first.contains("unprotected")
                || first.contains("key-incomplete")
                || first.contains("retry-safe"),
            "a row the report did not mean: {line}"
        );
    }
}

#[cfg(unix)]
#[test]
fn the_html_report_quotes_its_simulate_command_for_a_shell() {
    let run = retrylint(&["report", SPEC, "--format", "html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stdout.contains("<img"),
        "description markup is escaped"
    );
    assert!(
        !run.stdout.contains("<script>alert"),
        "description markup is escaped"
    );
    let mut commands = 0;
    for (start, _) in run.stdout.match_indices("<code>retrylint simulate ") {
        let text = &run.stdout[start + "<code>".len()..];
        let end = text.find("</code>").unwrap();
        let command = common::html_unescape(&text[..end]);
        let args = common::shell_words(&command);
        assert_eq!(args[..3], ["retrylint", "simulate", SPEC], "{command}");
        assert_eq!(args[3], "--operation", "{command}");
        let operation = &args[4];
        let (method, path) = operation.split_once(' ').unwrap();
        assert!(
            ["GET", "POST", "PUT", "PATCH"].contains(&method),
            "{operation}"
        );
        assert!(path.starts_with('/'), "{operation}");
        assert!(
            args[5..].starts_with(&["--fault".to_string(), "503@10s..40s".to_string()]),
            "{command}"
        );
        commands += 1;
    }
    assert!(commands >= 2);
    // The operation with shell syntax in its path comes back as one literal argument.
    assert!(run.stdout.contains("--operation &#39;GET /x;rm -rf ~ $(id) `id` &#39;\\&#39;&#39;q&#39;\\&#39;&#39; &quot;dq&quot; &amp;amp;&#39;"), "{}", run.stdout);
}

#[test]
fn a_long_line_does_not_make_long_output_and_far_labels_do_not_panic() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("injection-long");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Minified JSON: the operation's header parameter is a shared `$ref`, defined 70,000
    // characters further along the same line.
    let spec = format!(
        r##"{{"openapi":"3.0.3","info":{{"title":"t","version":"1"}},"paths":{{"/orders":{{"post":{{"operationId":"createOrder","parameters":[{{"$ref":"#/components/parameters/Key"}}],"responses":{{"201":{{"description":"ok"}}}}}}}}}},"x-pad":"{}","components":{{"parameters":{{"Key":{{"name":"Idempotency-Key","in":"header","required":false,"schema":{{"type":"string"}}}}}}}}}}"##,
        "y".repeat(70_000)
    );
    std::fs::write(dir.join("api.json"), spec).unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        format!(
            "version: 1\ndefaults: {{maxAttempts: 3, deadline: 10s, perAttemptTimeout: 2s, backoff: {{base: 100ms, cap: 1s, jitter: full}}, retryOn: [503]}}  # {}\noperations:\n  createOrder:\n    sideEffect: non-idempotent\n    idempotency: {{keyHeader: Idempotency-Key, keyRetention: 24h}}\n    onUnknownOutcome: retry-same-key\n",
            "z".repeat(5_000_000)
        ),
    )
    .unwrap();
    let run = retrylint_in(&dir, &["check", "api.json"]);
    assert!(
        matches!(run.code, 0..=1),
        "exit code {}: {}",
        run.code,
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let size = run.stdout.len() + run.stderr.len();
    assert!(size < 20_000, "{size} bytes of output");
    // A 5 MB policy line in an error snippet is cut around its label, 5 MB into the line.
    std::fs::write(
        dir.join("bad-policy.yaml"),
        format!(
            "version: 1\ndefaults: {{maxAttempts: 3,{}deadline: lots}}\n",
            " ".repeat(5_000_000)
        ),
    )
    .unwrap();
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "api.json",
            "-p",
            "bad-policy.yaml",
            "--max-file-size",
            "20000000",
        ],
    );
    assert_eq!(run.code, 2, "{}", &run.stderr[..run.stderr.len().min(2000)]);
    assert!(
        run.stderr.contains("lots"),
        "{}",
        &run.stderr[..run.stderr.len().min(2000)]
    );
    assert!(run.stderr.contains('…'), "cut with an ellipsis");
    assert!(
        run.stderr.len() < 5_000,
        "{} bytes of errors",
        run.stderr.len()
    );
}

#[test]
fn init_names_no_operation_with_a_selector_that_matches_others() {
    // `POST /files/*` has no operationId: written as a selector it would be a glob that
    // also matches `POST /files/report`.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("injection-init-glob");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("openapi.yaml");
    std::fs::write(
        &spec,
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /files/*:\n    post:\n      responses: {'200': {description: ok}}\n  /files/report:\n    post:\n      responses: {'200': {description: ok}}\n",
    )
    .unwrap();
    let run = retrylint(&["init", spec.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        parsed_selectors(&run.stdout),
        ["POST /files/report"],
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("#   POST /files/*"), "{}", run.stdout);
}
