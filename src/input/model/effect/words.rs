//! The words a careful reader takes an operation's effect from: the verb that leads its
//! summary, its operationId, its path's action, and the words of its texts and
//! identifiers, looked up in the tables of [`super::verbs`] and the lead-ins, carriers and
//! prefixes here.

use std::sync::OnceLock;

use super::Repeat;
use super::trie::Trie;
use super::verbs::{IDEMPOTENT, NON_IDEMPOTENT, READ};

/// Which way a verb leans, when it leans: `Creates` and `Applies` are `create` and
/// `apply`, in any case.
pub(crate) fn verb(word: &str) -> Option<Repeat> {
    // No verb is longer; a longer word is read no further. The word is walked once
    // through the verbs' trie, and each ending is tried from where its stem led: this runs
    // for every word near an operation's verbs.
    let bytes = word.as_bytes();
    let n = bytes.len();
    if n == 0 || n > LONGEST_VERB + 3 {
        return None;
    }
    let verbs = verbs();
    // `led[i]`: the node the first `i` bytes lead to; `walked`: how many bytes led on.
    let mut led = [0u16; LONGEST_VERB + 4];
    let mut walked = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let Some(next) = verbs.trie.step(led[i], b) else {
            break;
        };
        led[i + 1] = next;
        walked = i + 1;
    }
    let lean_of = |len: usize| {
        (len > 0 && len <= walked)
            .then(|| led[len])
            .and_then(|node| verbs.lean(node))
    };
    let ends_with =
        |suffix: &[u8]| n > suffix.len() && bytes[n - suffix.len()..].eq_ignore_ascii_case(suffix);
    lean_of(n)
        .or_else(|| {
            // `applies` is `apply`.
            let stem = n
                .checked_sub(3)
                .filter(|&stem| ends_with(b"ies") && stem <= walked)?;
            verbs
                .trie
                .step(led[stem], b'y')
                .and_then(|node| verbs.lean(node))
        })
        .or_else(|| ends_with(b"es").then(|| lean_of(n - 2)).flatten())
        .or_else(|| {
            (ends_with(b"s") && !ends_with(b"ss"))
                .then(|| lean_of(n - 1))
                .flatten()
        })
}

/// [`base`] of a word read without the bytes of `skip` (`create-fork` read as
/// `createfork`).
pub(crate) fn base_any_case_without(word: &str, skip: &[u8]) -> Option<Repeat> {
    let verbs = verbs();
    let mut node = 0;
    for b in word.bytes().filter(|b| !skip.contains(b)) {
        node = verbs.trie.step(node, b)?;
    }
    verbs.lean(node)
}

/// The longest verb of the tables, in bytes.
const LONGEST_VERB: usize = 24;

/// Which way a verb leans when written in its base form only (`create`, not `creates`),
/// in any case: how identifiers and paths write verbs, where `charges` is a noun.
pub(crate) fn base(word: &str) -> Option<Repeat> {
    base_any_case_without(word, &[])
}

/// The verbs of the tables, in one trie, with the way each leans.
struct Verbs {
    trie: Trie,
    leans: Vec<Repeat>,
}

impl Verbs {
    /// How the verb that ends at `node` leans (none at the root, where no verb ends).
    fn lean(&self, node: u16) -> Option<Repeat> {
        let verb = self.trie.ends_at(node)?;
        self.leans.get(verb as usize).copied()
    }
}

/// The tables' verbs: a verb in two tables leans as the earlier of READ, IDEMPOTENT,
/// NON_IDEMPOTENT (of equal phrases the trie reports the first).
fn verbs() -> &'static Verbs {
    static VERBS: OnceLock<Verbs> = OnceLock::new();
    VERBS.get_or_init(|| {
        let (trie, leans) = Trie::of_lists(&[
            (READ, Repeat::Read),
            (IDEMPOTENT, Repeat::Idempotent),
            (NON_IDEMPOTENT, Repeat::NonIdempotent),
        ]);
        Verbs { trie, leans }
    })
}

/// Words an operation's text puts before its verb ("This endpoint allows you to …").
const LEAD_IN: &[&str] = &[
    "this",
    "endpoint",
    "operation",
    "api",
    "method",
    "call",
    "route",
    "resource",
    "allows",
    "allow",
    "lets",
    "let",
    "enables",
    "you",
    "to",
    "can",
    "will",
    "please",
    "use",
    "used",
    "is",
    "we",
    "the",
    "a",
    "an",
    "bulk",
    "batch",
    "asynchronously",
    "synchronously",
    "manually",
    "permanently",
    "immediately",
    "partially",
    "fully",
    "beta",
    "deprecated",
    "experimental",
    "admin",
    "public",
    "internal",
];

/// The first verb of a sentence, after the words that lead into it: `Searches customers`
/// → `Searches`; `Allows you to update a project` → `update`; `This endpoint lists …` →
/// `lists`. `None` when the sentence does not start with a verb of the tables (`User's
/// profile`), so that a noun is never taken for one. A lead-in word that is also a verb
/// (`preview`, `use`) is a verb when nothing but lead-ins comes before it and a known
/// verb does not follow.
///
/// "Send a POST request to the `/categories/get` endpoint" tells how to call the
/// operation, not what it does: such a sentence leads with no verb.
pub(crate) fn lead_verb(text: &str) -> Option<(usize, &str)> {
    let mut all = prose_words(text);
    for (start, word) in all.by_ref().take(8) {
        if is_lead_in(word) {
            continue;
        }
        verb(word)?;
        let calls = CALLING.iter().any(|c| inflects(word, c)) && calls_the_api(all);
        return (!calls).then_some((start, word));
    }
    None
}

/// Verbs that, before `a request to`, say how an operation is called.
const CALLING: &[&str] = &["send", "make", "submit", "issue"];

/// Words between a calling verb and `request`: an article, or a method (`a POST request`).
const CALL_FILLERS: &[&str] = &[
    "a", "an", "the", "get", "post", "put", "patch", "delete", "head", "http", "https",
];

/// Whether the words after a calling verb are `[a] [POST] request(s) to`: the API is
/// called (`Send a request to the /categories/get endpoint`), nothing is sent by it
/// (`Send a friend request` sends one).
fn calls_the_api<'t>(mut after: impl Iterator<Item = (usize, &'t str)>) -> bool {
    for (_, word) in after.by_ref().take(CALL_FILLERS_AT_MOST + 1) {
        if one_of(word, &["request", "requests"]) {
            return after
                .next()
                .is_some_and(|(_, w)| w.eq_ignore_ascii_case("to"));
        }
        if !one_of(word, CALL_FILLERS) {
            return false;
        }
    }
    false
}

/// How many fillers may stand between a calling verb and `request`.
const CALL_FILLERS_AT_MOST: usize = 2;

/// Whether `word` (in any case) is one of [`LEAD_IN`]: looked up among the lead-ins of
/// its length, of which there are few, since this runs for the first words of every
/// summary and description.
fn is_lead_in(word: &str) -> bool {
    static BY_LENGTH: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    let by_length = BY_LENGTH.get_or_init(|| {
        let longest = LEAD_IN.iter().map(|w| w.len()).max().unwrap_or(0);
        let mut table = vec![Vec::new(); longest + 1];
        for w in LEAD_IN {
            table[w.len()].push(*w);
        }
        table
    });
    by_length
        .get(word.len())
        .is_some_and(|list| one_of(word, list))
}

/// Whether `word` is one of `list`, in any case.
pub(crate) fn one_of(word: &str, list: &[&str]) -> bool {
    list.iter().any(|l| l.eq_ignore_ascii_case(word))
}

/// Whether `word` is `base` or `base` with an `s` or `es` ending, in any case: `runs`,
/// `executes`, `processes` are `run`, `execute`, `process`.
pub(crate) fn inflects(word: &str, base: &str) -> bool {
    let head = word.get(..base.len());
    let tail = word.get(base.len()..).unwrap_or_default();
    head.is_some_and(|h| h.eq_ignore_ascii_case(base))
        && (tail.is_empty() || tail.eq_ignore_ascii_case("s") || tail.eq_ignore_ascii_case("es"))
}

/// The words of a text with their byte offsets: runs of ASCII letters (an apostrophe
/// ends a word, so `user's` gives `user`), with HTML tags passed over.
pub(crate) fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    words_passing::<false>(text)
}

/// [`words`] of prose: an inline code span (`` `/transfer/get` ``) names something, it is
/// no word of the sentence, so "The `/transfer/get` endpoint fetches …" leads with
/// `fetches`.
fn prose_words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    words_passing::<true>(text)
}

/// How far a code span is looked for its closing backtick.
const CODE_SPAN_LIMIT: usize = 200;

/// [`words`], passing over code spans too when `CODE` is set.
fn words_passing<const CODE: bool>(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() && !bytes[i].is_ascii_alphabetic() {
            // An HTML tag (`<p>`, `</code>`) is markup, not words.
            let close = match bytes[i] {
                b'<' => bytes[i..].iter().take(40).position(|&b| b == b'>'),
                b'`' if CODE => bytes[i + 1..]
                    .iter()
                    .take(CODE_SPAN_LIMIT)
                    .position(|&b| b == b'`')
                    .map(|at| at + 1),
                _ => None,
            };
            i += close.unwrap_or(0) + 1;
        }
        if i >= bytes.len() {
            return None;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        Some((start, &text[start..i]))
    })
}

/// The words of an identifier: `searchSingleIndex` → search, Single, Index;
/// `chat_postMessage` → chat, post, Message; `repos/create-fork` → repos, create, fork;
/// `HTTPServer` → HTTP, Server.
pub(crate) fn identifier_words(id: &str) -> Vec<&str> {
    identifier_word_iter(id).collect()
}

/// [`identifier_words`], one at a time, with nothing allocated.
pub(crate) fn identifier_word_iter(id: &str) -> impl Iterator<Item = &str> {
    let bytes = id.as_bytes();
    let mut i = 0;
    let mut start: Option<usize> = None;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            let at = i;
            i += 1;
            if !b.is_ascii_alphanumeric() {
                if let Some(s) = start.take() {
                    return Some(&id[s..at]);
                }
                continue;
            }
            match start {
                None => start = Some(at),
                Some(s) => {
                    let prev = bytes[at - 1];
                    let next_lower = bytes.get(at + 1).is_some_and(u8::is_ascii_lowercase);
                    let boundary = (b.is_ascii_uppercase() && prev.is_ascii_lowercase())
                        || (b.is_ascii_uppercase() && prev.is_ascii_uppercase() && next_lower)
                        || (b.is_ascii_alphabetic() != prev.is_ascii_alphabetic());
                    if boundary {
                        start = Some(at);
                        return Some(&id[s..at]);
                    }
                }
            }
        }
        start.take().map(|s| &id[s..])
    })
}

/// Words before an identifier's verb that say how many or how, not what:
/// `batch-check`, `multi_search`, `streamed-list-objects`, `bulkDelete`.
pub(crate) const IDENTIFIER_PREFIXES: &[&str] = &[
    "batch", "bulk", "multi", "mass", "async", "streamed", "partial", "v",
];

/// Verbs whose effect is their object's: `runs search queries`, `executes a GraphQL
/// query`, `sends a list of check operations` read; `runs a workflow` does not.
const CARRIERS: &[&str] = &["run", "execute", "perform", "send", "submit", "process"];

/// Objects that make a carrier verb a read.
const READ_OBJECTS: &[&str] = &[
    "query", "queries", "search", "searches", "lookup", "lookups", "read", "reads", "check",
    "checks",
];

/// `resolve`, which changes a state (`Resolve an incident`) unless what it resolves is a
/// name: `Resolve an Event ID` to the project it belongs to, `resolveOrganizationShortId`,
/// a hostname to an address, which looks it up.
const RESOLVES: &[&str] = &["resolve"];

/// Names that `resolve` looks up.
const NAMES: &[&str] = &[
    "id",
    "ids",
    "identifier",
    "identifiers",
    "name",
    "names",
    "alias",
    "aliases",
    "address",
    "addresses",
    "url",
    "urls",
    "uri",
    "uris",
    "reference",
    "references",
    "hostname",
    "hostnames",
    "handle",
    "handles",
    "slug",
    "slugs",
];

/// Verbs whose effect is a read when one of their objects comes within the next few words.
const CARRIED: &[(&[&str], &[&str])] = &[(CARRIERS, READ_OBJECTS), (RESOLVES, NAMES)];

/// How many words after the verb are read for its object.
const OBJECT_WINDOW: usize = 5;

/// A read when `verb` carries its object (see [`CARRIED`]) and one of the words after it
/// names a read's object: `Runs multiple search queries`, `resolve Organization Event Id`.
/// A write's object beside a read's (`execute_read_write_transaction`, "runs a read-write
/// query") leaves the carrier what it is.
pub(crate) fn carried<'t>(verb: &str, after: impl IntoIterator<Item = &'t str>) -> Option<Repeat> {
    let (_, objects) = CARRIED
        .iter()
        .find(|(verbs, _)| verbs.iter().any(|v| inflects(verb, v)))?;
    let (mut read, mut write) = (false, false);
    for w in after.into_iter().take(OBJECT_WINDOW) {
        read |= one_of(w, objects);
        write |= one_of(w, WRITE_OBJECTS);
    }
    (read && !write).then_some(Repeat::Read)
}

/// Objects that keep a carrier verb a write even beside a read's object.
const WRITE_OBJECTS: &[&str] = &[
    "write",
    "writes",
    "mutation",
    "mutations",
    "update",
    "updates",
    "insert",
    "delete",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_verb_is_longer_than_the_longest_read() {
        for verb in READ.iter().chain(IDEMPOTENT).chain(NON_IDEMPOTENT) {
            assert!(verb.len() <= LONGEST_VERB, "{verb}");
        }
    }

    #[test]
    fn every_verb_leans_as_its_first_table_says_in_any_case() {
        for (list, repeat) in [
            (READ, Repeat::Read),
            (IDEMPOTENT, Repeat::Idempotent),
            (NON_IDEMPOTENT, Repeat::NonIdempotent),
        ] {
            for word in list {
                let first = if READ.contains(word) {
                    Repeat::Read
                } else if IDEMPOTENT.contains(word) {
                    Repeat::Idempotent
                } else {
                    repeat
                };
                assert_eq!(base(word), Some(first), "{word}");
                assert_eq!(base(&word.to_ascii_uppercase()), Some(first), "{word}");
                assert_eq!(verb(word), Some(first), "{word}");
            }
        }
        assert_eq!(base("creates"), None, "a base form only");
        assert_eq!(base_any_case_without("Create-Fork", b"-"), None);
        assert_eq!(
            base_any_case_without("up-date", b"-"),
            Some(Repeat::Idempotent)
        );
        assert_eq!(verb("Copies"), Some(Repeat::NonIdempotent));
        assert_eq!(verb("ies"), None);
        assert_eq!(verb("s"), None);
        assert_eq!(verb(""), None);
    }

    #[test]
    fn verbs_lean_by_their_base_form() {
        assert_eq!(verb("Searches"), Some(Repeat::Read));
        assert_eq!(verb("retrieves"), Some(Repeat::Read));
        assert_eq!(verb("Creates"), Some(Repeat::NonIdempotent));
        assert_eq!(verb("updates"), Some(Repeat::Idempotent));
        assert_eq!(verb("Applies"), None);
        assert_eq!(verb("access"), None, "a double s is not a plural");
        assert_eq!(verb("profile"), None);
    }

    #[test]
    fn the_lead_verb_comes_after_the_lead_in() {
        assert_eq!(
            lead_verb("Allows you to update a specific project"),
            Some((14, "update"))
        );
        assert_eq!(
            lead_verb("This endpoint lists all keys").map(|v| v.1),
            Some("lists")
        );
        assert_eq!(lead_verb("User's profile").map(|v| v.1), None);
        assert_eq!(lead_verb("Search customers").map(|v| v.1), Some("Search"));
        assert_eq!(lead_verb("").map(|v| v.1), None);
    }

    #[test]
    fn identifiers_split_at_case_and_punctuation() {
        assert_eq!(
            identifier_words("searchSingleIndex"),
            ["search", "Single", "Index"]
        );
        assert_eq!(
            identifier_words("chat_postMessage"),
            ["chat", "post", "Message"]
        );
        assert_eq!(
            identifier_words("repos/create-fork"),
            ["repos", "create", "fork"]
        );
        assert_eq!(identifier_words("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(identifier_words("v1Search"), ["v", "1", "Search"]);
    }
}
