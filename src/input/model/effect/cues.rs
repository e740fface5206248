//! The cues of one operation: each place its description speaks of what a repeat does,
//! read into a [`Cue`] with its words and place.

use std::borrow::Cow;

pub(crate) use super::found::Written;
use super::found::{Found, Kind, Place, QUOTE_LIMIT, sentence_start, weight};
use super::identifier::{PATH_WORDS, literal_words, names_in, past_resources, restates_path};
use super::phrases::{Phrase, Seen, phrases, phrases_among};
use super::target::{Target, lead_says, named_action, put_named, takes_by_position};
use super::undone::not_yet_done;
use super::words::{self, identifier_word_iter, lead_verb, verb};
use super::{Cue, CueSource, Repeat, Words};
use crate::input::model::Method;
use crate::location::Loc;

/// What the model knows of one operation that its effect can be read from.
pub(crate) struct Facts<'a> {
    pub method: Method,
    pub path: &'a str,
    /// The operation's entry (`post:`), for cues of the path and method.
    pub site: &'a Loc,
    pub operation_id: Option<Written<'a>>,
    pub summary: Option<Written<'a>>,
    pub description: Option<Written<'a>>,
    /// A declaration, when the description makes one: it decides alone.
    pub declared: Option<Cue>,
    /// The request body's media types, with where each is written.
    pub media_types: Vec<(Box<str>, Loc)>,
    /// A `201 Created` response (RFC 9110 §15.3.2: the request creates a resource),
    /// whether it has a `Location` header; or, failing one, a `202 Accepted` (the request
    /// starts a job), marked by the second flag.
    pub created_at: Option<(bool, bool, Loc)>,
    /// A gRPC rpc's `google.api.http` verb, where the binding is written.
    pub http_rule: Option<(Method, Loc)>,
    /// The descriptions of its responses but the 5xx, each with the response's place: one
    /// may say that a repeat is refused or finds the work done (`409: the folder already
    /// exists`).
    pub refusals: Vec<(&'a crate::input::source::Text, &'a Loc)>,
    /// An error code that names a repeat refused (`already_reacted`), where it is written.
    pub refusal_codes: Vec<(String, Loc)>,
    /// The descriptions of the request's fields, with where each is written and whether
    /// it is required: a name the client must give and the server keeps unique makes a
    /// repeat a conflict, and a value that makes something each time repeats it.
    pub fields: Vec<(&'a str, &'a Loc, bool)>,
}

/// Every cue of the operation but its declaration and method.
pub(super) fn gather(facts: &Facts<'_>, seen: &mut Seen) -> Vec<Found> {
    let mut out = Vec::new();
    let safe = facts.method.is_safe();
    // The verbs that lead the summary and the description, for `not_yet_done`.
    let mut lead_verbs: Vec<&str> = Vec::new();
    if let Some(summary) = &facts.summary
        && let Some(verb) = sentence_verb(
            summary,
            CueSource::Summary,
            weight::SUMMARY,
            facts,
            &mut out,
        )
    {
        lead_verbs.push(verb);
    }
    if let Some(id) = &facts.operation_id
        && let Some(found) = identifier_verb(id, facts)
    {
        out.push(found);
    }
    if !safe && let Some(found) = path_action(facts) {
        out.push(found);
    }
    if let Some(description) = &facts.description
        && let Some(verb) = sentence_verb(
            description,
            CueSource::Description,
            weight::DESCRIPTION,
            facts,
            &mut out,
        )
    {
        lead_verbs.push(verb);
    }
    if let Some(summary) = &facts.summary {
        phrases(summary, CueSource::Summary, &mut out);
    }
    // On a safe method, what the rest says of a repeat can matter only where the verbs
    // already call it a write: a phrase alone weighs less than the method's promise (see
    // `decide`). Most operations of a large description are reads; their long texts are
    // then not scanned.
    let verbs_write = out
        .iter()
        .any(|f| f.kind == Kind::Action && f.cue.says != Repeat::Read);
    if safe && !verbs_write {
        structure(facts, &mut out);
        return out;
    }
    if let Some(description) = &facts.description {
        phrases(description, CueSource::Description, &mut out);
    }
    // "Capture the funds of an existing uncaptured PaymentIntent": a verb that would add
    // something each time acts only once on what it names.
    if out
        .iter()
        .any(|f| f.kind == Kind::Action && f.cue.says == Repeat::NonIdempotent)
    {
        let texts: Vec<(&Written<'_>, CueSource)> = [
            (facts.summary.as_ref(), CueSource::Summary),
            (facts.description.as_ref(), CueSource::Description),
        ]
        .into_iter()
        .filter_map(|(text, source)| Some((text?, source)))
        .collect();
        out.extend(not_yet_done(&texts, &lead_verbs));
    }
    // A response that answers a repeat ("409: the tuple already exists", "204: Response
    // when already merged"): only what says idempotent is taken from it.
    for &(text, loc) in &facts.refusals {
        let text = Written {
            text,
            loc: Place::Made(Cow::Borrowed(loc)),
            shared: Some(text),
        };
        let mut said = Vec::new();
        phrases_among(&text, CueSource::Response, None, Some(seen), &mut said);
        said.retain(|f| f.cue.says == Repeat::Idempotent);
        if said.is_empty()
            && let Some(at) = seen.already_done(text.text)
        {
            said.push(Found {
                cue: Cue {
                    says: Repeat::Idempotent,
                    source: CueSource::Response,
                    words: Words::quote(&text, sentence_start(text.text, at)),
                    loc: Some(text.loc.loc()),
                    weight: weight::STATED,
                },
                kind: Kind::Qualifier,
            });
        }
        out.extend(said);
    }
    // An error code that names the repeat ("already_reacted"): the server answers a
    // second request by refusing it, having done the first.
    for (code, loc) in &facts.refusal_codes {
        out.push(Found {
            cue: Cue {
                says: Repeat::Idempotent,
                source: CueSource::Response,
                words: code.chars().take(QUOTE_LIMIT).collect::<String>().into(),
                loc: Some(loc.clone()),
                weight: weight::STATED,
            },
            kind: Kind::Qualifier,
        });
    }
    // A request field: one the client must give and the server keeps unique ("The name of
    // the app. Must be unique across all apps") makes a repeated create a conflict; one
    // whose value makes something each time ("generate invoice items appended to the next
    // invoice", "creates a PaymentMethod") makes a repeat repeat it. A field speaks of
    // what it does, not of the whole operation: it weighs as a description.
    for &(text, loc, required) in &facts.fields {
        let text = Written {
            text,
            loc: Place::Made(Cow::Borrowed(loc)),
            shared: None,
        };
        let mut said = Vec::new();
        // Not `Creates`: a field's "after the property is created" tells of another time.
        let lists: &[Phrase] = if required {
            &[
                Phrase::Compounds,
                Phrase::AddsNew,
                Phrase::RefusesDuplicate,
                Phrase::UniqueValue,
            ]
        } else {
            &[Phrase::Compounds, Phrase::AddsNew]
        };
        phrases_among(
            &text,
            CueSource::RequestField,
            Some(lists),
            Some(seen),
            &mut said,
        );
        out.extend(said.into_iter().map(|mut f| {
            if f.cue.says == Repeat::NonIdempotent {
                f.cue.weight = weight::DESCRIPTION;
            }
            f
        }));
    }
    structure(facts, &mut out);
    out
}

/// `X or Y` after a verb: `create or update`, `get or create`. With one side an update
/// or a read and the other a create, the request makes the thing once and finds or
/// replaces it after: an upsert.
fn either(first: Repeat, text: &str, after: usize) -> Repeat {
    let rest = text.get(after..).unwrap_or_default();
    // One pass over the words after the verb: those of its clause (up to a `.`, `,`, `;`,
    // `:` or line break between two words), and the two that follow it whatever
    // separates them.
    let mut clause = [""; AND_WINDOW];
    let mut count = 0;
    let mut next = [None; 2];
    let mut open = true;
    let mut gap_from = 0;
    for (i, (at, word)) in words::words(rest).enumerate() {
        let gap = rest.as_bytes().get(gap_from..at).unwrap_or_default();
        if gap
            .iter()
            .any(|b| matches!(b, b'.' | b',' | b';' | b':' | b'\n'))
        {
            open = false;
        }
        if let Some(slot) = next.get_mut(i) {
            *slot = Some(word);
        }
        if open && let Some(slot) = clause.get_mut(count) {
            *slot = word;
            count += 1;
        }
        gap_from = at + word.len();
        if i >= 1 && (!open || count == AND_WINDOW) {
            break;
        }
    }
    either_in(first, &clause[..count], next[0], next[1])
}

/// [`either`] of the words after the verb: `clause`, the words of its clause (at most
/// [`AND_WINDOW`]), and the two that follow the verb, whatever separates them.
fn either_in(first: Repeat, clause: &[&str], joint: Option<&str>, second: Option<&str>) -> Repeat {
    let first = both(first, clause);
    let (Some(joint), Some(second)) = (joint, second) else {
        return first;
    };
    if !joint.eq_ignore_ascii_case("or") {
        return first;
    }
    match (first, verb(second)) {
        (Repeat::NonIdempotent, Some(Repeat::Idempotent | Repeat::Read))
        | (Repeat::Idempotent | Repeat::Read, Some(Repeat::NonIdempotent)) => Repeat::Idempotent,
        _ => first,
    }
}

/// How many words after the lead verb are searched for `and` and a second verb.
const AND_WINDOW: usize = 8;

/// Words that open a verb's object: after `and send`, `it` or `the report` says `send`
/// is a verb (`artifact and log retention` is a noun phrase).
const OBJECT_OPENERS: &[&str] = &[
    "it", "them", "the", "a", "an", "its", "their", "this", "these", "to",
];

/// `X and Y` right after a verb (`Preview and send the report`, `previewAndSendReport`),
/// or `X … and Y it` in the same clause (`Preview the report and send it`), among the
/// first words of the clause after the verb. Both happen, and the one that repeats worst
/// is what a repeat does.
fn both(first: Repeat, clause: &[&str]) -> Repeat {
    let words = &clause[..clause.len().min(AND_WINDOW)];
    let rank = |r: Repeat| match r {
        Repeat::Read => 0,
        Repeat::Idempotent => 1,
        Repeat::NonIdempotent => 2,
    };
    let mut worst = first;
    for (i, word) in words.iter().enumerate() {
        if !word.eq_ignore_ascii_case("and") {
            continue;
        }
        let Some(second) = words.get(i + 1).and_then(|w| verb(w)) else {
            continue;
        };
        let object = words
            .get(i + 2)
            .is_some_and(|w| words::one_of(w, OBJECT_OPENERS));
        if (i == 0 || object) && rank(second) > rank(worst) {
            worst = second;
        }
    }
    worst
}

/// The cue of the verb that leads a summary or description, into `out`, and the verb; and
/// when that verb takes away an object named by its place ("Deletes the last level"), a
/// cue that a repeat takes another.
fn sentence_verb<'t>(
    text: &Written<'t>,
    source: CueSource,
    weight: u8,
    facts: &Facts<'_>,
    out: &mut Vec<Found>,
) -> Option<&'t str> {
    let (start, word) = lead_verb(text.text)?;
    let rest = text.text.get(start + word.len()..).unwrap_or_default();
    let target = Target {
        put_named: put_named(facts.method, facts.path),
        ..Target::NONE
    };
    let after = || words::words(rest).map(|(_, w)| w);
    let says = lead_says(word, verb(word), after, &target)?;
    let says = either(says, text.text, start + word.len());
    let cue = |says, weight| Cue {
        says,
        source,
        words: Words::quote(text, start),
        loc: Some(text.loc.loc()),
        weight,
    };
    out.push(Found {
        cue: cue(says, weight),
        kind: Kind::Action,
    });
    if says != Repeat::Read && takes_by_position(word, after()) {
        out.push(Found {
            cue: cue(Repeat::NonIdempotent, weight::STATED),
            kind: Kind::Qualifier,
        });
    }
    Some(word)
}

/// The operationId's verb: the first word of one of its parts (`chat_postMessage` →
/// `post`, `repos/create-fork` → `create`), taken as written (`Charges` is a noun, not
/// `charge`). A first word that only repeats the method (`postUsers`) says nothing, and
/// the next word is read instead. An operationId that restates the path
/// (`transferRecurringGet` for `/transfer/recurring/get`) names its action where the path
/// does, last: its first word there is the resource (`transfer`), not a verb.
fn identifier_verb(id: &Written<'_>, facts: &Facts<'_>) -> Option<Found> {
    // A path that names an item before its last segment (`/goals/{goal_gid}/addFollowers`,
    // `/chats/{id}/members`) names what the operationId's action acts on
    // (`addFollowers`, `ChatMemberOperations_addMembers`).
    let target = Target {
        item: &|| named_action(facts.path).is_some(),
        put_named: put_named(facts.method, facts.path),
    };
    let (mut says, word) = identifier_says_by(id.text, facts.method, &target)?;
    // The word that said it may name the path's resource instead: then the path tells.
    if names_in(facts.path, word) {
        let mut path_words = [""; PATH_WORDS];
        let count = literal_words(facts.path, &mut path_words);
        let path = &path_words[..count];
        says = if restates_path(id.text, path) {
            path_says(facts)?.1
        } else {
            let target = Target {
                item: &|| false,
                ..target
            };
            identifier_says(past_resources(id.text, path), facts.method, &target)?
        };
    }
    Some(Found {
        cue: Cue {
            says,
            source: CueSource::OperationId,
            words: Words::quote(id, 0),
            loc: Some(id.loc.loc()),
            weight: weight::OPERATION_ID,
        },
        kind: Kind::Action,
    })
}

/// How many words of an identifier's part are read for its verb and what follows it.
const IDENTIFIER_WINDOW: usize = 12;

/// What an identifier's verb says (see [`identifier_verb`]).
fn identifier_says(id: &str, method: Method, target: &Target<'_>) -> Option<Repeat> {
    identifier_says_by(id, method, target).map(|(says, _)| says)
}

/// [`identifier_says`], with the word that said it; `target` is what the URL names.
fn identifier_says_by<'i>(
    id: &'i str,
    method: Method,
    target: &Target<'_>,
) -> Option<(Repeat, &'i str)> {
    let echo = |t: &str| t.eq_ignore_ascii_case(method.as_str());
    // Split on ASCII bytes, so every part is a `str` between character boundaries.
    let parts = id
        .as_bytes()
        .split(|b| matches!(b, b'_' | b'.' | b'/' | b':'))
        .scan(0, |at, part| {
            let start = *at;
            *at += part.len() + 1;
            Some((start, id.get(start..start + part.len())?))
        });
    for (start, part) in parts {
        if echo(part) {
            continue;
        }
        let whole = words::base_any_case_without(part, b"-");
        if let Some(whole) = whole {
            // A verb alone in its part takes its object from the parts after it:
            // `execute_read`, `metadata_queries/execute_read`.
            let rest = id.get(start + part.len()..).unwrap_or_default();
            let says = lead_says(part, Some(whole), || identifier_word_iter(rest), target)?;
            return Some((says, part));
        }
        // The part's first words, on the stack: its verb is among the first few.
        let mut words = [""; IDENTIFIER_WINDOW];
        let mut count = 0;
        for (slot, word) in words.iter_mut().zip(identifier_word_iter(part)) {
            *slot = word;
            count += 1;
        }
        let tokens = &words[..count];
        let mut at = 0;
        while tokens
            .get(at)
            .is_some_and(|t| echo(t) || words::one_of(t, words::IDENTIFIER_PREFIXES))
        {
            at += 1;
        }
        let Some(first) = tokens.get(at) else {
            continue;
        };
        if let Some(says) = base_verb(first) {
            let rest = tokens.get(at + 1..).unwrap_or_default();
            let says = lead_says(first, Some(says), || rest.iter().copied(), target)?;
            let says = either_in(says, rest, rest.first().copied(), rest.get(1).copied());
            return Some((says, first));
        }
    }
    None
}

/// A verb as written in an identifier: its base form only (`Charges` is a noun).
fn base_verb(word: &str) -> Option<Repeat> {
    words::base(word)
}

/// The action of the path: an AIP-136 custom method (`/v1/{name}:search`), or a last
/// literal segment (`/orders/{id}/cancel`), or a dotted method name (`/chat.postMessage`).
fn path_action(facts: &Facts<'_>) -> Option<Found> {
    let (action, says, weight) = path_says(facts)?;
    Some(Found {
        cue: Cue {
            says,
            source: CueSource::Path,
            words: action.chars().take(QUOTE_LIMIT).collect::<String>().into(),
            loc: Some(facts.site.clone()),
            weight,
        },
        kind: Kind::Action,
    })
}

/// The path's action, what it says, and how much it weighs (see [`path_action`]).
fn path_says<'f>(facts: &Facts<'f>) -> Option<(&'f str, Repeat, u8)> {
    let last = facts.path.trim_end_matches('/').rsplit('/').next()?;
    let (action, weight) = match last.rsplit_once(':') {
        Some((_, custom)) if !custom.is_empty() && !custom.contains('}') => {
            (custom, weight::CUSTOM_METHOD)
        }
        _ if last.contains('{') => return None,
        _ => (last.rsplit('.').next().unwrap_or(last), weight::PATH),
    };
    // A path that ends with its action does not name what a PUT puts (see `put_named`).
    let target = Target {
        item: &|| named_action(facts.path) == Some(action),
        ..Target::NONE
    };
    let says = words::base_any_case_without(action, b"-_")
        .or_else(|| identifier_says(action, facts.method, &target))?;
    Some((action, says, weight))
}

/// The cues of the operation's structure: its media types, a GraphQL endpoint, a `201`
/// with `Location`, a gRPC binding.
fn structure(facts: &Facts<'_>, out: &mut Vec<Found>) {
    for (media, loc) in &facts.media_types {
        let essence = media.split(';').next().unwrap_or_default().trim();
        if essence.eq_ignore_ascii_case("application/merge-patch+json") {
            // RFC 7396: a merge patch sets what it names; applying it twice is applying
            // it once.
            out.push(Found {
                cue: Cue {
                    says: Repeat::Idempotent,
                    source: CueSource::MediaType,
                    words: essence.into(),
                    loc: Some(loc.clone()),
                    weight: weight::STRUCTURE,
                },
                kind: Kind::Action,
            });
        }
    }
    if let Some(found) = graphql(facts) {
        out.push(found);
    }
    // A 201 of PUT (or another idempotent method: WebDAV's COPY) creates at the URI the
    // request names; a safe method's is a slip of its description; any other method's
    // creates, and a 202 starts a job, each time.
    if !facts.method.is_idempotent()
        && let Some((location, accepted, loc)) = &facts.created_at
    {
        out.push(Found {
            cue: Cue {
                says: Repeat::NonIdempotent,
                source: CueSource::Response,
                words: match (*location, *accepted) {
                    (_, true) => "202".into(),
                    (true, false) => "201 with Location".into(),
                    (false, false) => "201".into(),
                },
                loc: Some(loc.clone()),
                weight: weight::CREATED,
            },
            kind: Kind::Action,
        });
    }
    if let Some((method, loc)) = &facts.http_rule {
        let says = Repeat::of_method(*method);
        out.push(Found {
            cue: Cue {
                says,
                source: CueSource::HttpRule,
                words: method.as_str().to_ascii_lowercase().into(),
                loc: Some(loc.clone()),
                weight: if says == Repeat::Read {
                    weight::STATED
                } else {
                    weight::STRUCTURE
                },
            },
            kind: Kind::Action,
        });
    }
}

/// A GraphQL endpoint (its path ends in `graphql`, or it takes `application/graphql`):
/// a read when its text speaks of queries and never of mutations or subscriptions, a
/// write that may repeat when it speaks of mutations.
fn graphql(facts: &Facts<'_>) -> Option<Found> {
    let path = facts.path.trim_end_matches('/').as_bytes();
    let by_path = path.len() >= 7 && path[path.len() - 7..].eq_ignore_ascii_case(b"graphql");
    let by_media = facts
        .media_types
        .iter()
        .any(|(m, _)| m.to_ascii_lowercase().starts_with("application/graphql"));
    if !by_path && !by_media {
        return None;
    }
    let text: String = [&facts.summary, &facts.description]
        .into_iter()
        .flatten()
        .map(|t| t.text.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    let mutation = text.contains("mutation") || text.contains("subscription");
    let query = text.contains("query") || text.contains("queries");
    let says = if mutation {
        Repeat::NonIdempotent
    } else if query {
        Repeat::Read
    } else {
        return None;
    };
    let loc = facts
        .description
        .as_ref()
        .or(facts.summary.as_ref())
        .map_or_else(|| facts.site.clone(), |t| t.loc.loc());
    Some(Found {
        cue: Cue {
            says,
            source: CueSource::GraphQl,
            words: if mutation {
                "mutations".into()
            } else {
                "queries only".into()
            },
            loc: Some(loc),
            weight: weight::STRUCTURE,
        },
        kind: Kind::Action,
    })
}
