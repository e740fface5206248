//! A write that acts only on what it has not done yet: "Capture the funds of an existing
//! uncaptured PaymentIntent", "Publishes an unpublished codespace". The text names the
//! state the request needs with the request's own verb, undone; once done, the request no
//! longer applies, so a repeat is refused and the second request leaves the state the
//! first left (the labels' convention: idempotent, "even if it answers 404 or 409").
//!
//! A pending object of a verb that settles it ("Submits a pending review") is likewise not
//! yet done; a verb that makes or sends ("Creates a pending review", "Resends a pending
//! invitation") does it again.
//!
//! Only the verb that leads the summary or the description counts, in its own word:
//! "uncaptured" beside `capture`. A state of another verb ("a payment that has not yet been
//! captured", beside `cancel`) says nothing of what this request does to it.

use super::found::{Found, Kind, Written, sentence_start, weight};
use super::words;
use super::{Cue, CueSource, Repeat, Words};

/// The cue of a summary or description that names the object of its lead verb (one of
/// `verbs`) as not yet acted on (`un` + the verb's participle), if one does.
pub(super) fn not_yet_done(texts: &[(&Written<'_>, CueSource)], verbs: &[&str]) -> Option<Found> {
    for (text, source) in texts {
        let Some(at) = undone_at(text.text, verbs).or_else(|| pending_object_at(text.text, verbs))
        else {
            continue;
        };
        return Some(Found {
            cue: Cue {
                says: Repeat::Idempotent,
                source: *source,
                words: Words::quote(text, sentence_start(text.text, at)),
                loc: Some(text.loc.loc()),
                weight: weight::STATED,
            },
            kind: Kind::Qualifier,
        });
    }
    None
}

/// Where `text` first holds a word `un` + the participle of one of `verbs`, in any case:
/// only the words that start with `u` are read, found a vector of bytes at a time.
fn undone_at(text: &str, verbs: &[&str]) -> Option<usize> {
    if verbs.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    memchr::memchr2_iter(b'u', b'U', bytes).find(|&start| {
        // Most `u`s are inside a word: those are passed over before the word is read.
        let starts_word = start
            .checked_sub(1)
            .and_then(|before| bytes.get(before))
            .is_none_or(|b| !b.is_ascii_alphanumeric());
        if !starts_word {
            return false;
        }
        let word = text
            .get(start..)
            .and_then(|rest| rest.get(..word_len(rest.as_bytes())))
            .unwrap_or_default();
        strip_un(word).is_some_and(|rest| verbs.iter().any(|verb| participle_of(rest, verb)))
    })
}

/// Where `text` has one of `verbs` act on a pending object ("Submits a pending review",
/// "Approve the pending deployments"): what is pending is not yet done, and the request
/// does it. Only a verb that moves a thing out of pending ([`SETTLES`]) counts: "Creates a
/// pending review" makes another each time, "Resends a pending invitation" sends again.
fn pending_object_at(text: &str, verbs: &[&str]) -> Option<usize> {
    let settles =
        |w: &str| words::one_of(w, verbs) && SETTLES.iter().any(|s| words::inflects(w, s));
    let all: Vec<(usize, &str)> = words::words(text).take(PENDING_WITHIN).collect();
    all.windows(3).find_map(|window| {
        let [(at, verb), (_, next), (_, after)] = window else {
            return None;
        };
        let pending = |w: &str| w.eq_ignore_ascii_case("pending");
        let article = words::one_of(next, &["a", "an", "the", "all", "any"]);
        (settles(verb) && (pending(next) || (article && pending(after)))).then_some(*at)
    })
}

/// Verbs that settle what is pending: once settled, it is pending no more.
const SETTLES: &[&str] = &[
    "submit", "approve", "reject", "accept", "decline", "deny", "confirm", "finalize", "complete",
    "review", "merge", "apply", "commit", "dismiss", "verify",
];

/// How many words of a text are read for a verb of a pending object: it leads.
const PENDING_WITHIN: usize = 12;

/// The length of the run of ASCII letters that opens `bytes`.
fn word_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(bytes.len())
}

/// `word` without its `un`, in any case, when it has one and more after it.
fn strip_un(word: &str) -> Option<&str> {
    let head = word.get(..2)?;
    let rest = word.get(2..)?;
    (head.eq_ignore_ascii_case("un") && rest.len() >= 3).then_some(rest)
}

/// Whether `word` is the past participle of `verb` (as written: `captures`, `Capture`,
/// `submit`), in any case: `captured`, `published`, `submitted`.
fn participle_of(word: &str, verb: &str) -> bool {
    let verb = verb.to_ascii_lowercase();
    let word = word.to_ascii_lowercase();
    let bases = [
        Some(verb.as_str()),
        verb.strip_suffix("es"),
        verb.strip_suffix('s'),
    ];
    bases.into_iter().flatten().any(|base| {
        let Some(rest) = word.strip_prefix(base) else {
            return false;
        };
        // `capture` → `captured`; `publish` → `published`; `submit` → `submitted`.
        (rest == "d" && base.ends_with('e'))
            || rest == "ed"
            || base
                .chars()
                .last()
                .is_some_and(|last| rest.strip_prefix(last) == Some("ed"))
    })
}

#[cfg(test)]
mod tests {
    use super::{participle_of, pending_object_at, undone_at};

    #[test]
    fn a_pending_object_of_the_lead_verb_is_not_yet_done() {
        let text = "Submits a pending review for a pull request.";
        assert_eq!(pending_object_at(text, &["Submits"]), Some(0));
        assert_eq!(
            pending_object_at("Approve pending deployments", &["Approve"]),
            Some(0)
        );
        // A verb that makes or sends its object, another verb's object, or no pending one.
        assert_eq!(
            pending_object_at("Creates a pending review", &["Creates"]),
            None
        );
        assert_eq!(
            pending_object_at("Resends a pending invitation", &["Resends"]),
            None
        );
        assert_eq!(
            pending_object_at("Submits a pending review", &["cancel"]),
            None
        );
        assert_eq!(pending_object_at("Submits a review", &["Submits"]), None);
    }

    #[test]
    fn an_undone_object_is_found_in_any_case_at_a_word_start() {
        let text = "Capture the funds of an existing uncaptured PaymentIntent.";
        assert_eq!(undone_at(text, &["Capture"]), Some(33));
        assert_eq!(undone_at("An UNCAPTURED charge", &["captures"]), Some(3));
        let text = "Publishes an Unpublished codespace";
        assert_eq!(undone_at(text, &["Publishes"]), Some(13));
        assert_eq!(
            undone_at("an unsubmitted form", &["create", "submit"]),
            Some(3)
        );
        // Not at a word's start, not undone, another verb's, or no verb.
        assert_eq!(undone_at("a reuncaptured charge", &["capture"]), None);
        assert_eq!(undone_at("a captured charge", &["capture"]), None);
        assert_eq!(undone_at("an uncapturable charge", &["capture"]), None);
        assert_eq!(undone_at("an uncaptured charge", &["cancel"]), None);
        assert_eq!(undone_at("an uncaptured charge", &[]), None);
        assert_eq!(undone_at("un", &["run"]), None);
    }

    #[test]
    fn a_participle_is_the_verb_done() {
        for (word, verb) in [
            ("captured", "Capture"),
            ("captured", "captures"),
            ("published", "Publishes"),
            ("submitted", "submit"),
            ("CONFIRMED", "confirm"),
        ] {
            assert!(participle_of(word, verb), "{word} {verb}");
        }
        for (word, verb) in [
            ("captured", "cancel"),
            ("capture", "capture"),
            ("capturing", "capture"),
            ("publishd", "publish"),
            ("d", ""),
        ] {
            assert!(!participle_of(word, verb), "{word} {verb}");
        }
    }
}
