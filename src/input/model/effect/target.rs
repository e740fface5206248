//! What the request's URL names, and how it turns the verb that leads a summary, a
//! description or an operationId: `add` puts a member into the item the path names, and a
//! create that a PUT names the target of makes it once (RFC 9110 §9.3.4); what a verb takes
//! away by its place ("the last level") is another item at each repeat.

use super::Repeat;
use super::members::adds_member;
use super::verbs::MAKES;
use super::words;
use crate::input::model::Method;

/// What the request's URL names, which turns how its lead verb reads.
pub(super) struct Target<'a> {
    /// Whether the path names the item an `add` puts members into
    /// (`/goals/{goal_gid}/addFollowers`; see [`adds_member`]), worked out only when asked.
    pub(super) item: &'a dyn Fn() -> bool,
    /// A PUT to a URL that names what it puts (see [`makes_once`]).
    pub(super) put_named: bool,
}

impl Target<'_> {
    /// No target: the lead verb reads as it is.
    pub(super) const NONE: Target<'static> = Target {
        item: &|| false,
        put_named: false,
    };
}

/// Whether the request is a PUT to a path that ends with a parameter, or with `@me` or
/// `me` (the caller, by the name every API gives it). A fragment, which some descriptions
/// add to tell operations of one path apart, is no part of the URL (RFC 3986 §3.5):
/// `PUT /files/{file_id}#add_shared_link` names its file.
pub(super) fn put_named(method: Method, path: &str) -> bool {
    let path = crate::input::model::request_path(path).trim_end_matches('/');
    method == Method::Put
        && (path.ends_with('}') || path.ends_with("/@me") || path.ends_with("/me"))
}

/// What the lead verb `word` (reading `base` in its table, if it is there) says where it
/// stands, given the words `after` it, before an `or` or `and` widens it: a carrier of a
/// read's object reads
/// ([`words::carried`]), an added member is added once ([`adds_member`]), and a create or
/// add that a PUT names the target of makes it once ([`makes_once`]).
pub(super) fn lead_says<'t, I: Iterator<Item = &'t str>>(
    word: &str,
    base: Option<Repeat>,
    after: impl Fn() -> I,
    target: &Target<'_>,
) -> Option<Repeat> {
    let says = words::carried(word, after())
        .or_else(|| adds_member(word, after(), target.item).then_some(Repeat::Idempotent))
        .or(base)?;
    Some(makes_once(says, word, target.put_named))
}

/// A create or add at a URL that names it, by PUT: the client names what it puts (RFC 9110
/// §9.3.4), so doing it twice leaves one (`PUT /user/starred/{repo}`, `PUT /files/{name}`).
/// A verb that makes what it names ([`MAKES`]: create, add, upload) is then idempotent;
/// one that sends, charges or runs something is done again whatever the URL names, and so
/// is a second verb joined to the first (`Creates and sends an invoice`), which is read
/// after this.
pub(super) fn makes_once(says: Repeat, verb: &str, put_named: bool) -> Repeat {
    if says == Repeat::NonIdempotent && put_named && MAKES.iter().any(|m| words::inflects(verb, m))
    {
        Repeat::Idempotent
    } else {
        says
    }
}

/// The path's last segment when it acts on the item the segment before names
/// (`/goals/{goal_gid}/addFollowers` → `addFollowers`).
pub(super) fn named_action(path: &str) -> Option<&str> {
    let mut segments = path.trim_end_matches('/').rsplit('/');
    let last = segments.next()?;
    let before = segments.next()?;
    (!last.contains('{') && before.starts_with('{') && before.ends_with('}')).then_some(last)
}

/// Verbs that take away or step back, which [`takes_by_position`] reads.
const TAKES: &[&str] = &[
    "delete", "remove", "cancel", "pop", "dequeue", "trim", "drop", "discard", "skip", "undo",
    "revert",
];

/// Where an object stands in a sequence, rather than which one it is.
const POSITIONS: &[&str] = &["last", "first", "next", "oldest", "newest", "latest", "top"];

/// Whether the lead verb `word` takes away or steps back from an object named by its place
/// in a sequence: "Deletes the last level of the taxonomy", "Undo the last change". A
/// repeat finds another item in that place and takes it too: the words say so as plainly
/// as "is not idempotent".
pub(super) fn takes_by_position<'t>(word: &str, mut after: impl Iterator<Item = &'t str>) -> bool {
    TAKES.iter().any(|t| words::inflects(word, t))
        && after.next().is_some_and(|w| w.eq_ignore_ascii_case("the"))
        && after.next().is_some_and(|w| words::one_of(w, POSITIONS))
}
