//! The pre-commit hook's command, `check --skip-non-descriptions FILES…`: a change to a
//! policy or a layer file alone checks the descriptions it applies to, and says so.

use crate::common;

use common::orders::{HEADER_KEY, POLICY, description, mesh};
use common::{git, json_findings, retrylint_in, rule_places, scratch};
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A repository of two services, each a description with its policy beside it, a mesh
/// folder, and other YAML a hook hands over too (a Compose file, a Helm template).
fn repository(name: &str) -> PathBuf {
    let dir = scratch(name);
    git(&dir, &["init", "-q"]);
    write(
        &dir,
        "orders/openapi.yaml",
        &description("orders", Some(HEADER_KEY)),
    );
    write(&dir, "orders/retry-policy.yaml", POLICY);
    // Payments sends a tracing header, no key; the mesh in front of it retries 5xx.
    let trace = "{name: X-Trace, in: header, required: false, schema: {type: string}}";
    write(
        &dir,
        "payments/openapi.yaml",
        &description("payments", Some(trace)),
    );
    write(&dir, "mesh/payments.yaml", &mesh("payments"));
    write(
        &dir,
        "compose.yaml",
        "version: '3.8'\nservices: {web: {image: nginx}}\n",
    );
    write(
        &dir,
        "chart/templates/deploy.yaml",
        "metadata:\n  name: {{ .Release.Name }}\n",
    );
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "base"]);
    dir
}

/// `check --skip-non-descriptions --format json FILES…` in `dir`.
fn hook(dir: &Path, files: &[&str]) -> common::Run {
    let mut args = vec!["check", "--skip-non-descriptions", "--format", "json"];
    args.extend(files);
    retrylint_in(dir, &args)
}

/// Each finding as `rule @ file:line`.
fn findings(run: &common::Run) -> Vec<String> {
    rule_places(&json_findings(&run.stdout))
        .into_iter()
        .map(|(rule, at)| format!("{rule} @ {at}"))
        .collect()
}

/// The descriptions the findings point into (at their primary or related locations).
fn checked(run: &common::Run) -> Vec<String> {
    let mut names: Vec<String> = json_findings(&run.stdout)
        .iter()
        .flat_map(|f| {
            common::finding_files(f)
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .filter(|file| file.ends_with("openapi.yaml"))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn a_policy_changed_alone_checks_the_description_beside_it() {
    let dir = repository("hook-policy");
    // Clean before the change.
    let before = hook(&dir, &["orders/retry-policy.yaml"]);
    assert_eq!(before.code, 0, "{}", before.transcript());
    assert!(
        before.stderr.contains(
            "note: orders/retry-policy.yaml changed: checking orders/openapi.yaml beside it"
        ),
        "{}",
        before.stderr
    );
    write(
        &dir,
        "orders/retry-policy.yaml",
        &POLICY.replace("jitter: full", "jitter: none"),
    );
    let run = hook(
        &dir,
        &[
            "orders/retry-policy.yaml",
            "compose.yaml",
            "chart/templates/deploy.yaml",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert_eq!(
        findings(&run),
        vec!["backoff-without-jitter @ orders/retry-policy.yaml:6"]
    );
}

#[test]
fn a_policy_is_recognised_by_its_shape_and_one_nothing_reads_checks_nothing() {
    let dir = repository("hook-policy-shape");
    let loose = POLICY.replace("jitter: full", "jitter: none");
    write(&dir, "policies/client.yaml", &loose);
    // Named otherwise, no description reads it: said so, nothing checked.
    let run = hook(&dir, &["policies/client.yaml"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("policies/client.yaml changed: a retry policy no description reads"),
        "{}",
        run.stderr
    );
    // The policy the hook's arguments name with -p: every description is checked with it.
    let run = hook(
        &dir,
        &["-p", "policies/client.yaml", "policies/client.yaml"],
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("policies/client.yaml changed, the policy -p names: checking every description under `.`"),
        "{}",
        run.stderr
    );
    assert!(
        findings(&run).contains(&"backoff-without-jitter @ policies/client.yaml:6".to_string()),
        "{:?}",
        findings(&run)
    );
    // A versioned file of another tool is not a policy.
    let run = hook(&dir, &["compose.yaml"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn a_layer_file_changed_alone_checks_every_description_with_it() {
    let dir = repository("hook-layer");
    let run = hook(&dir, &["mesh/payments.yaml", "compose.yaml"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains(
            "note: mesh/payments.yaml changed, retry settings of a proxy, gateway or mesh: checking every description under `.` (orders/openapi.yaml and payments/openapi.yaml), each layer where it serves the description's hosts"
        ),
        "{}",
        run.stderr
    );
    // The mesh serves payments only: its write retry is reported at the route, and the
    // orders description it does not serve is not told that the mesh serves nothing.
    let found = findings(&run);
    assert!(
        found.contains(&"unprotected-write-retry @ mesh/payments.yaml:9".to_string()),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|f| f.starts_with("route-matches-nothing")),
        "{found:?}"
    );
    assert!(!found.iter().any(|f| f.contains("orders/")), "{found:?}");
    assert_eq!(checked(&run), vec!["payments/openapi.yaml"]);
    assert!(!run.stderr.contains("serves none"), "{}", run.stderr);

    // Also named with -p, the layer counts once, as -p applies it (to every description).
    let with_p = hook(&dir, &["-p", "mesh/payments.yaml", "mesh/payments.yaml"]);
    let twice = findings(&with_p);
    let at_route = |f: &&String| *f == "unprotected-write-retry @ mesh/payments.yaml:9";
    assert_eq!(twice.iter().filter(at_route).count(), 1, "{twice:?}");

    // A mesh file for hosts no description names: said after the run.
    write(&dir, "mesh/billing.yaml", &mesh("billing"));
    let unserved = hook(&dir, &["mesh/billing.yaml"]);
    assert_eq!(unserved.code, 0, "{}", unserved.transcript());
    assert!(
        unserved.stderr.contains(
            "note: mesh/billing.yaml serves none of the descriptions checked (by their servers, the policy's service.hosts and --host): its retries were not checked"
        ),
        "{}",
        unserved.stderr
    );

    // A layer file with a bad value is refused, as with -p.
    write(
        &dir,
        "mesh/payments.yaml",
        &mesh("payments").replace("attempts: 2", "attempts: many"),
    );
    let bad = hook(&dir, &["mesh/payments.yaml"]);
    assert_eq!(bad.code, 2, "{}", bad.transcript());
}

#[test]
fn files_that_nothing_reads_are_still_skipped() {
    let dir = repository("hook-other");
    let run = hook(&dir, &["compose.yaml", "chart/templates/deploy.yaml"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains("none of the named files"),
        "{}",
        run.stderr
    );
}

/// The hook as pre-commit declares it runs the command the tests above run.
#[test]
fn the_declared_hook_is_the_command_tested() {
    let hooks = common::yaml_file(".pre-commit-hooks.yaml");
    let entry = hooks[0]["entry"].as_str().unwrap();
    assert_eq!(entry, "retrylint check --skip-non-descriptions");
}
