//! What repeating an operation repeats, read from everything its description says.
//!
//! The HTTP method is a hint, not the contract: a POST can be a search, a PUT can create
//! an invoice or send an email. `infer` reads an operation as a careful reader would
//! and gives it a [`Repeat`] — or none, *unknown*, when its evidence conflicts — with the
//! cues that decided it, each with the words and the place they come from:
//!
//! 1. a declaration decides alone: `x-side-effect` (the values of the policy's
//!    `sideEffect`), `x-idempotent`, Fern's `x-fern-idempotent`, a gRPC
//!    `idempotency_level`;
//! 2. otherwise the words: the verb that leads the summary, the operationId's verb, the
//!    path's action (an AIP-136 custom method `:search`, a last segment `/cancel`, a
//!    dotted method `/chat.postMessage`), the description's first verb, and the phrases
//!    that say more than a verb (`is idempotent`, `must be unique`, `sends an email`,
//!    `create or update`, `are appended to`), in the text, a 4xx response or a required
//!    request field; and the structure: a request in `application/merge-patch+json`,
//!    a GraphQL endpoint, a `201` with `Location`, a gRPC rpc's `google.api.http` verb;
//! 3. the method is the last fallback, and a weak vote beside the words.
//!
//! First the cues say whether it reads or writes; a read needs read words and none of
//! a write, since calling a write a read is the costliest mistake. Then the writes' cues
//! weigh idempotent against not. A tie is *unknown*, which every rule treats as a write
//! that may repeat, and whose message names the declaration that settles it.
//!
//! `cues` reads the places into cues (`found` holds what a cue is made of), `verbs` holds
//! the verb tables and `words` looks words up in them (`identifier` reads an operationId
//! beside its path; `target` turns a lead verb by what the URL names, `members` reads an
//! added member, `undone` an object not yet acted on), `phrases` holds the phrase lists
//! and their matching (`trie` the matching itself), and `decide` weighs the cues.

mod cues;
mod decide;
mod found;
mod identifier;
mod members;
mod phrases;
mod target;
#[cfg(test)]
mod tests;
mod trie;
mod undone;
mod verbs;
pub(crate) mod words;

use std::fmt;
use std::fmt::Write as _;

pub(crate) use cues::{Facts, Written};
pub(crate) use decide::infer;
pub(crate) use found::Place;
pub(crate) use found::{quote, sentence_start};
pub(crate) use phrases::Seen;

use super::Method;
use crate::location::Loc;

/// What a second identical request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Repeat {
    /// Nothing changes.
    Read,
    /// The second leaves what the first left.
    Idempotent,
    /// The second can duplicate or compound the first.
    NonIdempotent,
}

impl Repeat {
    /// `read`, `idempotent-write`, `non-idempotent-write`: the names labels and JSON use.
    pub fn as_str(self) -> &'static str {
        match self {
            Repeat::Read => "read",
            Repeat::Idempotent => "idempotent-write",
            Repeat::NonIdempotent => "non-idempotent-write",
        }
    }

    /// `reads`, `is an idempotent write`: after the operation's name in a sentence.
    pub fn verb_phrase(self) -> &'static str {
        match self {
            Repeat::Read => "reads",
            Repeat::Idempotent => "is an idempotent write",
            Repeat::NonIdempotent => "is a non-idempotent write",
        }
    }

    /// The `sideEffect` value that says the same (`none`, `idempotent`, `non-idempotent`).
    pub fn side_effect_name(self) -> &'static str {
        match self {
            Repeat::Read => "none",
            Repeat::Idempotent => "idempotent",
            Repeat::NonIdempotent => "non-idempotent",
        }
    }

    /// The repeat a `sideEffect` value names.
    pub fn of_side_effect_name(name: &str) -> Option<Repeat> {
        match name {
            "none" => Some(Repeat::Read),
            "idempotent" => Some(Repeat::Idempotent),
            "non-idempotent" => Some(Repeat::NonIdempotent),
            _ => None,
        }
    }

    /// What the method alone promises, by the IANA registry: safe methods read,
    /// idempotent ones write idempotently, any other (POST, PATCH, an unregistered
    /// method) promises nothing.
    pub fn of_method(method: Method) -> Repeat {
        if method.is_safe() {
            Repeat::Read
        } else if method.is_idempotent() {
            Repeat::Idempotent
        } else {
            Repeat::NonIdempotent
        }
    }
}

/// Where a cue was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CueSource {
    /// An extension or option that states the effect (`x-side-effect`, `x-idempotent`,
    /// `x-fern-idempotent`, `idempotency_level`).
    Declared(&'static str),
    OperationId,
    Summary,
    Description,
    /// The path's action: a custom method or a last segment.
    Path,
    /// The request's media type.
    MediaType,
    /// A response (`201` with `Location`).
    Response,
    /// A required field of the request (`name`: "Must be unique across all apps").
    RequestField,
    /// A gRPC rpc's `google.api.http` binding.
    HttpRule,
    /// A GraphQL endpoint, by what its text says it takes: queries only, or mutations.
    GraphQl,
    /// The HTTP method alone.
    Method,
}

impl CueSource {
    /// `summary`, `operationId`: how a sentence names the place.
    pub fn as_str(self) -> &'static str {
        match self {
            CueSource::Declared(name) => name,
            CueSource::OperationId => "operationId",
            CueSource::Summary => "summary",
            CueSource::Description => "description",
            CueSource::Path => "path",
            CueSource::MediaType => "request media type",
            CueSource::Response => "response",
            CueSource::RequestField => "request field",
            CueSource::HttpRule => "google.api.http",
            CueSource::GraphQl => "GraphQL",
            CueSource::Method => "method",
        }
    }
}

/// The words of a cue, as shown: fixed, or a quote of a text of the description that is
/// cut from it only when shown (most cues are weighed and never shown).
#[derive(Debug, Clone)]
pub struct Words(WordsRepr);

#[derive(Debug, Clone)]
enum WordsRepr {
    Fixed(Box<str>),
    /// [`found::quote`] of the text from `start`.
    Quote {
        text: crate::input::source::Text,
        start: usize,
    },
}

impl Words {
    /// A quote of `text` from `start`, kept as the shared text and the place when the
    /// text is the description's own, else cut now.
    pub(crate) fn quote(text: &found::Written<'_>, start: usize) -> Words {
        match text.shared {
            Some(shared) => Words(WordsRepr::Quote {
                text: shared.clone(),
                start,
            }),
            None => Words(WordsRepr::Fixed(found::quote(text.text, start))),
        }
    }

    /// The words, cut as shown.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match &self.0 {
            WordsRepr::Fixed(words) => std::borrow::Cow::Borrowed(words),
            WordsRepr::Quote { text, start } => {
                std::borrow::Cow::Owned(found::quote(text, *start).into_string())
            }
        }
    }
}

impl fmt::Display for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// Words are equal when they read the same.
impl PartialEq for Words {
    fn eq(&self, other: &Words) -> bool {
        self.text() == other.text()
    }
}

impl From<&str> for Words {
    fn from(words: &str) -> Words {
        Words(WordsRepr::Fixed(words.into()))
    }
}

impl From<String> for Words {
    fn from(words: String) -> Words {
        Words(WordsRepr::Fixed(words.into()))
    }
}

impl From<Box<str>> for Words {
    fn from(words: Box<str>) -> Words {
        Words(WordsRepr::Fixed(words))
    }
}

/// One piece of evidence: what it says a repeat does, the words, and their place.
#[derive(Debug, Clone, PartialEq)]
pub struct Cue {
    pub says: Repeat,
    pub source: CueSource,
    /// The words that decided, as written (bounded, one line).
    pub words: Words,
    /// Where they are written; `None` for the method.
    pub loc: Option<Loc>,
    /// How much it weighs beside the others.
    pub(crate) weight: u8,
}

/// How sure the effect is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Confidence {
    /// The method alone: no word of the description says otherwise.
    Low,
    /// Words decided against some evidence the other way, or one cue alone.
    Medium,
    /// Several cues agree and none disagrees.
    High,
    /// The description declares it.
    Declared,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
            Confidence::Declared => "declared",
        }
    }
}

/// An operation's effect as its description says it, with the evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Inferred {
    /// `None`: unknown, the evidence conflicts.
    pub repeat: Option<Repeat>,
    pub confidence: Confidence,
    /// The cues that decided (or, for unknown, those that conflict), strongest first;
    /// empty when the method alone decided.
    pub cues: Vec<Cue>,
}

impl Inferred {
    /// What the rules act on: unknown acts as a write that may repeat.
    pub fn acts_as(&self) -> Repeat {
        self.repeat.unwrap_or(Repeat::NonIdempotent)
    }

    /// The declaration that decided, when the description declares the effect.
    pub fn declaration(&self) -> Option<&Cue> {
        self.cues
            .first()
            .filter(|_| self.confidence == Confidence::Declared)
    }

    /// A declared effect, from one cue.
    pub(crate) fn declared(cue: Cue) -> Inferred {
        Inferred {
            repeat: Some(cue.says),
            confidence: Confidence::Declared,
            cues: vec![cue],
        }
    }

    /// The evidence in a few words: `operationId \`searchCustomers\`; summary "Search
    /// customers"`, or `POST method` when the method alone decided.
    pub fn evidence(&self, method: Method) -> String {
        if self.cues.is_empty() {
            return format!("{method} method");
        }
        let mut out = String::new();
        for (i, cue) in self.cues.iter().take(3).enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            write_cue(&mut out, cue);
            if self.repeat.is_none() {
                let _ = write!(out, " says {}", cue.says.as_str());
            }
        }
        out
    }

    /// `non-idempotent (summary "Create a charge")`: the effect and its evidence, as a
    /// finding or a report shows it.
    pub fn text(&self, method: Method) -> String {
        let name = self.repeat.map_or("unknown", Repeat::side_effect_name);
        format!("{name} ({})", self.evidence(method))
    }

    /// The one line that settles an unknown effect, as a finding's help opens with it;
    /// `None` when the words settled it.
    pub fn settle_hint(&self) -> Option<&'static str> {
        self.repeat.is_none().then_some(
            "its words disagree on what a repeat does, so it is taken for a write that may repeat: \
             settle it with one line on the operation, `x-side-effect: none | idempotent | non-idempotent` \
             (or `sideEffect` in the policy)",
        )
    }
}

/// `summary "Search customers"`, `operationId \`searchCustomers\``, `POST method`.
fn write_cue(out: &mut String, cue: &Cue) {
    match cue.source {
        CueSource::Method => {
            let _ = write!(out, "{} method", cue.words);
        }
        CueSource::Declared("idempotency_level") => {
            let _ = write!(out, "option idempotency_level = {}", cue.words);
        }
        CueSource::Declared(name) => {
            let _ = write!(out, "{name}: {}", cue.words);
        }
        CueSource::GraphQl => {
            let _ = write!(out, "GraphQL {}", cue.words);
        }
        CueSource::OperationId | CueSource::Path | CueSource::HttpRule => {
            let _ = write!(out, "{} `{}`", cue.source.as_str(), cue.words);
        }
        _ => {
            let _ = write!(out, "{} \"{}\"", cue.source.as_str(), cue.words);
        }
    }
}
