//! The values of a gRPC service config, read as gRPC's C-core client (grpcio, C++, Ruby,
//! PHP) reads them, and refused with the reason it gives:
//!
//! - a Duration is a string of decimal seconds ending in `s`, at most nine digits after the
//!   point, seconds from 0 to 315576000000 (grpc/grpc `src/core/util/json/json_object_loader.cc`,
//!   `LoadDuration::LoadInto`). C-core wants digits before the point: `.1s`, which A6's
//!   examples write, fails there with "not a number of seconds";
//! - a whole number is a JSON number or a string of digits (`LoadNumber`), nothing after a
//!   point;
//! - a status code is its upper-case name (`grpc_status_code_from_string` in
//!   `src/core/lib/channel/status_util.cc`); a number is refused ("is not a string").

use crate::analysis::layers::values::bad_value;
use crate::error::InputError;
use crate::input::policy::{Duration, GrpcCode, Spanned};
use crate::input::source::{Node, SourceFile, Value};
use crate::location::Loc;

/// What every refusal ends with: the client does not start with such a config.
pub(super) const REFUSED: &str = "gRPC clients refuse this service config";

/// The largest number of seconds a protobuf Duration holds.
const MAX_SECONDS: i64 = 315_576_000_000;

/// A protobuf JSON Duration (`"1.5s"`), as C-core reads it.
pub(super) fn duration(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    what: &str,
) -> Result<Spanned<Duration>, InputError> {
    let bad = |why: &str| bad_value(file, at, format!("bad `{what}`: {why}: {REFUSED}"));
    let Value::String(text) = &node.value else {
        return Err(bad(&format!(
            "a Duration is a string such as \"0.5s\", found {}",
            node.kind()
        )));
    };
    let text = crate::analysis::layers::names::shown(text);
    let Some(number) = text.strip_suffix('s') else {
        return Err(bad(&format!(
            "`{text}` is not a duration (no s suffix): write seconds, as in \"0.5s\""
        )));
    };
    let number = number.trim();
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if fraction.len() > 9 {
        return Err(bad(&format!(
            "`{text}` is not a duration (too many digits after decimal)"
        )));
    }
    if !fraction.bytes().all(|b| b.is_ascii_digit())
        || (number.contains('.') && fraction.is_empty())
    {
        return Err(bad(&format!(
            "`{text}` is not a duration (not a number of nanoseconds)"
        )));
    }
    let Some(seconds) = atoi(whole) else {
        return Err(bad(&format!(
            "`{text}` is not a duration (not a number of seconds): write decimal seconds with digits before any point, as in \"0.5s\""
        )));
    };
    if !(0..=MAX_SECONDS).contains(&seconds) {
        return Err(bad(&format!(
            "`{text}`: seconds must be in the range [0, {MAX_SECONDS}]"
        )));
    }
    let nanos: i64 = format!("{fraction:0<9}").parse().unwrap_or(0);
    let micros = seconds
        .saturating_mul(1_000_000)
        .saturating_add((nanos + 999) / 1_000);
    Ok(Spanned::new(Duration::from_micros(micros), at.clone()))
}

/// A whole number as C-core's `SimpleAtoi` reads it: an optional sign and digits.
fn atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A whole number written as a JSON number or a string of digits.
pub(super) fn whole(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    what: &str,
) -> Result<i64, InputError> {
    let text = match &node.value {
        Value::Number(text) | Value::String(text) => atoi(text.trim()),
        _ => None,
    };
    text.ok_or_else(|| {
        let shown = node.scalar_text().unwrap_or_else(|| node.kind());
        bad_value(
            file,
            at,
            format!("`{what}` is a whole number; `{shown}` failed to parse: {REFUSED}"),
        )
    })
}

/// A number (a JSON number, or a string holding one).
pub(super) fn number(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    what: &str,
) -> Result<f64, InputError> {
    let value = match &node.value {
        Value::Number(text) | Value::String(text) => text.trim().parse::<f64>().ok(),
        _ => None,
    };
    value.filter(|v| v.is_finite()).ok_or_else(|| {
        let shown = node.scalar_text().unwrap_or_else(|| node.kind());
        bad_value(
            file,
            at,
            format!("`{what}` is a number; `{shown}` failed to parse: {REFUSED}"),
        )
    })
}

/// A list of status codes (`retryableStatusCodes`, `nonFatalStatusCodes`), each located;
/// `OK`, which C-core accepts, stands for no failure and is left out.
pub(super) fn status_codes(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    what: &str,
) -> Result<Vec<Spanned<GrpcCode>>, InputError> {
    let Some(items) = node.as_seq() else {
        return Err(bad_value(
            file,
            at,
            format!("`{what}` is a list of status names such as \"UNAVAILABLE\": {REFUSED}"),
        ));
    };
    if items.is_empty() {
        return Err(bad_value(
            file,
            at,
            format!("`{what}` must be non-empty: {REFUSED}"),
        ));
    }
    let mut codes = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.item(i, item);
        let Value::String(name) = &item.value else {
            let shown = item.scalar_text().unwrap_or_else(|| item.kind());
            return Err(bad_value(
                file,
                &item_at,
                format!(
                    "`{shown}` is not a string: gRPC's C-core client (grpcio, C++) reads a status code by its name, such as \"UNAVAILABLE\"; {REFUSED}"
                ),
            ));
        };
        if &**name == "OK" {
            continue;
        }
        let Some(code) = GrpcCode::from_name(name) else {
            let upper = name.to_ascii_uppercase();
            let hint = GrpcCode::from_name(&upper)
                .map(|c| format!(" (names are upper case: {})", c.name()))
                .unwrap_or_default();
            return Err(bad_value(
                file,
                &item_at,
                format!(
                    "`{}`: failed to parse status code{hint}: {REFUSED}",
                    crate::analysis::layers::names::shown(name)
                ),
            ));
        };
        if !codes.iter().any(|c: &Spanned<GrpcCode>| c.value == code) {
            codes.push(Spanned::new(code, item_at));
        }
    }
    Ok(codes)
}
