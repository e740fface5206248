//! `operation-not-routed`: a layer serves the service's host but none of its routes takes
//! some operations.

use super::{Rule, RunContext};
use crate::analysis::rules::finding::{Finding, Label};
use crate::analysis::layers::Format;

/// Operations named in one finding; the rest are counted.
const NAMED: usize = 5;

declare_rule!(
    /// A layer whose host names the service, with operations that none of its routes takes.
    OperationNotRouted,
    "operation-not-routed",
    Warning,
    Layers,
    "a layer serves the service but no route takes some operations"
);

impl Rule for OperationNotRouted {
    fn check_run(&self, cx: &RunContext<'_>, out: &mut Vec<Finding>) {
        let bound = cx.layers;
        for (index, layer) in bound.layers.iter().enumerate() {
            let missing = &bound.uncovered[index];
            if !bound.serves[index]
                || missing.is_empty()
                || layer.routes.is_empty()
                || layer.format == Format::Speakeasy
            {
                continue;
            }
            let mut names: Vec<String> = missing
                .iter()
                .take(NAMED)
                .map(|&op| cx.api.operations[op].key())
                .collect();
            if missing.len() > NAMED {
                names.push(format!("and {} more", missing.len() - NAMED));
            }
            let first = &cx.api.operations[missing[0]];
            out.push(
                Finding::new(
                    Self::META.id,
                    format!(
                        "{} serves the service, but none of its routes takes {} operation{}: {}",
                        layer.name,
                        missing.len(),
                        if missing.len() == 1 { "" } else { "s" },
                        names.join(", ")
                    ),
                    Label::new(&layer.loc, "no route for some operations"),
                )
                .help("add a route for them (the proxy answers requests no route takes with 404), or check the route matches against the description's paths")
                .related(&first.loc, format!("{} is declared here", first.key())),
            );
        }
    }
}
