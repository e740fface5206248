//! `retry-after-header-undeclared`: a 429 or 503 response that does not say when to come
//! back.

use super::{OperationContext, Rule};
use crate::analysis::contract::WaitHint;
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// A declared 429 or 503 response with no `Retry-After` (nor `RateLimit`,
    /// `RateLimit-Reset`, `X-RateLimit-Reset`) header. Runs with or without a policy: the
    /// gap is the description's, whoever runs the check. It reads the contract's
    /// throttling answer, so a `4XX`/`5XX` class with no such header (a generic error,
    /// which declares no 429 or 503) is `throttle-status-undeclared`'s, not this.
    RetryAfterHeaderUndeclared,
    "retry-after-header-undeclared",
    Warning,
    Description,
    "a 429 or 503 response declares no Retry-After header"
);

impl Rule for RetryAfterHeaderUndeclared {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(contract) = cx.run.contracts.get(cx.op_index) else {
            return;
        };
        let op = cx.op;
        for throttle in &contract.throttling {
            if throttle.wait != WaitHint::None {
                continue;
            }
            let code = &throttle.declared_as;
            let definition = op.response(code).and_then(|r| r.definition.as_deref());
            let mut finding = cx
                .finding(
                    &Self::META,
                    format!(
                        "declares a {code} response with no Retry-After header: clients cannot tell when to try again"
                    ),
                    Label::new(&throttle.loc, format!("{code} without Retry-After")),
                )
                .help(format!(
                    "declare a `Retry-After` header on the {code} response{}",
                    if definition.is_some() {
                        " (in its shared definition, once for every operation)"
                    } else {
                        ""
                    }
                ));
            // The header is added where the response is written: once for every operation
            // that `$ref`s it, or in a path item several paths share.
            let shared = match definition {
                Some(definition) => Some((
                    definition.clone(),
                    format!(
                        "the shared {code} response `{}`",
                        super::definition_name(definition, cx.run.sources)
                    ),
                )),
                None => cx
                    .shared_place(&throttle.loc)
                    .map(|at| (at, format!("the shared {code} response"))),
            };
            if let Some((at, named)) = shared {
                finding = finding.shared_at(
                    Label::new(&at, "no Retry-After header"),
                    format!("{named} declares no Retry-After header: clients of "),
                    " cannot tell when to try again",
                );
            }
            out.push(finding);
        }
    }
}
