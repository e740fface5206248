//! `retry-after-ignored`: 429 (or a 503 that declares Retry-After) retried without waiting
//! what the server asks.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// A retried 429, or a retried 503 whose response declares `Retry-After`, without
    /// `retryAfter.honor`.
    RetryAfterIgnored,
    "retry-after-ignored",
    Error,
    Policy,
    "429 or 503 is retried without honouring Retry-After",
    layer_fix: RetryAfterIgnored
);

impl Rule for RetryAfterIgnored {
    fn judges_layer(&self, layer: &crate::analysis::layers::Layer, _route: &crate::analysis::layers::Route) -> bool {
        // A format with no Retry-After setting is left to `layer-ignores-retry-after`.
        layer.format.can_honor_retry_after()
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        // Not on a gRPC rpc: gRPC has no Retry-After header: its servers push back with `grpc-retry-pushback-ms`, which no .proto declares (docs/src/proto.md).
        if cx.op.grpc.is_some() {
            return;
        }
        let Some(policy) = cx.policy else { return };
        if !policy.is_retried() || policy.honors_retry_after() {
            return;
        }
        let op = cx.op;
        for code in [429u16, 503] {
            let Some(signal) = policy.retry_on().iter().find(|s| s.value.covers(code)) else {
                continue;
            };
            let declared = op.response(&code.to_string()).and_then(|r| {
                r.headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("Retry-After"))
            });
            if code == 503 && declared.is_none() {
                continue;
            }
            let why = if code == 429 {
                "a rate-limited client that retries before the window resets is throttled again and adds to the load"
            } else {
                "the server says when it expects to recover; retrying earlier adds load to an overloaded service"
            };
            let mut finding = cx
                .finding(
                    &Self::META,
                    format!("retries {code} without honouring Retry-After: {why}"),
                    Label::new(&signal.loc, format!("{code} is retried here")),
                )
                .help("set retryAfter.honor: true, with a retryAfter.max that bounds the wait");
            if let Some(honor) = &policy.policy.retry_after_honor {
                finding = finding.related(&honor.loc, "Retry-After is not honoured here");
            }
            if let Some(header) = declared {
                finding = finding.related(
                    &header.loc,
                    format!("the {code} response declares Retry-After here"),
                );
            }
            out.push(cx.grouped_at_primary(
                finding,
                "the retries of ",
                format!(" go on after a {code} without honouring Retry-After: {why}"),
            ));
        }
    }
}
