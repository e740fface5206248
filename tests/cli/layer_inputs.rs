//! Layer files as input: what `-p` refuses, bad values at their line, suppressions in
//! a layer file, limits, and layer text that must stay data wherever it is printed.

use crate::common;

use common::layers_demo::{DEMO, DEMO_DEPLOY, DEMO_POLICY, copy_demo};
use common::{fired_rules, retrylint, retrylint_in, scratch};

#[test]
fn p_refuses_files_of_no_known_kind_and_two_policies() {
    let dir = scratch("layers-refused");
    std::fs::write(dir.join("values.yaml"), "replicas: 3\nimage: payments\n").expect("written");
    std::fs::write(
        dir.join("deploy.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: x }\n",
    )
    .expect("written");
    let spec = format!("{}/{DEMO}", env!("CARGO_MANIFEST_DIR"));
    let unknown = retrylint_in(&dir, &["check", &spec, "-p", "values.yaml"]);
    assert_eq!(unknown.code, 2, "{}", unknown.transcript());
    assert!(
        unknown.stderr.contains("Istio `VirtualService`"),
        "{}",
        unknown.stderr
    );
    let other_kind = retrylint_in(&dir, &["check", &spec, "-p", "deploy.yaml"]);
    assert_eq!(other_kind.code, 2, "{}", other_kind.transcript());
    assert!(
        other_kind
            .stderr
            .contains("holds no Kubernetes object retrylint reads"),
        "{}",
        other_kind.stderr
    );
    let policy = format!("{}/{DEMO_POLICY}", env!("CARGO_MANIFEST_DIR"));
    let two = retrylint_in(&dir, &["check", &spec, "-p", &policy, "-p", &policy]);
    assert_eq!(two.code, 2, "{}", two.transcript());
    assert!(
        two.stderr.contains("two retry policies given"),
        "{}",
        two.stderr
    );
    // A folder with nothing -p reads is refused, naming what it reads.
    let nothing = retrylint_in(&dir, &["check", &spec, "-p", "."]);
    assert_eq!(nothing.code, 2, "{}", nothing.transcript());
    assert!(
        nothing.stderr.contains("holds no file -p reads"),
        "{}",
        nothing.stderr
    );
    // In a folder, files of other kinds (other Kubernetes objects, a values file, a
    // description) are skipped beside the ones -p reads.
    copy_demo(&dir);
    common::copy_fixture(&format!("{DEMO_DEPLOY}/mesh.yaml"), &dir, "mesh.yaml");
    let folder = retrylint_in(
        &dir,
        &[
            "check",
            &spec,
            "-p",
            ".",
            "--host",
            "payments.prod.svc.cluster.local",
        ],
    );
    assert_ne!(folder.code, 2, "{}", folder.transcript());
    assert!(
        fired_rules(&folder.stdout).contains(&"implicit-mesh-retry".to_string()),
        "{}",
        folder.stdout
    );
}

#[test]
fn a_bad_value_in_a_layer_file_is_an_input_error_at_its_line() {
    let dir = scratch("layers-bad");
    std::fs::write(
        dir.join("vs.yaml"),
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: { name: p }\nspec:\n  hosts: [p]\n  http:\n  - timeout: soon\n    route: [{ destination: { host: p } }]\n",
    )
    .expect("written");
    let spec = format!("{}/{DEMO}", env!("CARGO_MANIFEST_DIR"));
    let run = retrylint_in(&dir, &["check", &spec, "-p", "vs.yaml"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains("vs.yaml:7"), "{}", run.stderr);
}

#[test]
fn a_comment_in_a_layer_file_suppresses_a_finding_there() {
    let dir = scratch("layers-suppressed");
    let root = env!("CARGO_MANIFEST_DIR");
    for file in [
        "openapi.yaml",
        "retry-policy.yaml",
        "deploy/gateway-httproute.yaml",
    ] {
        common::copy_fixture(&format!("fixtures/layers/payments/{file}"), &dir, file);
    }
    let mesh = std::fs::read_to_string(format!("{root}/{DEMO_DEPLOY}/mesh.yaml")).expect("read");
    let marked = mesh.replace(
        "    - name: writes\n",
        "    # retrylint: ignore[implicit-mesh-retry] the ledger deduplicates writes\n    - name: writes\n",
    );
    assert_ne!(mesh, marked);
    std::fs::write(dir.join("deploy/mesh.yaml"), marked).expect("written");
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "-p",
            "retry-policy.yaml",
            "-p",
            "deploy",
        ],
    );
    assert!(
        !fired_rules(&run.stdout).contains(&"implicit-mesh-retry".to_string()),
        "{}",
        run.transcript()
    );
    // One finding for the route, however many operations it takes.
    assert!(run.stdout.contains("(1 suppressed)"), "{}", run.stdout);
}

#[test]
fn binding_many_routes_to_many_operations_is_refused_by_its_budget() {
    let dir = scratch("layers-many-routes");
    let mut spec = String::from("openapi: 3.0.3\ninfo: { title: Many, version: '1' }\npaths:\n");
    for i in 0..2_000 {
        spec.push_str(&format!(
            "  /r{i}:\n    get: {{ responses: {{ '200': {{ description: ok }} }} }}\n"
        ));
    }
    std::fs::write(dir.join("openapi.yaml"), spec).expect("written");
    let mut vs = String::from(
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: { name: many }\nspec:\n  hosts: ['*']\n  http:\n",
    );
    for i in 0..20_000 {
        vs.push_str(&format!("  - match: [{{ uri: {{ prefix: /nothing{i} }} }}]\n    route: [{{ destination: {{ host: x }} }}]\n"));
    }
    std::fs::write(dir.join("vs.yaml"), vs).expect("written");
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "-p", "vs.yaml"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("20000 route match alternatives, each tried for 2000 operations"),
        "{}",
        run.stderr
    );
}

#[test]
fn text_from_a_layer_file_cannot_act_where_it_is_printed() {
    let dir = scratch("layers-hostile-names");
    copy_demo(&dir);
    std::fs::write(
        dir.join("vs.yaml"),
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: \"x\\n::error file=a::pwned\\u001b[31m <img src=x> @everyone\"\nspec:\n  hosts: [payments.prod.svc.cluster.local]\n  http:\n  - name: \"r\\n::warning::route\"\n    route: [{ destination: { host: p } }]\n",
    )
    .expect("written");
    let args = |format: &str| -> Vec<String> {
        [
            "check",
            "openapi.yaml",
            "-p",
            "vs.yaml",
            "--host",
            "payments.prod.svc.cluster.local",
            "--format",
            format,
        ]
        .map(str::to_string)
        .to_vec()
    };
    for format in ["github", "human", "json", "sarif", "junit"] {
        let argv = args(format);
        let run = retrylint_in(&dir, &argv.iter().map(String::as_str).collect::<Vec<_>>());
        assert_ne!(run.code, 2, "{}", run.transcript());
        assert!(
            run.stdout.contains("implicit-mesh-retry"),
            "{format}: {}",
            run.stdout
        );
        for line in run.stdout.lines() {
            assert!(
                !line.starts_with("::warning::route") && !line.starts_with("::error file=a"),
                "{format}: {line}"
            );
            assert!(!line.contains('\u{1b}'), "{format}: {line:?}");
        }
    }
    let report = retrylint_in(
        &dir,
        &[
            "report",
            "openapi.yaml",
            "-p",
            "vs.yaml",
            "--host",
            "payments.prod.svc.cluster.local",
        ],
    );
    // Markdown: the tag is escaped text, the mention is broken.
    assert!(report.stdout.contains("<img"), "{}", report.stdout);
    assert!(
        report
            .stdout
            .match_indices("<img")
            .all(|(at, _)| report.stdout[..at].ends_with('\\')),
        "{}",
        report.stdout
    );
    assert!(!report.stdout.contains("@everyone"), "{}", report.stdout);
    let plan = retrylint_in(
        &dir,
        &[
            "plan",
            "openapi.yaml",
            "-p",
            "vs.yaml",
            "--host",
            "payments.prod.svc.cluster.local",
        ],
    );
    assert!(
        plan.stdout.lines().all(|l| !l.starts_with("::")),
        "{}",
        plan.stdout
    );
    assert!(!plan.stdout.contains('\u{1b}'), "{}", plan.stdout);
}

#[test]
fn the_policys_layer_settings_are_read_as_strictly_as_the_rest() {
    let dir = scratch("layers-settings");
    copy_demo(&dir);
    let cases: [(&str, &[&str], &str); 7] = [
        (
            "version: 1\nlayers:\n  - file: deploy/mesh.yaml\n    position: sidecar\n",
            &["`position` cannot be `sidecar`: expected one of client, edge, gateway, mesh"],
            "retry-policy.yaml:4",
        ),
        (
            "version: 1\nlayers:\n  - position: mesh\n",
            &["`layers[0]` needs a `file` or a `name`"],
            "retry-policy.yaml:3",
        ),
        (
            "version: 1\nservice:\n  host: payments\n",
            &["unknown key `host` in `service`", "did you mean `hosts`?"],
            "retry-policy.yaml:3",
        ),
        (
            "version: 1\nlayers:\n  - file: deploy/mesh.yaml\n    positon: mesh\n",
            &[
                "unknown key `positon` in `layers[0]`",
                "did you mean `position`?",
                "`layers[0]` needs a `position`",
            ],
            "retry-policy.yaml:4",
        ),
        (
            "version: 1\nlint:\n  maxAmplification: 0\n",
            &["`maxAmplification` must be a whole number of 1 or more, found `0`"],
            "retry-policy.yaml:3",
        ),
        // An unknown `lint` key is refused, never read as something else.
        (
            "version: 1\nlint:\n  maxAmplifcation: 3\n",
            &[
                "unknown key `maxAmplifcation` in `lint`",
                "did you mean `maxAmplification`?",
            ],
            "retry-policy.yaml:3",
        ),
        (
            "version: 1\nlint:\n  ignores:\n    - rule: retry-amplification\n",
            &["unknown key `ignores` in `lint`", "did you mean `ignore`?"],
            "retry-policy.yaml:3",
        ),
    ];
    for (policy, messages, at) in cases {
        std::fs::write(dir.join("retry-policy.yaml"), policy).expect("written");
        let run = retrylint_in(&dir, &["check", "openapi.yaml"]);
        assert_eq!(run.code, 2, "{policy}\n{}", run.transcript());
        for message in messages {
            assert!(run.stderr.contains(message), "{policy}\n{}", run.stderr);
        }
        assert!(run.stderr.contains(at), "{policy}\n{}", run.stderr);
    }
}

/// `lint.maxAmplification` is read with the rest of the policy file, into the one model
/// the `retry-amplification` rule takes it from.
#[test]
fn max_amplification_is_read_through_the_policy_model() {
    let text = "version: 1\nlint:\n  maxAmplification: 4\n";
    let file = retrylint::input::source::SourceFile::parse(
        "retry-policy.yaml".into(),
        text.into(),
        retrylint::input::source::ParseLimits::default(),
    )
    .expect("parsed");
    let policy =
        retrylint::input::policy::parse_policy_file(&file, 0, &retrylint::analysis::rules::names())
            .expect("a valid policy");
    let limit = policy.lint.max_amplification.as_ref().expect("read");
    assert_eq!(limit.value, 4);
    assert_eq!(&text[limit.loc.span.range()], "maxAmplification: 4");
    let settings = retrylint::analysis::layers::settings::LayerSettings::from(&policy);
    assert_eq!(settings.max_amplification.map(|m| m.value), Some(4));
}

#[test]
fn p_counts_its_files_against_max_files() {
    let run = retrylint(&[
        "check",
        DEMO,
        "-p",
        DEMO_POLICY,
        "-p",
        DEMO_DEPLOY,
        "--max-files",
        "2",
    ]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("-p names more than 2 files"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--max-files"), "{}", run.stderr);
}

#[test]
fn an_nginx_syntax_error_or_bad_value_is_an_input_error_at_its_line() {
    let dir = scratch("layers-nginx-bad");
    let spec = format!("{}/{DEMO}", env!("CARGO_MANIFEST_DIR"));
    for (text, line, message) in [
        (
            "http {\n  server {\n    location / {\n      proxy_pass http://a\n    }\n  }\n}\n",
            "nginx.conf:4",
            "without `;`",
        ),
        (
            "http {\n  server {\n    location / { proxy_pass http://a; }\n",
            // The innermost block left open: `server`'s.
            "nginx.conf:2",
            "never closed",
        ),
        (
            "http {\n  proxy_next_upstream error sometimes;\n  server { location / { proxy_pass http://a; } }\n}\n",
            "nginx.conf:2",
            "not a proxy_next_upstream condition",
        ),
    ] {
        std::fs::write(dir.join("nginx.conf"), text).expect("written");
        let run = retrylint_in(&dir, &["check", &spec, "-p", "nginx.conf"]);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(run.stderr.contains(line), "{line}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{message}: {}", run.stderr);
    }
    // A `.conf` of another program is no NGINX configuration.
    std::fs::write(dir.join("app.conf"), "server = 80\nlocation = here\n").expect("written");
    let run = retrylint_in(&dir, &["check", &spec, "-p", "app.conf"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("of no kind retrylint reads"),
        "{}",
        run.stderr
    );
}
