//! `implicit-mesh-retry`: a mesh route with no retry settings retries by its default.

use super::layered::{is_non_idempotent, layered, loops, protection};
use super::{OperationContext, Rule, declared_here};
use crate::analysis::rules::finding::{Finding, Label, Severity};
use crate::analysis::fix::{Change, Fix, NewValue, Safety};
use crate::analysis::layers::Format;

declare_rule!(
    /// A route that says nothing about retries (an Istio `http` route without `retries`) in
    /// front of the operation retries it by the mesh's default policy, whatever the method.
    ImplicitMeshRetry,
    "implicit-mesh-retry",
    Error,
    Layers,
    "a mesh route with no retry settings retries the operation by default",
    fix: Unsafe
);

impl Rule for ImplicitMeshRetry {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        if !layered(cx) {
            return;
        }
        let op = cx.op;
        for l in loops(cx) {
            let Some((layer, route)) = l.layer else {
                continue;
            };
            if !route.implicit || !l.policy.is_retried() {
                continue;
            }
            let attempts = l.policy.max_attempts();
            let signals: Vec<String> = l
                .policy
                .retry_on()
                .iter()
                .map(|s| s.value.to_string())
                .collect();
            let unsafe_write = is_non_idempotent(cx) && protection(cx).is_none();
            let (severity, why) = if unsafe_write {
                (
                    Severity::Error,
                    "with no idempotency key on a non-idempotent write, a retry after the backend processed it repeats the write",
                )
            } else {
                (
                    Severity::Warning,
                    "nobody chose these retries, and they multiply with the client's",
                )
            };
            let words = Words::of(layer.format);
            let by = format!(
                "{} ({attempts} attempts on {})",
                words.whose,
                signals.join(", ")
            );
            let because = format!(
                " because route {} of {} has no retry settings: {why}",
                l.route_text(),
                layer.name,
            );
            let mut finding = cx
                .finding(
                    &Self::META,
                    format!("is retried by {by}{because}"),
                    Label::new(&route.loc, words.label),
                )
                .help(if unsafe_write {
                    words.help_write
                } else {
                    words.help
                })
                .related(&op.loc, declared_here(op));
            if let Some(default) = &l.policy.policy.max_attempts {
                finding = finding.related(&default.loc, format!("{attempts} attempts"));
            }
            finding.severity = severity;
            // A route that retries an unprotected write retries nothing after the fix
            // (every operation it serves: unsafe, as the mesh then retries no read either).
            if unsafe_write && let Some(key) = layer.format.spec().retries_off {
                let off = NewValue::map([("attempts", NewValue::Plain("0".into()))]);
                finding = finding.fix(Change::set_in(&route.loc, key, off).map(|change| {
                    Fix::new(Safety::Unsafe, format!("set {key}: {{attempts: 0}} on the route"), vec![change])
                }));
            }
            // One finding at the route, for every operation it serves alike.
            out.push(cx.grouped_at_primary(finding, format!("{by} retries "), because));
        }
    }
}

/// How a finding names the default and the field that would replace it: a mesh's route
/// (`retries`), or a Gateway API rule that Istio implements (`retry`; istio/istio
/// `pilot/pkg/config/kube/gateway/conversion.go` gives a rule without one Istio's default).
struct Words {
    whose: &'static str,
    label: &'static str,
    help_write: &'static str,
    help: &'static str,
}

impl Words {
    fn of(format: Format) -> Words {
        match format {
            Format::GatewayApi => Words {
                whose: "Istio's default policy, as the Gateway API implementation",
                label: "no `retry` here: Istio's default applies",
                help_write: "split the rule by method (a `method` match) and give the write rule `retry: {attempts: 0}`, or protect the write with an idempotency key the client sends (idempotency.keyHeader)",
                help: "write the retries you want on the rule (`retry: {attempts: 0}` for none), so that they are chosen and counted with the client's",
            },
            _ => Words {
                whose: "the mesh's default policy",
                label: "no `retries` here: the mesh's default applies",
                help_write: "split the route by method and give the write route `retries: {attempts: 0}`, or protect the write with an idempotency key the client sends (idempotency.keyHeader)",
                help: "write the retries you want on the route (`retries: {attempts: 0}` for none), so that they are chosen and counted with the client's",
            },
        }
    }
}
