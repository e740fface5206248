//! Phrases of a description that say what a repeat does: "This operation is
//! idempotent", "must be unique", "sends an email", "are appended to". Every list is one
//! trie, walked once over each text from each word's start; each list counts once per
//! text, at its first place, and a sentence about a key or opening with a condition is
//! weighed as such.

use std::sync::OnceLock;

use foldhash::HashMap;

use super::found::{Found, Kind, Written, sentence_end, sentence_start, weight};
use super::trie::Trie;
use super::words::{one_of, words};
use super::{Cue, CueSource, Repeat, Words};

/// Phrases that state the effect of a repeat outright.
const SAYS_IDEMPOTENT: &[&str] = &[
    "is idempotent",
    "are idempotent",
    "idempotent operation",
    "idempotent request",
    "idempotent endpoint",
    "safe to retry",
    "safely retried",
    "can be retried safely",
    "has no effect if",
    "have no effect if",
    "no-op if",
    "does nothing if",
    "is a no-op",
    "if they are not already",
    "if it is not already",
    "if not already",
    "already added",
    "already assigned",
    "already attached",
    "already a member",
    "are not replaced",
    "return the same",
    "returns the same",
    // "Multiple requests for the same combination … will only create one record".
    "only create one",
    "only creates one",
];

/// `not already`, which says a repeat changes nothing when a condition opens it (`if the
/// users are not already members, they become members`): the request acts only where
/// its effect is not there yet. Without one (`an item not already in the list`) it says
/// nothing of a repeat.
const IF_NOT_ALREADY: &[&str] = &["not already"];

/// Phrases that say the request changes nothing at all: a statement of the whole
/// request, which decides that it reads unless a statement of a write stands against it
/// (see `decide`).
const CHANGES_NOTHING: &[&str] = &[
    "not saved anywhere",
    // Longer than "are not saved", which starts at the same word.
    "are not saved anywhere",
    "is not saved anywhere",
    "is a dry run",
    "no changes are made",
    "without making any changes",
];

/// Phrases that say something is not changed: a read's words, which weigh like a
/// summary's verb, since the sentence may speak of one thing a write leaves alone ("the
/// card number is not saved", "this does not modify the original").
const CHANGES_SOMETHING_NOT: &[&str] = &[
    "are not saved",
    "is not saved",
    "not persisted",
    "dry-run",
    "does not modify",
];

/// Phrases that deny it.
const SAYS_NOT_IDEMPOTENT: &[&str] = &[
    "not idempotent",
    "non-idempotent",
    "nonidempotent",
    "isn't idempotent",
    "is never idempotent",
];

/// Phrases saying that a second identical create is refused: the name it creates must be
/// unique, or the thing already exists.
const REFUSES_DUPLICATE: &[&str] = &[
    "must be unique",
    "already exists",
    "already exist",
    "is already taken",
    "already in use",
    "duplicates are rejected",
    "duplicate names are not allowed",
];

/// Phrases of a value the server keeps unique, said of a request field that every request
/// sends ("A globally unique name for the container registry"): a second create with it
/// conflicts. Of a whole operation they say nothing ("each app gets a unique name" may be
/// one the server picks).
const UNIQUE_VALUE: &[&str] = &["unique name", "unique address"];

/// Phrases of a write that replaces what is there, or creates it once: an upsert.
const UPSERT: &[&str] = &[
    "create or update",
    "creates or updates",
    "create or replace",
    "creates or replaces",
    "add or update",
    "adds or updates",
    "add or replace",
    "adds or replaces",
    "insert or update",
    "update or create",
    "updates or creates",
    "is replaced",
    "are replaced",
    "will be replaced",
    "will be overwritten",
    "will overwrite",
    "overwrites the",
    "overwrites any",
    "is overwritten",
    "are overwritten",
    "replaces the",
    "replaces all",
    "replaces an existing",
];

/// Phrases of a write that attaches what already exists (`Apply an existing tag to an
/// article`): what is attached twice is attached once.
const ATTACHES_EXISTING: &[&str] = &[
    "add an existing",
    "adds an existing",
    "add existing",
    "adds existing",
    "apply an existing",
    "applies an existing",
    "attach an existing",
    "attaches an existing",
];

/// Phrases of a write that sends a message, an email or a notification each time.
const SENDS: &[&str] = &[
    "sends an email",
    "send an email",
    "sends a message",
    "send a message",
    "sends an sms",
    "sends a notification",
    "send a notification",
    "sends notifications",
    "triggers notifications",
    "triggers [notifications]",
    "an email is sent",
    "email will be sent",
    "a notification is sent",
    "notifies the",
    "sends the invitation",
    "sends an invitation",
    "receive an email",
    "receives an email",
    "will be notified",
    "be notified of",
];

/// Phrases that say no message is sent, which cancel [`SENDS`].
const SENDS_NOTHING: &[&str] = &[
    "does not send",
    "without sending",
    "no email is sent",
    "no notification",
    "not send",
];

/// Phrases of a write that makes a new record whose name the server picks: each request
/// adds one more.
const ADDS_NEW: &[&str] = &[
    "auto-generated",
    "autogenerated",
    "a new record",
    "generate a new",
    "generates a new",
];

/// Phrases that say the request creates something, wherever they stand (`If funding
/// instructions do not yet exist, new funding instructions will be created`): a write,
/// whatever the lead verb says.
const CREATES: &[&str] = &[
    "will be created",
    "is created",
    "are created",
    "gets created",
];

/// Phrases of a write that adds to what is there each time: appending, counting and
/// moving money are what a repeat compounds, whatever else the operation does.
const COMPOUNDS: &[&str] = &[
    "increments",
    "appends",
    "appended to",
    "each time you call",
    "every call creates",
    "each call creates",
    // Money moved is moved again: "move available balance between ledgers".
    "move funds",
    "moves funds",
    "move money",
    "moves money",
    "move available balance",
    "moves available balance",
];

/// The phrase lists, in one trie: which list a phrase is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phrase {
    Idempotent,
    /// [`IF_NOT_ALREADY`]: [`Phrase::Idempotent`] after a condition, else nothing.
    IfNotAlready,
    NotIdempotent,
    RefusesDuplicate,
    /// [`UNIQUE_VALUE`]: [`Phrase::RefusesDuplicate`] in a request field, else nothing.
    UniqueValue,
    Upsert,
    AttachesExisting,
    Sends,
    SendsNothing,
    AddsNew,
    Compounds,
    Creates,
    ChangesNothing,
    ChangesSomethingNot,
}

/// Every list, with the kind of its phrases, in the trie's order (of a phrase in two
/// lists, the first's kind counts).
const LISTS: [(&[&str], Phrase); 14] = [
    (SAYS_IDEMPOTENT, Phrase::Idempotent),
    (IF_NOT_ALREADY, Phrase::IfNotAlready),
    (SAYS_NOT_IDEMPOTENT, Phrase::NotIdempotent),
    (REFUSES_DUPLICATE, Phrase::RefusesDuplicate),
    (UNIQUE_VALUE, Phrase::UniqueValue),
    (UPSERT, Phrase::Upsert),
    (ATTACHES_EXISTING, Phrase::AttachesExisting),
    (SENDS, Phrase::Sends),
    (SENDS_NOTHING, Phrase::SendsNothing),
    (ADDS_NEW, Phrase::AddsNew),
    (COMPOUNDS, Phrase::Compounds),
    (CREATES, Phrase::Creates),
    (CHANGES_NOTHING, Phrase::ChangesNothing),
    (CHANGES_SOMETHING_NOT, Phrase::ChangesSomethingNot),
];

/// Every list's phrases in one trie, with the list of each.
fn trie() -> &'static (Trie, Vec<Phrase>) {
    static PHRASES: OnceLock<(Trie, Vec<Phrase>)> = OnceLock::new();
    PHRASES.get_or_init(|| Trie::of_lists(&LISTS))
}

/// The texts of one description already read for phrases, with what each holds: the
/// responses and fields that many operations share (`$ref`ed) are read once.
#[derive(Default)]
pub(crate) struct Seen {
    texts: HashMap<Box<str>, Vec<(Phrase, usize)>>,
    /// What [`already_done`] found in each response text.
    done: HashMap<Box<str>, Option<usize>>,
}

impl Seen {
    /// [`already_done`] of a response text, read once per description.
    pub(super) fn already_done(&mut self, text: &str) -> Option<usize> {
        if let Some(&known) = self.done.get(text) {
            return known;
        }
        let found = already_done(text);
        if self.done.len() < SEEN_LIMIT && text.len() <= SEEN_TEXT_LIMIT {
            self.done.insert(text.into(), found);
        }
        found
    }
}

/// How many texts [`Seen`] keeps: enough for every shared response and field of a large
/// description, and a bound on a hostile one.
const SEEN_LIMIT: usize = 4096;

/// The longest text [`Seen`] keeps a copy of: shared responses and fields are short, and
/// a long one is read again rather than copied.
const SEEN_TEXT_LIMIT: usize = 4096;

/// The phrases of a summary or description that say what a repeat does, each list
/// counted once per text, at its first place.
pub(super) fn phrases(text: &Written<'_>, source: CueSource, out: &mut Vec<Found>) {
    phrases_among(text, source, None, None, out);
}

/// [`phrases`], of the lists in `only` when it is given, and through `seen` when the
/// text is one that many operations share.
pub(super) fn phrases_among(
    text: &Written<'_>,
    source: CueSource,
    only: Option<&[Phrase]>,
    seen: Option<&mut Seen>,
    out: &mut Vec<Found>,
) {
    let first = if let Some(seen) = seen {
        if let Some(first) = seen.texts.get(text.text) {
            first.clone()
        } else {
            let first = first_phrases(text.text);
            if seen.texts.len() < SEEN_LIMIT && text.text.len() <= SEEN_TEXT_LIMIT {
                seen.texts.insert(text.text.into(), first.clone());
            }
            first
        }
    } else {
        first_phrases(text.text)
    };
    weigh(text, source, only, &first, out);
}

/// Each list's first phrase in `text`, with where it starts: none about a key, and no
/// "does not send" that holds for some callers only.
fn first_phrases(text: &str) -> Vec<(Phrase, usize)> {
    let (trie, kinds) = trie();
    let mut first: Vec<(Phrase, usize)> = Vec::new();
    for (phrase, start) in trie.find_iter(text) {
        let Some(&kind) = kinds.get(phrase as usize) else {
            continue;
        };
        // Each list counts once, at its first place: a later phrase of a list already
        // found is not read again.
        let counted = |kind| first.iter().any(|(k, _)| *k == kind);
        if counted(kind) || (kind == Phrase::IfNotAlready && counted(Phrase::Idempotent)) {
            continue;
        }
        let kind = match kind {
            Phrase::IfNotAlready if after_condition(text, start) => Phrase::Idempotent,
            Phrase::IfNotAlready => continue,
            kind => kind,
        };
        // A sentence about a key says what the key does, not what the operation does.
        if matches!(kind, Phrase::RefusesDuplicate | Phrase::Idempotent)
            && about_a_key(text, start, kind == Phrase::RefusesDuplicate)
        {
            continue;
        }
        // "The tag must already exist in the workspace": what the request needs, not a
        // duplicate it refuses.
        if kind == Phrase::RefusesDuplicate && required_before(text, start) {
            continue;
        }
        // "For Enterprise Managed Users, this endpoint does not send invitations": a
        // message left out for some callers is still sent to the others.
        if kind == Phrase::SendsNothing && conditional(text, start) {
            continue;
        }
        // "It replaces the Plans API": which API to call, not what a request replaces.
        if kind == Phrase::Upsert && replaces_an_api(text, start) {
            continue;
        }
        first.push((kind, start));
    }
    first
}

/// The cues of the phrases `first` found in `text`.
fn weigh(
    text: &Written<'_>,
    source: CueSource,
    only: Option<&[Phrase]>,
    first: &[(Phrase, usize)],
    out: &mut Vec<Found>,
) {
    let has = |kind| first.iter().any(|(k, _)| *k == kind);
    for &(kind, start) in first {
        if only.is_some_and(|only| !only.contains(&kind)) {
            continue;
        }
        let (says, weight, kind) = match kind {
            Phrase::Idempotent if !has(Phrase::NotIdempotent) => {
                (Repeat::Idempotent, weight::STATED, Kind::Qualifier)
            }
            Phrase::NotIdempotent => (Repeat::NonIdempotent, weight::STATED, Kind::Qualifier),
            // "annotations are appended to those that already exist": what is appended
            // is no refused duplicate.
            Phrase::RefusesDuplicate if !has(Phrase::Compounds) => {
                (Repeat::Idempotent, weight::STATED, Kind::Qualifier)
            }
            Phrase::UniqueValue if source == CueSource::RequestField && !has(Phrase::Compounds) => {
                (Repeat::Idempotent, weight::STATED, Kind::Qualifier)
            }
            Phrase::Upsert | Phrase::AttachesExisting => {
                (Repeat::Idempotent, weight::QUALIFIER, Kind::Qualifier)
            }
            // A message sent each time is a second effect of every repeat.
            Phrase::Sends if !has(Phrase::SendsNothing) => {
                (Repeat::NonIdempotent, weight::STATED, Kind::Qualifier)
            }
            // "When `dry_run` is true, no changes are made": nothing changes for some
            // requests only, and the others write; it weighs as a read's verb then.
            Phrase::ChangesNothing if !has_condition(text.text, start) => {
                (Repeat::Read, weight::STATED, Kind::Action)
            }
            Phrase::ChangesNothing => (Repeat::Read, weight::SUMMARY, Kind::Action),
            Phrase::ChangesSomethingNot => (Repeat::Read, weight::SUMMARY, Kind::Action),
            Phrase::AddsNew => (Repeat::NonIdempotent, weight::ADDS_NEW, Kind::Qualifier),
            Phrase::Compounds => (Repeat::NonIdempotent, weight::STATED, Kind::Qualifier),
            // "If the collection does not exist, it will be created": created once, then
            // found; a write that a repeat does not repeat.
            Phrase::Creates if conditional(text.text, start) => {
                (Repeat::Idempotent, weight::DESCRIPTION, Kind::Action)
            }
            Phrase::Creates => (Repeat::NonIdempotent, weight::DESCRIPTION, Kind::Action),
            _ => continue,
        };
        out.push(Found {
            cue: Cue {
                says,
                source,
                words: Words::quote(text, sentence_start(text.text, start)),
                loc: Some(text.loc.loc()),
                weight,
            },
            kind,
        });
    }
}

/// Words that may come between `already` and what was done (`has already been merged`).
const ALREADY_FILLERS: &[&str] = &["been", "being"];

/// Where a response's description says that what the request asks for was already done
/// (`Response when already merged`, `if the item has already been archived`): the
/// answer to a repeat, which then changes nothing. A state that is still under way
/// (`already in progress`) is no such answer.
fn already_done(text: &str) -> Option<usize> {
    let all: Vec<(usize, &str)> = words(text).collect();
    all.iter().enumerate().find_map(|(i, &(at, word))| {
        if !word.eq_ignore_ascii_case("already") {
            return None;
        }
        let (_, done) = all
            .get(i + 1..)?
            .iter()
            .find(|(_, w)| !one_of(w, ALREADY_FILLERS))?;
        let lower = done.to_ascii_lowercase();
        let participle = lower.len() > 4 && lower.ends_with("ed") && lower != "needed";
        (participle || matches!(lower.as_str(), "exists" | "exist" | "present")).then_some(at)
    })
}

/// Whether the sentence around `at` speaks of a key or token (`the idempotency key
/// must be unique`, `a unique token used to ensure that multiple calls … do not result
/// in multiple transactions`): a unique key is not a refused duplicate, and a key that
/// makes repeats safe does not make the operation idempotent without it.
/// With `idempotency_word`, a sentence that says "idempotency" is about a key too.
fn about_a_key(text: &str, at: usize, idempotency_word: bool) -> bool {
    let start = sentence_start(text, at);
    let end = sentence_end(text, at);
    let sentence = text
        .get(start..end)
        .unwrap_or_default()
        .to_ascii_lowercase();
    ["key", "token", "request id", "request_id"]
        .iter()
        .any(|w| sentence.contains(w))
        || (idempotency_word && sentence.contains("idempoten"))
}

/// Whether the words just before `at` make what follows a requirement: `must`, `should`,
/// `shall`, or `needs to` / `has to` (`The tag must already exist`).
fn required_before(text: &str, at: usize) -> bool {
    let mut last = words_of(before_in_sentence(text, at)).into_iter().rev();
    let is = |w: Option<&str>, list: &[&str]| w.is_some_and(|w| one_of(w, list));
    let first = last.next();
    is(first, &["must", "should", "shall"])
        || (is(first, &["to"]) && is(last.next(), &["need", "needs", "has", "have"]))
}

/// How many words before a phrase are read for the condition that opens its clause.
const CONDITION_WINDOW: usize = 8;

/// Whether `if` or `when` comes shortly before `at` in its sentence: `…, if the users
/// are not already members`. A list item tells of one option among others (`- AddUnique:
/// add an element only if it's not already present`, beside `- Increment`), not of the
/// whole operation.
fn after_condition(text: &str, at: usize) -> bool {
    let before = before_in_sentence(text, at);
    if before.trim_start().starts_with(['-', '*', '+', '•']) {
        return false;
    }
    words_of(before)
        .iter()
        .rev()
        .take(CONDITION_WINDOW)
        .any(|w| w.eq_ignore_ascii_case("if") || w.eq_ignore_ascii_case("when"))
}

/// The part of the sentence holding `at` that comes before it.
fn before_in_sentence(text: &str, at: usize) -> &str {
    text.get(sentence_start(text, at)..at).unwrap_or_default()
}

/// The words of `text`, in order.
fn words_of(text: &str) -> Vec<&str> {
    words(text).map(|(_, w)| w).collect()
}

/// Whether the few words from `at`, in its sentence, name an API or an endpoint: a
/// replacement of those tells of the API's versions.
fn replaces_an_api(text: &str, at: usize) -> bool {
    let sentence = text.get(at..sentence_end(text, at)).unwrap_or_default();
    words(sentence)
        .take(REPLACED_WITHIN)
        .any(|(_, w)| one_of(w, &["api", "apis", "endpoint", "endpoints"]))
}

/// How many words from a replacement's start may name what is replaced.
const REPLACED_WITHIN: usize = 6;

/// Whether the sentence holding `at` opens with a condition (`For …,`, `If …`, `When …`,
/// `Unless …`): what it says holds for some requests only.
fn conditional(text: &str, at: usize) -> bool {
    let sentence = text.get(sentence_start(text, at)..).unwrap_or_default();
    let first = sentence
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or_default();
    one_of(first, &["for", "if", "when", "unless"])
}

/// Words that make what a sentence says hold for some requests only.
const CONDITIONS: &[&str] = &["if", "when", "unless", "whether", "only"];

/// Whether the sentence holding `at` holds a condition anywhere (`The request is a dry
/// run if dry_run is true`).
fn has_condition(text: &str, at: usize) -> bool {
    let sentence = text
        .get(sentence_start(text, at)..sentence_end(text, at))
        .unwrap_or_default();
    words(sentence).any(|(_, w)| one_of(w, CONDITIONS))
}

#[cfg(test)]
mod tests {
    use super::{LISTS, trie};

    /// Every phrase of every list is found in a text that says just it, as its own list's
    /// (or, for a phrase in two lists, the first's).
    #[test]
    fn every_phrase_is_found_as_written() {
        let (trie, kinds) = trie();
        let all: Vec<&str> = LISTS.iter().flat_map(|(l, _)| l.iter().copied()).collect();
        for (index, phrase) in all.iter().enumerate() {
            let first = all.iter().position(|p| p.eq_ignore_ascii_case(phrase));
            let found: Vec<(u32, usize)> = trie.find_iter(phrase).collect();
            let expected = first.and_then(|f| u32::try_from(f).ok());
            assert_eq!(found.first().map(|f| f.1), Some(0), "{phrase}");
            assert_eq!(
                found.first().map(|f| kinds[f.0 as usize]),
                expected.map(|e| kinds[e as usize]),
                "{phrase} ({index})"
            );
        }
    }
}
