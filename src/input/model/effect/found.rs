//! The parts every cue is made of: a text of the operation with its place, the cue found
//! in it with its kind, the weights of the places, and how a cue quotes its words.

use super::Cue;
use crate::input::source::{Node, Span};
use crate::location::Loc;

/// A text of the operation and where it is written.
pub(crate) struct Written<'a> {
    pub text: &'a str,
    pub loc: Place<'a>,
    /// The text as the description's tree keeps it, when it is the tree's own: a cue
    /// then keeps it and quotes it only when shown.
    pub shared: Option<&'a crate::input::source::Text>,
}

/// Where a text is written: a place already made, or the entry of a mapping whose place
/// is made only when a cue quotes the text (most texts give none).
pub(crate) enum Place<'a> {
    Made(std::borrow::Cow<'a, Loc>),
    Entry {
        parent: &'a Loc,
        key: &'static str,
        key_span: Span,
        value: &'a Node,
    },
}

impl Place<'_> {
    /// The place, made.
    pub(crate) fn loc(&self) -> Loc {
        match self {
            Place::Made(loc) => loc.as_ref().clone(),
            Place::Entry {
                parent,
                key,
                key_span,
                value,
            } => parent.entry(key, *key_span, value),
        }
    }
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
    let bytes = &rest.as_bytes()[..end];
    let mut stop = bytes
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .unwrap_or(end);
    if let Some(dot) = bytes[..stop].windows(2).position(|w| w == b". ") {
        stop = dot + 1;
    } else if end < rest.len()
        && let Some(space) = bytes[..stop].iter().rposition(|&b| b == b' ')
    {
        stop = space;
    }
    // Every cut is at an ASCII byte, so `stop` is a character boundary.
    let piece = rest.get(..stop).unwrap_or_default();
    let cut = end < rest.len() && !piece.ends_with('.');
    let mut out = String::with_capacity(piece.len() + if cut { 3 } else { 0 });
    if has_control(piece.as_bytes()) {
        out.extend(piece.chars().map(|c| if c.is_control() { ' ' } else { c }));
    } else {
        out.push_str(piece);
    }
    if cut {
        out.push('…');
    }
    out.into_boxed_str()
}

/// Whether UTF-8 `bytes` hold a control character: C0 and DEL are single bytes, C1
/// (U+0080 to U+009F) is `0xC2` and a byte from `0x80` to `0x9F`.
fn has_control(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().any(|(i, &b)| {
        b < 0x20
            || b == 0x7f
            || (b == 0xc2 && bytes.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)))
    })
}

/// How far from a phrase its sentence is looked for, either way: a sentence is shorter,
/// and a hostile text of one endless sentence full of phrases is read in linear time.
const SENTENCE_LIMIT: usize = 600;

/// Where the sentence holding `at` starts (at most [`SENTENCE_LIMIT`] bytes before it).
pub(crate) fn sentence_start(text: &str, at: usize) -> usize {
    let mut from = at.saturating_sub(SENTENCE_LIMIT);
    while from < at && !text.is_char_boundary(from) {
        from += 1;
    }
    let before = text.get(from..at).unwrap_or_default();
    before
        .rfind(". ")
        .map(|i| i + 2)
        .into_iter()
        .chain(before.rfind('\n').map(|i| i + 1))
        .max()
        .map_or(from, |i| from + i)
}

/// Where the sentence holding `at` ends: at its `. ` or its line's end, whichever comes
/// first (as [`sentence_start`] starts one at a line's start), at most
/// [`SENTENCE_LIMIT`] bytes after it.
pub(crate) fn sentence_end(text: &str, at: usize) -> usize {
    let mut to = at.saturating_add(SENTENCE_LIMIT).min(text.len());
    while to > at && !text.is_char_boundary(to) {
        to -= 1;
    }
    let after = text.get(at..to).unwrap_or_default();
    after
        .find(". ")
        .into_iter()
        .chain(after.find('\n'))
        .min()
        .map_or(to, |i| at + i)
}

#[cfg(test)]
mod tests {
    use super::{QUOTE_LIMIT, quote};

    #[test]
    fn a_quote_is_one_line_cut_at_a_sentence_or_a_word() {
        assert_eq!(&*quote("Creates a gist. Then more.", 0), "Creates a gist.");
        assert_eq!(&*quote("Search orders\nwith filters", 0), "Search orders");
        let long = "word ".repeat(40);
        let cut = quote(&long, 0);
        assert!(
            cut.ends_with('…') && cut.len() <= QUOTE_LIMIT + '…'.len_utf8(),
            "{cut}"
        );
        assert!(!cut.contains("  "), "{cut}");
    }

    #[test]
    fn control_characters_are_shown_as_spaces() {
        assert_eq!(
            &*quote("Sends\tan\u{7f}email\u{85}now.", 0),
            "Sends an email now."
        );
        // A character that only looks like one is kept.
        assert_eq!(&*quote("Créé à ¢", 0), "Créé à ¢");
    }
}
