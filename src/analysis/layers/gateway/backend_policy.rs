//! The experimental `XBackendTrafficPolicy` (GEP-3388, `gateway.networking.x-k8s.io`):
//! a retry budget for the `Service`s it targets, imported as a layer with a budget and no
//! routes. Both `spec.retryConstraint` and the flat `spec.retry` of earlier drafts
//! (`budgetPercent`, `budgetInterval`, `minRetryRate`) are read; a policy with neither
//! (session persistence only) is no layer.

use super::super::k8s;
use super::super::values::{bad_value, field, k8s_duration};
use super::super::{Format, Layer, Position};
use crate::error::InputError;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The API group of Gateway API's experimental objects.
pub(super) const GROUP: &str = "gateway.networking.x-k8s.io";

/// The kind's names, before and after its `X` prefix.
pub(super) const KINDS: [&str; 2] = ["XBackendTrafficPolicy", "BackendTrafficPolicy"];

/// Whether the document is a backend traffic policy.
pub(super) fn recognises(doc: &Node) -> bool {
    k8s::is_object(doc, GROUP, &KINDS)
}

/// The budget layer of one policy, if it sets a retry budget.
pub(super) fn import(file: &SourceFile, doc: &Node, loc: &Loc) -> Result<Vec<Layer>, InputError> {
    let meta = k8s::metadata(file, doc, loc)?;
    let Some((spec, spec_at)) = k8s::spec(file, doc, loc)? else {
        return Ok(Vec::new());
    };
    let budget = if let Some((constraint, at)) = field(spec, &spec_at, "retryConstraint") {
        read_constraint(file, constraint, &at)?;
        at
    } else if let Some((retry, at)) = field(spec, &spec_at, "retry") {
        read_draft_retry(file, retry, &at)?;
        at
    } else {
        return Ok(Vec::new());
    };
    let hosts = match field(spec, &spec_at, "targetRefs") {
        Some((refs, at)) => {
            let refs = k8s::list(file, refs, &at, "targetRefs")?;
            k8s::referenced_service_hosts(file, refs, &at, meta.namespace.as_deref())?
        }
        None => Vec::new(),
    };
    let kind = doc.get("kind").and_then(Node::as_str).unwrap_or(KINDS[0]);
    Ok(vec![Layer {
        format: Format::GatewayApi,
        position: Position::Gateway,
        name: meta.layer_name(&format!("Gateway API {kind}")),
        loc: meta.loc,
        hosts,
        routes: Vec::new(),
        budget: Some(budget),
    }])
}

/// `retryConstraint`: `budget {percent, interval}` and `minRetryRate {count, interval}`.
fn read_constraint(file: &SourceFile, node: &Node, at: &Loc) -> Result<(), InputError> {
    k8s::mapping(file, node, at, "retryConstraint")?;
    if let Some((budget, budget_at)) = field(node, at, "budget") {
        k8s::mapping(file, budget, &budget_at, "budget")?;
        read_percent(file, budget, &budget_at, "percent")?;
        read_interval(file, budget, &budget_at)?;
    }
    read_min_rate(file, node, at)
}

/// The flat `retry` of GEP-3388's drafts: `budgetPercent`, `budgetInterval`, `minRetryRate`.
fn read_draft_retry(file: &SourceFile, node: &Node, at: &Loc) -> Result<(), InputError> {
    k8s::mapping(file, node, at, "retry")?;
    read_percent(file, node, at, "budgetPercent")?;
    if let Some((interval, interval_at)) = field(node, at, "budgetInterval") {
        k8s_duration(file, interval, &interval_at)?;
    }
    read_min_rate(file, node, at)
}

/// A percentage of requests, 0 to 100.
fn read_percent(file: &SourceFile, node: &Node, at: &Loc, key: &str) -> Result<(), InputError> {
    if let Some((percent, percent_at)) = field(node, at, key)
        && k8s::whole_number(file, percent, &percent_at, key)? > 100
    {
        return Err(bad_value(
            file,
            &percent_at,
            format!("`{key}` is a percentage of requests: 0 to 100"),
        ));
    }
    Ok(())
}

/// The `interval` of a budget or a rate.
fn read_interval(file: &SourceFile, node: &Node, at: &Loc) -> Result<(), InputError> {
    if let Some((interval, interval_at)) = field(node, at, "interval") {
        k8s_duration(file, interval, &interval_at)?;
    }
    Ok(())
}

/// `minRetryRate {count, interval}`.
fn read_min_rate(file: &SourceFile, node: &Node, at: &Loc) -> Result<(), InputError> {
    if let Some((rate, rate_at)) = field(node, at, "minRetryRate") {
        k8s::mapping(file, rate, &rate_at, "minRetryRate")?;
        if let Some((count, count_at)) = field(rate, &rate_at, "count") {
            k8s::whole_number(file, count, &count_at, "count")?;
        }
        read_interval(file, rate, &rate_at)?;
    }
    Ok(())
}
