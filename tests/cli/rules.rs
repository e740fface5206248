//! Every rule's fixtures through the real binary: the failing case fires the rule, the
//! passing case does not. Output is snapshotted.

use crate::common;

use common::{fired_rules, retrylint};

fn rule_dirs() -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rules");
    let mut names: Vec<String> = std::fs::read_dir(root)
        .expect("fixtures/rules exists")
        .map(|e| {
            e.expect("readable entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// `check` of a fixture case, infos shown (every rule that fires is seen); a case with a
/// `layers` folder gives it with its policy as -p.
fn check_case(rule: &str, case: &str) -> common::Run {
    let dir = format!("fixtures/rules/{rule}/{case}");
    let spec = format!("{dir}/openapi.yaml");
    let layers = format!("{dir}/layers");
    if std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(&layers)
        .is_dir()
    {
        let policy = format!("{dir}/retry-policy.yaml");
        retrylint(&["check", &spec, "-p", &policy, "-p", &layers, "--show-infos"])
    } else {
        retrylint(&["check", &spec, "--show-infos"])
    }
}

#[test]
fn each_rule_fires_on_its_failing_fixture_only() {
    let names = rule_dirs();
    assert!(
        names.len() >= 7,
        "expected a fixture folder per rule, found {names:?}"
    );
    for rule in &names {
        let spec = format!("fixtures/rules/{rule}/fail/openapi.yaml");
        let run = check_case(rule, "fail");
        assert_ne!(run.code, 2, "{rule}: input error\n{}", run.transcript());
        let fired = fired_rules(&run.stdout);
        assert!(
            fired.contains(rule),
            "{rule} did not fire on {spec}:\n{}",
            run.transcript()
        );
        insta::assert_snapshot!(format!("{rule}-fail"), run.transcript());
    }
}

#[test]
fn each_rule_is_silent_on_its_passing_fixture() {
    for rule in &rule_dirs() {
        let spec = format!("fixtures/rules/{rule}/pass/openapi.yaml");
        let run = check_case(rule, "pass");
        assert_ne!(run.code, 2, "{rule}: input error\n{}", run.transcript());
        let fired = fired_rules(&run.stdout);
        assert!(
            !fired.contains(rule),
            "{rule} fired on {spec}:\n{}",
            run.transcript()
        );
        insta::assert_snapshot!(format!("{rule}-pass"), run.transcript());
    }
}

#[test]
fn rules_that_need_a_policy_are_silent_without_one() {
    for rule in &rule_dirs() {
        // Description and contract rules read the description alone.
        let scope = retrylint::analysis::rules::by_name(rule).map(|r| r.meta().scope);
        if matches!(
            scope,
            Some(
                retrylint::analysis::rules::Scope::Description
                    | retrylint::analysis::rules::Scope::Contract
            )
        ) {
            continue;
        }
        let dir =
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("no-policy-{rule}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let source = format!(
            "{}/fixtures/rules/{rule}/fail/openapi.yaml",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::copy(&source, dir.join("openapi.yaml")).unwrap();
        let run = common::retrylint_in(&dir, &["check", "openapi.yaml"]);
        assert_ne!(run.code, 2, "{rule}: input error\n{}", run.transcript());
        assert!(
            !fired_rules(&run.stdout).contains(rule),
            "{rule} fired without a policy:\n{}",
            run.transcript()
        );
    }
}

#[test]
fn demo_reports_every_seeded_mistake() {
    let run = retrylint(&[
        "check",
        "fixtures/shop/openapi.yaml",
        "-p",
        "fixtures/shop/retry-policy.yaml",
    ]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let fired = fired_rules(&run.stdout);
    for rule in [
        "unprotected-write-retry",
        "idempotency-key-undeclared",
        "retry-after-ignored",
        "missing-deadline",
        "backoff-without-jitter",
        "policy-matches-nothing",
        "retry-after-header-undeclared",
    ] {
        assert!(
            fired.contains(&rule.to_string()),
            "{rule} missing from the demo:\n{}",
            run.stdout
        );
    }
    assert!(
        run.stdout
            .ends_with("6 errors, 2 warnings in 8 operations\n"),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!("shop-demo", run.transcript());
}

#[test]
fn policy_is_discovered_beside_the_description() {
    let given = retrylint(&[
        "check",
        "fixtures/shop/openapi.yaml",
        "-p",
        "fixtures/shop/retry-policy.yaml",
    ]);
    let discovered = retrylint(&["check", "fixtures/shop/openapi.yaml"]);
    assert_eq!(given.stdout, discovered.stdout);
    assert_eq!(given.code, discovered.code);
}

#[test]
fn fail_on_sets_the_exit_code() {
    let spec = "fixtures/rules/retry-after-header-undeclared/fail/openapi.yaml";
    assert_eq!(
        retrylint(&["check", spec]).code,
        0,
        "warnings alone pass by default"
    );
    assert_eq!(retrylint(&["check", spec, "--fail-on", "warning"]).code, 1);
    assert_eq!(retrylint(&["check", spec, "--fail-on", "info"]).code, 1);
    let demo = "fixtures/shop/openapi.yaml";
    assert_eq!(retrylint(&["check", demo, "--fail-on", "never"]).code, 0);
    assert_eq!(retrylint(&["check", demo, "--fail-on", "loud"]).code, 2);
}

#[test]
fn select_and_ignore_choose_rules() {
    let demo = "fixtures/shop/openapi.yaml";
    let only = retrylint(&["check", demo, "--select", "missing-deadline"]);
    assert_eq!(fired_rules(&only.stdout), ["missing-deadline"]);
    let without = retrylint(&[
        "check",
        demo,
        "--ignore",
        "retry-after-header-undeclared,missing-deadline",
    ]);
    let fired = fired_rules(&without.stdout);
    assert!(
        !fired
            .iter()
            .any(|r| r == "missing-deadline" || r == "retry-after-header-undeclared")
    );
    assert!(fired.iter().any(|r| r == "unprotected-write-retry"));
    let typo = retrylint(&["check", demo, "--select", "missing-dedline"]);
    assert_eq!(typo.code, 2);
    assert!(
        typo.stderr.contains("did you mean `missing-deadline`?"),
        "{}",
        typo.stderr
    );
}

#[test]
fn several_descriptions_report_in_the_order_given() {
    let a = "fixtures/rules/missing-deadline/fail/openapi.yaml";
    let b = "fixtures/shop/openapi.yaml";
    let ab = retrylint(&["check", a, b]);
    let ba = retrylint(&["check", b, a]);
    let first_a = ab.stdout.find("fixtures/rules/missing-deadline").unwrap();
    let first_b = ab.stdout.find("fixtures/shop").unwrap();
    assert!(first_a < first_b);
    assert!(
        ba.stdout.find("fixtures/shop").unwrap()
            < ba.stdout.find("fixtures/rules/missing-deadline").unwrap()
    );
    assert_eq!(ab.code, 1);
}
