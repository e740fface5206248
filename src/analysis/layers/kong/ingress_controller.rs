//! The Kong Ingress Controller's retry annotations on a Kubernetes `Service`:
//! `konghq.com/retries` and `konghq.com/read-timeout` (with `connect-timeout` and
//! `write-timeout`, checked) become the Kong service's `retries` and `read_timeout`, which
//! retry as the declarative configuration's do ([`super`]).
//!
//! From Kong/kubernetes-ingress-controller: `internal/annotations/annotations.go` names the
//! annotations (`AnnotationPrefix` `konghq.com`, `RetriesKey`, `ReadTimeoutKey`, …);
//! `internal/dataplane/kongstate/service.go` (`overrideByAnnotation`, `overrideRetries`,
//! `overrideReadTimeout`) reads each with `strconv.Atoi` into the Kong service made for
//! the `Service`, which the translator creates with `Retries` 5 and `ReadTimeout` 60000 ms
//! (`DefaultRetries`, `DefaultServiceTimeout` in
//! `internal/dataplane/translator/subtranslator/subtranslator_vars.go`). The controller
//! ignores a value `Atoi` cannot read; retrylint reports it as an input error instead.
//!
//! The routes are the `Ingress`es and `HTTPRoute`s that send to the `Service`, which
//! retrylint does not follow: the layer is one route taking every request to the
//! `Service`, by its in-cluster names (`orders`, `orders.shop.svc.cluster.local`), as for
//! Linkerd's annotations — name the service with `--host` or `service.hosts` when the
//! description's servers name the public host.

use super::super::format::{DocsRow, Fix, FormatSpec, RetryAfter};
use super::super::k8s::{self, built_in};
use super::super::values::{bad_value, text};
use super::super::{Format, ImportFile, Importer, Layer, Position};
use super::{retry_policy, split_routes};
use crate::error::InputError;
use crate::input::policy::{Duration, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

const RETRIES: &str = "konghq.com/retries";
const READ_TIMEOUT: &str = "konghq.com/read-timeout";
const CONNECT_TIMEOUT: &str = "konghq.com/connect-timeout";
const WRITE_TIMEOUT: &str = "konghq.com/write-timeout";
/// The annotations that make a `Service` a Kong layer.
const KEYS: [&str; 4] = [RETRIES, READ_TIMEOUT, CONNECT_TIMEOUT, WRITE_TIMEOUT];

const NOTE_RETRIES: &str = "built-in default of the Kong Ingress Controller: a service's retries \
     are 5 unless konghq.com/retries says otherwise (DefaultRetries)";
const NOTE_READ: &str = "built-in default of the Kong Ingress Controller: a service's read \
     timeout is 60000 ms unless konghq.com/read-timeout says otherwise (DefaultServiceTimeout)";

/// Reads the Kong Ingress Controller's `Service` annotations.
pub struct ServiceAnnotations;

/// What the Kong Ingress Controller's annotations are as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "Kong Ingress Controller",
    position: Position::Gateway,
    objects: &[],
    understood: Some(
        "`konghq.com/retries` or `konghq.com/*-timeout` annotations on a `Service` (Kong Ingress Controller)",
    ),
    family: "Kong",
    importer: Some(&ServiceAnnotations),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "Kong Ingress Controller `konghq.com/*` annotations on a `Service`",
        position_note: "",
        read: "`konghq.com/retries`, `konghq.com/read-timeout` (per attempt, ms); `connect-timeout` and `write-timeout` checked; one route taking every request to the `Service`'s in-cluster names",
        defaults: "the controller's 5 retries and 60 s read timeout; then as Kong's declarative configuration: connection errors and timeouts retried at once, a `POST`, `PATCH` or `LOCK` only before it was sent",
    },
    help: &[
        (
            Fix::Deadline,
            "Kong bounds each attempt with `konghq.com/read-timeout`, not the call: lower `konghq.com/retries`, or bound the call in the client",
        ),
        (
            Fix::NoWait,
            "Kong passes a failed request to the next upstream at once and has no back-off: lower `konghq.com/retries`",
        ),
        (
            Fix::WriteRetries,
            "annotate the `Service` with `konghq.com/retries: \"0\"`, or send the writes to a `Service` of their own with it",
        ),
        (
            Fix::TooManyAttempts,
            "lower the `Service`'s `konghq.com/retries`",
        ),
        (
            Fix::AttemptsPastDeadline,
            "lower the `Service`'s `konghq.com/retries` or `konghq.com/read-timeout`",
        ),
    ],
};

impl Importer for ServiceAnnotations {
    fn recognises(&self, doc: &Node) -> bool {
        k8s::is_object(doc, "", &["Service"]) && k8s::has_any_annotation(doc, &KEYS)
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let source = file.file;
        let meta = k8s::metadata(source, doc, loc)?;
        let Some((annotations, at)) = k8s::annotations(source, doc, loc)? else {
            return Ok(Vec::new());
        };
        let mut attempts = built_in(6, &meta.loc, NOTE_RETRIES);
        let mut read = built_in(Duration::from_millis(60_000), &meta.loc, NOTE_READ);
        for key in KEYS {
            let Some(entry) = annotations.as_map().and_then(|m| m.entry(key)) else {
                continue;
            };
            let value_at = at.entry(key, entry.key_span, &entry.value);
            let value = text(source, &entry.value, &value_at, key)?;
            let number = atoi(source, value, &value_at, key)?;
            match key {
                RETRIES => {
                    if number > 32_767 {
                        return Err(bad_value(
                            source,
                            &value_at,
                            "Kong's `retries` is 0 to 32767",
                        ));
                    }
                    attempts = Spanned::new(k8s::attempts_for_retries(number), value_at);
                }
                READ_TIMEOUT => {
                    let millis = i64::try_from(number).unwrap_or(i64::MAX);
                    read = Spanned::new(Duration::from_millis(millis), value_at);
                }
                _ => {}
            }
        }
        let policy = retry_policy(attempts, read, &meta.loc);
        let hosts = meta.name.as_deref().map_or_else(Vec::new, |name| {
            k8s::service_hosts(name, meta.namespace.as_deref())
        });
        Ok(vec![Layer {
            format: Format::KongIngressController,
            position: Position::Gateway,
            name: meta.layer_name("Kong Ingress Controller Service"),
            loc: meta.loc.clone(),
            hosts,
            routes: split_routes("every request", &at, vec![every_request(&at)], &policy),
            budget: None,
        }])
    }
}

/// A match taking every request.
fn every_request(at: &Loc) -> super::super::RouteMatch {
    super::super::RouteMatch {
        path: super::super::PathMatch::Any,
        method: None,
        condition: None,
        loc: at.clone(),
    }
}

/// A whole number of zero or more, as `strconv.Atoi` reads an annotation (Kong refuses a
/// negative one).
fn atoi(file: &SourceFile, value: &str, at: &Loc, key: &str) -> Result<u64, InputError> {
    value.parse::<u64>().map_err(|_| {
        bad_value(
            file,
            at,
            format!("the Kong Ingress Controller reads {key} as a whole number, such as \"3\""),
        )
    })
}

#[cfg(test)]
mod tests {
    //! A `Service`'s annotations: the controller's defaults, their places, bad values.

    use crate::analysis::layers::Format;
    use crate::analysis::layers::k8s::testing::{
        attempts, import_error, import_fixture, import_text, retry_on,
    };
    use crate::analysis::layers::test_support::{loc, note, value};
    use crate::input::policy::{Duration, Signal};

    fn service(annotations: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: orders\n  namespace: shop\n  annotations:\n{annotations}spec:\n  ports: [{{port: 80}}]\n"
        )
    }

    #[test]
    fn the_fixture_reads_retries_and_the_read_timeout_at_their_place() {
        let imported = import_fixture("kong-ingress-controller/service.yaml");
        let layers = imported.of(Format::KongIngressController);
        assert_eq!(layers.len(), 1);
        let layer = layers[0];
        assert_eq!(layer.hosts, ["orders", "orders.shop.svc.cluster.local"]);
        // Its resendable methods with every condition, then every method with connection
        // failures alone.
        assert_eq!(layer.routes.len(), 2);
        let route = &layer.routes[0];
        assert_eq!(attempts(route), 4);
        assert_eq!(
            imported.text_at(&loc(&route.policy.max_attempts)),
            "konghq.com/retries: \"3\""
        );
        assert_eq!(
            value(&route.policy.per_attempt_timeout),
            Duration::from_millis(10_000)
        );
        assert_eq!(retry_on(&layer.routes[1]), [Signal::ConnectFailure]);
    }

    #[test]
    fn the_controllers_defaults_fill_in_what_is_not_written() {
        // Kong/kubernetes-ingress-controller subtranslator_vars.go: DefaultRetries 5,
        // DefaultServiceTimeout 60000.
        let imported = import_text(&service("    konghq.com/connect-timeout: \"5000\"\n"));
        let route = &imported.of(Format::KongIngressController)[0].routes[0];
        assert_eq!(attempts(route), 6);
        assert!(
            note(&route.policy.max_attempts)
                .unwrap()
                .contains("DefaultRetries")
        );
        assert_eq!(
            value(&route.policy.per_attempt_timeout),
            Duration::from_millis(60_000)
        );
        // Without the annotations, a `Service` is no Kong layer.
        let plain = "apiVersion: v1\nkind: Service\nmetadata: {name: orders}\n";
        assert!(
            import_text(plain)
                .of(Format::KongIngressController)
                .is_empty()
        );
    }

    #[test]
    fn bad_values_are_errors_at_the_annotation() {
        for (annotation, said) in [
            ("konghq.com/retries: \"five\"", "whole number"),
            ("konghq.com/retries: \"40000\"", "0 to 32767"),
            ("konghq.com/read-timeout: \"10s\"", "whole number"),
            ("konghq.com/write-timeout: \"-1\"", "whole number"),
        ] {
            let (message, underlined) = import_error(&service(&format!("    {annotation}\n")));
            assert!(message.contains(said), "{annotation}: {message}");
            assert_eq!(underlined, annotation);
        }
    }
}
