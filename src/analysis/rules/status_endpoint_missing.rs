//! `status-endpoint-missing`: the status endpoint the policy relies on does not exist.

use super::{OperationContext, Rule};
use crate::error::did_you_mean;
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::policy::Selector;

declare_rule!(
    /// `statusEndpoint` names no GET or HEAD operation of the description.
    StatusEndpointMissing,
    "status-endpoint-missing",
    Error,
    Policy,
    "the status endpoint is not a GET or HEAD operation of the description"
);

impl Rule for StatusEndpointMissing {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(endpoint) = cx.policy.and_then(|p| p.policy.status_endpoint.as_ref()) else {
            return;
        };
        let operations = &cx.run.api.operations;
        // Exact selectors (the usual case) are looked up; globs and tags are matched.
        let found = match Selector::parse(&endpoint.value) {
            Ok(Selector::Exact { method, path }) => cx.run.is_read(&format!("{method} {path}")),
            Ok(Selector::OperationId(id)) => cx.run.is_read(&id),
            Ok(selector) => operations
                .iter()
                .any(|o| o.is_read() && selector.matches(o)),
            Err(_) => false,
        };
        if found {
            return;
        }
        let named_other = Selector::parse(&endpoint.value)
            .ok()
            .and_then(|selector| operations.iter().find(|o| selector.matches(o)))
            .map(|o| match &o.grpc {
                Some(grpc) => format!(
                    "`{}` is the rpc {}, which is not `idempotency_level = NO_SIDE_EFFECTS` ({}): a status endpoint only reads",
                    endpoint.value,
                    grpc.full_name(),
                    grpc.level_source()
                ),
                None => format!(
                    "`{}` is {} {}, not a GET or HEAD: a status endpoint only reads",
                    endpoint.value, o.method, o.path
                ),
            });
        let near = did_you_mean(
            &endpoint.value,
            operations
                .iter()
                .filter(|o| o.is_read())
                .map(crate::input::model::Operation::key)
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str),
        )
        .map(str::to_string);
        out.push(
            cx.finding(
                &Self::META,
                format!("relies on the status endpoint `{}`, which is no GET or HEAD operation of the description", endpoint.value),
                Label::new(&endpoint.loc, "no such GET or HEAD operation"),
            )
            .help(match (named_other, near) {
                (Some(other), _) => other,
                (None, Some(near)) => format!("did you mean `{near}`?"),
                (None, None) => "name a GET or HEAD operation (`GET /orders/{orderId}` or its operationId) that reports the first attempt's result".to_string(),
            }),
        );
    }
}
