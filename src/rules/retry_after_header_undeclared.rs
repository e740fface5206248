//! `retry-after-header-undeclared`: a 429 or 503 response that does not say when to come
//! back.

use super::{OperationContext, Rule, declare_rule};
use crate::finding::{Finding, Label};

/// Headers that tell a client when to retry.
const WHEN_TO_RETRY: &[&str] = &[
    "Retry-After",
    "RateLimit",
    "RateLimit-Reset",
    "X-RateLimit-Reset",
];

declare_rule!(
    /// A declared 429 or 503 response with no `Retry-After` (nor `RateLimit`,
    /// `RateLimit-Reset`, `X-RateLimit-Reset`) header. Runs with or without a policy: the
    /// gap is the description's, whoever runs the check.
    RetryAfterHeaderUndeclared,
    "retry-after-header-undeclared",
    Warning,
    Description,
    "a 429 or 503 response declares no Retry-After header"
);

impl Rule for RetryAfterHeaderUndeclared {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let op = cx.op;
        for response in &op.responses {
            if response.code != "429" && response.code != "503" {
                continue;
            }
            if WHEN_TO_RETRY.iter().any(|h| response.has_header(h)) {
                continue;
            }
            let mut finding = cx.finding(
                &Self::META,
                format!("declares a {} response with no Retry-After header: clients cannot tell when to try again", response.code),
                Label::new(&response.loc, format!("{} without Retry-After", response.code)),
            )
            .help(format!(
                "declare a `Retry-After` header on the {} response{}",
                response.code,
                if response.definition.is_some() { " (in its shared definition, once for every operation)" } else { "" }
            ));
            if let Some(definition) = &response.definition {
                finding = finding.related(definition, "the shared response is defined here");
            }
            out.push(finding);
        }
    }
}
