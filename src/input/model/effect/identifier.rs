//! An operationId read beside its path: one that restates the path (`transferGet` for
//! `/transfer/get`) or names the path's resource before its verb (`invite_revoke` for
//! `/invites/{code}`) says its action where a reader finds it, not in its first word.

use super::words::{self, identifier_word_iter};

/// Whether the words of `id` are words of the literal segments of the path, in their
/// order (`transferRecurringGet`: `/transfer/recurring/get`).
pub(super) fn restates_path(id: &str, path: &[&str]) -> bool {
    let mut path_words = path.iter();
    let mut id_words = identifier_word_iter(id).peekable();
    id_words.peek().is_some() && id_words.all(|word| path_words.any(|p| same_noun(p, word)))
}

/// How many words of a path's literal segments are read.
pub(super) const PATH_WORDS: usize = 24;

/// The words of the literal segments of `path` (its parameters left out), the first
/// [`PATH_WORDS`] of them, on the stack: read once per operationId.
pub(super) fn literal_words<'p>(path: &'p str, out: &mut [&'p str; PATH_WORDS]) -> usize {
    let words = crate::input::model::request_path(path)
        .split('/')
        .filter(|segment| !segment.contains('{'))
        .flat_map(identifier_word_iter);
    let mut count = 0;
    for (slot, word) in out.iter_mut().zip(words) {
        *slot = word;
        count += 1;
    }
    count
}

/// Whether `path` holds `word` in any case (a quick look before its words are read).
pub(super) fn names_in(path: &str, word: &str) -> bool {
    let (path, word) = (path.as_bytes(), word.as_bytes());
    !word.is_empty()
        && path
            .windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word))
}

/// Whether two words name the same thing, one perhaps in the plural: `poll`, `polls`.
fn same_noun(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long.get(..short.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(short))
        && matches!(long.get(short.len()..), Some("" | "s" | "S"))
}

/// `id` from its verb, past the words before it that name the path's resources
/// (`invite_revoke` for `/invites/{code}` is read from `revoke`): a resource named first,
/// then a verb, is an identifier written resource first, not a verb.
pub(super) fn past_resources<'i>(id: &'i str, path: &[&str]) -> &'i str {
    let mut words = identifier_word_iter(id).peekable();
    let mut from = id;
    while let Some(word) = words.next() {
        let Some(&next) = words.peek() else {
            break;
        };
        if !(path.iter().any(|p| same_noun(p, word)) && words::base(next).is_some()) {
            break;
        }
        let at = next.as_ptr().addr() - id.as_ptr().addr();
        from = id.get(at..).unwrap_or(from);
    }
    from
}
