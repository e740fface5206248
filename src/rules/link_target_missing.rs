//! `link-target-missing`: a write's response link, the status endpoint a client would
//! use, names an operation the description does not have.

use super::{MAX_SUGGESTIONS, Rule, RunContext, declare_rule};
use crate::error::did_you_mean;
use crate::finding::{Finding, Label};
use crate::model::LinkTarget;

declare_rule!(
    /// A response `links` entry of a non-idempotent operation whose `operationId`, or
    /// `operationRef` into the same document, leads to no operation (see
    /// [`crate::contract::BrokenLink`]).
    LinkTargetMissing,
    "link-target-missing",
    Warning,
    Contract,
    "a write's response link leads to no operation, so it is no status endpoint"
);

/// The help every finding ends with (it starts with an ASCII letter).
const HOW_LINKS_NAME: &str = "a link names its operation by the exact operationId (case matters) or by \
     `operationRef: '#/paths/~1orders~1{orderId}/get'`; a link to the GET that reports the \
     write's result is its status endpoint";

impl Rule for LinkTargetMissing {
    fn check_run(&self, cx: &RunContext<'_>, out: &mut Vec<Finding>) {
        // The operationIds a link could have meant, gathered at the first broken link.
        let mut ids: Vec<&str> = Vec::new();
        let mut suggested = 0;
        for (op, contract) in cx.api.operations.iter().zip(cx.contracts) {
            for link in &contract.broken_links {
                let (what, name) = match &link.target {
                    LinkTarget::OperationId(id) => ("operationId", id),
                    LinkTarget::OperationRef(reference) => ("operationRef", reference),
                };
                let mut near = None;
                if matches!(link.target, LinkTarget::OperationId(_)) {
                    if ids.is_empty() {
                        ids = cx
                            .api
                            .operations
                            .iter()
                            .filter_map(|o| o.operation_id.as_deref())
                            .collect();
                    }
                    // Each suggestion compares with every operationId: enough for a person
                    // to read, never quadratic in a description full of broken links.
                    suggested += 1;
                    if suggested <= MAX_SUGGESTIONS {
                        near = did_you_mean(name, ids.iter().copied());
                    }
                }
                let help = match near {
                    Some(near) => format!("did you mean `{near}`? A{}", &HOW_LINKS_NAME[1..]),
                    None => HOW_LINKS_NAME.to_string(),
                };
                out.push(
                    Finding::new(
                        Self::META.name,
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
