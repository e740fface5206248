//! Reading the values importers share: durations in each format's syntax, retry
//! conditions (`retryOn` tokens), regular expressions with a size limit, and located
//! fields of a document. Typed values are read with the shared reader
//! ([`crate::input::read`]), so a layer file words a fault as the policy file does.

use std::sync::Arc;

use super::{RegexEngine, RouteRegex};
use crate::error::{ErrorSite, InputError};
use crate::input::policy::{Duration, GrpcCode, Signal, Spanned};
use crate::input::read::{Context, Name, Value};
use crate::input::source::{Map, Node, SourceFile};
use crate::location::Loc;

/// A field of a mapping with its location (key and scalar value).
pub fn field<'a>(node: &'a Node, loc: &Loc, key: &str) -> Option<(&'a Node, Loc)> {
    let entry = node.as_map()?.entry(key)?;
    Some((&entry.value, loc.entry(key, entry.key_span, &entry.value)))
}

/// The error for a value a format does not allow, located at the value.
pub fn bad_value(file: &SourceFile, loc: &Loc, message: impl Into<String>) -> InputError {
    InputError::at(file, loc.span, message)
}

/// A field of a protobuf message as Envoy's YAML or JSON writes it: under its proto name
/// (`num_retries`), or under the lowerCamelCase JSON name (`numRetries`) that protobuf JSON
/// printers, xDS control planes among them, emit.
pub fn proto_field<'a>(node: &'a Node, loc: &Loc, name: &str) -> Option<(&'a Node, Loc)> {
    field(node, loc, name).or_else(|| {
        let camel = lower_camel(name);
        (camel != name).then(|| field(node, loc, &camel)).flatten()
    })
}

/// `num_retries` as protobuf JSON names it: `numRetries`.
fn lower_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads one value of a layer file with the shared reader ([`crate::input::read`]): messages
/// call it `what`, and point at `loc` (the key and its value).
fn read_one<T>(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    what: &str,
    read: impl FnOnce(&Value<'_, '_>) -> Option<T>,
) -> Result<T, InputError> {
    let cx = Context::new(file, loc.file);
    let value = Value::new(&cx, node, loc.clone(), Name::Key(what.into())).pointing_at(loc.span);
    let read = read(&value);
    cx.finish(read)
}

/// The key a location names, for messages: the last token of its pointer.
fn key_of(loc: &Loc) -> String {
    crate::input::source::pointer::decode(&loc.pointer)
        .and_then(|tokens| tokens.last().cloned())
        .unwrap_or_default()
}

/// A mapping, or an error naming `what` should be one.
pub fn mapping<'a>(
    file: &SourceFile,
    node: &'a Node,
    loc: &Loc,
    what: &str,
) -> Result<&'a Map, InputError> {
    read_one(file, node, loc, what, |value| match node.as_map() {
        Some(map) => Some(map),
        None => value.expected("a mapping"),
    })
}

/// A list, or an error naming `what` should be one.
pub fn list<'a>(
    file: &SourceFile,
    node: &'a Node,
    loc: &Loc,
    what: &str,
) -> Result<&'a [Node], InputError> {
    read_one(file, node, loc, what, |value| match node.as_seq() {
        Some(items) => Some(items),
        None => value.expected("a list"),
    })
}

/// A string (a number or boolean is read as its text), or an error naming `what`.
pub fn text<'a>(
    file: &SourceFile,
    node: &'a Node,
    loc: &Loc,
    what: &str,
) -> Result<&'a str, InputError> {
    read_one(file, node, loc, what, |value| match node.scalar_text() {
        Some(text) => Some(text),
        None => value.expected("a string"),
    })
}

/// `true` or `false`, or an error naming `what`.
#[allow(
    clippy::redundant_closure_for_method_calls,
    reason = "the closure is generic over the value's lifetimes; the method path is not"
)]
pub fn boolean(file: &SourceFile, node: &Node, loc: &Loc, what: &str) -> Result<bool, InputError> {
    read_one(file, node, loc, what, |value| value.read())
}

/// A whole number of zero or more, written as a number or (as protobuf JSON may) as a
/// string of digits; an error naming `what` otherwise.
pub fn whole_number(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    what: &str,
) -> Result<u64, InputError> {
    read_one(file, node, loc, what, |value| {
        let n = crate::input::read::whole_number(value, 0, u64::MAX.into(), true)?;
        u64::try_from(n).ok()
    })
}

/// A duration as Kubernetes formats write it (Istio `1h/1m/1s/1ms`, Gateway API
/// GEP-2257 `1h30m`, Linkerd `300ms`); the Go forms `1.5s` and `500us` are read too.
pub fn k8s_duration(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Spanned<Duration>, InputError> {
    read_one(file, node, loc, &key_of(loc), |value| {
        let duration = value.read::<Duration>()?;
        if duration < Duration::ZERO {
            let text = node.scalar_text().unwrap_or_default();
            return value.fail(format!(
                "bad duration for {}: `{text}` is negative: a duration is 0s or more",
                value.name()
            ));
        }
        Some(Spanned::new(duration, loc.clone()))
    })
}

/// A protobuf `Duration` as Envoy writes it in YAML or JSON: `"0.25s"`, or
/// `{seconds: 1, nanos: 500000000}`.
pub fn proto_duration(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Spanned<Duration>, InputError> {
    read_one(file, node, loc, &key_of(loc), |value| {
        let micros = match &node.value {
            crate::input::source::Value::Map(map) => proto_parts(value, map)?,
            _ => proto_seconds(value)?,
        };
        Some(Spanned::new(Duration::from_micros(micros), loc.clone()))
    })
}

/// The microseconds of `{seconds, nanos}`. Envoy refuses a negative duration anywhere in
/// its configuration (`MessageUtil::validateDurationFields`); protobuf holds `seconds` in
/// an int64.
fn proto_parts(value: &Value<'_, '_>, map: &Map) -> Option<i64> {
    let part = |key: &str| match map.get(key) {
        None => Some(0),
        Some(node) => {
            let part = Value::new(
                value.context(),
                node,
                value.loc.clone(),
                Name::Key(key.into()),
            )
            .pointing_at(value.loc.span);
            let n = crate::input::read::whole_number(&part, 0, i64::MAX.into(), true)?;
            i64::try_from(n).ok()
        }
    };
    let (seconds, nanos) = (part("seconds"), part("nanos"));
    Some(
        seconds?
            .saturating_mul(1_000_000)
            .saturating_add(nanos? / 1_000),
    )
}

/// The microseconds of `"0.25s"`.
fn proto_seconds(value: &Value<'_, '_>) -> Option<i64> {
    let Some(text) = value.node.scalar_text() else {
        return value.expected("a duration such as 0.25s");
    };
    let bad = |why: &str| value.fail(format!("bad duration for {}: {why}", value.name()));
    let Some(seconds) = text.trim().strip_suffix('s') else {
        return bad(&format!(
            "`{text}` is not a protobuf duration: write seconds with an `s`, as in 0.25s"
        ));
    };
    match seconds.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Some((v * 1e6).round().min(i64::MAX as f64) as i64),
        _ => bad(&format!("`{text}` is not a duration: write 0.25s")),
    }
}

/// retrylint's `backoff.base` for a format whose first retry waits `first`: in
/// retrylint's model the wait before the retry after `k` attempts is
/// `base × multiplier^k`, so the first retry waits `base × multiplier`. The value keeps
/// the place `first` is written.
/// A first wait that is not zero never rounds to a zero base (a multiplier of `1e308`
/// would make it one), which would read as retrying at once.
pub fn base_for_first_wait(first: Spanned<Duration>, multiplier: f64) -> Spanned<Duration> {
    let first_micros = first.value.as_micros();
    let micros = (first_micros as f64 / multiplier.max(1.0)).round() as i64;
    let base = if first_micros > 0 {
        micros.max(1)
    } else {
        micros
    };
    Spanned::new(Duration::from_micros(base), first.loc)
}

/// A regular expression of a route, read as `engine` reads it and anchored to the whole
/// text as the proxies match it. Its syntax is checked now; it is compiled when a layer
/// that serves the service is bound (see [`RouteRegex`]), and an error then points here.
pub fn route_regex(
    file: &SourceFile,
    text: &str,
    loc: &Loc,
    engine: RegexEngine,
) -> Result<Arc<RouteRegex>, InputError> {
    match RouteRegex::new(text, engine) {
        Ok(regex) => Ok(Arc::new(regex.located(ErrorSite::new(
            file,
            loc.span,
            "this pattern",
        )))),
        Err(why) => Err(bad_value(
            file,
            loc,
            format!("the regular expression cannot be used: {why}"),
        )),
    }
}

/// The conditions one Envoy/Istio `retry_on` token stands for, or `None` for a token the
/// proxies do not know. `per_try_timeout` says whether an attempt can time out (then
/// `5xx`, `gateway-error` and `reset` retry it: Envoy resets a timed-out attempt).
///
/// As envoyproxy/envoy `source/common/router/retry_state_impl.cc` (`wouldRetryFromReset`)
/// decides: `5xx` and `gateway-error` retry every upstream reset and connect failure, as
/// `reset` does; an attempt past its per-try timeout is retried by those three
/// (`source/common/router/router.cc`). `envoy-ratelimited` retries only a 429 that carries
/// `x-envoy-ratelimited`, which Envoy's own rate limiting adds: retrylint's signals cannot
/// say "429 with that header", so the token stands for no signal, and a backend's ordinary
/// 429 does not count as retried.
pub fn envoy_retry_on(token: &str, per_try_timeout: bool) -> Option<Vec<Signal>> {
    use Signal::{
        Class, ConnectFailure, Grpc, RefusedStream, Reset, ResetBeforeRequest, Status, Timeout,
    };
    let timeout = per_try_timeout.then_some(Timeout);
    let signals = match token.trim() {
        "5xx" => [Class(5), Reset, ConnectFailure, RefusedStream]
            .into_iter()
            .chain(timeout)
            .collect(),
        "gateway-error" => [
            Status(502),
            Status(503),
            Status(504),
            Reset,
            ConnectFailure,
            RefusedStream,
        ]
        .into_iter()
        .chain(timeout)
        .collect(),
        "reset" => [Reset].into_iter().chain(timeout).collect(),
        "reset-before-request" => vec![ResetBeforeRequest],
        "connect-failure" => vec![ConnectFailure],
        "refused-stream" => vec![RefusedStream],
        "retriable-4xx" => vec![Status(409)],
        "envoy-ratelimited" => vec![],
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

/// A list of retried status codes (`codes`, `httpStatusCodes`) at `at`, each a number from
/// `lowest` to 599, added to `signals` where it is written.
pub fn push_status_codes(
    file: &SourceFile,
    codes: &Node,
    at: &Loc,
    what: &str,
    lowest: u16,
    signals: &mut Vec<Spanned<Signal>>,
) -> Result<(), InputError> {
    for (index, code) in list(file, codes, at, what)?.iter().enumerate() {
        let code_at = at.item(index, code);
        let status = whole_number(file, code, &code_at, &format!("{what}[]"))
            .ok()
            .and_then(|c| u16::try_from(c).ok())
            .filter(|c| (lowest..=599).contains(c))
            .ok_or_else(|| {
                bad_value(
                    file,
                    &code_at,
                    format!("a retried status code is a number from {lowest} to 599"),
                )
            })?;
        push_signals(signals, [Signal::Status(status)], &code_at);
    }
    Ok(())
}

/// Ten times a duration: Envoy's back-off `max_interval` when only the base is set.
pub fn ten_times(d: Duration) -> Duration {
    Duration::from_micros(d.as_micros().saturating_mul(10))
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
        assert!(envoy_retry_on("gateway-error", false).is_some_and(|s| s.contains(&Signal::Reset)));
        assert!(envoy_retry_on("reset", true).is_some_and(|s| s.contains(&Signal::Timeout)));
        assert_eq!(envoy_retry_on("envoy-ratelimited", false), Some(vec![]));
        assert_eq!(envoy_retry_on("sometimes", false), None);
        assert_eq!(envoy_retry_on("999", false), None);
    }

    fn parsed(text: &str) -> SourceFile {
        SourceFile::parse(
            "t.yaml".into(),
            text.into(),
            crate::input::source::ParseLimits::default(),
        )
        .unwrap_or_else(|(_, e)| panic!("{}", e.message))
    }

    #[test]
    fn proto_fields_are_read_by_proto_or_json_name() {
        let file = parsed("numRetries: 3\nretry_on: 5xx\n");
        let loc = Loc::new(0, "", file.root.span);
        let (value, at) = proto_field(&file.root, &loc, "num_retries").unwrap();
        assert_eq!(value.scalar_text(), Some("3"));
        assert_eq!(&*at.pointer, "/numRetries");
        assert_eq!(&file.text[at.span.range()], "numRetries: 3");
        assert!(proto_field(&file.root, &loc, "retry_on").is_some());
        assert!(proto_field(&file.root, &loc, "per_try_timeout").is_none());
    }

    #[test]
    fn a_positive_first_wait_never_becomes_a_zero_base() {
        let at = Loc::new(0, "", crate::input::source::Span::default());
        let first = |ms| Spanned::new(Duration::from_millis(ms), at.clone());
        let base = |ms, m| base_for_first_wait(first(ms), m).value;
        assert_eq!(base(500, 2.0), Duration::from_millis(250));
        assert_eq!(base(500, f64::MAX), Duration::from_micros(1));
        assert_eq!(base(0, f64::MAX), Duration::ZERO);
    }

    #[test]
    fn protobuf_durations_out_of_range_are_errors() {
        let file = parsed("a: {seconds: -5}\nb: {seconds: 99999999999999999999}\nc: 1e308s\n");
        let loc = Loc::new(0, "", file.root.span);
        let read = |key| {
            let (node, at) = field(&file.root, &loc, key).unwrap();
            proto_duration(&file, node, &at).map(|d| d.value)
        };
        assert_eq!(
            read("a").unwrap_err().message,
            "`seconds` must be a whole number of zero or more, found `-5`"
        );
        assert_eq!(
            read("b").unwrap_err().message,
            "`seconds` must be a whole number of at most 9223372036854775807, found `99999999999999999999`"
        );
        assert_eq!(read("c").ok(), Some(Duration::from_micros(i64::MAX)));
    }

    #[test]
    fn kubernetes_durations_are_worded_as_the_policy_words_them() {
        let file = parsed("timeout: -1s\nidle: soon\nwait: [1s]\nok: 1m30s\n");
        let loc = Loc::new(0, "", file.root.span);
        let read = |key| {
            let (node, at) = field(&file.root, &loc, key).unwrap();
            k8s_duration(&file, node, &at)
                .map(|d| d.value)
                .map_err(|e| {
                    (
                        e.message,
                        file.text[e.site.unwrap().span.range()].to_string(),
                    )
                })
        };
        assert_eq!(
            read("timeout").unwrap_err().0,
            "bad duration for `timeout`: `-1s` is negative: a duration is 0s or more"
        );
        assert_eq!(
            read("idle").unwrap_err(),
            (
                "bad duration for `idle`: `soon` has an unknown unit `soon`: use ms, s, m, h or d"
                    .to_string(),
                "idle: soon".to_string()
            )
        );
        assert_eq!(
            read("wait").unwrap_err().0,
            "`wait` must be a duration such as 500ms or 2s, found a list"
        );
        assert_eq!(read("ok"), Ok(Duration::from_millis(90_000)));
    }

    #[test]
    fn typed_values_say_what_they_found() {
        let file = parsed("n: '7'\nm: -1\nb: 'yes'\nl: x\n");
        let loc = Loc::new(0, "", file.root.span);
        let get = |key| field(&file.root, &loc, key).unwrap();
        let (n, at) = get("n");
        assert_eq!(whole_number(&file, n, &at, "n").ok(), Some(7));
        let (m, at) = get("m");
        let error = whole_number(&file, m, &at, "m").unwrap_err();
        assert!(error.message.contains("found `-1`"), "{}", error.message);
        assert_eq!(error.site.map(|s| s.span), Some(at.span));
        let (b, at) = get("b");
        assert!(boolean(&file, b, &at, "b").is_err());
        let (l, at) = get("l");
        assert!(
            list(&file, l, &at, "l")
                .unwrap_err()
                .message
                .contains("found a string")
        );
        assert!(mapping(&file, l, &at, "l").is_err());
        assert_eq!(text(&file, l, &at, "l").ok(), Some("x"));
    }
}
