//! Istio `DestinationRule` objects: the limit on concurrent retries to a host,
//! `trafficPolicy.connectionPool.http.maxRetries`, imported as a layer with a budget and no
//! routes for the rule's `host`.
//!
//! Istio gives every cluster Envoy's `max_retries` circuit breaker at 2^32−1 (istio/istio
//! `pilot/pkg/networking/core/cluster_traffic_policy.go`, `getDefaultCircuitBreakerThresholds`),
//! so without `maxRetries` (or with 0, which Istio reads as unset) retries are unbounded and
//! the rule is no layer. A written limit caps the retries in flight to the host at once, as
//! a budget does.

use super::super::k8s;
use super::super::values::field;
use super::super::{Format, Layer, Position};
use super::GROUP;
use crate::error::InputError;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// Whether the document is a `DestinationRule`.
pub(super) fn recognises(doc: &Node) -> bool {
    k8s::is_object(doc, GROUP, &["DestinationRule"])
}

/// The budget layer of one rule, if it limits retries.
pub(super) fn import(file: &SourceFile, doc: &Node, loc: &Loc) -> Result<Vec<Layer>, InputError> {
    let meta = k8s::metadata(file, doc, loc)?;
    let Some((spec, spec_at)) = k8s::spec(file, doc, loc)? else {
        return Ok(Vec::new());
    };
    let mut node = spec;
    let mut at = spec_at.clone();
    for key in ["trafficPolicy", "connectionPool", "http", "maxRetries"] {
        let Some((child, child_at)) = field(node, &at, key) else {
            return Ok(Vec::new());
        };
        if key != "maxRetries" {
            k8s::mapping(file, child, &child_at, key)?;
        }
        (node, at) = (child, child_at);
    }
    if k8s::whole_number(file, node, &at, "maxRetries")? == 0 {
        return Ok(Vec::new());
    }
    let hosts = match field(spec, &spec_at, "host") {
        Some((host, host_at)) => {
            let name = k8s::text(file, host, &host_at, "host")?;
            if name.contains('.') {
                vec![name.to_string()]
            } else {
                k8s::service_hosts(name, meta.namespace.as_deref())
            }
        }
        None => Vec::new(),
    };
    Ok(vec![Layer {
        format: Format::Istio,
        position: Position::Mesh,
        name: meta.layer_name("Istio DestinationRule"),
        loc: meta.loc,
        hosts,
        routes: Vec::new(),
        budget: Some(at),
    }])
}
