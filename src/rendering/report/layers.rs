//! The layers part of an operation's report: who retries it on the way to the backend,
//! and how many requests one call can become.

use super::{LayerReport, OperationReport};
use crate::analysis::check::Analysis;
use crate::analysis::layers::UNBOUNDED_ATTEMPTS;
use crate::rendering::output::Place;

/// Adds the layers that retry operation `index` to its report, when there are any.
pub(super) fn describe(report: &mut OperationReport, analysis: &Analysis, index: usize) {
    let bound = &analysis.layers;
    if bound.per_operation[index].is_empty() {
        return;
    }
    for hop in analysis.layer_hops(index) {
        let (l, r) = (hop.layer, hop.route);
        let attempts = hop.policy.max_attempts();
        report.layers.push(LayerReport {
            position: l.position.as_str(),
            name: l.name.to_string(),
            route: hop.route_text(),
            attempts: (attempts != UNBOUNDED_ATTEMPTS).then_some(attempts),
            implicit: r.implicit,
            unsupported: r.unsupported.clone(),
            location: Place::of(&r.loc, &analysis.sources),
        });
    }
    let chain = bound.chain(index, analysis.effective.get(index));
    report.amplification = Some(chain.product());
    let implicit: Vec<String> = report
        .layers
        .iter()
        .filter(|l| l.implicit && l.attempts.is_some_and(|a| a > 1))
        .map(|l| {
            format!(
                "{} route {} retries by its format's default",
                l.name, l.route
            )
        })
        .collect();
    let mut text = match chain.product() {
        Some(1) => "no layer retries it: 1 request at the backend per call".to_string(),
        Some(total) => format!(
            "{total} requests at the backend per call in the worst case ({})",
            chain.factors()
        ),
        None => format!(
            "unbounded requests at the backend per call: a layer's retries are bounded only by a budget ({})",
            chain.factors()
        ),
    };
    if !implicit.is_empty() {
        text.push_str("; ");
        text.push_str(&implicit.join("; "));
    }
    report.answers.layers = Some(text);
}
