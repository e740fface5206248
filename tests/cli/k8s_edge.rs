//! The Kubernetes edge formats of proxies also read in their native configuration:
//! ingress-nginx's `Ingress` annotations, Traefik's `Middleware`/`IngressRoute` objects
//! and Docker labels, and the Kong Ingress Controller's `Service` annotations, through the
//! real binary on each format's fixture (`fixtures/layers/<format>/`), with defaults read
//! from each controller's source, each test naming the file it follows.

use crate::common;

use common::{check_and_plan, check_layers, fired_rules, payments, scratch};

const INGRESS_NGINX: &str = "fixtures/layers/ingress-nginx";
const TRAEFIK_CRD: &str = "fixtures/layers/traefik-crd";
const TRAEFIK_LABELS: &str = "fixtures/layers/traefik-labels";
const KONG_INGRESS_CONTROLLER: &str = "fixtures/layers/kong-ingress-controller";

#[test]
fn ingress_nginx_retries_are_checked_in_the_ingress() {
    let (check, plan) = check_and_plan(INGRESS_NGINX, "ingress.yaml");
    assert_eq!(check.code, 1, "{}", check.transcript());
    // `non_idempotent` in the annotation: the write is retried, reported there.
    assert!(
        check.stdout.contains("ingress.yaml:9:5"),
        "{}",
        check.stdout
    );
    insta::assert_snapshot!("ingress-nginx-check", check.transcript());
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    assert!(
        plan.stdout
            .contains("edge: ingress-nginx Ingress orders, route Prefix /orders"),
        "{}",
        plan.stdout
    );
    insta::assert_snapshot!("ingress-nginx-plan", plan.transcript());
}

/// An ingress-nginx `Ingress` for host `p` with `annotations` (indented lines).
fn ingress(annotations: &str) -> String {
    format!(
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: pay\n  annotations:\n    kubernetes.io/ingress.class: nginx\n{annotations}spec:\n  rules:\n  - host: p\n    http:\n      paths:\n      - path: /payments\n        pathType: Prefix\n        backend: {{service: {{name: p, port: {{number: 80}}}}}}\n"
    )
}

#[test]
fn ingress_nginx_tries_three_times_and_resends_a_write_only_with_non_idempotent() {
    // kubernetes/ingress-nginx internal/ingress/controller/config/config.go:
    // ProxyNextUpstreamTries 3, ProxyNextUpstream "error timeout"; buildNextUpstream in
    // internal/ingress/controller/template/template.go adds `non_idempotent` only when it
    // is written (or the ConfigMap's retry-non-idempotent is true).
    let dir = scratch("k8s-edge-ingress-nginx-defaults");
    payments(&dir);
    let run = check_layers(&dir, &[("ingress.yaml", ingress("").as_str())]);
    assert!(
        !fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
    let plan = common::retrylint_in(&dir, &["plan", "openapi.yaml", "-p", "ingress.yaml"]);
    assert!(
        plan.stdout
            .contains("edge: ingress-nginx Ingress pay, route Prefix /payments:\n  not retried"),
        "{}",
        plan.stdout
    );
    let written = ingress(
        "    nginx.ingress.kubernetes.io/proxy-next-upstream: \"error timeout non_idempotent\"\n",
    );
    let run = check_layers(&dir, &[("ingress.yaml", written.as_str())]);
    assert!(
        fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
}

#[test]
fn a_bad_ingress_nginx_annotation_is_an_input_error_at_its_place() {
    let dir = scratch("k8s-edge-ingress-nginx-bad");
    payments(&dir);
    let bad = ingress("    nginx.ingress.kubernetes.io/proxy-next-upstream-tries: \"3x\"\n");
    let run = check_layers(&dir, &[("ingress.yaml", bad.as_str())]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains("ingress.yaml:7:5"), "{}", run.stderr);
    assert!(run.stderr.contains("whole number"), "{}", run.stderr);
}

#[test]
fn traefik_ingressroute_retries_are_checked_in_the_middleware() {
    let (check, plan) = check_and_plan(TRAEFIK_CRD, "ingressroute.yaml");
    assert_eq!(check.code, 1, "{}", check.transcript());
    // The write is retried on a status: reported at the Middleware's `status`.
    assert!(
        check.stdout.contains("ingressroute.yaml:13:9"),
        "{}",
        check.stdout
    );
    insta::assert_snapshot!("traefik-crd-check", check.transcript());
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    assert!(
        plan.stdout
            .contains("gateway: Traefik IngressRoute orders, route routes[0]"),
        "{}",
        plan.stdout
    );
    insta::assert_snapshot!("traefik-crd-plan", plan.transcript());
}

#[test]
fn a_traefik_middleware_in_another_file_is_named_not_guessed() {
    // traefik/traefik pkg/provider/kubernetes/crd/kubernetes.go, resolveReference: a
    // reference without a namespace is to the IngressRoute's own.
    let dir = scratch("k8s-edge-traefik-crd-missing");
    payments(&dir);
    let route = "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: {name: pay}\nspec:\n  routes:\n  - kind: Rule\n    match: Host(`p`) && PathPrefix(`/payments`)\n    middlewares: [{name: retry}]\n";
    let run = check_layers(&dir, &[("route.yaml", route)]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let plan = common::retrylint_in(&dir, &["plan", "openapi.yaml", "-p", "route.yaml"]);
    assert!(
        plan.stdout
            .contains("gateway: Traefik IngressRoute pay, route routes[0]:\n  not retried"),
        "{}",
        plan.stdout
    );
    let middleware = "apiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata: {name: retry}\nspec:\n  retry: {attempts: 3, retryNonIdempotentMethod: true, status: ['503']}\n---\n";
    let both = format!("{middleware}{route}");
    let run = check_layers(&dir, &[("route.yaml", both.as_str())]);
    assert!(
        fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
}

#[test]
fn kong_ingress_controller_retries_are_checked_on_the_service() {
    let (check, plan) = check_and_plan(KONG_INGRESS_CONTROLLER, "service.yaml");
    assert_eq!(check.code, 1, "{}", check.transcript());
    // `konghq.com/retries: "3"`: 4 attempts with no deadline, reported there.
    assert!(
        check.stdout.contains("service.yaml:11:5"),
        "{}",
        check.stdout
    );
    insta::assert_snapshot!("kong-ingress-controller-check", check.transcript());
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    assert!(
        plan.stdout
            .contains("gateway: Kong Ingress Controller Service orders, route every request"),
        "{}",
        plan.stdout
    );
    insta::assert_snapshot!("kong-ingress-controller-plan", plan.transcript());
}

#[test]
fn kong_ingress_controller_retries_five_times_unless_annotated() {
    // Kong/kubernetes-ingress-controller internal/dataplane/translator/subtranslator/
    // subtranslator_vars.go: DefaultRetries = 5; nginx does not send a written POST again.
    let dir = scratch("k8s-edge-kong-defaults");
    payments(&dir);
    let service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: p\n  annotations:\n    konghq.com/read-timeout: \"2000\"\nspec: {ports: [{port: 80}]}\n";
    let run = check_layers(&dir, &[("service.yaml", service)]);
    assert!(
        !fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("6 attempts"), "{}", run.stdout);
    assert!(run.stdout.contains("DefaultRetries"), "{}", run.stdout);
    let bad = service.replace("read-timeout: \"2000\"", "retries: \"5x\"");
    let run = check_layers(&dir, &[("service.yaml", bad.as_str())]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains("service.yaml:6:5"), "{}", run.stderr);
}

#[test]
fn traefik_docker_labels_are_checked_in_the_compose_file() {
    let (check, plan) = check_and_plan(TRAEFIK_LABELS, "docker-compose.yml");
    assert_eq!(check.code, 1, "{}", check.transcript());
    // The write is retried on a status: reported at the `status` label.
    assert!(
        check.stdout.contains("docker-compose.yml:25:9"),
        "{}",
        check.stdout
    );
    insta::assert_snapshot!("traefik-labels-check", check.transcript());
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    assert!(
        plan.stdout
            .contains("gateway: Traefik Docker labels, route orders-api"),
        "{}",
        plan.stdout
    );
    insta::assert_snapshot!("traefik-labels-plan", plan.transcript());
}
