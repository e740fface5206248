//! Traefik's Kubernetes CRDs: an `IngressRoute` (`traefik.io`, or the older
//! `traefik.containo.us`) is a gateway layer whose `spec.routes` are routers, retried by
//! the `Middleware`s with `spec.retry` they name — read with the file configuration's
//! semantics (the rule, the retry middleware and the release assumed, in [`super`]).
//!
//! From traefik/traefik: `pkg/provider/kubernetes/crd/traefikio/v1alpha1/ingressroute.go`
//! (`Route`: `match`, `kind`, `priority`, `middlewares` of `name` and `namespace`) and
//! `middleware.go` (`Retry`: `attempts`, `initialInterval`, `status`,
//! `disableRetryOnNetworkError`, `retryNonIdempotentMethod`);
//! `pkg/provider/kubernetes/crd/kubernetes.go` (`createRetryMiddleware` copies them into
//! the file configuration's `dynamic.Retry`; `resolveReference`: a reference without a
//! namespace is to the `IngressRoute`'s own, `name@provider` to another provider's) and
//! `kubernetes_http.go` (a route whose `kind` is not `Rule`, or whose `match` is empty, is
//! skipped).
//!
//! A `Middleware` is looked up among the objects of the `IngressRoute`'s own file (its
//! documents and lists): one in another file is not read, and the route then carries a
//! note saying so.

use super::super::format::{DocsRow, Fix, FormatSpec, ObjectKinds, RetryAfter};
use super::super::k8s::{self, built_in};
use super::super::values::{field, list, mapping, text, whole_number};
use super::super::{Format, ImportFile, Importer, Layer, Position, Route};
use super::{RetryMiddleware, read_retry, router_routes, rule};
use crate::error::InputError;
use crate::input::policy::PolicyObject;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The API groups of Traefik's CRDs: `traefik.io` since v3 (and v2.10), `traefik.containo.us`
/// before.
const GROUPS: [&str; 2] = ["traefik.io", "traefik.containo.us"];

/// Reads Traefik's `IngressRoute`s.
pub struct Crd;

/// What Traefik's Kubernetes CRDs are as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "Traefik IngressRoute",
    position: Position::Gateway,
    objects: &[
        ObjectKinds {
            group: "traefik.io",
            kinds: &["IngressRoute"],
        },
        ObjectKinds {
            group: "traefik.containo.us",
            kinds: &["IngressRoute"],
        },
    ],
    understood: Some(
        "Traefik `IngressRoute` (`traefik.io`, `traefik.containo.us`) with its `Middleware`s",
    ),
    family: "Traefik",
    importer: Some(&Crd),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "Traefik `IngressRoute` and `Middleware` (`traefik.io`, `traefik.containo.us`)",
        position_note: "",
        read: "`spec.routes` by priority, `match` as a router's `rule`, `middlewares` by name and namespace to a `Middleware`'s `spec.retry` in the same file (read as the dynamic configuration's `retry`)",
        defaults: "as the dynamic configuration (**v3.7 and later assumed**); a route whose `Middleware` is in no file read does not retry, noted",
    },
    help: &[
        (
            Fix::Deadline,
            "retrylint does not read a deadline for Traefik's retries: lower the `Middleware`'s `spec.retry.attempts`, or bound the call in the client",
        ),
        (
            Fix::WriteRetries,
            "set `retryNonIdempotentMethod: false` in the `Middleware`'s `spec.retry`, or leave it out of the route's `middlewares`",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from the `Middleware`'s `spec.retry.status`",
        ),
        (
            Fix::TooManyAttempts,
            "lower the `Middleware`'s `spec.retry.attempts`",
        ),
        (
            Fix::NoWait,
            "set the `Middleware`'s `spec.retry.initialInterval`",
        ),
    ],
};

impl Importer for Crd {
    fn recognises(&self, doc: &Node) -> bool {
        SPEC.reads_object(doc)
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let source = file.file;
        let meta = k8s::metadata(source, doc, loc)?;
        let Some((spec, spec_at)) = k8s::spec(source, doc, loc)? else {
            return Ok(Vec::new());
        };
        let Some((routes, routes_at)) = field(spec, &spec_at, "routes") else {
            return Ok(Vec::new());
        };
        let middlewares = file_middlewares(file)?;
        let mut ordered = Vec::new();
        for (index, route) in list(source, routes, &routes_at, "routes")?
            .iter()
            .enumerate()
        {
            let at = routes_at.item(index, route);
            mapping(source, route, &at, "a route")?;
            if let Some((kind, kind_at)) = field(route, &at, "kind")
                && text(source, kind, &kind_at, "kind")? != "Rule"
            {
                continue;
            }
            let Some((rule_node, rule_at)) = field(route, &at, "match") else {
                continue;
            };
            let rule_text = text(source, rule_node, &rule_at, "match")?;
            if rule_text.is_empty() {
                continue;
            }
            let priority = match field(route, &at, "priority") {
                Some((p, p_at)) => whole_number(source, p, &p_at, "priority")?,
                None => 0,
            };
            let priority = if priority == 0 {
                rule_text.chars().count() as u64
            } else {
                priority
            };
            let used = used_retry(source, route, &at, meta.namespace.as_deref(), &middlewares)?;
            ordered.push((priority, index, at, rule::read(rule_text, &rule_at), used));
        }
        ordered.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut hosts = Vec::new();
        let mut any_host = false;
        let mut out = Vec::new();
        for (_, index, at, rule, used) in ordered {
            any_host |= rule.any_host;
            hosts.extend(rule.hosts);
            let name = format!("routes[{index}]");
            out.extend(match used {
                Used::Retry(retry) => router_routes(&name, &at, rule.matches, Some(retry)),
                Used::Nothing => router_routes(&name, &at, rule.matches, None),
                Used::Unknown(note) => {
                    let mut routes = router_routes(&name, &at, rule.matches, None);
                    for route in &mut routes {
                        missing(route, &at, &note);
                    }
                    routes
                }
            });
        }
        Ok(vec![Layer {
            format: Format::TraefikCrd,
            position: Position::Gateway,
            name: meta.layer_name("Traefik IngressRoute"),
            loc: meta.loc,
            hosts: if any_host {
                Vec::new()
            } else {
                k8s::unique_hosts(hosts)
            },
            routes: out,
            budget: None,
        }])
    }
}

/// A route whose middleware is not in the file: not retried, with a note that says why.
fn missing(route: &mut Route, at: &Loc, note: &str) {
    route.policy = PolicyObject {
        max_attempts: Some(built_in(1, at, note).into()),
        ..PolicyObject::default()
    };
    // The route names a middleware: it is not the format's silent default.
    route.implicit = false;
}

/// A `Middleware` of the file: its namespace, name and retry, if it has one.
struct Named {
    namespace: Option<String>,
    name: String,
    retry: Option<RetryMiddleware>,
}

/// What a route's `middlewares` retry with.
enum Used<'a> {
    Retry(&'a RetryMiddleware),
    Nothing,
    /// A middleware named is in no file read: the note says which.
    Unknown(String),
}

/// The retry middleware a route's `middlewares` name (the last one, as the file
/// configuration reads it), or the note on a name that is not found.
fn used_retry<'a>(
    file: &SourceFile,
    route: &Node,
    at: &Loc,
    namespace: Option<&str>,
    middlewares: &'a [Named],
) -> Result<Used<'a>, InputError> {
    let Some((refs, refs_at)) = field(route, at, "middlewares") else {
        return Ok(Used::Nothing);
    };
    let mut used = Used::Nothing;
    let mut unknown = None;
    for (i, reference) in list(file, refs, &refs_at, "middlewares")?
        .iter()
        .enumerate()
    {
        let ref_at = refs_at.item(i, reference);
        mapping(file, reference, &ref_at, "a middleware reference")?;
        let Some((name, name_at)) = field(reference, &ref_at, "name") else {
            continue;
        };
        let name = text(file, name, &name_at, "name")?;
        let wanted = match field(reference, &ref_at, "namespace") {
            Some((ns, ns_at)) => Some(text(file, ns, &ns_at, "namespace")?),
            None => namespace,
        };
        // `namespace-name@kubernetescrd` names this provider's middleware; another
        // provider's (`@file`) is in no Kubernetes object.
        let found = match name.split_once('@') {
            Some((qualified, "kubernetescrd")) => middlewares.iter().find(|m| {
                m.namespace
                    .as_ref()
                    .is_some_and(|ns| format!("{ns}-{}", m.name) == qualified)
            }),
            Some(_) => None,
            None => middlewares.iter().find(|m| {
                m.name == name
                    && (wanted.is_none()
                        || m.namespace.is_none()
                        || m.namespace.as_deref() == wanted)
            }),
        };
        match found {
            Some(Named {
                retry: Some(retry), ..
            }) => used = Used::Retry(retry),
            Some(_) => {}
            None => unknown = Some(super::super::names::shown(name).into_owned()),
        }
    }
    Ok(match (used, unknown) {
        (Used::Nothing, Some(name)) => Used::Unknown(format!(
            "Traefik: middleware `{name}` is in no `Middleware` of this file, so its retry (if any) \
             is not read: give the `Middleware` in the same file"
        )),
        (used, _) => used,
    })
}

/// The `Middleware`s of the `IngressRoute`'s file, their retries read as the file
/// configuration's `retry` (`createRetryMiddleware` copies the fields over).
fn file_middlewares(file: &ImportFile<'_>) -> Result<Vec<Named>, InputError> {
    let source = file.file;
    let documents = source.root.as_seq().unwrap_or_default();
    let mut out = Vec::new();
    for (pointer, doc) in super::super::k8s_list::objects(documents) {
        if !GROUPS
            .iter()
            .any(|g| k8s::is_object(&doc, g, &["Middleware"]))
        {
            continue;
        }
        let loc = Loc::new(file.id, pointer, doc.span);
        let meta = k8s::metadata(source, &doc, &loc)?;
        let Some(name) = meta.name.clone() else {
            continue;
        };
        let retry = match k8s::spec(source, &doc, &loc)? {
            Some((spec, spec_at)) => match field(spec, &spec_at, "retry") {
                Some((retry, r_at)) => Some(read_retry(source, &name, retry, &r_at)?),
                None => None,
            },
            None => None,
        };
        out.push(Named {
            namespace: meta.namespace,
            name,
            retry,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    //! `IngressRoute`s with their `Middleware`s: the file configuration's semantics, the
    //! references by name and namespace, and what is skipped.

    use crate::analysis::layers::Format;
    use crate::analysis::layers::k8s::testing::{
        attempts, import_error, import_fixture, import_text, retry_on,
    };
    use crate::analysis::layers::test_support::{loc, note};
    use crate::input::policy::Signal;

    /// A `Middleware` `retry` in namespace `shop` and an `IngressRoute` whose only route
    /// names `reference`.
    fn objects(group: &str, reference: &str) -> String {
        format!(
            "apiVersion: {group}/v1alpha1\nkind: Middleware\nmetadata: {{name: retry, namespace: shop}}\nspec:\n  retry: {{attempts: 3, status: ['503']}}\n---\napiVersion: {group}/v1alpha1\nkind: IngressRoute\nmetadata: {{name: pay, namespace: shop}}\nspec:\n  routes:\n  - kind: Rule\n    match: PathPrefix(`/pay`)\n    middlewares: [{reference}]\n"
        )
    }

    #[test]
    fn the_fixture_reads_as_the_file_configuration_does() {
        let imported = import_fixture("traefik-crd/ingressroute.yaml");
        let layers = imported.of(Format::TraefikCrd);
        assert_eq!(layers.len(), 1);
        let layer = layers[0];
        assert_eq!(layer.name.to_string(), "Traefik IngressRoute orders");
        assert_eq!(layer.hosts, ["orders.shop.example"]);
        // The longer rule first (Traefik's default priority), every method alike
        // (`retryNonIdempotentMethod`), then the health check, not retried.
        let names: Vec<_> = layer.routes.iter().map(|r| r.name.to_string()).collect();
        assert_eq!(names, ["routes[0]", "routes[1]"]);
        let api = &layer.routes[0];
        assert_eq!(attempts(api), 4);
        assert_eq!(
            imported.text_at(&loc(&api.policy.max_attempts)),
            "attempts: 4"
        );
        assert!(retry_on(api).contains(&Signal::Status(503)));
        assert_eq!(attempts(&layer.routes[1]), 1);
        assert!(layer.routes[1].implicit);
    }

    #[test]
    fn writes_are_retried_on_statuses_only_with_retry_non_idempotent_method() {
        // traefik/traefik pkg/middlewares/retry/retry.go, through createRetryMiddleware.
        let imported = import_text(&objects("traefik.io", "{name: retry}"));
        let routes = &imported.of(Format::TraefikCrd)[0].routes;
        assert_eq!(routes.len(), 2);
        assert!(retry_on(&routes[0]).contains(&Signal::Status(503)));
        assert!(!retry_on(&routes[1]).contains(&Signal::Status(503)));
        assert!(
            note(&routes[1].policy.retry_on)
                .unwrap()
                .contains("v3.7 and later assumed")
        );
    }

    #[test]
    fn references_resolve_by_namespace_and_provider() {
        let found = |group: &str, reference: &str| {
            let imported = import_text(&objects(group, reference));
            attempts(&imported.of(Format::TraefikCrd)[0].routes[0])
        };
        assert_eq!(found("traefik.containo.us", "{name: retry}"), 3);
        assert_eq!(found("traefik.io", "{name: retry, namespace: shop}"), 3);
        assert_eq!(found("traefik.io", "{name: shop-retry@kubernetescrd}"), 3);
        // Another namespace, or another provider: not in this file, not read.
        assert_eq!(found("traefik.io", "{name: retry, namespace: other}"), 1);
        assert_eq!(found("traefik.io", "{name: retry@file}"), 1);
        let imported = import_text(&objects("traefik.io", "{name: elsewhere}"));
        let route = &imported.of(Format::TraefikCrd)[0].routes[0];
        assert!(
            note(&route.policy.max_attempts)
                .unwrap()
                .contains("middleware `elsewhere` is in no `Middleware` of this file")
        );
    }

    #[test]
    fn other_kinds_of_route_are_skipped_and_bad_retries_are_errors() {
        let text = objects("traefik.io", "{name: retry}").replace("kind: Rule", "kind: Other");
        assert!(
            import_text(&text).of(Format::TraefikCrd)[0]
                .routes
                .is_empty()
        );
        let text = objects("traefik.io", "{name: retry}").replace("attempts: 3", "attempts: 0");
        let (message, underlined) = import_error(&text);
        assert!(message.contains("attempts"), "{message}");
        assert_eq!(underlined, "attempts: 0");
    }
}
