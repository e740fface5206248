//! The keys of the policy file outside its policy objects, one row each: the top level,
//! `service`, `layers` entries, `lint` and `lint.ignore` entries. The reader asks for
//! keys by these rows (a key it asks for that no row names is an internal error) and
//! [`super::schema`] writes the JSON Schema from them, so the two cannot disagree on a
//! key; the fields of a policy object are the table of [`super::fields`].

use super::Position;

/// One key of a section.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub name: &'static str,
    /// What the value is.
    pub shape: Shape,
    /// Whether the key must be written.
    pub required: bool,
    /// One line for the schema.
    pub doc: Option<&'static str>,
}

impl Key {
    const fn new(name: &'static str, shape: Shape) -> Key {
        Key {
            name,
            shape,
            required: false,
            doc: None,
        }
    }

    const fn doc(self, doc: &'static str) -> Key {
        Key {
            doc: Some(doc),
            ..self
        }
    }

    const fn required(self) -> Key {
        Key {
            required: true,
            ..self
        }
    }
}

/// The value of a key.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// The format version: `1`.
    Version,
    String,
    /// A list of strings.
    Strings,
    /// A whole number of `min` or more, when given.
    Integer {
        min: Option<u64>,
    },
    /// One of these names.
    Enum(&'static [&'static str]),
    /// A policy object (the field table).
    Policy,
    /// Selector → policy object; may be empty.
    Policies,
    /// Rule name → level.
    Levels,
    /// A mapping of a section's keys; `nullable`: an empty one is no section.
    Object {
        section: &'static Section,
        nullable: bool,
    },
    /// A list of mappings of a section's keys; `nullable`: an empty one is no list.
    List {
        section: &'static Section,
        nullable: bool,
    },
}

/// A mapping of known keys.
#[derive(Debug)]
pub struct Section {
    /// The JSON Schema definition the section is written as, when it is one.
    pub definition: Option<&'static str>,
    pub keys: &'static [Key],
}

impl Section {
    /// The names of its keys, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.keys.iter().map(|k| k.name).collect()
    }
}

/// The whole file.
pub static FILE: Section = Section {
    definition: None,
    keys: &[
        Key::new("$schema", Shape::String),
        Key::new("version", Shape::Version)
            .required()
            .doc("The policy format version; only 1 exists."),
        Key::new("defaults", Shape::Policy).doc("Applied to every operation."),
        Key::new("operations", Shape::Policies).doc(
            "Selector -> policy fields that override the defaults one by one. A selector is `METHOD /path` exactly as the description writes the path (`*` as method matches every method; in paths `*` matches one segment and `**` any number), an operationId, or `tag:NAME`.",
        ),
        Key::new(
            "service",
            Shape::Object {
                section: &SERVICE,
                nullable: true,
            },
        )
        .doc("The names a mesh or gateway knows the service by, besides the hosts of the description's servers."),
        Key::new(
            "layers",
            Shape::List {
                section: &LAYER,
                nullable: true,
            },
        )
        .doc("The position of the layers of a -p file or object: client, edge, gateway or mesh."),
        Key::new(
            "lint",
            Shape::Object {
                section: &LINT,
                nullable: true,
            },
        ),
    ],
};

/// `service:`.
pub static SERVICE: Section = Section {
    definition: None,
    keys: &[Key::new("hosts", Shape::Strings)],
};

/// A `layers:` entry.
pub static LAYER: Section = Section {
    definition: None,
    keys: &[
        Key::new("file", Shape::String).doc("The end of a -p file's path."),
        Key::new("name", Shape::String).doc("A layer's object name, or its full name."),
        Key::new("position", Shape::Enum(&Position::NAMES)).required(),
    ],
};

/// `lint:`.
pub static LINT: Section = Section {
    definition: Some("lint"),
    keys: &[
        Key::new("rules", Shape::Levels).doc("A rule's severity, or off."),
        Key::new("maxAttemptsLimit", Shape::Integer { min: None })
            .doc("The most attempts unbounded-attempts allows (10 by default)."),
        Key::new("maxAmplification", Shape::Integer { min: Some(1) }).doc(
            "The most requests at the backend per call that retry-amplification allows across layers (10 by default).",
        ),
        Key::new("keyHeaders", Shape::Strings).doc(
            "Header names that carry idempotency keys in the description, besides Idempotency-Key and the known vendor names.",
        ),
        Key::new(
            "ignore",
            Shape::List {
                section: &IGNORE,
                nullable: false,
            },
        ),
    ],
};

/// A `lint.ignore` entry.
pub static IGNORE: Section = Section {
    definition: None,
    keys: &[
        Key::new("rule", Shape::String).required(),
        Key::new("operations", Shape::Strings),
        Key::new("reason", Shape::String),
    ],
};
