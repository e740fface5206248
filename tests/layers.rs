//! Retry layers through the real binary: each format's fixture, the demo chain of the
//! README (client × gateway × mesh), and what `-p` refuses.

mod common;

use common::{fired_rules, retrylint, retrylint_in, scratch};

const DEMO: &str = "fixtures/layers/payments/openapi.yaml";
const DEMO_POLICY: &str = "fixtures/layers/payments/retry-policy.yaml";
const DEMO_DEPLOY: &str = "fixtures/layers/payments/deploy";

/// The demo's description, alone in `dir` (no policy beside it to discover).
fn copy_demo(dir: &std::path::Path) {
    std::fs::copy(
        format!("{}/{DEMO}", env!("CARGO_MANIFEST_DIR")),
        dir.join("openapi.yaml"),
    )
    .expect("copied");
}

/// The JSON findings of a run, as (rule, file, message).
fn findings(stdout: &str) -> Vec<(String, String, String)> {
    let json: serde_json::Value = serde_json::from_str(stdout).expect("JSON output");
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                f["location"]["file"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                f["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_demo_chain_reaches_the_backend_27_times_and_the_mesh_default_is_reported() {
    let run = retrylint(&[
        "check",
        DEMO,
        "-p",
        DEMO_POLICY,
        "-p",
        DEMO_DEPLOY,
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let all = findings(&run.stdout);
    let find = |rule: &str, about: &str| {
        all.iter()
            .find(|(r, _, m)| r == rule && m.starts_with(about))
            .unwrap_or_else(|| panic!("no {rule} about {about}:\n{all:#?}"))
    };
    let (_, file, message) = find("retry-amplification", "POST /payments ");
    assert!(message.contains("3 × 3 × 3 = 27"), "{message}");
    assert!(file.ends_with("deploy/mesh.yaml"), "{file}");
    let (_, file, message) = find("implicit-mesh-retry", "POST /payments ");
    assert!(file.ends_with("deploy/mesh.yaml"), "{file}");
    assert!(message.contains("route writes"), "{message}");
    let (_, _, message) = find("multi-layer-write-retry", "POST /payments ");
    assert!(message.contains("3 layers"), "{message}");
    // The keyed refund is not an error: the implicit retry is a warning for it.
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let refund = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| {
            f["rule"] == "implicit-mesh-retry"
                && f["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("POST /payments/{id}/refunds"))
        })
        .expect("the refund's implicit retry");
    assert_eq!(refund["severity"], "warning");
}

#[test]
fn the_readme_shows_the_numbers_the_demo_prints() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("the README");
    let section = &readme[readme
        .find("## Retries in your mesh")
        .expect("a README section about layers")..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let plan = retrylint(&[
        "plan",
        DEMO,
        "-p",
        DEMO_POLICY,
        "-p",
        DEMO_DEPLOY,
        "--operation",
        "createPayment",
    ]);
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    let check = retrylint(&["check", DEMO, "-p", DEMO_POLICY, "-p", DEMO_DEPLOY]);
    // Every line the README quotes from the demo's output is in the real output.
    let quoted: Vec<&str> = section
        .split("```text\n")
        .skip(1)
        .filter_map(|block| block.split("\n```").next())
        .flat_map(str::lines)
        .filter(|l| !l.trim().is_empty() && !l.starts_with('$') && !l.contains('…'))
        .collect();
    assert!(quoted.len() >= 5, "the section quotes the demo's output");
    for line in quoted {
        assert!(
            plan.stdout.contains(line) || check.stdout.contains(line),
            "the README quotes a line the demo does not print: {line:?}\n{}\n{}",
            plan.stdout,
            check.stdout
        );
    }
    assert!(
        plan.stdout.contains("at the backend: 27 requests per call"),
        "{}",
        plan.stdout
    );
}

#[test]
fn each_format_checks_through_the_binary() {
    let cases: [(&str, &[&str]); 7] = [
        (
            "envoy-rds-json",
            &[
                "check",
                DEMO,
                "-p",
                DEMO_POLICY,
                "-p",
                "fixtures/layers/envoy/rds.json",
            ],
        ),
        (
            "istio",
            &[
                "check",
                DEMO,
                "-p",
                DEMO_POLICY,
                "-p",
                "fixtures/layers/istio/payments-virtualservice.yaml",
            ],
        ),
        (
            "linkerd-profile",
            &[
                "check",
                DEMO,
                "-p",
                DEMO_POLICY,
                "-p",
                "fixtures/layers/linkerd/payments-serviceprofile.yaml",
            ],
        ),
        (
            "linkerd-annotations",
            &[
                "check",
                DEMO,
                "-p",
                DEMO_POLICY,
                "-p",
                "fixtures/layers/linkerd/annotations.yaml",
            ],
        ),
        (
            "envoy-front-proxy",
            &[
                "check",
                DEMO,
                "-p",
                DEMO_POLICY,
                "-p",
                "fixtures/layers/envoy/front-proxy.yaml",
            ],
        ),
        (
            "sdk-speakeasy",
            &["check", "fixtures/layers/sdk/payments-speakeasy.yaml"],
        ),
        (
            "demo-plan",
            &["plan", DEMO, "-p", DEMO_POLICY, "-p", DEMO_DEPLOY],
        ),
    ];
    for (name, args) in cases {
        let run = retrylint(args);
        assert_ne!(run.code, 2, "{name}: {}", run.transcript());
        insta::assert_snapshot!(format!("layers-{name}"), run.transcript());
    }
}

#[test]
fn every_layer_rule_has_a_finding_in_a_layer_file_with_the_operation_related() {
    let run = retrylint(&[
        "check",
        DEMO,
        "-p",
        DEMO_POLICY,
        "-p",
        DEMO_DEPLOY,
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    for f in json["findings"].as_array().expect("findings") {
        let file = f["location"]["file"].as_str().unwrap_or_default();
        if !file.contains("/deploy/") || f["operation"].is_null() {
            continue;
        }
        let related: Vec<&str> = f["related"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|l| l["location"]["file"].as_str())
                    .collect()
            })
            .unwrap_or_default();
        assert!(
            related.iter().any(|r| r.ends_with("payments/openapi.yaml")),
            "a finding in a layer file names its operation's place: {f:#}"
        );
    }
}

#[test]
fn sarif_names_the_layer_files_as_artifacts() {
    let run = retrylint(&[
        "check",
        DEMO,
        "-p",
        DEMO_POLICY,
        "-p",
        DEMO_DEPLOY,
        "--format",
        "sarif",
    ]);
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).expect("SARIF");
    let uris: Vec<&str> = sarif["runs"][0]["artifacts"]
        .as_array()
        .expect("artifacts")
        .iter()
        .filter_map(|a| a["location"]["uri"].as_str())
        .collect();
    assert!(
        uris.iter().any(|u| u.ends_with("deploy/mesh.yaml")),
        "{uris:?}"
    );
    assert!(
        uris.iter()
            .any(|u| u.ends_with("deploy/gateway-httproute.yaml")),
        "{uris:?}"
    );
}

#[test]
fn the_report_shows_layers_and_amplification() {
    let run = retrylint(&[
        "report",
        DEMO,
        "-p",
        DEMO_POLICY,
        "-p",
        DEMO_DEPLOY,
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let create = report["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .find(|o| o["operationId"] == "createPayment")
        .expect("createPayment");
    assert_eq!(create["amplification"], 27);
    let positions: Vec<&str> = create["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .filter_map(|l| l["position"].as_str())
        .collect();
    assert_eq!(positions, ["gateway", "mesh"]);
    let markdown = retrylint(&["report", DEMO, "-p", DEMO_POLICY, "-p", DEMO_DEPLOY]);
    let html = retrylint(&[
        "report",
        DEMO,
        "-p",
        DEMO_POLICY,
        "-p",
        DEMO_DEPLOY,
        "--format",
        "html",
    ]);
    assert!(
        html.stdout
            .contains("<h4>Layers</h4><p>27 requests at the backend per call in the worst case (client 3 × gateway 3 × mesh 3)"),
        "{}",
        html.stdout
    );
    assert!(
        markdown
            .stdout
            .contains("**Layers:** 27 requests at the backend"),
        "{}",
        markdown.stdout
    );
}

#[test]
fn without_a_host_in_common_the_layers_are_reported_unchecked() {
    // The description alone, without the policy's service.hosts beside it: the mesh's
    // in-cluster name is unknown.
    let dir = scratch("layers-no-host");
    copy_demo(&dir);
    let deploy = format!("{}/{DEMO_DEPLOY}", env!("CARGO_MANIFEST_DIR"));
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "-p", &deploy]);
    assert!(
        run.stdout
            .contains("deploy/mesh.yaml serves the hosts of openapi.yaml"),
        "{}",
        run.transcript()
    );
    assert!(!fired_rules(&run.stdout).contains(&"implicit-mesh-retry".to_string()));
    let named = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "-p",
            &deploy,
            "--host",
            "payments.prod.svc.cluster.local",
        ],
    );
    assert!(
        fired_rules(&named.stdout).contains(&"implicit-mesh-retry".to_string()),
        "{}",
        named.transcript()
    );
}

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
    std::fs::copy(
        format!("{}/{DEMO_DEPLOY}/mesh.yaml", env!("CARGO_MANIFEST_DIR")),
        dir.join("mesh.yaml"),
    )
    .expect("copied");
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
    std::fs::create_dir_all(dir.join("deploy")).expect("a scratch folder");
    let root = env!("CARGO_MANIFEST_DIR");
    for file in [
        "openapi.yaml",
        "retry-policy.yaml",
        "deploy/gateway-httproute.yaml",
    ] {
        std::fs::copy(
            format!("{root}/fixtures/layers/payments/{file}"),
            dir.join(file),
        )
        .expect("copied");
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
    assert!(run.stdout.contains("(2 suppressed)"), "{}", run.stdout);
}

#[test]
fn the_policy_places_layers_and_reports_an_entry_that_places_none() {
    let dir = scratch("layers-placed");
    let root = env!("CARGO_MANIFEST_DIR");
    copy_demo(&dir);
    let policy = std::fs::read_to_string(format!("{root}/{DEMO_POLICY}")).expect("read");
    // The mesh's VirtualService placed at the gateway: the two are alternatives there, so
    // a call reaches the backend 3 × 3 = 9 times, within the limit.
    let placed = format!(
        "{policy}layers:\n  - file: deploy/mesh.yaml\n    position: gateway\n  - name: nothing-by-this-name\n    position: edge\n"
    );
    std::fs::write(dir.join("retry-policy.yaml"), placed).expect("written");
    let deploy = format!("{root}/{DEMO_DEPLOY}");
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "-p",
            "retry-policy.yaml",
            "-p",
            &deploy,
            "--format",
            "json",
        ],
    );
    let all = findings(&run.stdout);
    assert!(
        !all.iter().any(|(r, _, _)| r == "retry-amplification"),
        "{all:#?}"
    );
    assert!(
        all.iter().any(|(r, f, m)| r == "route-matches-nothing"
            && f.ends_with("retry-policy.yaml")
            && m.contains("places no layer")),
        "{all:#?}"
    );
}

#[test]
fn init_leaves_the_client_the_attempts_the_layers_leave_room_for() {
    let run = retrylint(&[
        "init",
        DEMO,
        "-p",
        DEMO_DEPLOY,
        "--host",
        "payments.prod.svc.cluster.local",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(run.stdout.contains("maxAttempts: 1\n"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("the layers already make up to 9 requests per call"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("    - \"payments.prod.svc.cluster.local\""),
        "{}",
        run.stdout
    );
    // The policy it writes reads back, and check binds the same layers with it.
    let dir = scratch("layers-init");
    copy_demo(&dir);
    std::fs::write(dir.join("retry-policy.yaml"), &run.stdout).expect("written");
    let deploy = format!("{}/{DEMO_DEPLOY}", env!("CARGO_MANIFEST_DIR"));
    let check = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "-p",
            "retry-policy.yaml",
            "-p",
            &deploy,
        ],
    );
    assert_ne!(check.code, 2, "{}", check.transcript());
    assert!(
        !fired_rules(&check.stdout).contains(&"retry-amplification".to_string()),
        "{}",
        check.stdout
    );
    let refused = retrylint(&["init", DEMO, "-p", DEMO_POLICY]);
    assert_eq!(refused.code, 2, "{}", refused.transcript());
}

#[test]
fn binding_many_routes_to_many_operations_is_refused_quickly() {
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
    let start = std::time::Instant::now();
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "-p", "vs.yaml"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("20000 routes for 2000 operations"),
        "{}",
        run.stderr
    );
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn an_envoy_method_guard_keeps_writes_from_being_retried() {
    let dir = scratch("layers-guard");
    copy_demo(&dir);
    let rds = |guard: &str| {
        format!(
            "name: edge\nvirtual_hosts:\n- name: payments\n  domains: [api.payments.example.com]\n  routes:\n  - match: {{ prefix: /v1/payments }}\n    route:\n      cluster: payments\n      timeout: 10s\n      retry_policy:\n        retry_on: 5xx\n        num_retries: 2\n        per_try_timeout: 2s\n{guard}"
        )
    };
    let guarded = rds(
        "        retriable_request_headers:\n        - name: \":method\"\n          string_match: { exact: GET }\n",
    );
    std::fs::write(dir.join("guarded.yaml"), guarded).expect("written");
    std::fs::write(dir.join("open.yaml"), rds("")).expect("written");
    let writes_retried = |file: &str| {
        let run = retrylint_in(
            &dir,
            &["check", "openapi.yaml", "-p", file, "--format", "json"],
        );
        assert_ne!(run.code, 2, "{}", run.transcript());
        findings(&run.stdout)
            .iter()
            .any(|(r, _, m)| r == "unprotected-write-retry" && m.starts_with("POST /payments "))
    };
    assert!(writes_retried("open.yaml"));
    assert!(!writes_retried("guarded.yaml"));
    let plan = retrylint_in(
        &dir,
        &[
            "plan",
            "openapi.yaml",
            "-p",
            "guarded.yaml",
            "--operation",
            "createPayment",
        ],
    );
    assert!(
        plan.stdout.contains("at the backend: 1 request per call"),
        "{}",
        plan.stdout
    );
}

#[test]
fn a_gateway_api_retry_budget_for_the_service_satisfies_retry_budget_missing() {
    let budget = "fixtures/layers/gateway/payments-retry-budget.yaml";
    let fired = |extra: &[&str]| {
        let mut args = vec!["check", DEMO, "-p", DEMO_POLICY, "-p", DEMO_DEPLOY];
        args.extend_from_slice(extra);
        fired_rules(&retrylint(&args).stdout)
    };
    assert!(fired(&[]).contains(&"retry-budget-missing".to_string()));
    assert!(!fired(&["-p", budget]).contains(&"retry-budget-missing".to_string()));
}

#[test]
fn simulate_counts_the_demo_chain_at_the_backend() {
    let run = retrylint(&[
        "simulate",
        DEMO,
        "-p",
        DEMO_POLICY,
        "-p",
        DEMO_DEPLOY,
        "--operation",
        "listPayments",
        "--fault",
        "503@0s..600s",
        "--clients",
        "10",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let positions: Vec<&str> = json["scenario"]["loops"][0]["loops"]
        .as_array()
        .expect("loops")
        .iter()
        .filter_map(|l| l["position"].as_str())
        .collect();
    assert_eq!(positions, ["client", "gateway", "mesh"]);
    // Every attempt of every loop meets the 503: 3 × 3 × 3 requests per call.
    let variant = &json["variants"][0];
    assert_eq!(variant["calls"], 10);
    assert_eq!(variant["requests"], 270);
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
    let cases = [
        (
            "version: 1\nlayers:\n  - file: deploy/mesh.yaml\n    position: sidecar\n",
            "unknown position `sidecar`: use client, edge, gateway, mesh",
            "retry-policy.yaml:4",
        ),
        (
            "version: 1\nlayers:\n  - position: mesh\n",
            "needs a `file` or a `name`",
            "retry-policy.yaml:3",
        ),
        (
            "version: 1\nservice:\n  host: payments\n",
            "unknown key `host` in `service`",
            "retry-policy.yaml:3",
        ),
        (
            "version: 1\nlint:\n  maxAmplification: 0\n",
            "`maxAmplification` must be a whole number of 1 or more",
            "retry-policy.yaml:3",
        ),
    ];
    for (policy, message, at) in cases {
        std::fs::write(dir.join("retry-policy.yaml"), policy).expect("written");
        let run = retrylint_in(&dir, &["check", "openapi.yaml"]);
        assert_eq!(run.code, 2, "{policy}\n{}", run.transcript());
        assert!(run.stderr.contains(message), "{policy}\n{}", run.stderr);
        assert!(run.stderr.contains(at), "{policy}\n{}", run.stderr);
    }
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
