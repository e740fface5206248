//! `check --fix`, `--unsafe-fixes` and `--diff` through the real binary: every fix is
//! applied to real files, the files are read back by a new check (which no longer reports
//! what was fixed) and compared with a snapshot, and a second `--fix` changes nothing.

use std::path::Path;

use crate::common::{Run, fired_rules, retrylint_in, scratch};

const ORDERS: &str = r#"openapi: 3.0.3
info: {title: orders, version: "1"}
paths:
  /orders:
    get:
      operationId: listOrders
      responses:
        "200": {description: ok}
    post:
      operationId: createOrder
      responses:
        "201": {description: created}
"#;

/// The rule a fix resolves, the files it starts from, and whether it is unsafe.
struct Case {
    name: &'static str,
    rule: &'static str,
    description: (&'static str, &'static str),
    policy: &'static str,
    unsafe_fix: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "jitter-none-in-a-flow-entry",
        rule: "backoff-without-jitter",
        description: ("openapi.yaml", ORDERS),
        policy: "version: 1\ndefaults: {maxAttempts: 2, deadline: 5s, retryOn: [503]}\noperations:\n  listOrders: {backoff: {base: 50ms, jitter: none}}  # fast\n",
        unsafe_fix: false,
    },
    Case {
        name: "jitter-missing-in-a-block-backoff",
        rule: "backoff-without-jitter",
        description: ("openapi.yaml", ORDERS),
        policy: "version: 1\ndefaults:\n  maxAttempts: 2\n  deadline: 5s\n  retryOn: [503, connect-failure]\n  backoff:\n    base: 100ms\n    cap: 2s   # short\n",
        unsafe_fix: false,
    },
    Case {
        name: "no-backoff-at-all",
        rule: "backoff-without-jitter",
        description: ("openapi.yaml", ORDERS),
        policy: "version: 1\ndefaults:\n  maxAttempts: 2\n  deadline: 5s\n  retryOn: [connect-failure]\n",
        unsafe_fix: false,
    },
    Case {
        name: "retry-after-unbounded",
        rule: "retry-after-unbounded",
        description: ("openapi.yaml", ORDERS),
        policy: "version: 1\ndefaults:\n  maxAttempts: 2\n  deadline: 3s\n  backoff: {base: 100ms, cap: 1s, jitter: full}\n  retryOn: [429, connect-failure]\n  retryAfter:\n    honor: true\n",
        unsafe_fix: false,
    },
    Case {
        name: "missing-deadline",
        rule: "missing-deadline",
        description: ("openapi.yaml", ORDERS),
        policy: "version: 1\ndefaults: {maxAttempts: 3, perAttemptTimeout: 2s, backoff: {base: 100ms, cap: 1s, jitter: full}, retryOn: [connect-failure]}\n",
        unsafe_fix: false,
    },
    Case {
        name: "retry-on-non-transient-in-a-block-list",
        rule: "retry-on-non-transient",
        description: ("openapi.yaml", ORDERS),
        policy: "version: 1\ndefaults:\n  maxAttempts: 2\n  deadline: 5s\n  backoff: {base: 100ms, cap: 1s, jitter: full}\n  retryOn:\n    - connect-failure\n    - 400   # bad requests\n    - 403\n",
        unsafe_fix: false,
    },
    Case {
        name: "unprotected-write-declares-a-key",
        rule: "unprotected-write-retry",
        description: ("openapi.yaml", ORDERS),
        policy: "version: 1\ndefaults:\n  maxAttempts: 2\n  deadline: 5s\n  backoff: {base: 100ms, cap: 1s, jitter: full}\n  retryOn: [503]\n  onUnknownOutcome: fail\n",
        unsafe_fix: true,
    },
    Case {
        name: "retry-after-declared-on-a-shared-json-response",
        rule: "retry-after-header-undeclared",
        description: (
            "openapi.json",
            "{\n  \"openapi\": \"3.0.3\",\n  \"info\": {\"title\": \"t\", \"version\": \"1\"},\n  \"paths\": {\n    \"/a\": {\n      \"get\": {\n        \"responses\": {\n          \"200\": {\"description\": \"ok\"},\n          \"503\": {\"$ref\": \"#/components/responses/Busy\"}\n        }\n      }\n    }\n  },\n  \"components\": {\n    \"responses\": {\n      \"Busy\": {\n        \"description\": \"busy\",\n        \"headers\": {\n          \"X-Other\": {\"schema\": {\"type\": \"string\"}}\n        }\n      }\n    }\n  }\n}\n",
        ),
        policy: "version: 1\ndefaults: {maxAttempts: 2, deadline: 5s, backoff: {base: 100ms, cap: 1s, jitter: full}, retryOn: [503]}\nlint:\n  rules: {retry-after-header-undeclared: warning}\n",
        unsafe_fix: true,
    },
];

/// The case's files, written into a fresh folder.
fn lay_out(case: &Case) -> std::path::PathBuf {
    let dir = scratch(&format!("fix-{}", case.name));
    std::fs::write(dir.join(case.description.0), case.description.1).expect("written");
    std::fs::write(dir.join("retry-policy.yaml"), case.policy).expect("written");
    dir
}

/// Both files, as one text for a snapshot.
fn files(dir: &Path, case: &Case) -> String {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect("readable");
    format!(
        "--- {} ---\n{}--- retry-policy.yaml ---\n{}",
        case.description.0,
        read(case.description.0),
        read("retry-policy.yaml")
    )
}

fn check(dir: &Path, case: &Case, extra: &[&str]) -> Run {
    let mut args = vec!["check", case.description.0, "--show-infos"];
    args.extend_from_slice(extra);
    retrylint_in(dir, &args)
}

#[test]
fn every_fix_is_applied_read_back_and_leaves_nothing_to_fix_twice() {
    for case in CASES {
        let dir = lay_out(case);
        let before = check(&dir, case, &[]);
        assert!(
            fired_rules(&before.stdout).contains(&case.rule.to_string()),
            "{}: {}",
            case.name,
            before.transcript()
        );
        let mut fix = vec!["--fix"];
        if case.unsafe_fix {
            // Without --unsafe-fixes, an unsafe fix is only announced.
            let held = check(&dir, case, &fix);
            assert!(
                held.stderr.contains("add --unsafe-fixes"),
                "{}",
                held.transcript()
            );
            assert!(
                fired_rules(&held.stdout).contains(&case.rule.to_string()),
                "{}",
                held.transcript()
            );
            fix.push("--unsafe-fixes");
        }
        let fixed = check(&dir, case, &fix);
        assert_ne!(fixed.code, 2, "{}: {}", case.name, fixed.transcript());
        assert!(
            !fired_rules(&fixed.stdout).contains(&case.rule.to_string()),
            "{}: {}",
            case.name,
            fixed.transcript()
        );
        let after = files(&dir, case);
        insta::assert_snapshot!(format!("fix-{}", case.name), after);
        // Read back by a new check: it parses, and what was fixed stays fixed.
        let again = check(&dir, case, &[]);
        assert_ne!(again.code, 2, "{}", again.transcript());
        assert!(!fired_rules(&again.stdout).contains(&case.rule.to_string()));
        let twice = check(&dir, case, &fix);
        assert_eq!(
            files(&dir, case),
            after,
            "{}: a second --fix changed the files",
            case.name
        );
        assert!(
            twice.stderr.contains("to 0 files"),
            "{}",
            twice.transcript()
        );
    }
}

#[test]
fn diff_shows_the_fixes_without_writing_and_exits_one() {
    let case = &CASES[1];
    let dir = lay_out(case);
    // Named with -p, the policy is read as a stream of documents: the fix's places are
    // still its one document's.
    let run = check(&dir, case, &["-p", "retry-policy.yaml", "--diff"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    insta::assert_snapshot!("fix-diff", run.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.join("retry-policy.yaml")).expect("readable"),
        case.policy
    );
    check(&dir, case, &["--fix"]);
    let nothing = check(&dir, case, &["--diff"]);
    assert_eq!(
        (nothing.code, nothing.stdout.as_str()),
        (0, ""),
        "{}",
        nothing.transcript()
    );
}

#[test]
fn unsafe_fixes_alone_is_refused() {
    let case = &CASES[0];
    let dir = lay_out(case);
    let run = check(&dir, case, &["--unsafe-fixes"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("--unsafe-fixes applies with --fix or --diff")
    );
}

#[cfg(unix)]
#[test]
fn a_policy_named_through_a_symbolic_link_is_not_written() {
    let case = &CASES[0];
    let dir = lay_out(case);
    std::fs::rename(dir.join("retry-policy.yaml"), dir.join("real-policy.yaml")).expect("moved");
    std::os::unix::fs::symlink("real-policy.yaml", dir.join("retry-policy.yaml")).expect("a link");
    let run = retrylint_in(
        &dir,
        &["check", "openapi.yaml", "-p", "retry-policy.yaml", "--fix"],
    );
    assert!(
        run.stderr
            .contains("retry-policy.yaml cannot be changed: it is a symbolic link"),
        "{}",
        run.transcript()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("real-policy.yaml")).expect("readable"),
        case.policy
    );
}

#[test]
fn a_policy_outside_the_root_is_not_written() {
    let case = &CASES[0];
    let dir = lay_out(case);
    std::fs::create_dir_all(dir.join("service")).expect("a folder");
    std::fs::rename(dir.join("openapi.yaml"), dir.join("service/openapi.yaml")).expect("moved");
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "service/openapi.yaml",
            "-p",
            "retry-policy.yaml",
            "--root",
            "service",
            "--fix",
        ],
    );
    assert!(
        run.stderr
            .contains("cannot be changed: it is outside the root folder"),
        "{}",
        run.transcript()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("retry-policy.yaml")).expect("readable"),
        case.policy
    );
}

#[test]
fn a_description_from_standard_input_is_not_fixed_but_diffed() {
    let case = CASES
        .iter()
        .find(|c| c.name == "unprotected-write-declares-a-key")
        .expect("the case");
    let dir = lay_out(case);
    let stdin = |extra: &str| {
        crate::common::retrylint_with(
            &dir,
            &[
                "check",
                "-",
                "--stdin-filename",
                "openapi.yaml",
                extra,
                "--unsafe-fixes",
            ],
            &[("NO_COLOR", "1")],
            case.description.1,
        )
    };
    let refused = stdin("--fix");
    assert_eq!(refused.code, 2, "{}", refused.transcript());
    assert!(
        refused
            .stderr
            .contains("a description read from standard input")
    );
    assert_eq!(
        files(&dir, case),
        format!(
            "--- openapi.yaml ---\n{}--- retry-policy.yaml ---\n{}",
            case.description.1, case.policy
        )
    );
    let diff = stdin("--diff");
    assert_eq!(diff.code, 1, "{}", diff.transcript());
    assert!(
        diff.stdout.contains("+      parameters:"),
        "{}",
        diff.stdout
    );
}

#[test]
fn a_mesh_route_that_retries_an_unprotected_write_retries_nothing_after_the_fix() {
    let dir = scratch("fix-implicit-mesh-retry");
    std::fs::create_dir_all(dir.join("layers")).expect("a folder");
    for file in ["openapi.yaml", "retry-policy.yaml", "layers/layer.yaml"] {
        crate::common::copy_fixture(
            &format!("fixtures/rules/implicit-mesh-retry/fail/{file}"),
            &dir,
            file,
        );
    }
    let check = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "openapi.yaml",
            "-p",
            "retry-policy.yaml",
            "-p",
            "layers/layer.yaml",
            "--show-infos",
        ];
        args.extend_from_slice(extra);
        retrylint_in(&dir, &args)
    };
    assert!(fired_rules(&check(&[]).stdout).contains(&"implicit-mesh-retry".to_string()));
    let fixed = check(&["--fix", "--unsafe-fixes"]);
    assert!(
        !fired_rules(&fixed.stdout).contains(&"implicit-mesh-retry".to_string()),
        "{}",
        fixed.transcript()
    );
    let layer = std::fs::read_to_string(dir.join("layers/layer.yaml")).expect("readable");
    insta::assert_snapshot!("fix-implicit-mesh-retry", layer);
    check(&["--fix", "--unsafe-fixes"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("layers/layer.yaml")).expect("readable"),
        layer
    );
}
