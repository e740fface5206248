//! Traefik's Docker labels in a Compose file (`services.NAME.labels`, as a list of
//! `key=value` strings or as a mapping): `traefik.http.routers.R.rule`, `.priority`,
//! `.middlewares` and `traefik.http.middlewares.M.retry.*`, read with the file
//! configuration's semantics ([`super`]: the rule, the retry middleware, the release
//! assumed).
//!
//! From traefik/traefik: `pkg/provider/docker/config.go` decodes each container's labels
//! into a dynamic configuration (`label.DecodeConfiguration`, `pkg/config/label/label.go`),
//! whose field names are matched without case (`retry.initialinterval`), and merges the
//! containers' configurations into one provider's: a router may use a middleware another
//! container's labels declare, by `name` or `name@docker`. A router without `rule` takes the
//! provider's default rule, ``Host(`{{ normalize .Name }}`)`` (the Compose service's name,
//! `BuildRouterConfiguration` in `pkg/provider/configuration.go`). A service with
//! `traefik.enable=false` is not read (`keepContainer`). `status` is a comma-separated list
//! (`500-599,429`), as the label parser splits slices.
//!
//! Simplified: the router Traefik makes for a container whose labels name none takes no
//! middleware, so it does not retry and is not read; labels are not interpolated
//! (`${VAR}` is read as written).

use super::super::format::{DocsRow, Fix, FormatSpec, RetryAfter};
use super::super::k8s;
use super::super::values::{field, mapping, text};
use super::super::{Format, ImportFile, Importer, Layer, Position};
use super::{RetryMiddleware, read_retry, router_routes, rule};
use crate::error::InputError;
use crate::input::source::{Entry, Map, Node, SourceFile, Span, Value};
use crate::location::Loc;

const ROUTERS: &str = "traefik.http.routers.";
const MIDDLEWARES: &str = "traefik.http.middlewares.";

/// Reads Traefik's labels in a Compose file.
pub struct Labels;

/// What Traefik's Docker labels are as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "Traefik Docker labels",
    position: Position::Gateway,
    objects: &[],
    understood: Some(
        "a Compose file with Traefik labels (`traefik.http.routers.*`, `traefik.http.middlewares.*`)",
    ),
    family: "Traefik",
    importer: Some(&Labels),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "Traefik Docker labels in a Compose file (`services.*.labels`, list or map)",
        position_note: "",
        read: "`traefik.http.routers.R.rule/priority/middlewares`, `traefik.http.middlewares.M.retry.*` (names without case), across the file's services; a router without `rule` takes ``Host(`service`)``",
        defaults: "as the dynamic configuration (**v3.7 and later assumed**); a service with `traefik.enable=false` is left out",
    },
    help: &[
        (
            Fix::Deadline,
            "retrylint does not read a deadline for Traefik's retries: lower the `traefik.http.middlewares.M.retry.attempts` label, or bound the call in the client",
        ),
        (
            Fix::WriteRetries,
            "set `traefik.http.middlewares.M.retry.retrynonidempotentmethod=false`, or leave the middleware out of the write router's `middlewares` label",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from the `traefik.http.middlewares.M.retry.status` label",
        ),
        (
            Fix::TooManyAttempts,
            "lower the `traefik.http.middlewares.M.retry.attempts` label",
        ),
        (
            Fix::NoWait,
            "set the `traefik.http.middlewares.M.retry.initialinterval` label",
        ),
    ],
};

impl Importer for Labels {
    fn recognises(&self, doc: &Node) -> bool {
        doc.get("_format_version").is_none()
            && doc
                .get("services")
                .and_then(Node::as_map)
                .is_some_and(|services| {
                    services.entries().iter().any(|s| {
                        s.value.get("labels").is_some_and(|labels| {
                            raw_labels(labels).iter().any(|(key, _)| {
                                let key = key.to_ascii_lowercase();
                                key.starts_with(ROUTERS) || key.starts_with(MIDDLEWARES)
                            })
                        })
                    })
                })
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let source = file.file;
        let Some((services, services_at)) = field(doc, loc, "services") else {
            return Ok(Vec::new());
        };
        let mut all = Vec::new();
        for entry in mapping(source, services, &services_at, "services")?.entries() {
            let at = services_at.entry(&entry.key, entry.key_span, &entry.value);
            let Some((labels, labels_at)) = field(&entry.value, &at, "labels") else {
                continue;
            };
            let read = read_labels(source, labels, &labels_at)?;
            let disabled = read
                .iter()
                .any(|l| l.key.eq_ignore_ascii_case("traefik.enable") && l.value == "false");
            if !disabled {
                all.push((entry.key.to_string(), read));
            }
        }
        let middlewares = middlewares(source, &all)?;
        let mut ordered = Vec::new();
        for (service, labels) in &all {
            for (router, fields) in group(labels, ROUTERS) {
                let field_of =
                    |name: &str| fields.iter().find(|(f, _)| f.eq_ignore_ascii_case(name));
                let rule_text = match field_of("rule") {
                    Some((_, label)) => label.value.clone(),
                    None => format!("Host(`{service}`)"),
                };
                let rule_at = field_of("rule").map_or_else(
                    || {
                        fields[0]
                            .1
                            .loc
                            .noted("Traefik's default rule for a Docker container: Host(`service`)")
                    },
                    |(_, l)| l.loc.clone(),
                );
                let priority = match field_of("priority") {
                    Some((_, label)) => label.value.trim().parse::<u64>().map_err(|_| {
                        super::super::values::bad_value(
                            source,
                            &label.loc,
                            "priority is a whole number",
                        )
                    })?,
                    None => rule_text.chars().count() as u64,
                };
                let used = field_of("middlewares").and_then(|(_, label)| {
                    label
                        .value
                        .split(',')
                        .map(str::trim)
                        .map(|n| n.strip_suffix("@docker").unwrap_or(n))
                        .filter_map(|n| middlewares.iter().find(|(m, _)| m == n))
                        .map(|(_, retry)| retry)
                        .next_back()
                });
                ordered.push((
                    priority,
                    ordered.len(),
                    router.to_string(),
                    rule_at.clone(),
                    rule::read(&rule_text, &rule_at),
                    used,
                ));
            }
        }
        if ordered.is_empty() {
            return Ok(Vec::new());
        }
        ordered.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut hosts = Vec::new();
        let mut any_host = false;
        let mut routes = Vec::new();
        for (_, _, name, at, rule, used) in ordered {
            any_host |= rule.any_host;
            hosts.extend(rule.hosts);
            routes.extend(router_routes(&name, &at, rule.matches, used));
        }
        Ok(vec![Layer {
            format: Format::TraefikLabels,
            position: Position::Gateway,
            name: super::super::names::Name::new("Traefik Docker labels"),
            loc: services_at,
            hosts: if any_host {
                Vec::new()
            } else {
                k8s::unique_hosts(hosts)
            },
            routes,
            budget: None,
        }])
    }
}

/// One label: its key and value as written, the spans of each, and where it is.
struct Label {
    key: String,
    key_span: Span,
    value: String,
    value_span: Span,
    loc: Loc,
}

/// The labels of a service as (key, value) text, for recognising a file.
fn raw_labels(labels: &Node) -> Vec<(String, String)> {
    if let Some(map) = labels.as_map() {
        return map
            .entries()
            .iter()
            .map(|e| {
                (
                    e.key.to_string(),
                    e.value.scalar_text().unwrap_or_default().to_string(),
                )
            })
            .collect();
    }
    labels
        .as_seq()
        .unwrap_or_default()
        .iter()
        .filter_map(|item| {
            let (key, value) = item.as_str()?.split_once('=')?;
            Some((key.to_string(), value.to_string()))
        })
        .collect()
}

/// The labels of a service, list or map form, each located.
fn read_labels(file: &SourceFile, labels: &Node, at: &Loc) -> Result<Vec<Label>, InputError> {
    let mut out = Vec::new();
    if let Some(map) = labels.as_map() {
        for entry in map.entries() {
            let loc = at.entry(&entry.key, entry.key_span, &entry.value);
            let value = text(file, &entry.value, &loc, &entry.key)?.to_string();
            out.push(Label {
                key: entry.key.to_string(),
                key_span: entry.key_span,
                value,
                value_span: entry.value.span,
                loc,
            });
        }
        return Ok(out);
    }
    let items = super::super::values::list(file, labels, at, "labels")?;
    for (index, item) in items.iter().enumerate() {
        let loc = at.item(index, item);
        let written = text(file, item, &loc, "a label")?;
        let Some((key, value)) = written.split_once('=') else {
            continue;
        };
        out.push(Label {
            key: key.trim().to_string(),
            key_span: item.span,
            value: value.trim().to_string(),
            value_span: item.span,
            loc,
        });
    }
    Ok(out)
}

/// The labels under `prefix` grouped by the name that follows it (`R` of
/// `traefik.http.routers.R.rule`), each with the rest of its key (`rule`), in file order.
fn group<'a>(labels: &'a [Label], prefix: &str) -> Vec<(&'a str, Vec<(&'a str, &'a Label)>)> {
    let mut out: Vec<(&str, Vec<(&str, &Label)>)> = Vec::new();
    for label in labels {
        let Some(rest) = label
            .key
            .get(..prefix.len())
            .filter(|p| p.eq_ignore_ascii_case(prefix))
            .map(|_| &label.key[prefix.len()..])
        else {
            continue;
        };
        let Some((name, field)) = rest.split_once('.') else {
            continue;
        };
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, fields)) => fields.push((field, label)),
            None => out.push((name, vec![(field, label)])),
        }
    }
    out
}

/// The retry middlewares every service's labels declare, read as the file configuration's
/// `retry` from a mapping made of the labels (each value located at its label).
fn middlewares(
    file: &SourceFile,
    all: &[(String, Vec<Label>)],
) -> Result<Vec<(String, RetryMiddleware)>, InputError> {
    const FIELDS: [&str; 5] = [
        "attempts",
        "initialInterval",
        "status",
        "disableRetryOnNetworkError",
        "retryNonIdempotentMethod",
    ];
    let mut out = Vec::new();
    for (_, labels) in all {
        for (name, fields) in group(labels, MIDDLEWARES) {
            let mut entries = Vec::new();
            let mut first: Option<&Label> = None;
            for (field, label) in fields {
                let Some(key) = field
                    .get(..6)
                    .filter(|p| p.eq_ignore_ascii_case("retry."))
                    .and_then(|_| FIELDS.iter().find(|f| f.eq_ignore_ascii_case(&field[6..])))
                else {
                    continue;
                };
                first.get_or_insert(label);
                entries.push(Entry {
                    key: (*key).into(),
                    key_span: label.key_span,
                    value: value_node(key, label),
                });
            }
            let Some(first) = first else {
                continue;
            };
            let Ok(map) = Map::from_entries(entries) else {
                return Err(super::super::values::bad_value(
                    file,
                    &first.loc,
                    format!(
                        "the labels of middleware `{}` repeat a retry field",
                        super::super::names::shown(name)
                    ),
                ));
            };
            let node = Node::new(first.key_span, Value::Map(map));
            let at = first.loc.clone();
            out.push((name.to_string(), read_retry(file, name, &node, &at)?));
        }
    }
    Ok(out)
}

/// A label's value as the node the file configuration would hold: a list for `status`
/// (split at commas), a boolean for the flags, text otherwise.
fn value_node(key: &str, label: &Label) -> Node {
    let span = label.value_span;
    match key {
        "status" => {
            let items: Vec<Node> = label
                .value
                .split(',')
                .map(|s| Node::new(span, Value::String(s.trim().into())))
                .collect();
            Node::new(span, Value::Seq(items.into()))
        }
        "disableRetryOnNetworkError" | "retryNonIdempotentMethod" => {
            match label.value.to_ascii_lowercase().as_str() {
                "true" => Node::new(span, Value::Bool(true)),
                "false" => Node::new(span, Value::Bool(false)),
                _ => Node::new(span, Value::String(label.value.as_str().into())),
            }
        }
        _ => Node::new(span, Value::String(label.value.as_str().into())),
    }
}

#[cfg(test)]
mod tests {
    //! Labels as list or map, across services, names without case, and bad values.

    use crate::analysis::layers::Format;
    use crate::analysis::layers::k8s::testing::{
        attempts, import_error, import_fixture, import_text, retry_on,
    };
    use crate::analysis::layers::test_support::loc;
    use crate::input::policy::Signal;

    #[test]
    fn the_fixture_reads_as_the_file_configuration_does() {
        let imported = import_fixture("traefik-labels/docker-compose.yml");
        let layers = imported.of(Format::TraefikLabels);
        assert_eq!(layers.len(), 1);
        let layer = layers[0];
        assert_eq!(layer.hosts, ["orders.shop.example"]);
        let api = &layer.routes[0];
        assert_eq!(api.name.to_string(), "orders-api");
        assert_eq!(attempts(api), 4);
        assert_eq!(
            imported.text_at(&loc(&api.policy.max_attempts)),
            "\"traefik.http.middlewares.orders-retry.retry.attempts=4\""
        );
        assert!(retry_on(api).contains(&Signal::Status(503)));
        // `retrynonidempotentmethod=true`: one route for every method.
        assert_eq!(layer.routes.len(), 2);
        assert_eq!(attempts(&layer.routes[1]), 1);
    }

    #[test]
    fn map_labels_across_services_and_the_default_rule() {
        let text = "services:\n  api:\n    labels:\n      traefik.http.routers.pay.middlewares: retry@docker\n  edge:\n    labels:\n      traefik.http.middlewares.retry.retry.attempts: \"3\"\n      traefik.http.middlewares.retry.retry.status: \"503,429\"\n";
        let imported = import_text(text);
        let layer = imported.of(Format::TraefikLabels)[0];
        // No rule: Traefik's default, Host(`api`).
        assert_eq!(layer.hosts, ["api"]);
        let route = &layer.routes[0];
        assert_eq!(attempts(route), 3);
        assert!(retry_on(route).contains(&Signal::Status(429)));
        assert_eq!(
            imported.text_at(&loc(&route.policy.max_attempts)),
            "traefik.http.middlewares.retry.retry.attempts: \"3\""
        );
        // A disabled service is left out.
        let off = text.replace(
            "  api:\n    labels:\n",
            "  api:\n    labels:\n      traefik.enable: \"false\"\n",
        );
        assert!(import_text(&off).of(Format::TraefikLabels).is_empty());
    }

    #[test]
    fn a_compose_file_with_version_is_not_a_policy_and_bad_labels_are_errors() {
        let text = "version: \"3.8\"\nservices:\n  api:\n    labels:\n      - \"traefik.http.routers.pay.rule=PathPrefix(`/pay`)\"\n      - \"traefik.http.routers.pay.middlewares=retry\"\n      - \"traefik.http.middlewares.retry.retry.attempts=0\"\n";
        let (message, underlined) = import_error(text);
        assert!(message.contains("attempts"), "{message}");
        assert_eq!(
            underlined,
            "\"traefik.http.middlewares.retry.retry.attempts=0\""
        );
        let dir = std::env::temp_dir().join(format!("retrylint-compose-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("docker-compose.yml");
        std::fs::write(&path, text.replace("attempts=0", "attempts=2")).unwrap();
        let detected = crate::analysis::layers::detect::detect(
            &path,
            false,
            &crate::input::load::LoadOptions::default(),
        )
        .unwrap();
        assert!(
            matches!(
                detected,
                crate::analysis::layers::detect::Detected::Layers(_)
            ),
            "{detected:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
