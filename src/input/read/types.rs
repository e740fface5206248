//! The typed values every reader shares: whole numbers, numbers, booleans, strings,
//! durations, lists and located values, each with the one wording of its fault.

use super::{FromNode, Value};
use crate::input::source::Value as Node;
use crate::location::Spanned;

impl FromNode for bool {
    fn from_node(value: &Value<'_, '_>) -> Option<bool> {
        match value.node.as_bool() {
            Some(b) => Some(b),
            None => value.expected("true or false"),
        }
    }
}

/// A string, written as one (`3` or `true` is not a string here).
impl FromNode for String {
    fn from_node(value: &Value<'_, '_>) -> Option<String> {
        match &value.node.value {
            Node::String(s) => Some(s.to_string()),
            _ => value.expected("a string"),
        }
    }
}

/// The text of any scalar: a string, or a number or boolean as written (`seed: 7` and
/// `latency: 50ms` alike, as a command-line flag takes them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScalarText(pub String);

impl FromNode for ScalarText {
    fn from_node(value: &Value<'_, '_>) -> Option<ScalarText> {
        match value.node.scalar_text() {
            Some(text) => Some(ScalarText(text.to_string())),
            None => value.expected("a string"),
        }
    }
}

/// A whole number of `MIN` or more, written as a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Whole<const MIN: u64>(pub u64);

impl<const MIN: u64> FromNode for Whole<MIN> {
    fn from_node(value: &Value<'_, '_>) -> Option<Whole<MIN>> {
        let n = whole_number(value, i128::from(MIN), u64::MAX.into(), false)?;
        u64::try_from(n).ok().map(Whole)
    }
}

/// Whole-number types, each read over its whole range.
macro_rules! whole_numbers {
    ($($t:ty),*) => {$(
        impl FromNode for $t {
            fn from_node(value: &Value<'_, '_>) -> Option<$t> {
                let n = whole_number(value, <$t>::MIN.into(), <$t>::MAX.into(), false)?;
                <$t>::try_from(n).ok()
            }
        }
    )*};
}

whole_numbers!(i64, u32, u64);

/// A whole number from `min` to `max`, written as a number, or also as a string of digits
/// when `digits_as_text` (protobuf JSON writes 64-bit integers so).
pub(crate) fn whole_number(
    value: &Value<'_, '_>,
    min: i128,
    max: i128,
    digits_as_text: bool,
) -> Option<i128> {
    let phrase = match min {
        0 => "a whole number of zero or more".to_string(),
        m if m <= i128::from(i64::MIN) => "a whole number".to_string(),
        m => format!("a whole number of {m} or more"),
    };
    let text = match &value.node.value {
        Node::Number(t) => t.trim(),
        Node::String(t) if digits_as_text => t.trim(),
        _ => return value.expected(&phrase),
    };
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let too_long = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<i128>() {
        Ok(n) if n < min => value.expected_text(&phrase, text),
        Ok(n) if n <= max => Some(n),
        Err(_) if !too_long => value.expected_text(&phrase, text),
        _ if text.starts_with('-') => value.expected_text(&phrase, text),
        _ => value.expected_text(&format!("a whole number of at most {max}"), text),
    }
}

/// A finite number.
impl FromNode for f64 {
    fn from_node(value: &Value<'_, '_>) -> Option<f64> {
        let Node::Number(text) = &value.node.value else {
            return value.expected("a number");
        };
        match text.parse::<f64>() {
            Ok(n) if n.is_finite() => Some(n),
            _ => value.expected_text("a finite number", text),
        }
    }
}

/// A value with the place it is written.
impl<T: FromNode> FromNode for Spanned<T> {
    fn from_node(value: &Value<'_, '_>) -> Option<Spanned<T>> {
        T::from_node(value).map(|v| Spanned::new(v, value.loc.clone()))
    }
}

/// A list, every item read (and every bad one reported).
impl<T: FromNode> FromNode for Vec<T> {
    fn from_node(value: &Value<'_, '_>) -> Option<Vec<T>> {
        let items: Vec<Option<T>> = value.items()?.iter().map(Value::read).collect();
        items.into_iter().collect()
    }
}
