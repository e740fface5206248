//! The retry policy: what the client does, per operation.
//!
//! A policy file (and the description's `x-retry-policy` extensions) is read into
//! [`PolicyObject`]s whose every field remembers where it was written; [`effective`]
//! merges the layers that apply to an operation, field by field.

mod duration;
pub mod effective;
pub mod fields;
mod parse;
mod position;
pub mod reference;
pub mod schema;
pub mod sections;
mod selector;
mod selector_index;
mod store;

use std::fmt;
use std::sync::Arc;

pub use crate::location::Spanned;
pub use duration::Duration;
pub use effective::{Effect, EffectSource, Effective, Matches, effect_of, resolve};
pub(crate) use parse::parse_signal;
pub use parse::{parse_policy_file, parse_policy_object};
pub use position::Position;
pub use selector::{Rank, Selector};

use crate::input::load::FileId;
use crate::location::Loc;

/// The name of the policy file looked for beside a description.
pub const POLICY_FILE_NAME: &str = "retry-policy.yaml";

/// Every name a policy beside a description may have, the usual one first.
pub const POLICY_FILE_NAMES: [&str; 2] = [POLICY_FILE_NAME, "retry-policy.yml"];

/// Declares the values of an enumerated policy field with the names the file writes them
/// by, so that each name is written once: the reader (through [`crate::input::read::FromNode`]),
/// the field table, the JSON Schema and `--compare` all take it from here.
macro_rules! policy_values {
    ($(#[$meta:meta])* pub enum $name:ident {
        $($(#[$vmeta:meta])* $variant:ident = $text:literal,)*
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// The names the policy file writes, in the order of the variants.
            pub const NAMES: &'static [&'static str] = &[$($text),*];

            /// The name the policy file writes.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value the policy file writes as `text`.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        /// One of the names, with a "did you mean" for a misspelt one.
        impl crate::input::read::FromNode for $name {
            fn from_node(value: &crate::input::read::Value<'_, '_>) -> Option<$name> {
                value
                    .one_of(Self::NAMES)
                    .and_then(|i| Self::parse(Self::NAMES[i]))
            }
        }
    };
}

policy_values! {
    /// How waits are randomised.
    pub enum Jitter {
        None = "none",
        Full = "full",
        Equal = "equal",
        Decorrelated = "decorrelated",
    }
}

policy_values! {
    /// What repeating a request repeats.
    pub enum SideEffect {
        None = "none",
        Idempotent = "idempotent",
        NonIdempotent = "non-idempotent",
    }
}

policy_values! {
    /// What the client does when a write's outcome is unknown.
    pub enum UnknownOutcome {
        Fail = "fail",
        Reconcile = "reconcile",
        RetrySameKey = "retry-same-key",
    }
}

policy_values! {
    /// What the client does on a 429/503 whose `Retry-After` is missing or unreadable
    /// (`retryAfter.onMissing`, `retryAfter.onInvalid`).
    #[derive(Default)]
    pub enum RetryAfterFallback {
        /// Wait the backoff, as if the server had asked nothing.
        #[default]
        Backoff = "backoff",
        /// Give up (`invalid-retry-after`).
        Stop = "stop",
    }
}

/// A condition a client retries on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// One status code, `503`.
    Status(u16),
    /// A class of status codes, `5xx` (the leading digit).
    Class(u16),
    ConnectFailure,
    RefusedStream,
    Reset,
    /// A reset before any byte of the request went upstream (Envoy `reset-before-request`).
    ResetBeforeRequest,
    Timeout,
    /// A gRPC status read from the response headers (a proxy's `unavailable`,
    /// `cancelled`...): the request may have been processed.
    Grpc(GrpcCode),
}

/// A gRPC status other than OK: the five proxies retry on (Envoy's `retry_on`, Istio's
/// `retryOn`, Linkerd's `retry.linkerd.io/grpc`), and the others a gRPC service config's
/// `retryableStatusCodes` may name (grpc/grpc `src/core/lib/channel/status_util.cc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GrpcCode {
    Cancelled,
    Unknown,
    InvalidArgument,
    DeadlineExceeded,
    NotFound,
    AlreadyExists,
    PermissionDenied,
    ResourceExhausted,
    FailedPrecondition,
    Aborted,
    OutOfRange,
    Unimplemented,
    Internal,
    Unavailable,
    DataLoss,
    Unauthenticated,
}

impl GrpcCode {
    /// The statuses proxies read from a response and retry on, by the names they write.
    pub const PROXIED: [GrpcCode; 5] = [
        GrpcCode::Cancelled,
        GrpcCode::DeadlineExceeded,
        GrpcCode::ResourceExhausted,
        GrpcCode::Internal,
        GrpcCode::Unavailable,
    ];

    /// Every status but OK, by number (`CANCELLED` is 1, `UNAUTHENTICATED` 16).
    pub const EVERY: [GrpcCode; 16] = [
        GrpcCode::Cancelled,
        GrpcCode::Unknown,
        GrpcCode::InvalidArgument,
        GrpcCode::DeadlineExceeded,
        GrpcCode::NotFound,
        GrpcCode::AlreadyExists,
        GrpcCode::PermissionDenied,
        GrpcCode::ResourceExhausted,
        GrpcCode::FailedPrecondition,
        GrpcCode::Aborted,
        GrpcCode::OutOfRange,
        GrpcCode::Unimplemented,
        GrpcCode::Internal,
        GrpcCode::Unavailable,
        GrpcCode::DataLoss,
        GrpcCode::Unauthenticated,
    ];

    /// The name proxies write (`retryOn: unavailable`), and messages show.
    pub fn as_str(self) -> &'static str {
        match self {
            GrpcCode::Cancelled => "cancelled",
            GrpcCode::Unknown => "unknown",
            GrpcCode::InvalidArgument => "invalid-argument",
            GrpcCode::DeadlineExceeded => "deadline-exceeded",
            GrpcCode::NotFound => "not-found",
            GrpcCode::AlreadyExists => "already-exists",
            GrpcCode::PermissionDenied => "permission-denied",
            GrpcCode::ResourceExhausted => "resource-exhausted",
            GrpcCode::FailedPrecondition => "failed-precondition",
            GrpcCode::Aborted => "aborted",
            GrpcCode::OutOfRange => "out-of-range",
            GrpcCode::Unimplemented => "unimplemented",
            GrpcCode::Internal => "internal",
            GrpcCode::Unavailable => "unavailable",
            GrpcCode::DataLoss => "data-loss",
            GrpcCode::Unauthenticated => "unauthenticated",
        }
    }

    /// The name a service config writes (`UNAVAILABLE`).
    pub fn name(self) -> String {
        self.as_str().replace('-', "_").to_ascii_uppercase()
    }

    /// The status's number (`UNAVAILABLE` is 14).
    pub fn number(self) -> u8 {
        GrpcCode::EVERY
            .iter()
            .position(|c| *c == self)
            .map_or(0, |i| u8::try_from(i + 1).unwrap_or(0))
    }

    /// A status by the name a proxy writes (`unavailable`): one of [`GrpcCode::PROXIED`].
    pub fn parse(text: &str) -> Option<GrpcCode> {
        GrpcCode::PROXIED.into_iter().find(|c| c.as_str() == text)
    }

    /// A status by the name a service config writes (`UNAVAILABLE`), exactly.
    pub fn from_name(text: &str) -> Option<GrpcCode> {
        GrpcCode::EVERY.into_iter().find(|c| c.name() == text)
    }
}

impl Signal {
    /// The request was not processed: safe to repeat for any operation.
    pub fn is_unprocessed(self) -> bool {
        matches!(
            self,
            Signal::ConnectFailure | Signal::RefusedStream | Signal::ResetBeforeRequest
        )
    }

    /// Whether this condition fires on the status `code`.
    pub fn covers(self, code: u16) -> bool {
        match self {
            Signal::Status(s) => s == code,
            Signal::Class(c) => code / 100 == c,
            _ => false,
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Signal::Status(code) => write!(f, "{code}"),
            Signal::Class(c) => write!(f, "{c}xx"),
            Signal::ConnectFailure => f.write_str("connect-failure"),
            Signal::RefusedStream => f.write_str("refused-stream"),
            Signal::Reset => f.write_str("reset"),
            Signal::ResetBeforeRequest => f.write_str("reset-before-request"),
            Signal::Timeout => f.write_str("timeout"),
            Signal::Grpc(code) => write!(f, "gRPC {}", code.as_str()),
        }
    }
}

/// A policy field's value with the place it was written, shared by the policy objects
/// that hold it (see [`PolicyObject`]).
pub type Field<T> = Arc<Spanned<T>>;

/// A policy field set to `value`, written at `loc`.
pub fn field<T>(value: T, loc: Loc) -> Option<Field<T>> {
    Some(Arc::new(Spanned::new(value, loc)))
}

/// Declares [`PolicyObject`] and its field-by-field overlay from one list of fields.
macro_rules! policy_fields {
    ($($(#[$doc:meta])* $name:ident: $ty:ty = $key:literal,)*) => {
        /// A policy object: every field optional, each remembering where it was written.
        ///
        /// Nested objects of the file (`backoff`, `retryAfter`, `idempotency`) are
        /// flattened, so that merging is one rule for every field. A field is shared, not
        /// copied, by every effective policy that inherits it: an object is a row of
        /// pointers, and a policy naming each of 100k operations stays small.
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct PolicyObject {
            $($(#[$doc])* pub $name: Option<Field<$ty>>,)*
        }

        impl PolicyObject {
            /// Takes every field that `higher` sets.
            pub fn overlay(&mut self, higher: &PolicyObject) {
                $(if higher.$name.is_some() {
                    self.$name = higher.$name.clone();
                })*
            }

            /// Each field that is set, named as the file writes it (`backoff.base`), with
            /// where its value was written.
            pub fn places(&self) -> Vec<(&'static str, &Loc)> {
                let mut out = Vec::new();
                $(if let Some(field) = &self.$name {
                    out.push(($key, &field.loc));
                })*
                out
            }

            /// The Rust names of the fields.
            #[cfg(test)]
            pub(crate) const FIELD_NAMES: &[&str] = &[$(stringify!($name)),*];

            /// How many fields are set.
            #[cfg(test)]
            pub(crate) fn count_set(&self) -> usize {
                0 $(+ usize::from(self.$name.is_some()))*
            }
        }
    };
}

policy_fields! {
    /// Total attempts, the first included.
    max_attempts: i64 = "maxAttempts",
    /// One budget for the whole call.
    deadline: Duration = "deadline",
    per_attempt_timeout: Duration = "perAttemptTimeout",
    /// The `backoff:` section itself.
    backoff: () = "backoff",
    backoff_base: Duration = "backoff.base",
    backoff_cap: Duration = "backoff.cap",
    backoff_multiplier: f64 = "backoff.multiplier",
    jitter: Jitter = "backoff.jitter",
    retry_on: Vec<Spanned<Signal>> = "retryOn",
    /// The `retryAfter:` section itself.
    retry_after: () = "retryAfter",
    retry_after_honor: bool = "retryAfter.honor",
    retry_after_max: Duration = "retryAfter.max",
    retry_after_on_missing: RetryAfterFallback = "retryAfter.onMissing",
    retry_after_on_invalid: RetryAfterFallback = "retryAfter.onInvalid",
    log: Vec<Spanned<String>> = "log",
    side_effect: SideEffect = "sideEffect",
    /// The `idempotency:` section itself.
    idempotency: () = "idempotency",
    key_header: String = "idempotency.keyHeader",
    key_retention: Duration = "idempotency.keyRetention",
    status_endpoint: String = "idempotency.statusEndpoint",
    on_unknown_outcome: UnknownOutcome = "onUnknownOutcome",
}

impl PolicyObject {
    /// What the operation is and what protects a repeat of it — `sideEffect`, the
    /// `idempotency` section and `onUnknownOutcome` — without how it is retried: what a
    /// proxy's retries inherit from the client (the key travels with every request).
    pub fn contract(&self) -> PolicyObject {
        PolicyObject {
            side_effect: self.side_effect.clone(),
            idempotency: self.idempotency.clone(),
            key_header: self.key_header.clone(),
            key_retention: self.key_retention.clone(),
            status_endpoint: self.status_endpoint.clone(),
            on_unknown_outcome: self.on_unknown_outcome.clone(),
            ..PolicyObject::default()
        }
    }
}

/// One `operations:` entry of a policy file.
#[derive(Debug, Clone)]
pub struct PolicyEntry {
    pub selector: Selector,
    /// The selector key.
    pub loc: Loc,
    pub policy: PolicyObject,
}

policy_values! {
    /// A rule severity, or `off`, as `lint.rules` sets it.
    #[derive(PartialOrd, Ord)]
    pub enum Level {
        Off = "off",
        Info = "info",
        Warning = "warning",
        Error = "error",
    }
}

/// A `lint.ignore` entry.
#[derive(Debug, Clone)]
pub struct IgnoreEntry {
    pub rule: Spanned<String>,
    /// Selectors; empty means every operation.
    pub operations: Vec<Spanned<Selector>>,
    pub reason: Option<Spanned<String>>,
    pub loc: Loc,
}

/// The tool's own settings (`lint:`).
#[derive(Debug, Clone, Default)]
pub struct LintConfig {
    pub rules: Vec<(Spanned<String>, Spanned<Level>)>,
    pub max_attempts_limit: Option<Spanned<i64>>,
    /// The most requests at the backend per call that `retry-amplification` allows.
    pub max_amplification: Option<Spanned<u64>>,
    /// Header names that carry idempotency keys, besides the known ones.
    pub key_headers: Vec<Spanned<String>>,
    pub ignore: Vec<IgnoreEntry>,
}

/// One `layers:` entry: the layers of a file (or of one object) take a position.
#[derive(Debug, Clone)]
pub struct LayerPlacement {
    /// A file given with `-p`, matched by the end of its path (`istio/vs.yaml`).
    pub file: Option<Spanned<String>>,
    /// A layer's object name (`payments`) or full name (`Istio VirtualService payments`).
    pub name: Option<Spanned<String>>,
    pub position: Spanned<Position>,
    /// The entry.
    pub loc: Loc,
}

/// A parsed retry policy file: the whole of it, as one model.
#[derive(Debug, Clone)]
pub struct PolicyFile {
    pub file: FileId,
    pub defaults: Option<PolicyObject>,
    pub operations: Vec<PolicyEntry>,
    /// `service.hosts`: the names a mesh or gateway knows the service by.
    pub service_hosts: Vec<Spanned<String>>,
    /// `layers:`.
    pub layers: Vec<LayerPlacement>,
    pub lint: LintConfig,
}
