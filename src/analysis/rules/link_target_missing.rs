//! `link-target-missing`: a write's response link, the status endpoint a client would
//! use, names an operation the description does not have.

use super::{Rule, RunContext};
use crate::error::did_you_mean;
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::model::LinkTarget;

declare_rule!(
    /// A response `links` entry of a non-idempotent operation whose `operationId`, or
    /// `operationRef` into the same document, leads to no operation (see
    /// [`crate::analysis::contract::BrokenLink`]).
    LinkTargetMissing,
    "link-target-missing",
    Warning,
    Contract,
    "a write's response link leads to no operation, so it is no status endpoint"
);

/// Broken links that get a "did you mean": each compares the name with every operationId
/// of the description (thousands on a large API), and a few are enough to show the kind
/// of mistake.
const MAX_SUGGESTIONS: usize = 10;

/// The help every finding ends with (it starts with an ASCII letter).
const HOW_LINKS_NAME: &str = "a link names its operation by the exact operationId (case matters) or by \
     `operationRef: '#/paths/~1orders~1{orderId}/get'`; a link to the GET that reports the \
     write's result is its status endpoint";

impl Rule for LinkTargetMissing {
    fn check_run(&self, cx: &RunContext<'_>, out: &mut Vec<Finding>) {
        // The operationIds a link could have meant, gathered at the first broken link.
        let mut ids: Option<Vec<&str>> = None;
        let mut suggested = 0;
        for (op, contract) in cx.api.operations.iter().zip(cx.contracts) {
            for link in &contract.broken_links {
                let (what, name) = match &link.target {
                    LinkTarget::OperationId(id) => ("operationId", id),
                    LinkTarget::OperationRef(reference) => ("operationRef", reference),
                };
                let mut near = None;
                // Never quadratic in a description full of broken links.
                if let LinkTarget::OperationId(id) = &link.target
                    && suggested < MAX_SUGGESTIONS
                {
                    suggested += 1;
                    let ids = ids.get_or_insert_with(|| {
                        cx.api
                            .operations
                            .iter()
                            .filter_map(|o| o.operation_id.as_deref())
                            .collect()
                    });
                    near = did_you_mean(id, ids.iter().copied());
                }
                let help = match near {
                    Some(near) => format!("did you mean `{near}`? A{}", &HOW_LINKS_NAME[1..]),
                    None => HOW_LINKS_NAME.to_string(),
                };
                out.push(
                    Finding::new(
                        Self::META.id,
                        format!(
                            "{} {} links (`{}`) to the {what} `{name}`, which no operation of the description has: clients and tools cannot follow it, and it is no status endpoint for the write",
                            op.method, op.path, link.name
                        ),
                        Label::new(&link.loc, format!("no operation has this {what}")),
                    )
                    .about(op)
                    .help(help),
                );
            }
        }
    }
}
