//! Sets of HTTP status codes, as Linkerd writes them: ranges in a `ServiceProfile`'s
//! response classes, and the `5xx`, `gateway-error`, `500-504` and `503` of the
//! `retry.linkerd.io/http` annotation.

use crate::input::policy::Signal;

/// The lowest status code a set holds.
const LOWEST: u16 = 100;
/// The highest status code a set holds.
const HIGHEST: u16 = 599;

/// A set of status codes from 100 to 599.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct StatusSet {
    /// Bit `code` of the 640 bits is set when `code` is in the set.
    bits: [u64; 10],
}

impl StatusSet {
    /// Every code from `min` to `max`, both included (clamped to 100–599).
    pub(super) fn range(min: u16, max: u16) -> StatusSet {
        let mut set = StatusSet::default();
        for code in min.max(LOWEST)..=max.min(HIGHEST) {
            set.bits[usize::from(code / 64)] |= 1 << (code % 64);
        }
        set
    }

    /// Every status code.
    pub(super) fn all() -> StatusSet {
        StatusSet::range(LOWEST, HIGHEST)
    }

    /// The `5xx` codes.
    pub(super) fn server_errors() -> StatusSet {
        StatusSet::range(500, 599)
    }

    pub(super) fn contains(self, code: u16) -> bool {
        (LOWEST..=HIGHEST).contains(&code)
            && self.bits[usize::from(code / 64)] & (1 << (code % 64)) != 0
    }

    pub(super) fn is_empty(self) -> bool {
        self.bits.iter().all(|b| *b == 0)
    }

    pub(super) fn union(self, other: StatusSet) -> StatusSet {
        self.zip(other, |a, b| a | b)
    }

    pub(super) fn intersection(self, other: StatusSet) -> StatusSet {
        self.zip(other, |a, b| a & b)
    }

    /// The codes of this set that are not in `other`.
    pub(super) fn minus(self, other: StatusSet) -> StatusSet {
        self.zip(other, |a, b| a & !b)
    }

    /// Every code not in this set.
    pub(super) fn complement(self) -> StatusSet {
        StatusSet::all().minus(self)
    }

    fn zip(self, other: StatusSet, combine: impl Fn(u64, u64) -> u64) -> StatusSet {
        let mut out = StatusSet::default();
        for (i, bits) in out.bits.iter_mut().enumerate() {
            *bits = combine(self.bits[i], other.bits[i]);
        }
        out
    }

    /// The set as retry conditions: a whole class (`5xx`) where the set holds all of it,
    /// otherwise each code.
    pub(super) fn signals(self) -> Vec<Signal> {
        let mut signals = Vec::new();
        for class in LOWEST / 100..=HIGHEST / 100 {
            let codes = class * 100..=class * 100 + 99;
            if codes.clone().all(|c| self.contains(c)) {
                signals.push(Signal::Class(class));
            } else {
                signals.extend(codes.filter(|c| self.contains(*c)).map(Signal::Status));
            }
        }
        signals
    }

    /// The statuses of a `retry.linkerd.io/http` annotation: a comma list of `5xx`,
    /// `gateway-error` (502–504), ranges (`500-504`) and codes. The error is the item that
    /// is none of these.
    pub(super) fn parse_retry_http(text: &str) -> Result<StatusSet, String> {
        let code = |t: &str| {
            t.trim()
                .parse::<u16>()
                .ok()
                .filter(|c| (LOWEST..=HIGHEST).contains(c))
        };
        let mut set = StatusSet::default();
        for item in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let range = if item.eq_ignore_ascii_case("5xx") {
                StatusSet::server_errors()
            } else if item.eq_ignore_ascii_case("gateway-error") {
                StatusSet::range(502, 504)
            } else if let Some(single) = code(item) {
                StatusSet::range(single, single)
            } else {
                match item.split_once('-').map(|(a, b)| (code(a), code(b))) {
                    Some((Some(min), Some(max))) if min <= max => StatusSet::range(min, max),
                    _ => return Err(item.to_string()),
                }
            };
            set = set.union(range);
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_classes_read_as_classes() {
        assert_eq!(StatusSet::server_errors().signals(), [Signal::Class(5)]);
        assert_eq!(
            StatusSet::range(502, 504).signals(),
            [
                Signal::Status(502),
                Signal::Status(503),
                Signal::Status(504)
            ]
        );
        assert_eq!(
            StatusSet::range(429, 599)
                .minus(StatusSet::range(430, 499))
                .signals(),
            [Signal::Status(429), Signal::Class(5)]
        );
        assert!(StatusSet::all().complement().is_empty());
        assert!(StatusSet::range(600, 700).is_empty());
    }

    #[test]
    fn retry_http_annotations() {
        let set = StatusSet::parse_retry_http("gateway-error, 500-501,429").unwrap();
        assert_eq!(
            set.signals(),
            [
                Signal::Status(429),
                Signal::Status(500),
                Signal::Status(501),
                Signal::Status(502),
                Signal::Status(503),
                Signal::Status(504),
            ]
        );
        assert_eq!(
            StatusSet::parse_retry_http("5XX").unwrap().signals(),
            [Signal::Class(5)]
        );
        assert_eq!(
            StatusSet::parse_retry_http("504-500"),
            Err("504-500".into())
        );
        assert_eq!(
            StatusSet::parse_retry_http("5xx,teapot"),
            Err("teapot".into())
        );
        assert_eq!(StatusSet::parse_retry_http("700"), Err("700".into()));
    }
}
