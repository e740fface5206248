//! The retry settings of one `backend` or `listen` section, with what it inherits from its
//! `defaults` section, read as HAProxy 2.6 reads them: a proxy starts as a copy of the
//! `defaults` section above it, or of the named one its `from` names (`proxy_defproxy_cpy`
//! in haproxy/haproxy `src/proxy.c`), and a `defaults` section starts from HAProxy's own
//! defaults (`proxy_preset_defaults`, `init_new_proxy`).

use super::{args, name};
use crate::analysis::layers::values::bad_value;
use crate::error::InputError;
use crate::input::policy::{Duration, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The keywords of `retry-on` (`proxy_parse_retry_on` in haproxy/haproxy `src/proxy.c`).
pub const RETRY_ON: [&str; 17] = [
    "none",
    "conn-failure",
    "empty-response",
    "junk-response",
    "response-timeout",
    "0rtt-rejected",
    "401",
    "403",
    "404",
    "408",
    "425",
    "500",
    "501",
    "502",
    "503",
    "504",
    "all-retryable-errors",
];

/// The retry settings in force in a proxy section.
#[derive(Debug, Clone, Default)]
pub(super) struct Settings {
    /// `mode` (`tcp` unless written: `proxy_preset_defaults`).
    pub(super) mode: Option<Spanned<String>>,
    /// `retries`: how many times a request is sent again (`CONN_RETRIES`, 3, unless written).
    pub(super) retries: Option<Spanned<u64>>,
    /// `retry-on`'s keywords (`conn-failure` unless written: `init_new_proxy`).
    pub(super) retry_on: Option<Spanned<Vec<String>>>,
    /// `option redispatch [interval]`; `Some(None)`-like `false` for `no option redispatch`.
    pub(super) redispatch: Option<Spanned<Option<i64>>>,
    /// `timeout server`: how long one attempt waits for the server.
    pub(super) timeout_server: Option<Spanned<Duration>>,
    /// `timeout connect`.
    pub(super) timeout_connect: Option<Spanned<Duration>>,
}

impl Settings {
    /// These settings with what `lines` (at `at`) write themselves replacing them.
    pub(super) fn read(
        &self,
        file: &SourceFile,
        lines: &[Node],
        at: &Loc,
    ) -> Result<Settings, InputError> {
        let mut out = self.clone();
        for (i, node) in lines.iter().enumerate() {
            let loc = at.item(i, node);
            let words = args(node);
            match (name(node), words.as_slice()) {
                ("mode", [mode]) => {
                    if !matches!(*mode, "http" | "tcp" | "log") {
                        return Err(bad_value(
                            file,
                            &loc,
                            format!("`{mode}` is not a mode HAProxy knows: http, tcp"),
                        ));
                    }
                    out.mode = Some(Spanned::new((*mode).to_string(), loc));
                }
                ("retries", words) => {
                    let count = match words {
                        [one] => one
                            .parse::<u64>()
                            .ok()
                            .filter(|n| i64::try_from(*n).is_ok()),
                        _ => None,
                    };
                    let count = count.ok_or_else(|| {
                        bad_value(file, &loc, "`retries` takes a whole number of retries")
                    })?;
                    out.retries = Some(Spanned::new(count, loc));
                }
                ("retry-on", words) => {
                    if words.is_empty() {
                        return Err(bad_value(
                            file,
                            &loc,
                            "`retry-on` needs at least one keyword to say when to retry",
                        ));
                    }
                    if let Some(bad) = words.iter().find(|w| w.is_empty() || !RETRY_ON.contains(w))
                    {
                        return Err(bad_value(
                            file,
                            &loc,
                            format!(
                                "`{bad}` is not a retry-on keyword HAProxy knows: {}",
                                RETRY_ON.join(", ")
                            ),
                        ));
                    }
                    if words.contains(&"none") && words.len() > 1 {
                        return Err(bad_value(
                            file,
                            &loc,
                            "`retry-on none` stands alone: it takes no other keyword",
                        ));
                    }
                    let list = words.iter().map(|w| (*w).to_string()).collect();
                    out.retry_on = Some(Spanned::new(list, loc));
                }
                ("option", ["redispatch", rest @ ..]) => {
                    let interval = match rest {
                        [] => -1,
                        [n] => n.parse::<i64>().map_err(|_| {
                            bad_value(
                                file,
                                &loc,
                                "`option redispatch` takes a whole number (the retries between redispatches; negative counts from the last)",
                            )
                        })?,
                        _ => {
                            return Err(bad_value(
                                file,
                                &loc,
                                "`option redispatch` takes at most one number",
                            ));
                        }
                    };
                    out.redispatch = Some(Spanned::new(Some(interval), loc));
                }
                ("no", ["option", "redispatch"]) => {
                    out.redispatch = Some(Spanned::new(None, loc));
                }
                ("timeout", [which @ ("server" | "connect"), value]) => {
                    let time = haproxy_time(value).ok_or_else(|| {
                        bad_value(
                            file,
                            &loc,
                            format!(
                                "`timeout {which}` takes a time (`5s`, `500ms`, or milliseconds)"
                            ),
                        )
                    })?;
                    let time = Some(Spanned::new(time, loc));
                    if *which == "server" {
                        out.timeout_server = time;
                    } else {
                        out.timeout_connect = time;
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Whether the proxy speaks HTTP (`mode http`): L7 retries need it (`stream.c` sets
    /// `TX_L7_RETRY` only for `PR_MODE_HTTP`).
    pub(super) fn http(&self) -> bool {
        self.mode.as_ref().is_some_and(|m| m.value == "http")
    }
}

/// An HAProxy time (`parse_time_err` in haproxy/haproxy `src/tools.c`): a whole number, in
/// milliseconds unless a unit follows (`us`, `ms`, `s`, `m`, `h`, `d`).
pub fn haproxy_time(text: &str) -> Option<Duration> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let number: i64 = text[..digits].parse().ok()?;
    let micros_per = match &text[digits..] {
        "" | "ms" => 1_000,
        "us" => 1,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => return None,
    };
    Some(Duration::from_micros(number.checked_mul(micros_per)?))
}

/// How many servers a `backend` or `listen` section has: its `server` lines, and the count
/// of each `server-template`.
pub(super) fn servers(lines: &[Node]) -> u64 {
    lines
        .iter()
        .map(|l| match (name(l), args(l).as_slice()) {
            ("server", _) => 1,
            ("server-template", [_, count, ..]) => {
                // `N` or a range `A-B`.
                match count.split_once('-') {
                    Some((a, b)) => b
                        .parse::<u64>()
                        .ok()
                        .zip(a.parse::<u64>().ok())
                        .map_or(1, |(b, a)| b.saturating_sub(a).saturating_add(1)),
                    None => count.parse().unwrap_or(1),
                }
            }
            _ => 0,
        })
        .fold(0u64, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_milliseconds_unless_a_unit_says() {
        assert_eq!(haproxy_time("500"), Some(Duration::from_millis(500)));
        assert_eq!(haproxy_time("5s"), Some(Duration::from_millis(5_000)));
        assert_eq!(haproxy_time("1m"), Some(Duration::from_millis(60_000)));
        assert_eq!(haproxy_time("250us"), Some(Duration::from_micros(250)));
        assert_eq!(haproxy_time("5x"), None);
        assert_eq!(haproxy_time("s"), None);
    }
}
