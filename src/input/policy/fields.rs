//! The fields of a policy object, one row each: the one list the reader, the JSON Schema,
//! `simulate --compare` and the reference in `docs/src/policy-fields.md` take their names from.
//!
//! A row names a field as the policy file writes it, dotted inside a section
//! (`backoff.base` is `base` under `backoff:`), with the kind of value it holds, a line of
//! documentation, the value assumed when it is not written, and the name `--compare`
//! changes it by. Adding a field is a row here, a field of [`super::PolicyObject`] and the
//! line of the reader that stores it; the tests say which is missing.

use super::{Jitter, RetryAfterFallback, SideEffect, UnknownOutcome};
use Kind::{Boolean, Enum, Integer, Number, Section, Signals, Strings};

/// What a field's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number.
    Integer,
    /// A string with units: `250ms`, `2s`, `1m30s`, `24h`.
    Duration,
    /// A finite number.
    Number,
    Boolean,
    /// One of these names.
    Enum(&'static [&'static str]),
    /// A list of retry conditions: statuses, classes and [`SIGNALS`].
    Signals,
    /// A list of strings.
    Strings,
    String,
    /// A mapping of the fields named `<this field>.<key>`.
    Section,
}

impl Kind {
    /// How the reference names a value of this kind.
    pub fn describe(self) -> String {
        match self {
            Kind::Integer => "whole number".into(),
            Kind::Duration => "duration".into(),
            Kind::Number => "number".into(),
            Kind::Boolean => "`true` or `false`".into(),
            Kind::Enum(names) => or_list(names.iter().map(|n| format!("`{n}`"))),
            Kind::Signals => "list of conditions".into(),
            Kind::Strings => "list of strings".into(),
            Kind::String => "string".into(),
            Kind::Section => "section".into(),
        }
    }
}

/// One field of a policy object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The name the policy file writes, dotted inside a section: `backoff.base`.
    pub name: &'static str,
    pub kind: Kind,
    /// One line for the schema and the reference.
    pub doc: &'static str,
    /// The value the tool assumes when no layer writes the field, as the file would write it.
    pub default: Option<&'static str>,
    /// The key `simulate --compare` changes the field by (it takes [`Field::name`] too);
    /// `None` when `--compare` cannot change it.
    pub compare: Option<&'static str>,
}

impl Field {
    const fn new(name: &'static str, kind: Kind, doc: &'static str) -> Field {
        Field {
            name,
            kind,
            doc,
            default: None,
            compare: None,
        }
    }

    const fn default(self, value: &'static str) -> Field {
        Field {
            default: Some(value),
            ..self
        }
    }

    const fn compare(self, key: &'static str) -> Field {
        Field {
            compare: Some(key),
            ..self
        }
    }

    /// The key within its section: `base` for `backoff.base`.
    pub fn key(&self) -> &'static str {
        self.name.rsplit_once('.').map_or(self.name, |(_, key)| key)
    }

    /// The section it is written in: `backoff` for `backoff.base`, `""` at the top.
    pub fn section(&self) -> &'static str {
        self.name
            .rsplit_once('.')
            .map_or("", |(section, _)| section)
    }

    /// The keys `--compare` takes for it: its own key, then the dotted name when that differs.
    pub fn compare_keys(&self) -> impl Iterator<Item = &'static str> {
        let dotted = self
            .compare
            .filter(|key| *key != self.name)
            .map(|_| self.name);
        self.compare.into_iter().chain(dotted)
    }
}

/// The transport conditions `retryOn` names, besides statuses (`503`) and classes (`5xx`).
pub const SIGNALS: &[&str] = &["connect-failure", "refused-stream", "reset", "timeout"];

/// Every field of a policy object, each section followed by its fields.
pub static FIELDS: &[Field] = &[
    Field::new(
        "maxAttempts",
        Integer,
        "Total attempts, the first included (1 = never retried).",
    )
    .default("1")
    .compare("maxAttempts"),
    Field::new(
        "deadline",
        Kind::Duration,
        "One absolute budget for the whole call: attempts and waits.",
    )
    .compare("deadline"),
    Field::new(
        "perAttemptTimeout",
        Kind::Duration,
        "Each attempt gets min(this, what is left of the deadline).",
    )
    .compare("perAttemptTimeout"),
    Field::new("backoff", Section, "How long the client waits before a retry."),
    Field::new(
        "backoff.base",
        Kind::Duration,
        "Before the attempt with index k (k already made) the client waits min(cap, base × multiplier^k), jittered.",
    )
    .compare("base"),
    Field::new(
        "backoff.cap",
        Kind::Duration,
        "The longest wait, before jitter.",
    )
    .compare("cap"),
    Field::new(
        "backoff.multiplier",
        Number,
        "Growth per attempt; 2 when not given.",
    )
    .default("2")
    .compare("multiplier"),
    Field::new(
        "backoff.jitter",
        Enum(Jitter::NAMES),
        "How a wait is randomised: none keeps it, full draws it from [0, wait], equal keeps half and draws the rest, decorrelated draws from [base, previous × 3] up to cap.",
    )
    .default("none")
    .compare("jitter"),
    Field::new(
        "retryOn",
        Signals,
        "The conditions retried on: statuses (503), classes (5xx) and transport signals.",
    )
    .compare("retryOn"),
    Field::new(
        "retryAfter",
        Section,
        "What the client does with the Retry-After of a 429 or 503.",
    ),
    Field::new(
        "retryAfter.honor",
        Boolean,
        "Wait at least what the server asks on 429/503.",
    )
    .default("false")
    .compare("honorRetryAfter"),
    Field::new(
        "retryAfter.max",
        Kind::Duration,
        "A longer request makes the client give up instead.",
    )
    .compare("retryAfterMax"),
    Field::new(
        "retryAfter.onMissing",
        Enum(RetryAfterFallback::NAMES),
        "On a 429/503 without Retry-After: wait the backoff, or stop (invalid-retry-after).",
    )
    .default("backoff")
    .compare("onMissing"),
    Field::new(
        "retryAfter.onInvalid",
        Enum(RetryAfterFallback::NAMES),
        "On a Retry-After the client cannot read: wait the backoff, or stop (invalid-retry-after).",
    )
    .default("backoff")
    .compare("onInvalid"),
    Field::new("log", Strings, "What each retry logs."),
    Field::new(
        "sideEffect",
        Enum(SideEffect::NAMES),
        "What repeating the request repeats; when not given, read from the description (x-side-effect, x-idempotent, its words), the method last.",
    )
    .compare("sideEffect"),
    Field::new(
        "idempotency",
        Section,
        "The key that lets the server recognise a repeated write.",
    ),
    Field::new(
        "idempotency.keyHeader",
        Kind::String,
        "The header the client sends and reuses on every retry; the description must declare it.",
    )
    .compare("keyHeader"),
    Field::new(
        "idempotency.keyRetention",
        Kind::Duration,
        "How long the server remembers a key.",
    ),
    Field::new(
        "idempotency.statusEndpoint",
        Kind::String,
        "A GET or HEAD operation that reports the first attempt's result.",
    )
    .compare("statusEndpoint"),
    Field::new(
        "onUnknownOutcome",
        Enum(UnknownOutcome::NAMES),
        "When a write's outcome is unknown: fail, reconcile through the status endpoint, or retry with the same key.",
    )
    .compare("onUnknownOutcome"),
];

/// `a, b or c`.
pub fn or_list<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let items: Vec<S> = items.into_iter().collect();
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.as_ref().to_string(),
        Some((last, rest)) => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} or {}", rest.join(", "), last.as_ref())
        }
    }
}

/// The field the file writes as `name` (dotted inside a section).
pub fn get(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}

/// The fields written directly in `section` (`""`: the policy object itself), in table order.
pub fn in_section(section: &str) -> impl Iterator<Item = &'static Field> + '_ {
    section_fields(section).0.iter().copied()
}

/// The fields written directly in `section`, and their keys, in table order: worked out
/// once, as a policy that names a thousand operations reads a thousand sections.
pub fn section_fields(section: &str) -> (&'static [&'static Field], &'static [&'static str]) {
    type Sections = Vec<(&'static str, Vec<&'static Field>, Vec<&'static str>)>;
    static SECTIONS: std::sync::LazyLock<Sections> = std::sync::LazyLock::new(|| {
        let mut sections: Sections = Vec::new();
        for field in FIELDS {
            let name = field.section();
            let at = sections
                .iter()
                .position(|(s, _, _)| *s == name)
                .unwrap_or_else(|| {
                    sections.push((name, Vec::new(), Vec::new()));
                    sections.len() - 1
                });
            sections[at].1.push(field);
            sections[at].2.push(field.key());
        }
        sections
    });
    SECTIONS
        .iter()
        .find(|(s, _, _)| *s == section)
        .map_or((&[], &[]), |(_, fields, keys)| (fields, keys))
}

/// Every key `--compare` takes, with its field: each field's own key, then its dotted name.
pub fn compare_keys() -> impl Iterator<Item = (&'static str, &'static Field)> {
    FIELDS
        .iter()
        .flat_map(|f| f.compare_keys().map(move |key| (key, f)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_sections_come_first() {
        for (i, field) in FIELDS.iter().enumerate() {
            assert_eq!(get(field.name), Some(field), "{} twice", field.name);
            let section = field.section();
            if !section.is_empty() {
                let parent = FIELDS[..i].iter().find(|f| f.name == section);
                assert_eq!(
                    parent.map(|f| f.kind),
                    Some(Kind::Section),
                    "{}: its section comes before it",
                    field.name
                );
            }
        }
    }

    #[test]
    fn compare_keys_name_one_field_each() {
        let keys: Vec<&str> = compare_keys().map(|(k, _)| k).collect();
        for key in &keys {
            assert_eq!(keys.iter().filter(|k| *k == key).count(), 1, "{key}");
        }
        assert!(keys.contains(&"base") && keys.contains(&"backoff.base"));
        assert!(!keys.contains(&"log") && !keys.contains(&"backoff"));
    }

    #[test]
    fn or_lists_read_as_prose() {
        assert_eq!(or_list(["a"]), "a");
        assert_eq!(or_list(["a", "b"]), "a or b");
        assert_eq!(or_list(["a", "b", "c"]), "a, b or c");
        assert_eq!(or_list(Vec::<&str>::new()), "");
    }

    #[test]
    fn enum_defaults_are_among_their_values() {
        for field in FIELDS {
            if let (Kind::Enum(names), Some(default)) = (field.kind, field.default) {
                assert!(names.contains(&default), "{}", field.name);
            }
        }
    }
}
