//! The contract's answers in plain words, for reports and findings.

use super::{Contract, ContractState, KeySource, StatusKind, WaitHint};
use crate::input::model::{HeaderFormat, Place};
use crate::input::policy::SideEffect;

/// Why the operation has its state, in one line.
pub(super) fn reason(c: &Contract) -> String {
    match c.state {
        ContractState::RetrySafe => match (&c.effect, &c.key) {
            (SideEffect::NonIdempotent, Some(key)) if key.place == Place::Header => format!(
                "required {}, with {} for a reused or in-flight key",
                key.named(),
                codes(&c.conflicts)
            ),
            (SideEffect::NonIdempotent, Some(key)) => format!(
                "{} is required, with {} for a reused or in-flight key",
                key.named(),
                codes(&c.conflicts)
            ),
            (SideEffect::None, _) => "changes nothing: repeating it is harmless".into(),
            _ => c.effect_text(),
        },
        ContractState::RetrySafeWithReconcile => match status(c) {
            Some(status) => format!("no promised key, but {status} tells whether it happened"),
            None => "a status endpoint tells whether it happened".into(),
        },
        ContractState::KeyIncomplete => match &c.key {
            Some(key) if !key.required => format!(
                "{} is optional: only clients that always send it can retry safely",
                key.named()
            ),
            Some(key) => format!(
                "{} is required, but no 409, 422 or 400 response says what a reused or in-flight key gets",
                key.named()
            ),
            None => "the key is incomplete".into(),
        },
        ContractState::Unprotected => match c.broken_links.first() {
            Some(link) => format!(
                "a write with no idempotency key, and its link `{}` leads to no operation: a retry can repeat it",
                link.name
            ),
            None => "a write with no idempotency key and no status endpoint: a retry can repeat it"
                .into(),
        },
    }
}

/// `409 and 422`: codes for a sentence.
fn codes(list: &[&str]) -> String {
    match list.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// How the server asks clients to slow down, in one line.
pub(super) fn throttling(c: &Contract) -> String {
    if c.throttling.is_empty() {
        return "no 429 or 503 declared: clients cannot tell how the server asks them to slow down"
            .into();
    }
    let parts: Vec<String> = c
        .throttling
        .iter()
        .map(|t| {
            let declared = if t.declared_as == t.status.to_string() {
                t.status.to_string()
            } else {
                format!("{} (as {})", t.status, t.declared_as)
            };
            match &t.wait {
                WaitHint::RetryAfter(HeaderFormat::Unstated) => {
                    format!("{declared} with Retry-After")
                }
                WaitHint::RetryAfter(format) => {
                    format!("{declared} with Retry-After ({})", format.describe())
                }
                WaitHint::RateLimit(name) => format!("{declared} with {name}"),
                WaitHint::None => format!("{declared} without Retry-After"),
            }
        })
        .collect();
    parts.join("; ")
}

/// `required Idempotency-Key`, `optional PayPal-Request-Id (lint.keyHeaders)`,
/// `the body property idempotency_key, required`.
pub(super) fn key(c: &Contract) -> Option<String> {
    let key = c.key.as_ref()?;
    let need = if key.required { "required" } else { "optional" };
    let from = match key.source {
        KeySource::KnownName => String::new(),
        KeySource::Described => match &key.said {
            Some(words) => format!(" (its description: \"{words}\")"),
            None => " (its description says it de-duplicates)".into(),
        },
        KeySource::Fern => " (x-fern-idempotency-headers)".into(),
        KeySource::Configured => " (lint.keyHeaders)".into(),
    };
    Some(match key.place {
        Place::Header => format!("{need} {}{from}", key.named()),
        _ => format!("{}, {need}{from}", key.named()),
    })
}

/// `the link GetOrder to GET /orders/{id}`, `a 202 response with Operation-Location`.
pub(super) fn status(c: &Contract) -> Option<String> {
    let status = c.status.as_ref()?;
    Some(match &status.kind {
        StatusKind::Link { name, target } => format!("the link `{name}` to {target}"),
        StatusKind::Accepted { header } => format!("a 202 response with {header}"),
        StatusKind::LongRunning => "x-ms-long-running-operation".into(),
    })
}
