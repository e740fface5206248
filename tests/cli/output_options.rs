//! Living with the output on a large API: `--quiet`, `--statistics`, `--format concise`,
//! `--max-findings`, `--color`, the hint that ends every finding, GitHub's annotation
//! limits, and the GitLab and Markdown formats — all through the binary.

use crate::common;

use common::{retrylint, retrylint_with, schema_errors};
use serde_json::Value;
use std::path::{Path, PathBuf};

const DEMO: &str = "fixtures/shop/openapi.yaml";

fn demo(extra: &[&str]) -> common::Run {
    let mut args = vec!["check", DEMO];
    args.extend_from_slice(extra);
    retrylint(&args)
}

fn findings() -> Vec<Value> {
    let run = demo(&["--format", "json"]);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    doc["findings"].as_array().unwrap().clone()
}

#[test]
fn concise_prints_one_line_per_finding_then_the_summary() {
    let run = demo(&["--format", "concise"]);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let all = findings();
    assert_eq!(lines.len(), all.len() + 1, "{}", run.stdout);
    assert_eq!(lines.last(), Some(&"6 errors, 2 warnings in 8 operations"));
    for (line, finding) in lines.iter().zip(&all) {
        let location = &finding["location"];
        let head = format!(
            "{}:{}:{}: {}[{}] ",
            location["file"].as_str().unwrap(),
            location["line"],
            location["column"],
            finding["severity"].as_str().unwrap(),
            finding["rule"].as_str().unwrap()
        );
        assert!(line.starts_with(&head), "{line} / {head}");
        assert!(line.ends_with(finding["message"].as_str().unwrap()));
    }
    // `--output-format`, as ruff spells it, is the same flag.
    assert_eq!(demo(&["--output-format", "concise"]).stdout, run.stdout);
}

#[test]
fn statistics_count_every_finding_by_rule_errors_first() {
    let run = demo(&["--statistics"]);
    assert_eq!(run.code, 1, "statistics keep the exit code");
    let all = findings();
    let lines: Vec<&str> = run.stdout.lines().collect();
    let mut total = 0;
    let mut severities = Vec::new();
    for line in &lines[..lines.len() - 1] {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let count: usize = parts[0].parse().unwrap();
        let expected = all
            .iter()
            .filter(|f| f["rule"] == parts[2] && f["severity"] == parts[1])
            .count();
        assert_eq!(count, expected, "{line}");
        total += count;
        severities.push(parts[1].to_string());
    }
    assert_eq!(total, all.len());
    let mut sorted = severities.clone();
    sorted.sort_by_key(|s| match s.as_str() {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    });
    assert_eq!(severities, sorted, "errors first:\n{}", run.stdout);
    insta::assert_snapshot!("statistics-demo", run.stdout);

    let json = demo(&["--statistics", "--format", "json"]);
    let rows: Vec<Value> = serde_json::from_str(&json.stdout).unwrap();
    let sum: u64 = rows.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(sum as usize, all.len());
    assert!(rows[0]["url"].as_str().unwrap().ends_with(".md"));

    let sarif = demo(&["--statistics", "--format", "sarif"]);
    assert_eq!(sarif.code, 2);
    assert!(
        sarif
            .stderr
            .contains("--statistics counts findings by rule")
    );
}

#[test]
fn quiet_shows_errors_and_the_summary_only() {
    let run = demo(&["--quiet"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("error[unprotected-write-retry]"));
    assert!(!run.stdout.contains("warning["), "{}", run.stdout);
    assert!(
        run.stdout
            .ends_with("6 errors, 2 warnings in 8 operations\n")
    );
    // Without a policy, the note about the contract view is not printed either.
    let bare = retrylint(&["check", "fixtures/contract/openapi.yaml", "-q"]);
    assert!(bare.stderr.is_empty(), "{}", bare.stderr);
    let noisy = retrylint(&["check", "fixtures/contract/openapi.yaml"]);
    assert!(noisy.stderr.contains("note: no retry policy"));
}

#[test]
fn max_findings_shows_the_most_severe_and_says_what_was_cut() {
    let run = demo(&["--max-findings", "3"]);
    assert_eq!(run.code, 1, "the exit code counts every finding");
    let shown = run.stdout.matches("error[").count() + run.stdout.matches("warning[").count();
    assert_eq!(shown, 3, "{}", run.stdout);
    assert!(!run.stdout.contains("warning["), "errors come first");
    assert!(
        run.stdout.contains(
            "… 5 more findings not shown (--max-findings 3); --statistics counts every one by rule"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .ends_with("6 errors, 2 warnings in 8 operations\n")
    );
    let concise = demo(&["--format", "concise", "--max-findings", "7"]);
    assert_eq!(concise.stdout.lines().count(), 7 + 2);
    // Formats for machines keep every finding, and say so.
    let json = demo(&["--format", "json", "--max-findings", "1"]);
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["findings"].as_array().unwrap().len(), 8);
    assert!(json.stderr.contains("--max-findings applies to human"));
}

#[test]
fn every_finding_ends_with_how_to_learn_more() {
    let run = demo(&[]);
    let headers = run.stdout.matches("× error[").count() + run.stdout.matches("⚠ warning[").count();
    assert_eq!(
        run.stdout.matches("more: retrylint explain ").count(),
        headers
    );
    assert!(
        run.stdout
            .contains("more: retrylint explain unprotected-write-retry")
    );
    for finding in findings() {
        let url = finding["url"].as_str().unwrap();
        let rule = finding["rule"].as_str().unwrap();
        assert_eq!(
            url,
            format!("https://github.com/retrylint/retrylint/blob/main/rules/{rule}.md")
        );
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("rules/{rule}.md"))
                .is_file()
        );
    }
    // The two warnings about suppressions are explained too.
    for rule in ["suppression-without-reason", "unused-suppression"] {
        let explain = retrylint(&["explain", rule]);
        assert_eq!(explain.code, 0, "{}", explain.stderr);
        assert!(explain.stdout.starts_with(&format!("# {rule}")));
    }
}

#[test]
fn color_follows_the_flag_and_the_environment() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = ["check", DEMO, "--format", "concise"];
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut all = args.to_vec();
        all.extend_from_slice(extra);
        retrylint_with(root, &all, env, "").stdout
    };
    let ansi = |text: &str| text.contains("\u{1b}[");
    // Standard output is a pipe here: no colour unless asked for.
    assert!(!ansi(&run(&[], &[])));
    assert!(ansi(&run(&["--color", "always"], &[])));
    assert!(
        ansi(&run(&["--color=always"], &[("NO_COLOR", "1")])),
        "the flag wins"
    );
    assert!(ansi(&run(&[], &[("FORCE_COLOR", "1")])));
    assert!(ansi(&run(&[], &[("CLICOLOR_FORCE", "1")])));
    assert!(!ansi(&run(&[], &[("FORCE_COLOR", "0")])));
    assert!(!ansi(&run(&[], &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")])));
    assert!(!ansi(&run(&["--color", "never"], &[("FORCE_COLOR", "1")])));
    let colored = run(&["--color", "always"], &[]);
    assert!(colored.contains("\u{1b}[1;31merror\u{1b}[0m[unprotected-write-retry]"));
    // Human output is coloured by the same decision; a file never is.
    let human = retrylint_with(root, &["check", DEMO, "--color", "always"], &[], "");
    assert!(ansi(&human.stdout));
    let dir = scratch("color");
    let out = dir.join("out.txt");
    let to_file = retrylint_with(
        root,
        &[
            "check",
            DEMO,
            "--color",
            "always",
            "-o",
            out.to_str().unwrap(),
        ],
        &[],
        "",
    );
    assert_eq!(to_file.code, 1);
    assert!(!ansi(&std::fs::read_to_string(&out).unwrap()));
}

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("output-{name}"))
}

/// A description with `writes` unprotected POSTs, each retried by the policy beside it
/// (an error each), each with an undeclared Retry-After and no onUnknownOutcome (two
/// warnings each).
fn many_findings(name: &str, writes: usize) -> PathBuf {
    let dir = scratch(name);
    let mut spec = String::from("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n");
    for i in 0..writes {
        spec.push_str(&format!(
            "  /w{i}:\n    post:\n      responses:\n        '201': {{description: ok}}\n        '503': {{description: busy, headers: {{Retry-After: {{schema: {{type: integer}}}}}}}}\n"
        ));
    }
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 10s\n  perAttemptTimeout: 2s\n  retryOn: [503]\n  backoff: {base: 100ms, cap: 1s, jitter: full}\n  retryAfter: {honor: true, max: 5s}\n",
    )
    .unwrap();
    dir
}

#[test]
fn github_says_when_actions_will_not_show_every_annotation() {
    let dir = many_findings("github-many", 12);
    let run = common::retrylint_in(&dir, &["check", "openapi.yaml", "--format", "github"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].starts_with("retrylint: 12 errors, 24 warnings"),
        "{}",
        run.stdout
    );
    let notice = lines
        .iter()
        .position(|l| l.starts_with("::notice title=retrylint::"))
        .expect("a notice about the limit");
    assert!(
        lines[notice]
            .contains("12 errors, 24 warnings and 0 notices: Actions shows 10 of each per step")
    );
    let first_annotation = lines
        .iter()
        .position(|l| l.starts_with("::error "))
        .unwrap();
    assert!(
        notice < first_annotation,
        "the notice comes before the annotations"
    );
    let last_error = lines
        .iter()
        .rposition(|l| l.starts_with("::error "))
        .unwrap();
    let first_warning = lines
        .iter()
        .position(|l| l.starts_with("::warning "))
        .unwrap();
    assert!(last_error < first_warning, "errors first");
    // Five errors and ten warnings: Actions shows them all.
    let dir = many_findings("github-few", 5);
    let run = common::retrylint_in(&dir, &["check", "openapi.yaml", "--format", "github"]);
    assert!(
        !run.stdout.contains("::notice title=retrylint::"),
        "{}",
        run.stdout
    );
    // --max-findings cuts annotations, most severe kept.
    let run = common::retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "--format",
            "github",
            "--max-findings",
            "4",
        ],
    );
    assert_eq!(run.stdout.matches("::error ").count(), 4);
    assert!(
        run.stdout
            .contains("retrylint: 11 more findings not annotated (--max-findings)")
    );
}

#[test]
fn github_annotations_name_files_by_their_path_in_the_repository() {
    // Run from a subfolder of the repository: `openapi.yaml` as typed is
    // `api/openapi.yaml` to GitHub, which places annotations by repository path.
    let dir = scratch("github-subfolder");
    common::git(&dir, &["init", "-q"]);
    common::copy_fixture(DEMO, &dir, "api/openapi.yaml");
    common::copy_fixture(
        "fixtures/shop/retry-policy.yaml",
        &dir,
        "api/retry-policy.yaml",
    );
    let run = common::retrylint_in(
        &dir.join("api"),
        &["check", "openapi.yaml", "--format", "github"],
    );
    let annotations: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error") || l.starts_with("::warning"))
        .collect();
    assert!(!annotations.is_empty(), "{}", run.stdout);
    for line in annotations {
        assert!(
            line.contains("file=api/openapi.yaml,") || line.contains("file=api/retry-policy.yaml,"),
            "{line}"
        );
    }
}

#[test]
fn gitlab_code_quality_validates_and_has_one_issue_per_finding() {
    let run = demo(&["--format", "gitlab"]);
    assert_eq!(run.code, 1);
    let issues: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let all = findings();
    assert_eq!(issues.len(), all.len());
    let mut fingerprints = std::collections::HashSet::new();
    for (issue, finding) in issues.iter().zip(&all) {
        assert_eq!(
            schema_errors("gitlab-codequality.schema.json", issue),
            Vec::<String>::new()
        );
        assert_eq!(issue["check_name"], finding["rule"]);
        assert_eq!(issue["description"], finding["message"]);
        assert_eq!(issue["location"]["path"], finding["location"]["file"]);
        assert_eq!(
            issue["location"]["lines"]["begin"],
            finding["location"]["line"]
        );
        let severity = issue["severity"].as_str().unwrap();
        assert!(["info", "minor", "major", "critical", "blocker"].contains(&severity));
        assert_eq!(
            severity,
            match finding["severity"].as_str().unwrap() {
                "error" => "major",
                "warning" => "minor",
                _ => "info",
            }
        );
        assert!(fingerprints.insert(issue["fingerprint"].as_str().unwrap().to_string()));
    }
    insta::assert_snapshot!("gitlab-demo", run.stdout);
}

#[test]
fn markdown_summarises_for_a_job_page() {
    let run = demo(&["--format", "markdown"]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!("markdown-demo", run.stdout);
    assert!(run.stdout.contains(
        "| `fixtures/shop/openapi.yaml` | `fixtures/shop/retry-policy.yaml` | 8 | 5 | 2 | 1 | 6 | 2 | 0 |"
    ));
    // Without a policy there is no readiness to count.
    let bare = retrylint(&[
        "check",
        "fixtures/contract/openapi.yaml",
        "--format",
        "markdown",
    ]);
    assert!(!bare.stdout.contains("unsafe"), "{}", bare.stdout);
    assert!(
        bare.stdout
            .contains("| `fixtures/contract/openapi.yaml` | none |")
    );
}

#[test]
fn sarif_warns_when_github_would_refuse_the_run() {
    // 8,400 retried POSTs: an error and two warnings each, 25,200 results.
    let dir = many_findings("sarif-limit", 8_400);
    let sarif = dir.join("out.sarif");
    let run = common::retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "--format",
            "sarif",
            "-o",
            sarif.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "warning: 25200 SARIF results: GitHub code scanning accepts at most 25000 per run"
        ),
        "{}",
        run.stderr
    );
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 25_200);
    let small = demo(&["--format", "sarif"]);
    assert!(small.stderr.is_empty(), "{}", small.stderr);
}
