//! The parts every cue is made of: a text of the operation with its place, the cue found
//! in it with its kind, the weights of the places, and how a cue quotes its words.

use super::Cue;
use crate::location::Loc;

/// A text of the operation and where it is written.
pub(crate) struct Text<'a> {
    pub text: &'a str,
    pub loc: Loc,
}

/// How much each kind of cue weighs.
pub(crate) mod weight {
    /// The description says in words what a repeat does (`is idempotent`, `must be
    /// unique`), or a gRPC binding says GET.
    pub(crate) const STATED: u8 = 6;
    /// A qualifier of the verb: an upsert, a message sent each time.
    pub(crate) const QUALIFIER: u8 = 4;
    pub(crate) const SUMMARY: u8 = 4;
    pub(crate) const OPERATION_ID: u8 = 3;
    pub(crate) const CUSTOM_METHOD: u8 = 3;
    pub(crate) const STRUCTURE: u8 = 3;
    pub(crate) const ADDS_NEW: u8 = 3;
    pub(crate) const PATH: u8 = 2;
    pub(crate) const DESCRIPTION: u8 = 2;
    pub(crate) const CREATED: u8 = 1;
    pub(crate) const METHOD: u8 = 1;
}

/// Whether a cue says what the request does (a verb, a media type), or qualifies a
/// write (a message sent each time, a duplicate refused): qualifiers weigh only once the
/// request is known to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Action,
    Qualifier,
}

/// A cue and its kind.
pub(super) struct Found {
    pub cue: Cue,
    pub kind: Kind,
}

/// At most this many bytes of words are quoted.
pub(super) const QUOTE_LIMIT: usize = 80;

/// A one-line quote of at most [`QUOTE_LIMIT`] bytes from `text`, starting at `start`
/// and cut at a sentence's end or a word boundary.
pub(crate) fn quote(text: &str, start: usize) -> Box<str> {
    let rest = text.get(start..).unwrap_or_default();
    let mut end = rest.len().min(QUOTE_LIMIT);
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    let mut piece = &rest[..end];
    if let Some(stop) = piece.bytes().position(|b| b == b'\n' || b == b'\r') {
        piece = &piece[..stop];
    }
    if let Some(stop) = piece.as_bytes().windows(2).position(|w| w == b". ") {
        piece = &piece[..=stop];
    } else if end < rest.len()
        && let Some(space) = piece.bytes().rposition(|b| b == b' ')
    {
        piece = &piece[..space];
    }
    let mut out: String = if piece.chars().any(char::is_control) {
        piece
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect()
    } else {
        piece.to_string()
    };
    let cut = end < rest.len() && !piece.ends_with('.');
    if cut {
        out.push('…');
    }
    out.into_boxed_str()
}

/// Where the sentence holding `at` starts.
pub(crate) fn sentence_start(text: &str, at: usize) -> usize {
    let before = text.get(..at).unwrap_or_default();
    before
        .rfind(". ")
        .map(|i| i + 2)
        .into_iter()
        .chain(before.rfind('\n').map(|i| i + 1))
        .max()
        .unwrap_or(0)
}

/// Where the sentence holding `at` ends: at its `. ` or its line's end, whichever comes
/// first (as [`sentence_start`] starts one at a line's start).
pub(crate) fn sentence_end(text: &str, at: usize) -> usize {
    let after = text.get(at..).unwrap_or_default();
    after
        .find(". ")
        .into_iter()
        .chain(after.find('\n'))
        .min()
        .map_or(text.len(), |i| at + i)
}
