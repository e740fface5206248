//! `policy-matches-nothing`: a policy entry whose selector selects no operation.

use super::{Rule, RunContext};
use crate::error::did_you_mean;
use crate::analysis::rules::finding::{Finding, Label};

/// Unmatched selectors that get a "did you mean".
const MAX_SUGGESTIONS: usize = 100;

declare_rule!(
    /// A selector under `operations` that matches no operation of the description.
    PolicyMatchesNothing,
    "policy-matches-nothing",
    Error,
    Policy,
    "a policy selector matches no operation"
);

impl Rule for PolicyMatchesNothing {
    fn check_run(&self, cx: &RunContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        let description = cx.sources[cx.api.root_file].name();
        let mut candidates: Vec<String> = Vec::new();
        let mut suggested = 0;
        for (entry, count) in policy.operations.iter().zip(&cx.matches.per_entry) {
            if *count > 0 {
                continue;
            }
            let selector = entry.selector.to_string();
            if candidates.is_empty() {
                for op in &cx.api.operations {
                    candidates.push(op.key());
                    candidates.extend(op.operation_id.clone());
                    candidates.extend(op.tags.iter().map(|t| format!("tag:{t}")));
                }
            }
            // Each suggestion compares with every operation: enough for a person to read,
            // never quadratic in a policy written for another API.
            suggested += 1;
            let near = if suggested <= MAX_SUGGESTIONS {
                did_you_mean(&selector, candidates.iter().map(String::as_str))
            } else {
                None
            };
            let help = match near {
                Some(near) => format!("did you mean `{near}`?"),
                None => "write `METHOD /path` as the description writes the path, an operationId, or `tag:NAME`".to_string(),
            };
            out.push(
                Finding::new(
                    Self::META.id,
                    format!("the selector `{selector}` matches no operation of {description}"),
                    Label::new(&entry.loc, "matches nothing"),
                )
                .help(help),
            );
        }
    }
}
