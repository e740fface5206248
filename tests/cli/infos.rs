//! Info findings are counted, not shown, in the formats people read (human, concise, and
//! GitHub annotations) unless `--show-infos` or `--fail-on info` asks for them; the
//! formats for machines hold every finding.

use crate::common;

use common::{fired_rules, json_findings, retrylint};

/// Two info findings (`retry-status-undeclared`), one error and one warning.
const SPEC: &str = "fixtures/tricky/multi-file/openapi.yaml";

fn check(extra: &[&str]) -> common::Run {
    let mut args = vec!["check", SPEC];
    args.extend_from_slice(extra);
    retrylint(&args)
}

fn info_lines(stdout: &str) -> usize {
    stdout.lines().filter(|l| l.contains("info[")).count()
}

#[test]
fn human_and_concise_hide_infos_and_count_them() {
    for format in ["human", "concise"] {
        let run = check(&["--format", format]);
        assert_eq!(run.code, 1, "{}", run.transcript());
        assert_eq!(info_lines(&run.stdout), 0, "{format}: {}", run.stdout);
        assert!(
            run.stdout
                .ends_with("1 error, 1 warning, 2 info (hidden; --show-infos) in 4 operations\n"),
            "{format}: {}",
            run.stdout
        );
        // The error and the warning are still shown.
        assert!(run.stdout.contains("error["), "{}", run.stdout);
        assert!(run.stdout.contains("warning["), "{}", run.stdout);
        for shown in [&["--show-infos"][..], &["--fail-on", "info"][..]] {
            let mut args = vec!["--format", format];
            args.extend_from_slice(shown);
            let all = check(&args);
            assert_eq!(
                info_lines(&all.stdout),
                2,
                "{format} {shown:?}: {}",
                all.stdout
            );
            assert!(
                all.stdout
                    .ends_with("1 error, 1 warning, 2 info in 4 operations\n"),
                "{}",
                all.stdout
            );
        }
    }
    assert!(
        fired_rules(&check(&["--show-infos"]).stdout)
            .contains(&"retry-status-undeclared".to_string())
    );
}

#[test]
fn hidden_infos_change_no_exit_code() {
    assert_eq!(check(&[]).code, 1);
    assert_eq!(check(&["--fail-on", "warning"]).code, 1);
    assert_eq!(check(&["--fail-on", "info"]).code, 1);
    // Only infos: the run fails at --fail-on info, shown or not.
    let infos_only = ["--select", "retry-status-undeclared"];
    let run = check(&infos_only);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .ends_with("0 errors, 0 warnings, 2 info (hidden; --show-infos) in 4 operations\n"),
        "{}",
        run.stdout
    );
    let mut failing = infos_only.to_vec();
    failing.extend(["--fail-on", "info"]);
    assert_eq!(check(&failing).code, 1);
}

#[test]
fn max_findings_and_quiet_count_from_what_is_shown() {
    // Two findings are shown (the infos hidden): a cut of one leaves one out.
    let run = check(&["--format", "concise", "--max-findings", "1"]);
    assert!(
        run.stdout
            .contains("… 1 more finding not shown (--max-findings 1)"),
        "{}",
        run.stdout
    );
    // --quiet shows errors only and says nothing of hidden infos.
    let quiet = check(&["--quiet"]);
    assert!(
        quiet
            .stdout
            .ends_with("1 error, 1 warning, 2 info in 4 operations\n"),
        "{}",
        quiet.stdout
    );
}

#[test]
fn machine_formats_hold_every_finding() {
    let run = check(&["--format", "json"]);
    let infos = json_findings(&run.stdout)
        .iter()
        .filter(|f| f["severity"] == "info")
        .count();
    assert_eq!(infos, 2);
    for format in ["sarif", "gitlab", "junit"] {
        let run = check(&["--format", format]);
        assert!(
            run.stdout.contains("retry-status-undeclared"),
            "{format}: {}",
            run.stdout
        );
    }
}

#[test]
fn github_annotates_infos_only_when_asked() {
    let run = check(&["--format", "github"]);
    assert!(!run.stdout.contains("::notice "), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "retrylint: 2 info findings not annotated (--show-infos or --fail-on info annotates them)"
        ),
        "{}",
        run.stdout
    );
    for asked in [&["--show-infos"][..], &["--fail-on", "info"][..]] {
        let mut args = vec!["--format", "github"];
        args.extend_from_slice(asked);
        let all = check(&args);
        let notices = all
            .stdout
            .lines()
            .filter(|l| l.starts_with("::notice "))
            .count();
        assert_eq!(notices, 2, "{asked:?}: {}", all.stdout);
    }
}

#[test]
fn show_infos_is_refused_with_base() {
    let run = check(&["--base", "HEAD", "--show-infos"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
}
