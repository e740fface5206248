//! How to fix a client-policy rule's finding in a layer's own format: a finding about an
//! Istio route says which Istio field to change, not which policy key.

use crate::layers::Format;

/// The fix for `rule` in a layer of `format`, when it differs from the policy's.
pub fn help(rule: &str, format: Format) -> Option<&'static str> {
    use Format::*;
    Some(match (rule, format) {
        ("missing-deadline", Istio) => {
            "set the route's `timeout`: it bounds the first attempt and every retry"
        }
        ("missing-deadline", GatewayApi) => {
            "set `timeouts.request` on the rule: retries must fit in it"
        }
        ("missing-deadline", Envoy) => {
            "set the route's `timeout` (0s turns it off): it includes every retry"
        }
        ("missing-deadline", LinkerdAnnotations) => {
            "set `timeout.linkerd.io/request`: it bounds the request and its retries"
        }
        ("missing-deadline", LinkerdProfile) => "set the route's `timeout`: it includes retries",
        ("missing-deadline", Speakeasy) => "set `backoff.maxElapsedTime`",
        ("unprotected-write-retry", Istio) => {
            "split the route by `match.method` and give the write route `retries: {attempts: 0}`, or retry it only on `connect-failure,refused-stream`"
        }
        ("unprotected-write-retry", GatewayApi) => {
            "split the rule by `matches.method` and leave `retry` out of the write rule"
        }
        ("unprotected-write-retry", Envoy) => {
            "retry writes only on `connect-failure,refused-stream,reset-before-request`, or limit retries to safe methods with `retriable_request_headers` on `:method`"
        }
        ("unprotected-write-retry", LinkerdProfile) => "do not mark a write route `isRetryable`",
        ("unprotected-write-retry", LinkerdAnnotations) => {
            "keep the retry annotations off routes that take writes"
        }
        ("unprotected-write-retry", Speakeasy) => {
            "give the operation `x-speakeasy-retries: {strategy: none}`, or have the SDK send an idempotency key the server deduplicates on"
        }
        ("retry-on-non-transient", Istio) => "remove the status from `retryOn`",
        ("retry-on-non-transient", GatewayApi) => "remove the status from `retry.codes`",
        ("retry-on-non-transient", Envoy) => "remove the status from `retriable_status_codes`",
        ("retry-on-non-transient", LinkerdProfile) => {
            "do not make the status a failure in `responseClasses` of a retryable route"
        }
        ("retry-on-non-transient", LinkerdAnnotations) => {
            "remove the status from `retry.linkerd.io/http`"
        }
        ("retry-on-non-transient", Speakeasy) => "remove the status from `statusCodes`",
        ("unbounded-attempts", Istio) => "lower `retries.attempts`",
        ("unbounded-attempts", GatewayApi) => "lower `retry.attempts`",
        ("unbounded-attempts", Envoy) => "lower `num_retries`",
        ("unbounded-attempts", LinkerdAnnotations) => "lower `retry.linkerd.io/limit`",
        ("unbounded-attempts", Speakeasy) => {
            "lower `backoff.maxElapsedTime`, or raise `initialInterval`: the SDK retries until maxElapsedTime has passed"
        }
        ("attempts-exceed-deadline", Istio) => {
            "lower `retries.attempts` or `perTryTimeout`, or raise the route's `timeout`"
        }
        ("attempts-exceed-deadline", GatewayApi) => {
            "lower `retry.attempts` or `timeouts.backendRequest`, or raise `timeouts.request`"
        }
        ("attempts-exceed-deadline", Envoy) => {
            "lower `num_retries` or `per_try_timeout`, or raise the route's `timeout`"
        }
        ("attempts-exceed-deadline", LinkerdAnnotations) => {
            "lower `retry.linkerd.io/limit` or `retry.linkerd.io/timeout`, or raise `timeout.linkerd.io/request`"
        }
        ("retry-after-ignored", Envoy) => {
            "add `rate_limited_retry_back_off: {reset_headers: [{name: Retry-After, format: SECONDS}], max_interval: 30s}` to the retry_policy"
        }
        ("retry-after-unbounded", Envoy) => {
            "set `rate_limited_retry_back_off.max_interval` below the route's timeout"
        }
        ("retry-after-unbounded", Speakeasy) => {
            "bound Retry-After in an SDK hook, or use the TypeScript SDK, which waits at most `maxInterval`"
        }
        ("immediate-retry" | "invalid-backoff", Envoy) => {
            "set `retry_back_off.base_interval` (and `max_interval`)"
        }
        ("immediate-retry" | "invalid-backoff", Istio) => "set `retries.backoff`",
        ("immediate-retry" | "invalid-backoff", GatewayApi) => "set `retry.backoff`",
        ("immediate-retry" | "invalid-backoff", Speakeasy) => {
            "set `backoff.initialInterval` and `backoff.maxInterval`"
        }
        _ => return None,
    })
}
