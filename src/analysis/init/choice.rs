//! What a starting policy does with one operation, decided from its contract alone.

use crate::analysis::contract::{Contract, StatusKind, declares_status};
use crate::input::model::{Operation, Place};
use crate::input::policy::{Selector, SideEffect};

/// The signals every retried operation is retried on, whatever it declares.
pub(super) const ALWAYS: [&str; 2] = ["connect-failure", "timeout"];

/// What the starting policy does with an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Choice {
    /// Retried: it changes nothing or is idempotent.
    Retry,
    /// Retried with the same key on every attempt: the key is required.
    Keyed {
        header: String,
        /// No 409, 422 or 400 says what a reused or in-flight key gets.
        no_conflict_response: bool,
    },
    /// Not retried, but an unknown outcome is reconciled through the status endpoint.
    Reconcile { endpoint: String },
    /// Not retried, with why: the key is optional, the status is followed through a 202's
    /// `Location`, or nothing makes a repeat safe.
    Never(Why),
}

/// Why a write is never retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Why {
    /// The key is declared but optional.
    OptionalKey(String),
    /// The key travels in the request body or the query string and is optional: the
    /// application, not a retrying client, decides whether a request carries it. The note
    /// says which key (`optional body property idempotency_key`).
    KeyOutsideHeaders(String),
    /// Its outcome is found through a 202's `Location` (or `Operation-Location`) or a long-running operation: no
    /// operation of the description to name as the status endpoint.
    StatusByLocation,
    /// Nothing makes a repeat safe.
    Unprotected,
}

impl Choice {
    /// Whether the policy retries the operation.
    pub(super) fn retries(&self) -> bool {
        matches!(self, Choice::Retry | Choice::Keyed { .. })
    }
}

/// The choice for one operation.
pub(super) fn choose(contract: &Contract) -> Choice {
    if contract.effect != SideEffect::NonIdempotent {
        return Choice::Retry;
    }
    // A required key, in a header or in the request itself: the policy names it
    // (`keyHeader` reads a body or query key in its place) and retries with it.
    if let Some(key) = contract.key.as_ref().filter(|k| k.required) {
        return Choice::Keyed {
            header: key.name.clone(),
            no_conflict_response: contract.conflicts.is_empty(),
        };
    }
    match contract.status.as_ref().map(|s| &s.kind) {
        // A link names the read as `METHOD /path`; it must read back as exactly that.
        Some(StatusKind::Link { target, .. })
            if matches!(Selector::parse(target), Ok(Selector::Exact { .. })) =>
        {
            return Choice::Reconcile {
                endpoint: target.clone(),
            };
        }
        Some(_) => return Choice::Never(Why::StatusByLocation),
        None => {}
    }
    match &contract.key {
        Some(key) if key.place == Place::Header => {
            Choice::Never(Why::OptionalKey(key.name.clone()))
        }
        Some(key) => Choice::Never(Why::KeyOutsideHeaders(format!(
            "optional {} {}",
            key.place.noun(),
            key.name
        ))),
        None => Choice::Never(Why::Unprotected),
    }
}

/// The throttling statuses a retried operation is retried on: those it declares.
pub(super) fn statuses(op: &Operation) -> Vec<u16> {
    [429, 503]
        .into_iter()
        .filter(|s| declares_status(op, *s).is_some())
        .collect()
}

/// A `retryOn` list: the statuses, then [`ALWAYS`].
pub(super) fn retry_on(statuses: &[u16]) -> String {
    let all: Vec<String> = statuses
        .iter()
        .map(u16::to_string)
        .chain(ALWAYS.iter().map(std::string::ToString::to_string))
        .collect();
    format!("[{}]", all.join(", "))
}
