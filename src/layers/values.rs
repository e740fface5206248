//! Reading the values importers share: durations in each format's syntax, retry
//! conditions (`retryOn` tokens), regular expressions with a size limit, and located
//! fields of a document.

use std::sync::Arc;

use crate::error::InputError;
use crate::location::Loc;
use crate::policy::{Duration, GrpcCode, Signal, Spanned};
use crate::source::{Node, SourceFile};

/// The compiled size a route's regular expression may take: patterns come from files
/// anyone can change.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A field of a mapping with its location (key and scalar value).
pub fn field<'a>(node: &'a Node, loc: &Loc, key: &str) -> Option<(&'a Node, Loc)> {
    let entry = node.as_map()?.entry(key)?;
    Some((&entry.value, loc.entry(key, entry.key_span, &entry.value)))
}

/// The error for a value a format does not allow, located at the value.
pub fn bad_value(file: &SourceFile, loc: &Loc, message: impl Into<String>) -> InputError {
    InputError::at(file, loc.span, message)
}

/// A duration as Kubernetes formats write it (Istio `1h/1m/1s/1ms`, Gateway API
/// GEP-2257 `1h30m`, Linkerd `300ms`); the Go forms `1.5s` and `500us` are read too.
pub fn k8s_duration(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Spanned<Duration>, InputError> {
    let text = node.scalar_text().ok_or_else(|| {
        bad_value(
            file,
            loc,
            format!("expected a duration such as 2s, found {}", node.kind()),
        )
    })?;
    let value = Duration::parse(text).map_err(|why| bad_value(file, loc, why))?;
    if value < Duration::ZERO {
        return Err(bad_value(
            file,
            loc,
            format!("`{text}` is negative: a duration is 0s or more"),
        ));
    }
    Ok(Spanned::new(value, loc.clone()))
}

/// A protobuf `Duration` as Envoy writes it in YAML or JSON: `"0.25s"`, or
/// `{seconds: 1, nanos: 500000000}`.
pub fn proto_duration(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Spanned<Duration>, InputError> {
    if let Some(map) = node.as_map() {
        let number = |key: &str| -> Result<i64, InputError> {
            match map.get(key) {
                None => Ok(0),
                Some(n) => n
                    .scalar_text()
                    .and_then(|t| t.parse::<i64>().ok())
                    .ok_or_else(|| bad_value(file, loc, format!("`{key}` is not a whole number"))),
            }
        };
        let micros = number("seconds")?
            .saturating_mul(1_000_000)
            .saturating_add(number("nanos")? / 1_000);
        return Ok(Spanned::new(Duration::from_micros(micros), loc.clone()));
    }
    let text = node.scalar_text().ok_or_else(|| {
        bad_value(
            file,
            loc,
            format!("expected a duration such as 0.25s, found {}", node.kind()),
        )
    })?;
    let Some(seconds) = text.trim().strip_suffix('s') else {
        return Err(bad_value(
            file,
            loc,
            format!("`{text}` is not a protobuf duration: write seconds with an `s`, as in 0.25s"),
        ));
    };
    let value: f64 = seconds
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| {
            bad_value(
                file,
                loc,
                format!("`{text}` is not a duration: write 0.25s"),
            )
        })?;
    Ok(Spanned::new(
        Duration::from_micros((value * 1e6).round().min(i64::MAX as f64) as i64),
        loc.clone(),
    ))
}

/// A regular expression of a route (RE2 syntax, which `regex` reads), anchored to the
/// whole text as the proxies match it.
pub fn route_regex(
    file: &SourceFile,
    text: &str,
    loc: &Loc,
) -> Result<Arc<regex::Regex>, InputError> {
    regex::RegexBuilder::new(&format!("^(?:{text})$"))
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map(Arc::new)
        .map_err(|e| {
            let why = match e {
                regex::Error::CompiledTooBig(_) => "it compiles too large".to_string(),
                other => other
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .to_string(),
            };
            bad_value(
                file,
                loc,
                format!("the regular expression cannot be used: {why}"),
            )
        })
}

/// The conditions one Envoy/Istio `retry_on` token stands for, or `None` for a token the
/// proxies do not know. `per_try_timeout` says whether an attempt can time out (then
/// `5xx` and `gateway-error` retry it: Envoy answers a timed-out attempt with 504).
pub fn envoy_retry_on(token: &str, per_try_timeout: bool) -> Option<Vec<Signal>> {
    use Signal::*;
    let timeout = per_try_timeout.then_some(Timeout);
    let signals = match token.trim() {
        "5xx" => [Class(5), Reset, ConnectFailure, RefusedStream]
            .into_iter()
            .chain(timeout)
            .collect(),
        "gateway-error" => [Status(502), Status(503), Status(504)]
            .into_iter()
            .chain(timeout)
            .collect(),
        "reset" => vec![Reset],
        "reset-before-request" => vec![ResetBeforeRequest],
        "connect-failure" => vec![ConnectFailure],
        "refused-stream" => vec![RefusedStream],
        "retriable-4xx" => vec![Status(409)],
        "envoy-ratelimited" => vec![Status(429)],
        "http3-post-connect-failure" => vec![Reset],
        // Only with retriable_status_codes / retriable_headers, read separately.
        "retriable-status-codes" | "retriable-headers" => vec![],
        other => {
            if let Some(code) = GrpcCode::parse(other) {
                vec![Grpc(code)]
            } else if let Ok(code) = other.parse::<u16>() {
                if !(100..=599).contains(&code) {
                    return None;
                }
                vec![Status(code)]
            } else {
                return None;
            }
        }
    };
    Some(signals)
}

/// Adds signals to a list without repeating one.
pub fn push_signals(
    list: &mut Vec<Spanned<Signal>>,
    signals: impl IntoIterator<Item = Signal>,
    loc: &Loc,
) {
    for signal in signals {
        if !list.iter().any(|s| s.value == signal) {
            list.push(Spanned::new(signal, loc.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_on_tokens_expand() {
        assert_eq!(
            envoy_retry_on("connect-failure", false),
            Some(vec![Signal::ConnectFailure])
        );
        assert!(envoy_retry_on("5xx", true).is_some_and(|s| s.contains(&Signal::Timeout)));
        assert!(envoy_retry_on("5xx", false).is_some_and(|s| !s.contains(&Signal::Timeout)));
        assert_eq!(
            envoy_retry_on("503", false),
            Some(vec![Signal::Status(503)])
        );
        assert_eq!(
            envoy_retry_on("unavailable", false),
            Some(vec![Signal::Grpc(GrpcCode::Unavailable)])
        );
        assert_eq!(envoy_retry_on("sometimes", false), None);
        assert_eq!(envoy_retry_on("999", false), None);
    }
}
