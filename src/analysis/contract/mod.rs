//! The contract view: what a description alone lets any client retry safely.
//!
//! A client's policy says what one client does; the description says what every client
//! may do. [`derive`] reads, per operation, the evidence the description offers — its
//! effect (as [`crate::input::model::effect`] reads it), an idempotency key, a
//! status endpoint, how the server asks clients to slow down, and how it answers a reused
//! key — and gives each operation a [`ContractState`]. Nothing is called safe without a
//! place in the description that says so.

mod evidence;
mod keys;
mod text;

use serde::Serialize;

use std::sync::Arc;

use crate::input::model::effect::Inferred;
use crate::input::model::{Api, HeaderFormat, LinkTarget, Method, Place};
use crate::input::policy::SideEffect;
use crate::location::Loc;

pub(crate) use evidence::declares_status;

/// What the description lets a client do about retrying one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ContractState {
    /// Nothing makes a repeat safe: a client cannot retry this write after an unknown
    /// outcome without risking a second effect.
    Unprotected,
    /// An idempotency key is offered, but the contract does not promise it: the key is
    /// optional, or no response says what a reused or in-flight key gets.
    KeyIncomplete,
    /// A status endpoint lets a client find out whether the write happened before it
    /// repeats it.
    RetrySafeWithReconcile,
    /// Repeating is harmless: the operation is idempotent, or a required key with its
    /// conflict response makes it so.
    RetrySafe,
}

impl ContractState {
    /// Every state, worst first.
    pub const ALL: [ContractState; 4] = [
        ContractState::Unprotected,
        ContractState::KeyIncomplete,
        ContractState::RetrySafeWithReconcile,
        ContractState::RetrySafe,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ContractState::Unprotected => "unprotected",
            ContractState::KeyIncomplete => "key-incomplete",
            ContractState::RetrySafeWithReconcile => "retry-safe-with-reconcile",
            ContractState::RetrySafe => "retry-safe",
        }
    }

    /// One sentence for a report's legend.
    pub fn meaning(self) -> &'static str {
        match self {
            ContractState::Unprotected => {
                "a write with no idempotency key and no status endpoint: a client cannot retry it safely"
            }
            ContractState::KeyIncomplete => {
                "a write with an idempotency key the contract does not promise (optional, or no response for a reused key): safe only for clients that always send it"
            }
            ContractState::RetrySafeWithReconcile => {
                "a write with a status endpoint: a client can check whether it happened before repeating it"
            }
            ContractState::RetrySafe => {
                "idempotent, or a required idempotency key with its conflict response: repeating it is harmless"
            }
        }
    }

    /// Whether a client can retry the operation safely on the contract's word alone.
    pub fn is_retry_safe(self) -> bool {
        matches!(
            self,
            ContractState::RetrySafe | ContractState::RetrySafeWithReconcile
        )
    }
}

/// Why a header, query parameter or body property is taken for an idempotency key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeySource {
    /// A name known to carry idempotency keys in its place (one of [`KEY_NAMES`], or any
    /// name with `idempotency` in it).
    KnownName,
    /// A body or query field named like a key (`request_id`, `incident_key`) whose
    /// description or title says the server de-duplicates on it, or that it identifies
    /// what the request acts on.
    Described,
    /// The document's `x-fern-idempotency-headers`, on an `x-fern-idempotent` operation.
    Fern,
    /// `lint.keyHeaders` of the policy.
    Configured,
}

/// The idempotency key an operation's contract offers.
#[derive(Debug, Clone)]
pub struct KeyOffer {
    /// The header, query parameter or body property name, as the description writes it.
    pub name: String,
    /// Where the client sends it.
    pub place: Place,
    /// `required: true` on the parameter, or the property in the body's `required`.
    pub required: bool,
    pub source: KeySource,
    /// For [`KeySource::Described`], the words of its description that made it a key.
    pub said: Option<String>,
    /// The parameter, the body property, or the Fern declaration when the operation
    /// lists no parameter.
    pub loc: Loc,
}

impl KeyOffer {
    /// The key as a sentence names it: `` `Idempotency-Key` `` for a header (the usual
    /// place, said without a noun), `` the body property `idempotency_key` `` otherwise.
    pub fn named(&self) -> String {
        match self.place {
            Place::Header => format!("`{}`", self.name),
            place => format!("the {} `{}`", place.noun(), self.name),
        }
    }

    /// The key after a noun: `` `Idempotency-Key` ``, `` `idempotency_key` in the body ``.
    pub fn quoted(&self) -> String {
        match self.place {
            Place::Header => format!("`{}`", self.name),
            Place::Query => format!("`{}` in the query", self.name),
            Place::Body => format!("`{}` in the body", self.name),
        }
    }
}

/// How a client can find out whether a write happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusKind {
    /// A response's link to a GET or HEAD operation (`GET /orders/{id}`).
    Link { name: String, target: String },
    /// A `202` response with a header naming the status resource: `Operation-Location`,
    /// `Azure-AsyncOperation` or `Location` (as the description spells it).
    Accepted { header: String },
    /// `x-ms-long-running-operation: true`.
    LongRunning,
}

/// The status endpoint an operation's contract offers.
#[derive(Debug, Clone)]
pub struct StatusOffer {
    pub kind: StatusKind,
    pub loc: Loc,
}

/// A response link of a write that names an operation the description does not have:
/// meant as a status endpoint, it leads nowhere.
#[derive(Debug, Clone)]
pub struct BrokenLink {
    /// The link's name in `links`.
    pub name: String,
    pub target: LinkTarget,
    pub loc: Loc,
}

/// How the server tells a client when to come back after a 429 or 503.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitHint {
    /// A `Retry-After` header, with what its schema says it holds.
    RetryAfter(HeaderFormat),
    /// A `RateLimit`, `RateLimit-Reset` or `X-RateLimit-Reset` header (as named).
    RateLimit(String),
    /// No header says when.
    None,
}

/// One throttling status an operation declares.
#[derive(Debug, Clone)]
pub struct Throttle {
    /// 429 or 503.
    pub status: u16,
    /// The response that declares it: `429`, or the class `4XX` (held inline: every
    /// operation that throttles has one or two).
    pub declared_as: compact_str::CompactString,
    pub wait: WaitHint,
    pub loc: Loc,
}

/// One operation's contract.
#[derive(Debug, Clone)]
pub struct Contract {
    /// What a repeat repeats (an unknown effect acts as non-idempotent).
    pub effect: SideEffect,
    /// The effect as the description reads, with its evidence (put in words by
    /// [`Contract::effect_text`]), and the method it is read for.
    pub repeat: Arc<Inferred>,
    pub method: Method,
    pub key: Option<KeyOffer>,
    pub status: Option<StatusOffer>,
    /// The write's response links that lead to no operation (empty for other operations).
    pub broken_links: Vec<BrokenLink>,
    /// The 429 and 503 it declares (none when it declares neither).
    pub throttling: Vec<Throttle>,
    /// The conflict responses it declares among [`CONFLICT_CODES`].
    pub conflicts: Vec<&'static str>,
    pub state: ContractState,
}

impl Contract {
    /// The reason behind the state, in one line.
    pub fn reason(&self) -> String {
        text::reason(self)
    }

    /// The throttling answer, in one line.
    pub fn throttling_text(&self) -> String {
        text::throttling(self)
    }

    /// What a repeat repeats, and where the description says so: `none (operationId
    /// \`searchCustomers\`; summary "Search customers")`.
    pub fn effect_text(&self) -> String {
        self.repeat.text(self.method)
    }

    /// Where the deciding evidence is written; `None` when the method alone decided.
    pub fn effect_loc(&self) -> Option<&Loc> {
        self.repeat.cues.first().and_then(|c| c.loc.as_ref())
    }

    /// The key the contract offers, as words (`required Idempotency-Key`), if any.
    pub fn key_text(&self) -> Option<String> {
        text::key(self)
    }

    /// The key the contract offers when it is named `name` (compared without case): what
    /// a policy's `idempotency.keyHeader` names, whatever the key's place.
    pub fn key_named(&self, name: &str) -> Option<&KeyOffer> {
        self.key
            .as_ref()
            .filter(|k| k.name.eq_ignore_ascii_case(name))
    }

    /// Whether the operation declares the key a policy names `name`: a header parameter
    /// of that name, or the query or body key its contract offers under that name. Only a
    /// declared key protects a repeat, whoever makes it: a key the description does not
    /// declare is one the server is not known to read (`idempotency-key-undeclared`).
    pub fn declares_key(&self, op: &crate::input::model::Operation, name: &str) -> bool {
        op.header(name).is_some() || self.key_named(name).is_some()
    }

    /// The status endpoint the contract offers, as words, if any.
    pub fn status_text(&self) -> Option<String> {
        text::status(self)
    }
}

/// Header names a user declares as idempotency keys (`lint.keyHeaders`), besides the
/// known ones.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyHeaders {
    configured: Vec<String>,
}

impl KeyHeaders {
    pub(crate) fn new(configured: impl IntoIterator<Item = String>) -> KeyHeaders {
        KeyHeaders {
            configured: configured.into_iter().collect(),
        }
    }
}

/// The contract of every operation, in the order of `api.operations`.
pub(crate) fn derive(api: &Api, keys: &KeyHeaders) -> Vec<Contract> {
    let index = evidence::OperationIndex::new(api);
    api.operations
        .iter()
        .map(|op| evidence::contract(op, api, keys, &index))
        .collect()
}

/// Counts of contract states over some operations.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct StateCounts {
    pub retry_safe: usize,
    pub retry_safe_with_reconcile: usize,
    pub key_incomplete: usize,
    pub unprotected: usize,
}

impl StateCounts {
    pub fn add(&mut self, state: ContractState) {
        match state {
            ContractState::RetrySafe => self.retry_safe += 1,
            ContractState::RetrySafeWithReconcile => self.retry_safe_with_reconcile += 1,
            ContractState::KeyIncomplete => self.key_incomplete += 1,
            ContractState::Unprotected => self.unprotected += 1,
        }
    }

    /// Adds another set of counts to these.
    pub fn merge(&mut self, other: &StateCounts) {
        self.retry_safe += other.retry_safe;
        self.retry_safe_with_reconcile += other.retry_safe_with_reconcile;
        self.key_incomplete += other.key_incomplete;
        self.unprotected += other.unprotected;
    }

    pub fn get(&self, state: ContractState) -> usize {
        match state {
            ContractState::RetrySafe => self.retry_safe,
            ContractState::RetrySafeWithReconcile => self.retry_safe_with_reconcile,
            ContractState::KeyIncomplete => self.key_incomplete,
            ContractState::Unprotected => self.unprotected,
        }
    }
}

#[cfg(test)]
mod tests;
