//! Variants: the policy as written, and the same policy with a few fields changed by
//! `--compare KEY=VALUE`, turned into what the simulated client needs to decide.

use crate::analysis::plan::schedule::backoff_of;
use crate::analysis::plan::{Backoff, ms};
use crate::error::InputError;
use crate::input::policy::fields::{self, Kind, or_list};
use crate::input::policy::{
    Duration, Effective, Jitter, RetryAfterFallback, SideEffect, Signal, Spanned, UnknownOutcome,
};
use crate::input::source::Span;
use crate::location::Loc;

/// One change a variant makes to every simulated operation's policy.
#[derive(Debug, Clone, PartialEq)]
enum Change {
    MaxAttempts(i64),
    Deadline(Option<Duration>),
    PerAttemptTimeout(Option<Duration>),
    Base(Duration),
    Cap(Option<Duration>),
    Multiplier(f64),
    Jitter(Jitter),
    RetryOn(Vec<Signal>),
    HonorRetryAfter(bool),
    RetryAfterMax(Option<Duration>),
    OnMissing(RetryAfterFallback),
    OnInvalid(RetryAfterFallback),
    SideEffect(SideEffect),
    KeyHeader(Option<String>),
    StatusEndpoint(Option<String>),
    OnUnknownOutcome(Option<UnknownOutcome>),
}

/// A named set of changes; the empty one is the policy as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// `policy`, or the `--compare` text: `jitter=none`.
    pub name: String,
    changes: Vec<Change>,
}

impl Variant {
    /// The policy as written.
    pub fn policy() -> Variant {
        Variant {
            name: "policy".into(),
            changes: Vec::new(),
        }
    }

    /// Parses one `--compare`: `KEY=VALUE`, or several separated by spaces.
    pub fn parse(text: &str) -> Result<Variant, InputError> {
        let mut changes = Vec::new();
        let mut pairs = Vec::new();
        for pair in text.split_whitespace() {
            changes.push(parse_change(pair)?);
            pairs.push(pair);
        }
        if changes.is_empty() {
            return Err(InputError::new("an empty --compare")
                .with_help("write KEY=VALUE, as in --compare jitter=none"));
        }
        Ok(Variant {
            name: pairs.join(" "),
            changes,
        })
    }

    /// The effective policy with this variant's changes.
    pub fn apply(&self, effective: &Effective) -> Effective {
        let mut e = effective.clone();
        let p = &mut e.policy;
        for change in &self.changes {
            match change {
                Change::MaxAttempts(n) => p.max_attempts = at(*n),
                Change::Deadline(d) => p.deadline = d.and_then(at),
                Change::PerAttemptTimeout(d) => p.per_attempt_timeout = d.and_then(at),
                Change::Base(d) => p.backoff_base = at(*d),
                Change::Cap(d) => p.backoff_cap = d.and_then(at),
                Change::Multiplier(m) => p.backoff_multiplier = at(*m),
                Change::Jitter(j) => p.jitter = at(*j),
                Change::RetryOn(list) => {
                    p.retry_on = at(list.iter().map(|s| Spanned::new(*s, here())).collect());
                }
                Change::HonorRetryAfter(h) => p.retry_after_honor = at(*h),
                Change::RetryAfterMax(d) => p.retry_after_max = d.and_then(at),
                Change::OnMissing(f) => p.retry_after_on_missing = at(*f),
                Change::OnInvalid(f) => p.retry_after_on_invalid = at(*f),
                Change::SideEffect(s) => {
                    p.side_effect = at(*s);
                    e.effect.side_effect = *s;
                }
                Change::KeyHeader(k) => p.key_header = k.clone().and_then(at),
                Change::StatusEndpoint(s) => p.status_endpoint = s.clone().and_then(at),
                Change::OnUnknownOutcome(o) => p.on_unknown_outcome = o.and_then(at),
            }
        }
        e
    }
}

/// A place for values that come from the command line, not a file: noted as such, so
/// that nothing presents it as written in the policy.
fn here() -> Loc {
    Loc::new(0, "", Span::default()).noted("implied by --compare")
}

#[allow(
    clippy::unnecessary_wraps,
    reason = "it writes a policy's optional fields, which are all `Option`s"
)]
fn at<T>(value: T) -> Option<crate::input::policy::Field<T>> {
    crate::input::policy::field(value, here())
}

fn parse_change(pair: &str) -> Result<Change, InputError> {
    let Some((key, value)) = pair.split_once('=') else {
        return Err(
            InputError::new(format!("bad --compare `{pair}`: write KEY=VALUE"))
                .with_help("as in --compare jitter=none or --compare keyHeader=Idempotency-Key"),
        );
    };
    // The field table says which fields `--compare` changes, and by which keys.
    let Some((_, field)) = fields::compare_keys().find(|(name, _)| *name == key) else {
        let mut error = InputError::new(format!("unknown policy field `{key}` in --compare"));
        error = match crate::error::did_you_mean(key, fields::compare_keys().map(|(k, _)| k)) {
            Some(near) => error.with_help(format!("did you mean `{near}`?")),
            None => error.with_help(format!(
                "use one of {}",
                fields::FIELDS
                    .iter()
                    .filter_map(|f| f.compare)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        };
        return Err(error);
    };
    let canonical = field.compare.unwrap_or(key);
    let bad = |why: &str| InputError::new(format!("bad --compare `{pair}`: {why}"));
    let none = value == "none";
    let duration = || -> Result<Duration, InputError> {
        let d = Duration::parse(value).map_err(|why| bad(&why))?;
        if d < Duration::ZERO {
            return Err(bad("a negative duration"));
        }
        Ok(d)
    };
    let optional_duration = || -> Result<Option<Duration>, InputError> {
        if none { Ok(None) } else { duration().map(Some) }
    };
    let optional_text = || (!none && !value.is_empty()).then(|| value.to_string());
    // `jitter is none, full, equal or decorrelated`, from the table.
    let not_one_of = |extra: &[&str]| {
        let names = match field.kind {
            Kind::Enum(names) => names,
            _ => &[],
        };
        bad(&format!(
            "{canonical} is {}",
            or_list(names.iter().chain(extra))
        ))
    };
    Ok(match field.name {
        "maxAttempts" => Change::MaxAttempts(
            value
                .parse::<i64>()
                .ok()
                .filter(|n| (1..=crate::rendering::simulate::MAX_ATTEMPTS).contains(n))
                .ok_or_else(|| {
                    bad(&format!(
                        "maxAttempts is a whole number from 1 to {}",
                        crate::rendering::simulate::MAX_ATTEMPTS
                    ))
                })?,
        ),
        "deadline" => Change::Deadline(optional_duration()?),
        "perAttemptTimeout" => Change::PerAttemptTimeout(optional_duration()?),
        "backoff.base" => Change::Base(duration()?),
        "backoff.cap" => Change::Cap(optional_duration()?),
        "backoff.multiplier" => Change::Multiplier(
            value
                .parse::<f64>()
                .ok()
                .filter(|m| m.is_finite() && *m >= 1.0)
                .ok_or_else(|| bad("the multiplier is a number of at least 1"))?,
        ),
        "backoff.jitter" => Change::Jitter(Jitter::parse(value).ok_or_else(|| not_one_of(&[]))?),
        "retryOn" => Change::RetryOn(
            value
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|s| {
                    crate::input::policy::parse_signal(s.trim()).ok_or_else(|| {
                        bad(&format!(
                            "`{s}` is not a condition: use statuses (503), classes (5xx), {}",
                            or_list(fields::SIGNALS)
                        ))
                    })
                })
                .collect::<Result<_, _>>()?,
        ),
        "retryAfter.honor" => Change::HonorRetryAfter(match value {
            "true" => true,
            "false" => false,
            _ => return Err(bad(&format!("{canonical} is true or false"))),
        }),
        "retryAfter.max" => Change::RetryAfterMax(optional_duration()?),
        "retryAfter.onMissing" => {
            Change::OnMissing(RetryAfterFallback::parse(value).ok_or_else(|| not_one_of(&[]))?)
        }
        "retryAfter.onInvalid" => {
            Change::OnInvalid(RetryAfterFallback::parse(value).ok_or_else(|| not_one_of(&[]))?)
        }
        "sideEffect" => {
            Change::SideEffect(SideEffect::parse(value).ok_or_else(|| not_one_of(&[]))?)
        }
        "idempotency.keyHeader" => Change::KeyHeader(optional_text()),
        "idempotency.statusEndpoint" => Change::StatusEndpoint(optional_text()),
        "onUnknownOutcome" if none => Change::OnUnknownOutcome(None),
        "onUnknownOutcome" => Change::OnUnknownOutcome(Some(
            UnknownOutcome::parse(value).ok_or_else(|| not_one_of(&["none"]))?,
        )),
        _ => {
            return Err(bad(
                "the field table names a field that --compare cannot change",
            ));
        }
    })
}

/// What the simulated client does when a write's outcome is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Retries whatever `retryOn` lists, whatever the method (most HTTP clients do).
    Naive,
    /// `onUnknownOutcome: fail`: follows `plan_retry` to the letter and gives up on a
    /// timed-out write.
    Fail,
    /// `onUnknownOutcome: reconcile` with a `statusEndpoint`: asks the status endpoint
    /// before sending a timed-out write again.
    Reconcile,
}

/// One operation's policy, as the simulated client needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Client {
    /// `POST /orders`.
    pub operation: String,
    pub backoff: Backoff,
    pub retry_on: Vec<Signal>,
    pub per_attempt_timeout: Option<Duration>,
    pub deadline: Option<Duration>,
    pub honor_retry_after: bool,
    pub retry_after_max_ms: Option<f64>,
    /// `retryAfter.onMissing` and `retryAfter.onInvalid`.
    pub retry_after_fallbacks: (RetryAfterFallback, RetryAfterFallback),
    pub side_effect: SideEffect,
    /// The client sends an idempotency key and the server deduplicates on it.
    pub key: bool,
    pub status_endpoint: bool,
    pub mode: Mode,
}

impl Client {
    /// The client of the operation `operation` (as in `POST /orders`) with this policy.
    pub fn new(operation: String, effective: &Effective) -> Client {
        let p = &effective.policy;
        let status_endpoint = p.status_endpoint.is_some();
        let mode = match p.on_unknown_outcome.as_ref().map(|o| o.value) {
            Some(UnknownOutcome::Fail) => Mode::Fail,
            Some(UnknownOutcome::Reconcile) if status_endpoint => Mode::Reconcile,
            _ => Mode::Naive,
        };
        Client {
            operation,
            backoff: backoff_of(effective),
            retry_on: effective.retry_on().iter().map(|s| s.value).collect(),
            per_attempt_timeout: p.per_attempt_timeout.as_ref().map(|t| t.value),
            deadline: p.deadline.as_ref().map(|d| d.value),
            honor_retry_after: effective.honors_retry_after(),
            retry_after_max_ms: p.retry_after_max.as_ref().map(|m| ms(m.value)),
            retry_after_fallbacks: effective.retry_after_fallbacks(),
            side_effect: effective.effect.side_effect,
            key: p.key_header.is_some(),
            status_endpoint,
            mode,
        }
    }

    /// Whether `retryOn` lists the signal.
    pub fn retries(&self, signal: Signal) -> bool {
        self.retry_on.iter().any(|&s| match signal {
            Signal::Status(code) => s.covers(code),
            other => s == other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_compare_keys_and_aliases() {
        let v = Variant::parse("jitter=none").unwrap();
        assert_eq!(v.name, "jitter=none");
        assert_eq!(v.changes, [Change::Jitter(Jitter::None)]);
        let v = Variant::parse("backoff.base=1s maxAttempts=5").unwrap();
        assert_eq!(
            v.changes,
            [
                Change::Base(Duration::from_millis(1_000)),
                Change::MaxAttempts(5)
            ]
        );
        assert_eq!(
            Variant::parse("retryOn=503,timeout").unwrap().changes,
            [Change::RetryOn(vec![Signal::Status(503), Signal::Timeout])]
        );
        assert_eq!(
            Variant::parse("keyHeader=none").unwrap().changes,
            [Change::KeyHeader(None)]
        );
        let typo = Variant::parse("jiter=none").unwrap_err();
        assert_eq!(typo.help.as_deref(), Some("did you mean `jitter`?"));
        assert_eq!(
            Variant::parse("onMissing=wait").unwrap_err().message,
            "bad --compare `onMissing=wait`: onMissing is backoff or stop"
        );
        assert_eq!(
            Variant::parse("onUnknownOutcome=x").unwrap_err().message,
            "bad --compare `onUnknownOutcome=x`: onUnknownOutcome is fail, reconcile, retry-same-key or none"
        );
        for bad in [
            "jitter",
            "jitter=some",
            "maxAttempts=0",
            "maxAttempts=x",
            "deadline=10",
            "multiplier=0.5",
            "retryOn=sometimes",
            "honorRetryAfter=yes",
            "",
        ] {
            assert!(Variant::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_key_the_field_table_gives_compare_makes_a_change() {
        for (key, field) in fields::compare_keys() {
            let value = match field.kind {
                Kind::Integer => "2",
                Kind::Duration => "1s",
                Kind::Number => "2",
                Kind::Boolean => "true",
                Kind::Enum(names) => names.first().copied().unwrap_or_default(),
                Kind::Signals => "503,timeout",
                Kind::Strings | Kind::String => "X-Key",
                Kind::Section => "",
            };
            let pair = format!("{key}={value}");
            assert!(Variant::parse(&pair).is_ok(), "{pair}");
        }
    }
}
