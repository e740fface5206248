//! `retry-after-header-undeclared`: a 429 or 503 response that does not say when to come
//! back.

use super::{OperationContext, Rule};
use crate::analysis::contract::WaitHint;
use crate::analysis::fix::{Change, Fix, NewValue, Safety};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::model::{Operation, SpecVersion};

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
    "a 429 or 503 response declares no Retry-After header",
    fix: Unsafe
);

impl Rule for RetryAfterHeaderUndeclared {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        // Not on a gRPC rpc: gRPC has no Retry-After header, and a .proto declares no responses (docs/src/proto.md).
        if cx.op.grpc.is_some() {
            return;
        }
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
            let fix = declare_retry_after(op, code, cx.run.api.version);
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
            out.push(finding.fix(fix));
        }
    }
}

/// The fix: a `Retry-After` header (delay-seconds) declared where the response is written,
/// its shared definition when it has one. Unsafe: it adds to what the API promises.
fn declare_retry_after(op: &Operation, code: &str, version: SpecVersion) -> Option<Fix> {
    let written = op.response(code)?.written_at();
    let integer = NewValue::map([("type", NewValue::str("integer"))]);
    let description = NewValue::str("how many seconds to wait before trying again");
    let header = match version {
        SpecVersion::Swagger2 => NewValue::Map(vec![
            ("description".into(), description),
            ("type".into(), NewValue::str("integer")),
        ]),
        _ => NewValue::Map(vec![
            ("description".into(), description),
            ("schema".into(), integer),
        ]),
    };
    let change = Change::set_under(written, "headers", "Retry-After", header)?;
    Some(Fix::new(
        Safety::Unsafe,
        format!("declare Retry-After on the {code} response"),
        vec![change],
    ))
}
