//! Durations with units, as the policy writes them: `250ms`, `2s`, `1m30s`, `24h`, `0.5s`.

use std::fmt;

/// A signed duration in microseconds (a negative one is kept, for `invalid-backoff`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration {
    micros: i64,
}

const UNITS: [(&str, i64); 6] = [
    ("ms", 1_000),
    ("us", 1),
    ("s", 1_000_000),
    ("m", 60_000_000),
    ("h", 3_600_000_000),
    ("d", 86_400_000_000),
];

impl Duration {
    pub const ZERO: Duration = Duration { micros: 0 };

    pub fn from_millis(ms: i64) -> Duration {
        Duration {
            micros: ms.saturating_mul(1_000),
        }
    }

    pub fn from_micros(micros: i64) -> Duration {
        Duration { micros }
    }

    pub fn as_micros(self) -> i64 {
        self.micros
    }

    pub fn as_secs_f64(self) -> f64 {
        self.micros as f64 / 1e6
    }

    /// Parses `1m30s`-style text. The error says what to write instead.
    pub fn parse(text: &str) -> Result<Duration, String> {
        let trimmed = text.trim();
        let (negative, body) = match trimmed.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        if body.is_empty() {
            return Err("an empty duration: write 500ms or 0.5s".into());
        }
        if body.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            let seconds = body.parse::<f64>().map_or(body.to_string(), |ms| {
                let s = format!("{:.3}", ms / 1000.0);
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            });
            return Err(format!(
                "`{text}` has no unit: write {body}ms or {seconds}s"
            ));
        }
        let mut total: i64 = 0;
        let mut rest = body;
        while !rest.is_empty() {
            let number_len = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let (number, after) = rest.split_at(number_len);
            let unit_len = after
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(after.len());
            let (unit, next) = after.split_at(unit_len);
            let scale = UNITS
                .iter()
                .find(|(name, _)| *name == unit)
                .map(|(_, scale)| *scale)
                .ok_or_else(|| {
                    format!("`{text}` has an unknown unit `{unit}`: use ms, s, m, h or d")
                })?;
            let value: f64 = number
                .parse()
                .map_err(|_| format!("`{text}` is not a duration: write 500ms, 2s or 1m30s"))?;
            let micros = value * scale as f64;
            if !micros.is_finite() || micros >= i64::MAX as f64 / 2.0 {
                return Err(format!("`{text}` is too long a duration"));
            }
            total = total
                .checked_add(micros.round() as i64)
                .ok_or_else(|| format!("`{text}` is too long a duration"))?;
            rest = next;
        }
        Ok(Duration {
            micros: if negative { -total } else { total },
        })
    }
}

impl fmt::Display for Duration {
    /// The shortest exact form: `250ms`, `2s`, `1.5s`, `1m30s`, `24h`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut micros = self.micros;
        if micros < 0 {
            f.write_str("-")?;
            micros = micros.saturating_neg();
        }
        if micros == 0 {
            return f.write_str("0s");
        }
        if micros % 1_000 != 0 {
            return write!(f, "{micros}us");
        }
        let ms = micros / 1_000;
        if ms < 1_000 {
            return write!(f, "{ms}ms");
        }
        if ms < 60_000 {
            return if ms % 1_000 == 0 {
                write!(f, "{}s", ms / 1_000)
            } else {
                write!(f, "{}s", trim_float(ms as f64 / 1_000.0))
            };
        }
        let (h, m, s, rest_ms) = (
            ms / 3_600_000,
            ms / 60_000 % 60,
            ms / 1_000 % 60,
            ms % 1_000,
        );
        let mut out = String::new();
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if m > 0 {
            out.push_str(&format!("{m}m"));
        }
        if s > 0 || rest_ms > 0 {
            if rest_ms > 0 {
                out.push_str(&format!(
                    "{}s",
                    trim_float(s as f64 + rest_ms as f64 / 1_000.0)
                ));
            } else {
                out.push_str(&format!("{s}s"));
            }
        }
        f.write_str(&out)
    }
}

fn trim_float(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A duration with units (`250ms`, `2s`, `1m30s`), as [`Duration::parse`] reads it.
impl crate::input::read::FromNode for Duration {
    fn from_node(value: &crate::input::read::Value<'_, '_>) -> Option<Duration> {
        let (crate::input::source::Value::String(text) | crate::input::source::Value::Number(text)) =
            &value.node.value
        else {
            return value.expected("a duration such as 500ms or 2s");
        };
        match Duration::parse(text) {
            Ok(duration) => Some(duration),
            Err(why) => value.fail(format!("bad duration for {}: {why}", value.name())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_combinations() {
        assert_eq!(Duration::parse("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(Duration::parse("2s"), Ok(Duration::from_millis(2_000)));
        assert_eq!(Duration::parse("1m30s"), Ok(Duration::from_millis(90_000)));
        assert_eq!(
            Duration::parse("24h"),
            Ok(Duration::from_millis(86_400_000))
        );
        assert_eq!(Duration::parse("0.5s"), Ok(Duration::from_millis(500)));
        assert_eq!(Duration::parse("-1s"), Ok(Duration::from_millis(-1_000)));
        assert_eq!(Duration::parse("0ms"), Ok(Duration::ZERO));
    }

    #[test]
    fn rejects_bare_numbers_and_unknown_units() {
        assert_eq!(
            Duration::parse("500").unwrap_err(),
            "`500` has no unit: write 500ms or 0.5s"
        );
        assert!(
            Duration::parse("5 parsecs")
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!(Duration::parse("1..5s").is_err());
        assert!(Duration::parse("").is_err());
        assert!(
            Duration::parse("1000000000000000h")
                .unwrap_err()
                .contains("too long")
        );
    }

    #[test]
    fn displays_the_shortest_exact_form() {
        for text in ["250ms", "2s", "1.5s", "1m30s", "24h", "0s", "-1s", "1h0m5s"] {
            let d = Duration::parse(text).unwrap();
            let shown = d.to_string();
            assert_eq!(Duration::parse(&shown).unwrap(), d, "{text} -> {shown}");
        }
        assert_eq!(Duration::from_millis(7_400).to_string(), "7.4s");
        assert_eq!(Duration::from_millis(90_000).to_string(), "1m30s");
    }
}
