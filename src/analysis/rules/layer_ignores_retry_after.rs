//! `layer-ignores-retry-after`: a layer that cannot read `Retry-After` retries the
//! statuses that carry it.

use super::layered::{layered, loops};
use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// A layer whose format has no way to honour `Retry-After` (Istio, Gateway API,
    /// Linkerd) retries a 429 or 503 that the description declares with `Retry-After`.
    LayerIgnoresRetryAfter,
    "layer-ignores-retry-after",
    Warning,
    Layers,
    "a layer that cannot honour Retry-After retries a status that declares it"
);

impl Rule for LayerIgnoresRetryAfter {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        // Not on a gRPC rpc: gRPC has no Retry-After header: its servers push back with `grpc-retry-pushback-ms`, which no .proto declares (docs/src/proto.md).
        if cx.op.grpc.is_some() {
            return;
        }
        if !layered(cx) {
            return;
        }
        let op = cx.op;
        for l in loops(cx) {
            let Some((layer, _)) = l.layer else {
                continue;
            };
            if !layer.format.cannot_honor_retry_after() || !l.policy.is_retried() {
                continue;
            }
            for code in [429u16, 503] {
                let Some(signal) = l.policy.retry_on().iter().find(|s| s.value.covers(code)) else {
                    continue;
                };
                let Some(header) = op.response(&code.to_string()).and_then(|r| {
                    r.headers
                        .iter()
                        .find(|h| h.name.eq_ignore_ascii_case("Retry-After"))
                }) else {
                    continue;
                };
                let finding = cx.finding(
                        &Self::META,
                        format!(
                            "is retried on {code} by {} (route {}), which cannot honour Retry-After: it retries after its own backoff, before the server said it can take the request",
                            layer.name,
                            l.route_text()
                        ),
                        Label::new(&signal.loc, format!("{code} is retried here; {} has no Retry-After setting", layer.format.name())),
                    )
                    .help(format!(
                        "stop retrying {code} in this layer and leave it to a client that honours Retry-After (retryAfter.honor: true with a retryAfter.max)"
                    ))
                    .related(&header.loc, format!("the {code} response declares Retry-After here"));
                // One finding at the route's status, for every operation the route serves.
                out.push(cx.grouped_at_primary(
                    finding,
                    format!("{} (route {}) retries {code} for ", layer.name, l.route_text()),
                    ", but cannot honour Retry-After: it retries after its own backoff, before the server said it can take the request",
                ));
            }
        }
    }
}
