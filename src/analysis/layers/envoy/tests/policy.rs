//! Retry policies: conditions, attempts, backoff, Retry-After, methods, timeouts, and
//! the errors bad values make.

use super::*;

#[test]
fn retry_conditions_and_their_status_codes() {
    let policy = |body: &str| {
        let (layers, _) = read_ok(&rds(
            "",
            &format!(
                "  - match: {{ prefix: / }}\n    route:\n      cluster: c\n      retry_policy: {body}\n"
            ),
        ));
        layers[0].routes[0].clone()
    };
    // Codes count only with retriable-status-codes.
    let ignored = policy("{ retry_on: reset, retriable_status_codes: [503] }");
    assert_eq!(signals(&ignored), [Signal::Reset]);
    let read = policy(
        "{ retry_on: 'retriable-status-codes,unavailable', retriable_status_codes: [503, 429] }",
    );
    assert_eq!(
        signals(&read),
        [
            Signal::Grpc(GrpcCode::Unavailable),
            Signal::Status(503),
            Signal::Status(429)
        ]
    );
    // A per-try timeout makes a timed-out attempt a 5xx that is retried.
    let timed = policy("{ retry_on: 5xx, per_try_timeout: 0.5s }");
    assert!(signals(&timed).contains(&Signal::Timeout));
    assert_eq!(value(&timed.policy.per_attempt_timeout), ms(500));
    // No condition: nothing is retried, whatever num_retries says.
    let nothing = policy("{ num_retries: 5 }");
    assert_eq!(value(&nothing.policy.max_attempts), 1);
    assert_eq!(
        note(&nothing.policy.max_attempts).as_deref(),
        Some("Envoy retries nothing: no retry_on condition applies")
    );
    let zero = policy("{ retry_on: 5xx, num_retries: 0 }");
    assert_eq!(value(&zero.policy.max_attempts), 1);
}

#[test]
fn backoff_defaults_and_written_values() {
    let policy = |body: &str| {
        let (layers, file) = read_ok(&rds(
            "",
            &format!(
                "  - match: {{ prefix: / }}\n    route:\n      cluster: c\n      retry_policy: {body}\n"
            ),
        ));
        (layers[0].routes[0].policy.clone(), file)
    };
    let (defaults, _) = policy("{ retry_on: 5xx }");
    // Envoy's first retry waits up to 25ms: base × multiplier in retrylint's model.
    assert_eq!(
        value(&defaults.backoff_base),
        crate::input::policy::Duration::from_micros(12_500)
    );
    assert_eq!(value(&defaults.backoff_cap), ms(250));
    assert_eq!(value(&defaults.backoff_multiplier), 2.0);
    assert_eq!(value(&defaults.jitter), Jitter::Full);
    assert_eq!(
        note(&defaults.jitter).as_deref(),
        Some("Envoy's fully jittered exponential backoff")
    );
    assert!(defaults.backoff.is_none());
    let (written_base, file) = policy("{ retry_on: 5xx, retry_back_off: { base_interval: 0.2s } }");
    assert_eq!(value(&written_base.backoff_base), ms(100));
    assert_eq!(value(&written_base.backoff_cap), ms(2_000));
    assert_eq!(
        note(&written_base.backoff_cap).as_deref(),
        Some("Envoy's default back-off max_interval: 10 × base_interval")
    );
    let at = written_base
        .backoff_base
        .as_ref()
        .map_or_else(|| panic!(), |b| b.loc.clone());
    assert_eq!(written(&file, &at), "base_interval: 0.2s");
    // Below a millisecond is rounded up; a protobuf Duration may be written as a mapping.
    let (tiny, _) = policy(
        "{ retry_on: 5xx, retry_back_off: { base_interval: { nanos: 1000 }, max_interval: 1s } }",
    );
    assert_eq!(
        value(&tiny.backoff_base),
        crate::input::policy::Duration::from_micros(500)
    );
}

#[test]
fn retry_after_is_read_only_through_rate_limited_retry_back_off() {
    let policy = |body: &str| {
        let (layers, file) = read_ok(&rds(
            "",
            &format!(
                "  - match: {{ prefix: / }}\n    route:\n      cluster: c\n      retry_policy: {body}\n"
            ),
        ));
        (layers[0].routes[0].clone(), file)
    };
    let (ignored, _) = policy("{ retry_on: 5xx }");
    assert!(!value(&ignored.policy.retry_after_honor));
    assert_eq!(
        note(&ignored.policy.retry_after_honor).as_deref(),
        Some("Envoy ignores Retry-After without rate_limited_retry_back_off")
    );
    assert!(ignored.unsupported.is_empty());
    let (honored, file) = policy(
        "{ retry_on: '5xx,envoy-ratelimited', rate_limited_retry_back_off: { reset_headers: [{ name: RETRY-AFTER }] } }",
    );
    assert!(value(&honored.policy.retry_after_honor));
    let at = honored
        .policy
        .retry_after_honor
        .as_ref()
        .map_or_else(|| panic!(), |h| h.loc.clone());
    assert_eq!(written(&file, &at), "name: RETRY-AFTER");
    assert_eq!(value(&honored.policy.retry_after_max), ms(300_000));
    assert_eq!(
        honored.unsupported,
        ["Retry-After as an HTTP-date (Envoy reads seconds and Unix timestamps only)"]
    );
    let (other, _) = policy(
        "{ retry_on: 5xx, rate_limited_retry_back_off: { reset_headers: [{ name: X-RateLimit-Reset, format: UNIX_TIMESTAMP }], max_interval: 60s } }",
    );
    assert!(!value(&other.policy.retry_after_honor));
    assert!(other.policy.retry_after_max.is_none());
    let (as_timestamp, _) = policy(
        "{ retry_on: 5xx, rate_limited_retry_back_off: { reset_headers: [{ name: Retry-After, format: UNIX_TIMESTAMP }] } }",
    );
    assert!(!value(&as_timestamp.policy.retry_after_honor));
}

#[test]
fn retriable_request_headers_on_the_method_limit_the_methods_retried() {
    let methods = |headers: &str| {
        let (layers, _) = read_ok(&rds(
            "",
            &format!(
                "  - match: {{ prefix: / }}\n    route:\n      cluster: c\n      retry_policy: {{ retry_on: 5xx, retriable_request_headers: {headers} }}\n"
            ),
        ));
        layers[0].routes[0].retried_methods.clone()
    };
    let get = methods("[{ name: ':method', string_match: { exact: GET } }, { name: ':method', exact_match: HEAD }]")
        .unwrap_or_else(|| panic!("no methods"));
    assert!(get.iter().any(|m| m.matches("GET")) && get.iter().any(|m| m.matches("HEAD")));
    assert!(!get.iter().any(|m| m.matches("POST")));
    // Another header may come with any method; so may a `:method` of any value.
    assert!(
        methods("[{ name: ':method', exact_match: GET }, { name: x-retry, exact_match: 'yes' }]")
            .is_none()
    );
    assert!(methods("[{ name: ':method' }]").is_none());
}

#[test]
fn timeouts_set_the_deadline_and_zero_turns_it_off() {
    let deadline = |timeout: &str| {
        let (layers, _) = read_ok(&rds(
            "",
            &format!(
                "  - match: {{ prefix: / }}\n    route: {{ cluster: c, timeout: {timeout} }}\n"
            ),
        ));
        layers[0].routes[0]
            .policy
            .deadline
            .as_ref()
            .map(|d| d.value)
    };
    assert_eq!(deadline("2.5s"), Some(ms(2_500)));
    assert_eq!(deadline("{ seconds: 3 }"), Some(ms(3_000)));
    assert_eq!(deadline("0s"), None);
}

#[test]
fn bad_values_are_errors_at_the_value() {
    let route = |policy: &str| {
        rds(
            "",
            &format!(
                "  - match: {{ prefix: / }}\n    route:\n      cluster: c\n      retry_policy:\n        {policy}\n"
            ),
        )
    };
    let (message, at) = error(&route("retry_on: 5xx,sometimes"));
    assert!(
        message.contains("`sometimes` is not a retry_on condition"),
        "{message}"
    );
    assert_eq!(at, "retry_on: 5xx,sometimes");
    assert_eq!(error(&route("num_retries: -1")).1, "num_retries: -1");
    assert_eq!(
        error(&route("num_retries: 99999999999")).1,
        "num_retries: 99999999999"
    );
    assert_eq!(error(&route("per_try_timeout: 2")).1, "per_try_timeout: 2");
    assert_eq!(error(&route("retriable_status_codes: [700]")).1, "700");
    let (message, at) = error(&route(
        "retry_back_off: { base_interval: 1s, max_interval: 0.5s }",
    ));
    assert!(message.contains("below `base_interval`"), "{message}");
    assert_eq!(at, "max_interval: 0.5s");
    assert_eq!(
        error(&route("retry_back_off: { max_interval: 1s }")).1,
        "retry_back_off"
    );
    assert_eq!(
        error(&route("retry_back_off: { base_interval: 0s }")).1,
        "base_interval: 0s"
    );
    let (message, _) = error(&route(
        "rate_limited_retry_back_off: { reset_headers: [{ name: Retry-After, format: HTTP_DATE }] }",
    ));
    assert!(
        message.contains("`HTTP_DATE` is not a reset header format"),
        "{message}"
    );
    let regex = rds(
        "",
        "  - match:\n      safe_regex:\n        regex: '/payments/('\n    route: { cluster: c }\n",
    );
    let (message, at) = error(&regex);
    assert!(message.contains("regular expression"), "{message}");
    assert_eq!(at, "regex: '/payments/('");
    assert_eq!(
        error(&rds("", "  - route: { cluster: c }\n")).1,
        "route: { cluster: c }"
    );
    assert_eq!(
        error(&rds(
            "",
            "  - match: { headers: [] }\n    route: { cluster: c }\n"
        ))
        .1,
        "match"
    );
    assert_eq!(
        error(&rds(
            "",
            "  - match: { prefix: / }\n    rout: { cluster: c }\n"
        ))
        .1,
        "match: { prefix: / }\n    rout: { cluster: c }"
    );
    assert_eq!(
        error("virtual_hosts: [{ name: a, domains: a.example.com }]").1,
        "domains: a.example.com"
    );
}
