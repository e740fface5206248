//! Retry layers through the real binary: each format's fixture, the demo chain of the
//! manual (client × gateway × mesh), the report, `init` and `simulate` over layers.

use crate::common;

use common::layers_demo::{DEMO, DEMO_DEPLOY, DEMO_POLICY, copy_demo};
use common::{fired_rules, retrylint, retrylint_in, scratch};

/// A finding of the JSON output: its rule, file, message, and the operations it is about
/// (`METHOD path`: its own, or those of a finding shared at a route).
type Found = (String, String, String, Vec<String>);

/// The JSON findings of a run.
fn findings(stdout: &str) -> Vec<Found> {
    let json: serde_json::Value = serde_json::from_str(stdout).expect("JSON output");
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let own = f.get("operation").filter(|o| !o.is_null());
            let shared = f["operations"].as_array().into_iter().flatten();
            let ops = own
                .into_iter()
                .chain(shared)
                .map(|o| format!("{} {}", text(&o["method"]), text(&o["path"])))
                .collect();
            (
                text(&f["rule"]),
                text(&f["location"]["file"]),
                text(&f["message"]),
                ops,
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
    let find = |rule: &str, op: &str| {
        let found: Vec<&Found> = all
            .iter()
            .filter(|(r, _, _, ops)| r == rule && ops.iter().any(|o| o == op))
            .collect();
        match found[..] {
            [one] => one,
            _ => panic!("not one {rule} about {op}:\n{all:#?}"),
        }
    };
    let (_, file, message, _) = find("retry-amplification", "POST /payments");
    assert!(message.contains("3 × 3 × 3 = 27"), "{message}");
    assert!(file.ends_with("deploy/mesh.yaml"), "{file}");
    let (_, file, message, _) = find("implicit-mesh-retry", "POST /payments");
    assert!(file.ends_with("deploy/mesh.yaml"), "{file}");
    assert!(message.contains("route writes"), "{message}");
    assert!(message.contains("no idempotency key"), "{message}");
    let (_, _, message, _) = find("multi-layer-write-retry", "POST /payments");
    assert!(message.contains("3 layers"), "{message}");
    // The keyed refund is not an error: the implicit retry is a warning for it, its own
    // finding at the same route.
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let refund = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| {
            f["rule"] == "implicit-mesh-retry"
                && f["operations"]
                    .as_array()
                    .is_some_and(|ops| ops.iter().any(|o| o["path"] == "/payments/{id}/refunds"))
        })
        .expect("the refund's implicit retry");
    assert!(
        !refund["operations"]
            .as_array()
            .is_some_and(|ops| ops.iter().any(|o| o["path"] == "/payments")),
        "{refund:#}"
    );
    assert_eq!(refund["severity"], "warning");
}

#[test]
fn the_layers_page_shows_the_numbers_the_demo_prints() {
    let page = common::docs::page("layers.md");
    let section = common::docs::section(&page, "# Retries in your mesh");
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
        .split("```console\n")
        .skip(1)
        .filter_map(|block| block.split("\n```").next())
        .flat_map(str::lines)
        // Not the commands (`$ …` and their continuations), not the elisions.
        .filter(|l| {
            !l.trim().is_empty()
                && !l.starts_with('$')
                && !l.starts_with("  -p ")
                && !l.contains('…')
        })
        .collect();
    assert!(quoted.len() >= 5, "the section quotes the demo's output");
    for line in quoted {
        assert!(
            plan.stdout.contains(line) || check.stdout.contains(line),
            "docs/src/layers.md quotes a line the demo does not print: {line:?}\n{}\n{}",
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
    let cases: [(&str, &[&str]); 8] = [
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
            "nginx-edge",
            &[
                "check",
                DEMO,
                "-p",
                DEMO_POLICY,
                "-p",
                "fixtures/layers/nginx/nginx.conf",
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
        !all.iter().any(|(r, ..)| r == "retry-amplification"),
        "{all:#?}"
    );
    assert!(
        all.iter().any(|(r, f, m, _)| r == "route-matches-nothing"
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
            .any(|(r, _, m, _)| r == "unprotected-write-retry" && m.starts_with("POST /payments "))
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
        // retry-budget-missing is an info: shown on request.
        let mut args = vec!["check", DEMO, "-p", DEMO_POLICY, "-p", DEMO_DEPLOY];
        args.push("--show-infos");
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
