//! The contract part of a report: per operation, what the description alone lets any
//! client retry safely; over the API, how many writes that leaves, per tag.

use std::collections::BTreeMap;

use serde::Serialize;

use super::OperationReport;
use crate::analysis::contract::{Contract, ContractState, StateCounts, WaitHint};
use crate::input::model::Operation;
use crate::input::policy::SideEffect;

/// One operation's contract, in words and in fields.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContractReport {
    pub state: ContractState,
    /// Why it has that state, in one line.
    pub reason: String,
    /// What a repeat repeats, and where the description says so.
    pub effect: String,
    /// Whether it is a non-idempotent write, by the description alone (an unknown effect
    /// counts as one).
    pub write: bool,
    /// The effect in fields: what the description says, how sure, and the evidence.
    pub repeat: RepeatReport,
    /// The idempotency key offered: `required \`Idempotency-Key\``.
    pub key: Option<String>,
    /// The way to find out whether a write happened.
    pub status_endpoint: Option<String>,
    /// How the server asks clients to slow down, in one line.
    pub throttling: String,
    /// The 429 and 503 declared, each with what says when to come back.
    pub throttles: Vec<ThrottleReport>,
    /// The conflict responses declared (409, 422, 400, 4XX).
    pub conflict_responses: Vec<String>,
}

impl Default for ContractReport {
    fn default() -> ContractReport {
        ContractReport {
            state: ContractState::Unprotected,
            reason: String::new(),
            effect: String::new(),
            write: false,
            repeat: RepeatReport::default(),
            key: None,
            status_endpoint: None,
            throttling: String::new(),
            throttles: Vec::new(),
            conflict_responses: Vec::new(),
        }
    }
}

/// An operation's effect as the description says it.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RepeatReport {
    /// `read`, `idempotent-write`, `non-idempotent-write` or `unknown`.
    pub effect: &'static str,
    /// `declared`, `high`, `medium` or `low` (the method alone).
    pub confidence: &'static str,
    /// The cues that decided (for `unknown`, those that conflict), strongest first.
    pub evidence: Vec<CueReport>,
}

/// One cue of an operation's effect.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CueReport {
    /// `summary`, `operationId`, `path`, `description`, `x-side-effect`, …
    pub source: &'static str,
    /// What it says a repeat does.
    pub says: &'static str,
    /// The words, as written.
    pub words: String,
    /// Its JSON Pointer in the file that writes it.
    pub pointer: Option<String>,
}

impl RepeatReport {
    pub(crate) fn of(op: &Operation) -> RepeatReport {
        RepeatReport {
            effect: op.effect.repeat.map_or("unknown", |r| r.as_str()),
            confidence: op.effect.confidence.as_str(),
            evidence: op
                .effect
                .cues
                .iter()
                .map(|cue| CueReport {
                    source: cue.source.as_str(),
                    says: cue.says.as_str(),
                    words: cue.words.to_string(),
                    pointer: cue.loc.as_ref().map(|l| l.pointer.to_string()),
                })
                .collect(),
        }
    }
}

/// One throttling status an operation declares.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThrottleReport {
    pub status: u16,
    /// `429`, or the class that covers it (`4XX`).
    pub declared_as: String,
    /// `retry-after`, `rate-limit` or `none`.
    pub wait: &'static str,
    /// The header that says when (`Retry-After`, `RateLimit-Reset`), if any.
    pub header: Option<String>,
    /// What a `Retry-After`'s schema says it holds (`seconds`, `an HTTP-date`, …).
    pub format: Option<&'static str>,
}

/// The report of one operation's contract.
pub(super) fn describe(c: &Contract, op: &Operation) -> ContractReport {
    ContractReport {
        state: c.state,
        reason: c.reason(),
        effect: c.effect_text(),
        write: c.effect == SideEffect::NonIdempotent,
        repeat: RepeatReport::of(op),
        key: c.key_text(),
        status_endpoint: c.status_text(),
        throttling: c.throttling_text(),
        throttles: c
            .throttling
            .iter()
            .map(|t| {
                let (wait, header, format) = match &t.wait {
                    WaitHint::RetryAfter(f) => (
                        "retry-after",
                        Some("Retry-After".to_string()),
                        Some(f.describe()),
                    ),
                    WaitHint::RateLimit(name) => ("rate-limit", Some(name.clone()), None),
                    WaitHint::None => ("none", None, None),
                };
                ThrottleReport {
                    status: t.status,
                    declared_as: t.declared_as.to_string(),
                    wait,
                    header,
                    format,
                }
            })
            .collect(),
        conflict_responses: c.conflicts.iter().map(|c| (*c).to_string()).collect(),
    }
}

/// Counts over the whole API.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContractSummary {
    /// Operations at each contract state.
    pub states: StateCounts,
    /// Non-idempotent operations (by the description alone).
    pub writes: usize,
    /// Of those, how many a client can retry safely (`retry-safe` or
    /// `retry-safe-with-reconcile`).
    pub writes_retry_safe: usize,
    /// Operations that declare neither 429 nor 503.
    pub without_throttle_status: usize,
    /// Operations that declare 429 or 503 but no header saying when to come back.
    pub without_wait_hint: usize,
    /// The same counts per tag (an operation counts under each of its tags; operations
    /// without a tag under `(untagged)`), by tag name.
    pub by_tag: Vec<TagSummary>,
}

/// The contract counts of one tag.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TagSummary {
    pub tag: String,
    pub operations: usize,
    pub writes: usize,
    pub writes_retry_safe: usize,
    pub states: StateCounts,
}

/// The name under which operations without a tag are counted.
pub(super) const UNTAGGED: &str = "(untagged)";

/// Sums the contract states of all operations, and per tag.
pub(super) fn summarize(operations: &[OperationReport]) -> ContractSummary {
    let mut states = StateCounts::default();
    let mut tags: BTreeMap<&str, TagSummary> = BTreeMap::new();
    let mut writes = 0;
    let mut writes_retry_safe = 0;
    let mut without_throttle_status = 0;
    let mut without_wait_hint = 0;
    for o in operations {
        let state = o.contract.state;
        let contract_write = o.contract.write;
        states.add(state);
        let safe_write = contract_write && state.is_retry_safe();
        writes += usize::from(contract_write);
        writes_retry_safe += usize::from(safe_write);
        if o.contract.throttles.is_empty() {
            without_throttle_status += 1;
        } else if o.contract.throttles.iter().all(|t| t.wait == "none") {
            without_wait_hint += 1;
        }
        let names: Vec<&str> = if o.tags.is_empty() {
            vec![UNTAGGED]
        } else {
            o.tags.iter().map(String::as_str).collect()
        };
        for name in names {
            let tag = tags.entry(name).or_insert_with(|| TagSummary {
                tag: name.to_string(),
                operations: 0,
                writes: 0,
                writes_retry_safe: 0,
                states: StateCounts::default(),
            });
            tag.operations += 1;
            tag.writes += usize::from(contract_write);
            tag.writes_retry_safe += usize::from(safe_write);
            tag.states.add(state);
        }
    }
    ContractSummary {
        states,
        writes,
        writes_retry_safe,
        without_throttle_status,
        without_wait_hint,
        by_tag: tags.into_values().collect(),
    }
}
