//! An Envoy `RetryPolicy` (route or virtual host) and a route's `timeout`, in retrylint's
//! model.
//!
//! Envoy counts retries after the first attempt (`num_retries`, 1 unless set), retries
//! only on its `retry_on` conditions, waits a fully jittered exponential backoff (25 ms
//! base, cap 10 × base), and reads `Retry-After` only through `rate_limited_retry_back_off`,
//! as seconds or a Unix timestamp. Every value Envoy takes by default is noted as such,
//! located at the nearest thing written.

use super::matching;
use crate::analysis::layers::StringMatch;
use crate::analysis::layers::values::{
    bad_value, envoy_retry_on, list, mapping, proto_duration, proto_field, push_signals, ten_times,
    text, whole_number,
};
use crate::error::InputError;
use crate::input::policy::{Duration, Jitter, PolicyObject, Signal, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

const NO_POLICY: &str = "Envoy retries only with a retry_policy";
const ANSWERED_BY_ENVOY: &str = "Envoy answers this route itself (redirect or direct response): nothing is forwarded or retried";
const RETRIES_NOTHING: &str = "Envoy retries nothing: no retry_on condition applies";
const DEFAULT_NUM_RETRIES: &str = "Envoy's default num_retries: 1";
const DEFAULT_ROUTE_TIMEOUT: &str = "Envoy's default route timeout, which includes retries";
const DEFAULT_BASE: &str = "Envoy's default retry back-off base interval";
const DEFAULT_CAP: &str = "Envoy's default back-off max_interval: 10 × base_interval";
const ENVOY_BACKOFF: &str = "Envoy's fully jittered exponential backoff";
const DEFAULT_RESET_MAX: &str = "Envoy's default rate_limited_retry_back_off max_interval";
const IGNORES_RETRY_AFTER: &str = "Envoy ignores Retry-After without rate_limited_retry_back_off";
const NO_RETRY_AFTER_HEADER: &str =
    "Envoy reads no Retry-After: rate_limited_retry_back_off names other headers";
const RETRY_AFTER_AS_TIMESTAMP: &str =
    "Envoy reads this Retry-After as a Unix timestamp, which the delay-seconds servers send is not";
/// What Envoy cannot do with `Retry-After`, for routes that read it.
const HTTP_DATE: &str =
    "Retry-After as an HTTP-date (Envoy reads seconds and Unix timestamps only)";

/// What a route's retry policy does.
#[derive(Debug, Clone)]
pub(super) struct Retries {
    pub policy: PolicyObject,
    /// From `retriable_request_headers` on `:method`; `None` means every method.
    pub retried_methods: Option<Vec<StringMatch>>,
    pub unsupported: Vec<&'static str>,
    /// No retry policy is written for the route: Envoy's default (no retry) applies.
    pub implicit: bool,
}

impl Retries {
    /// A forwarding route with no retry policy of its own or of its virtual host.
    pub(super) fn none(action_loc: &Loc) -> Retries {
        Retries::single_attempt(action_loc.noted(NO_POLICY), true)
    }

    /// A route Envoy answers itself (`redirect`, `direct_response`).
    pub(super) fn answered_by_envoy(action_loc: &Loc) -> Retries {
        Retries::single_attempt(action_loc.noted(ANSWERED_BY_ENVOY), false)
    }

    fn single_attempt(loc: Loc, implicit: bool) -> Retries {
        let policy = PolicyObject {
            max_attempts: Some(Spanned::new(1, loc).into()),
            ..PolicyObject::default()
        };
        Retries {
            policy,
            retried_methods: None,
            unsupported: Vec::new(),
            implicit,
        }
    }
}

/// Reads a `retry_policy` at `loc`.
pub(super) fn read(file: &SourceFile, node: &Node, loc: &Loc) -> Result<Retries, InputError> {
    mapping(file, node, loc, "retry_policy")?;
    let mut policy = PolicyObject::default();
    let mut unsupported = Vec::new();
    policy.per_attempt_timeout =
        optional_duration(file, node, loc, "per_try_timeout")?.map(Into::into);
    let conditions = conditions(file, node, loc, policy.per_attempt_timeout.is_some())?;
    let attempts = attempts(file, node, loc)?;
    policy.max_attempts = Some(if conditions.retries_nothing() {
        Spanned::new(1, conditions.loc.noted(RETRIES_NOTHING)).into()
    } else {
        attempts.into()
    });
    policy.retry_on = Some(Spanned::new(conditions.signals, conditions.loc).into());
    backoff(file, node, loc, &mut policy)?;
    match proto_field(node, loc, "rate_limited_retry_back_off") {
        Some((limited, limited_loc)) => {
            rate_limited(file, limited, &limited_loc, &mut policy, &mut unsupported)?;
        }
        None => {
            policy.retry_after_honor =
                Some(Spanned::new(false, loc.noted(IGNORES_RETRY_AFTER)).into());
        }
    }
    Ok(Retries {
        policy,
        retried_methods: retried_methods(file, node, loc)?,
        unsupported,
        implicit: false,
    })
}

/// A route action's `timeout`: the deadline of the whole call, retries included (15 s
/// unless set; `0s` turns it off).
pub(super) fn route_timeout(
    file: &SourceFile,
    action: &Node,
    action_loc: &Loc,
) -> Result<Option<Spanned<Duration>>, InputError> {
    match optional_duration(file, action, action_loc, "timeout")? {
        Some(timeout) => Ok((timeout.value > Duration::ZERO).then_some(timeout)),
        None => Ok(Some(Spanned::new(
            Duration::from_millis(15_000),
            action_loc.noted(DEFAULT_ROUTE_TIMEOUT),
        ))),
    }
}

fn optional_duration(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    name: &str,
) -> Result<Option<Spanned<Duration>>, InputError> {
    proto_field(node, loc, name)
        .map(|(value, at)| proto_duration(file, value, &at))
        .transpose()
}

/// The conditions a policy retries on.
struct Conditions {
    signals: Vec<Spanned<Signal>>,
    /// `retriable-headers` or `envoy-ratelimited`: retries on response headers (for the
    /// latter, a 429 with `x-envoy-ratelimited`), which retrylint's signals do not model.
    on_response_headers: bool,
    /// `retry_on`, or the policy when it has none.
    loc: Loc,
}

impl Conditions {
    fn retries_nothing(&self) -> bool {
        self.signals.is_empty() && !self.on_response_headers
    }
}

/// `retry_on` tokens, and `retriable_status_codes` when `retriable-status-codes` is one of
/// them (Envoy reads the codes only then; otherwise they are checked and ignored).
fn conditions(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    per_try_timeout: bool,
) -> Result<Conditions, InputError> {
    let mut conditions = Conditions {
        signals: Vec::new(),
        on_response_headers: false,
        loc: loc.clone(),
    };
    let mut by_status_codes = false;
    if let Some((on, on_loc)) = proto_field(node, loc, "retry_on") {
        for token in text(file, on, &on_loc, "retry_on")?
            .split(',')
            .map(str::trim)
        {
            if token.is_empty() {
                continue;
            }
            let Some(signals) = envoy_retry_on(token, per_try_timeout) else {
                return Err(bad_value(
                    file,
                    &on_loc,
                    format!("`{token}` is not a retry_on condition Envoy knows"),
                )
                .with_help(
                    "Envoy's conditions: 5xx, gateway-error, reset, reset-before-request, connect-failure, \
                     envoy-ratelimited, retriable-4xx, refused-stream, retriable-status-codes, \
                     retriable-headers, http3-post-connect-failure, and the gRPC cancelled, \
                     deadline-exceeded, internal, resource-exhausted, unavailable",
                ));
            };
            by_status_codes |= token == "retriable-status-codes";
            conditions.on_response_headers |=
                matches!(token, "retriable-headers" | "envoy-ratelimited");
            push_signals(&mut conditions.signals, signals, &on_loc);
        }
        conditions.loc = on_loc;
    }
    if let Some((codes, codes_loc)) = proto_field(node, loc, "retriable_status_codes") {
        for (i, item) in list(file, codes, &codes_loc, "retriable_status_codes")?
            .iter()
            .enumerate()
        {
            let at = codes_loc.item(i, item);
            let code = whole_number(file, item, &at, "retriable_status_codes[]")?;
            let code = u16::try_from(code)
                .ok()
                .filter(|c| (100..=599).contains(c))
                .ok_or_else(|| bad_value(file, &at, format!("{code} is not an HTTP status")))?;
            if by_status_codes {
                push_signals(&mut conditions.signals, [Signal::Status(code)], &at);
            }
        }
    }
    Ok(conditions)
}

/// Total attempts: `num_retries` (a `UInt32Value`, 1 unless set) plus the first.
fn attempts(file: &SourceFile, node: &Node, loc: &Loc) -> Result<Spanned<i64>, InputError> {
    let Some((retries, at)) = proto_field(node, loc, "num_retries") else {
        return Ok(Spanned::new(2, loc.noted(DEFAULT_NUM_RETRIES)));
    };
    let retries = proto_field(retries, &at, "value").map_or(retries, |(v, _)| v);
    let count = whole_number(file, retries, &at, "num_retries")?;
    let count = u32::try_from(count)
        .map_err(|_| bad_value(file, &at, format!("num_retries {count} is beyond a UInt32")))?;
    Ok(Spanned::new(i64::from(count) + 1, at))
}

/// `retry_back_off`: base interval (required there, 25 ms when the section is absent,
/// below 1 ms rounded up to 1 ms) and cap (10 × base unless set); Envoy's waits double and
/// are fully jittered.
fn backoff(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    policy: &mut PolicyObject,
) -> Result<(), InputError> {
    let (base, cap, anchor) =
        if let Some((section, section_loc)) = proto_field(node, loc, "retry_back_off") {
            mapping(file, section, &section_loc, "retry_back_off")?;
            policy.backoff = Some(Spanned::new((), section_loc.clone()).into());
            let Some(mut base) = optional_duration(file, section, &section_loc, "base_interval")?
            else {
                return Err(bad_value(
                    file,
                    &section_loc,
                    "`retry_back_off` needs a `base_interval`",
                ));
            };
            if base.value <= Duration::ZERO {
                return Err(bad_value(
                    file,
                    &base.loc,
                    "`base_interval` must be more than 0s",
                ));
            }
            base.value = base.value.max(Duration::from_millis(1));
            let cap = match optional_duration(file, section, &section_loc, "max_interval")? {
                Some(cap) if cap.value < base.value => {
                    return Err(bad_value(
                        file,
                        &cap.loc,
                        format!(
                            "`max_interval` ({}) is below `base_interval` ({}): Envoy refuses it",
                            cap.value, base.value
                        ),
                    ));
                }
                Some(cap) => cap,
                None => Spanned::new(ten_times(base.value), section_loc.noted(DEFAULT_CAP)),
            };
            (base, cap, section_loc)
        } else {
            let base = Duration::from_millis(25);
            (
                Spanned::new(base, loc.noted(DEFAULT_BASE)),
                Spanned::new(ten_times(base), loc.noted(DEFAULT_CAP)),
                loc.clone(),
            )
        };
    // Envoy's first retry waits up to `base_interval`; later ones up to (2^N − 1) × base,
    // which retrylint's exponential model approaches from below until the cap.
    policy.backoff_base =
        Some(crate::analysis::layers::values::base_for_first_wait(base, 2.0).into());
    policy.backoff_cap = Some(cap.into());
    policy.backoff_multiplier = Some(Spanned::new(2.0, anchor.noted(ENVOY_BACKOFF)).into());
    policy.jitter = Some(Spanned::new(Jitter::Full, anchor.noted(ENVOY_BACKOFF)).into());
    Ok(())
}

/// How Envoy reads a reset header's value.
#[derive(Clone, Copy, PartialEq)]
enum ResetFormat {
    Seconds,
    UnixTimestamp,
}

/// `rate_limited_retry_back_off`: Envoy waits what the first readable reset header says,
/// up to `max_interval` (300 s unless set; a longer value is discarded).
fn rate_limited(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    policy: &mut PolicyObject,
    unsupported: &mut Vec<&'static str>,
) -> Result<(), InputError> {
    mapping(file, node, loc, "rate_limited_retry_back_off")?;
    policy.retry_after = Some(Spanned::new((), loc.clone()).into());
    let max = match optional_duration(file, node, loc, "max_interval")? {
        Some(max) if max.value <= Duration::ZERO => {
            return Err(bad_value(
                file,
                &max.loc,
                "`max_interval` must be more than 0s",
            ));
        }
        Some(max) => max,
        None => Spanned::new(Duration::from_millis(300_000), loc.noted(DEFAULT_RESET_MAX)),
    };
    let Some((headers, headers_loc)) = proto_field(node, loc, "reset_headers") else {
        return Err(bad_value(
            file,
            loc,
            "`rate_limited_retry_back_off` needs `reset_headers`",
        ));
    };
    let items = list(file, headers, &headers_loc, "reset_headers")?;
    if items.is_empty() {
        return Err(bad_value(
            file,
            &headers_loc,
            "`reset_headers` needs at least one header",
        ));
    }
    let mut retry_after = None;
    for (i, item) in items.iter().enumerate() {
        let at = headers_loc.item(i, item);
        mapping(file, item, &at, "reset_headers[]")?;
        let Some((name, name_loc)) = proto_field(item, &at, "name") else {
            return Err(bad_value(file, &at, "this reset header has no `name`"));
        };
        let name = text(file, name, &name_loc, "name")?;
        let format = match proto_field(item, &at, "format") {
            None => ResetFormat::Seconds,
            Some((format, format_loc)) => match text(file, format, &format_loc, "format")? {
                "SECONDS" | "0" => ResetFormat::Seconds,
                "UNIX_TIMESTAMP" | "1" => ResetFormat::UnixTimestamp,
                other => {
                    return Err(bad_value(
                        file,
                        &format_loc,
                        format!(
                            "`{other}` is not a reset header format: SECONDS or UNIX_TIMESTAMP"
                        ),
                    ));
                }
            },
        };
        // Headers are tried in order: the first Retry-After entry is the one read.
        if retry_after.is_none() && name.eq_ignore_ascii_case("retry-after") {
            retry_after = Some((format, name_loc));
        }
    }
    policy.retry_after_honor = Some(match retry_after {
        Some((ResetFormat::Seconds, at)) => {
            policy.retry_after_max = Some(max.into());
            unsupported.push(HTTP_DATE);
            Spanned::new(true, at).into()
        }
        Some((ResetFormat::UnixTimestamp, at)) => {
            Spanned::new(false, at.noted(RETRY_AFTER_AS_TIMESTAMP)).into()
        }
        None => Spanned::new(false, loc.noted(NO_RETRY_AFTER_HEADER)).into(),
    });
    Ok(())
}

/// The methods `retriable_request_headers` let Envoy retry. Envoy retries a request that
/// any of them matches, so an entry on another header (which a request of any method may
/// carry), or a `:method` entry that takes any value, lets every method be retried.
fn retried_methods(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Option<Vec<StringMatch>>, InputError> {
    let Some((headers, headers_loc)) = proto_field(node, loc, "retriable_request_headers") else {
        return Ok(None);
    };
    let items = list(file, headers, &headers_loc, "retriable_request_headers")?;
    let mut methods = Vec::new();
    let mut every_method = items.is_empty();
    for (i, item) in items.iter().enumerate() {
        let at = headers_loc.item(i, item);
        mapping(file, item, &at, "retriable_request_headers[]")?;
        let Some((name, name_loc)) = proto_field(item, &at, "name") else {
            return Err(bad_value(file, &at, "this header matcher has no `name`"));
        };
        if !text(file, name, &name_loc, "name")?.eq_ignore_ascii_case(":method") {
            every_method = true;
            continue;
        }
        match matching::header_value(file, item, &at)? {
            Some(method) => methods.push(method),
            None => every_method = true,
        }
    }
    Ok((!every_method).then_some(methods))
}
