//! `request-id-as-idempotency-key`: a tracing header used as if the server deduplicated on it.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

/// Header names that identify a request for logs and traces, not for deduplication.
const TRACING_HEADERS: &[&str] = &[
    "x-request-id",
    "request-id",
    "x-correlation-id",
    "correlation-id",
    "x-trace-id",
    "trace-id",
    "traceparent",
    "tracestate",
    "x-amzn-trace-id",
    "x-b3-traceid",
    "x-cloud-trace-context",
];

declare_rule!(
    /// `keyHeader` names a request, correlation or trace id header.
    RequestIdAsIdempotencyKey,
    "request-id-as-idempotency-key",
    Warning,
    Policy,
    "the idempotency key header is a request, correlation or trace id"
);

impl Rule for RequestIdAsIdempotencyKey {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(key) = cx.policy.and_then(|p| p.policy.key_header.as_ref()) else {
            return;
        };
        let lower = key.value.to_ascii_lowercase();
        if !TRACING_HEADERS.contains(&lower.as_str()) {
            return;
        }
        let finding = cx
            .finding(
                &Self::META,
                format!("uses `{}` as its idempotency key: that header links logs and traces, the server does not deduplicate on it", key.value),
                Label::new(&key.loc, format!("`{}` is a tracing header", key.value)),
            )
            .help("name the header the server deduplicates on (such as Idempotency-Key) in idempotency.keyHeader");
        out.push(cx.grouped_at_primary(
            finding,
            format!("`{}` is the idempotency key of ", key.value),
            ": that header links logs and traces, the server does not deduplicate on it",
        ));
    }
}
