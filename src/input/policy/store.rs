//! Where the reader puts each field of the table: the one place that ties a row of
//! [`super::fields::FIELDS`] to its field of [`PolicyObject`].

use super::fields::Field;
use super::{
    Duration, Jitter, PolicyObject, RetryAfterFallback, SideEffect, Signal, Spanned, UnknownOutcome,
};
use crate::error::InputError;
use crate::location::Loc;

/// A field's value as its kind reads it, before [`store`] puts it in its place.
pub(super) enum Read {
    Integer(i64),
    Duration(Duration),
    Number(f64),
    Boolean(bool),
    /// One of the names of an enumerated field.
    Name(&'static str),
    Signals(Vec<Spanned<Signal>>),
    Strings(Vec<Spanned<String>>),
    String(String),
    /// A section was written (its fields are stored one by one).
    Section,
}

/// Puts the value read for `field` in its place of `p`.
pub(super) fn store(
    p: &mut PolicyObject,
    field: &Field,
    value: Read,
    at: Loc,
) -> Result<(), InputError> {
    put(p, field.name, value, at).ok_or_else(|| {
        InputError::new(format!(
            "internal error: the policy field table and its reader disagree on `{}`",
            field.name
        ))
    })
}

/// Which field of [`PolicyObject`] each row of the field table fills, with a value of the
/// row's kind; `None` for a name or a value the table does not give.
fn put(p: &mut PolicyObject, name: &str, value: Read, at: Loc) -> Option<()> {
    fn set<T>(slot: &mut Option<super::Field<T>>, value: T, at: Loc) {
        *slot = super::field(value, at);
    }
    match (name, value) {
        ("maxAttempts", Read::Integer(n)) => set(&mut p.max_attempts, n, at),
        ("deadline", Read::Duration(d)) => set(&mut p.deadline, d, at),
        ("perAttemptTimeout", Read::Duration(d)) => set(&mut p.per_attempt_timeout, d, at),
        ("backoff", Read::Section) => set(&mut p.backoff, (), at),
        ("backoff.base", Read::Duration(d)) => set(&mut p.backoff_base, d, at),
        ("backoff.cap", Read::Duration(d)) => set(&mut p.backoff_cap, d, at),
        ("backoff.multiplier", Read::Number(m)) => set(&mut p.backoff_multiplier, m, at),
        ("backoff.jitter", Read::Name(n)) => set(&mut p.jitter, Jitter::parse(n)?, at),
        ("retryOn", Read::Signals(s)) => set(&mut p.retry_on, s, at),
        ("retryAfter", Read::Section) => set(&mut p.retry_after, (), at),
        ("retryAfter.honor", Read::Boolean(b)) => set(&mut p.retry_after_honor, b, at),
        ("retryAfter.max", Read::Duration(d)) => set(&mut p.retry_after_max, d, at),
        ("retryAfter.onMissing", Read::Name(n)) => set(
            &mut p.retry_after_on_missing,
            RetryAfterFallback::parse(n)?,
            at,
        ),
        ("retryAfter.onInvalid", Read::Name(n)) => set(
            &mut p.retry_after_on_invalid,
            RetryAfterFallback::parse(n)?,
            at,
        ),
        ("log", Read::Strings(s)) => set(&mut p.log, s, at),
        ("sideEffect", Read::Name(n)) => set(&mut p.side_effect, SideEffect::parse(n)?, at),
        ("idempotency", Read::Section) => set(&mut p.idempotency, (), at),
        ("idempotency.keyHeader", Read::String(s)) => set(&mut p.key_header, s, at),
        ("idempotency.keyRetention", Read::Duration(d)) => set(&mut p.key_retention, d, at),
        ("idempotency.statusEndpoint", Read::String(s)) => set(&mut p.status_endpoint, s, at),
        ("onUnknownOutcome", Read::Name(n)) => {
            set(&mut p.on_unknown_outcome, UnknownOutcome::parse(n)?, at);
        }
        _ => return None,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::policy::fields::{self, Kind};
    use crate::input::source::SourceFile;

    /// A policy object that sets every field of the table, each to its default when it
    /// has one.
    fn every_field(section: &str, indent: usize, out: &mut String) {
        for field in fields::in_section(section) {
            let value = match (field.default, field.kind) {
                (_, Kind::Section) => String::new(),
                (Some(default), _) => default.to_string(),
                (None, Kind::Integer) => "3".into(),
                (None, Kind::Duration) => "2s".into(),
                (None, Kind::Number) => "1.5".into(),
                (None, Kind::Boolean) => "true".into(),
                (None, Kind::Enum(names)) => names.last().copied().unwrap_or_default().into(),
                (None, Kind::Signals) => "[503, 5xx, timeout]".into(),
                (None, Kind::Strings) => "[attempt]".into(),
                (None, Kind::String) => "X-Key".into(),
            };
            out.push_str(&format!("{:indent$}{}: {value}\n", "", field.key()));
            if field.kind == Kind::Section {
                every_field(field.name, indent + 2, out);
            }
        }
    }

    #[test]
    fn every_field_of_the_table_is_read_into_a_field_of_its_own() {
        let mut text = String::new();
        every_field("", 0, &mut text);
        let file = SourceFile::parse(
            "policy.yaml".into(),
            text.clone(),
            crate::input::source::ParseLimits::default(),
        )
        .unwrap();
        let loc = Loc::new(0, "", file.root.span);
        let policy = crate::input::policy::parse_policy_object(&file, &file.root, &loc)
            .unwrap_or_else(|e| {
                panic!("{}\n{text}", e.message);
            });
        assert_eq!(fields::FIELDS.len(), PolicyObject::FIELD_NAMES.len());
        assert_eq!(policy.count_set(), fields::FIELDS.len(), "{text}");
        assert_eq!(
            policy.backoff_multiplier.as_ref().map(|m| m.value),
            Some(2.0),
            "defaults read back"
        );
        // Every field names itself as the table does, for the places a hover lists.
        let mut named: Vec<&str> = policy.places().iter().map(|(name, _)| *name).collect();
        let mut table: Vec<&str> = fields::FIELDS.iter().map(|f| f.name).collect();
        named.sort_unstable();
        table.sort_unstable();
        assert_eq!(named, table);
    }
}
