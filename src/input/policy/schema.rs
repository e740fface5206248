//! The JSON Schema of the policy file, checked in as `schema/retry-policy.schema.json` and
//! printed by `retrylint schema`: the policy object comes from the field table
//! ([`super::fields`]), the rest of the file (its top level, `service`, `layers`, `lint`)
//! from the rows of [`super::sections`], the keys the reader asks for. Only the shapes of
//! durations and retry conditions are written here.
//!
//! `tests/cli/generated.rs` fails when the checked-in file differs from [`text`], and rewrites
//! it when asked to (see there).

use serde_json::{Map, Value, json};

use super::fields::{self, Field, Kind};
use super::sections::{self, Section, Shape};

/// The whole schema, as the checked-in file holds it: pretty-printed, ending in a newline.
pub fn text() -> String {
    let mut text = serde_json::to_string_pretty(&file()).unwrap_or_default();
    text.push('\n');
    text
}

/// The schema of a whole policy file.
pub fn file() -> Value {
    let mut definitions = Map::new();
    definitions.insert(
        "duration".into(),
        json!({
            "description": "A duration with units: 250ms, 2s, 1m30s, 24h, 0.5s.",
            "type": "string",
            "pattern": "^-?([0-9]+(\\.[0-9]+)?(us|ms|s|m|h|d))+$"
        }),
    );
    definitions.insert(
        "signal".into(),
        json!({
            "description": "A status (503), a class (5xx), or a transport signal.",
            "oneOf": [
                { "type": "integer", "minimum": 100, "maximum": 599 },
                { "type": "string", "pattern": "^([1-5][0-9][0-9]|[1-5][xX][xX])$" },
                { "enum": fields::SIGNALS }
            ]
        }),
    );
    definitions.insert("policy".into(), policy_object());
    let mut schema = object(&sections::FILE, false, &mut definitions);
    let header = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/schema/retry-policy.schema.json"),
        "title": "retrylint retry policy",
        "description": "What an HTTP client does when a call fails: attempts, deadline, backoff, retried conditions, Retry-After, idempotency keys and the plan for an unknown outcome, per operation.",
    });
    if let Value::Object(header) = header {
        for (key, value) in header {
            insert(&mut schema, &key, value);
        }
    }
    insert(&mut schema, "definitions", Value::Object(definitions));
    schema
}

/// A section's mapping: exactly the keys its rows name; one with a definition of its own
/// is added to `definitions`.
fn object(section: &Section, nullable: bool, definitions: &mut Map<String, Value>) -> Value {
    let properties: Map<String, Value> = section
        .keys
        .iter()
        .map(|key| (key.name.to_string(), key_schema(key, definitions)))
        .collect();
    let required: Vec<&str> = section
        .keys
        .iter()
        .filter(|k| k.required)
        .map(|k| k.name)
        .collect();
    let mut schema = json!({
        "type": if nullable { json!(["object", "null"]) } else { json!("object") },
        "additionalProperties": false,
        "properties": properties,
    });
    if !required.is_empty() {
        insert(&mut schema, "required", json!(required));
    }
    schema
}

/// The schema of one key of a section.
fn key_schema(key: &sections::Key, definitions: &mut Map<String, Value>) -> Value {
    let policy = json!({ "$ref": "#/definitions/policy" });
    let mut schema = match key.shape {
        Shape::Version => json!({ "const": 1 }),
        Shape::String => json!({ "type": "string" }),
        Shape::Strings => json!({ "type": "array", "items": { "type": "string" } }),
        Shape::Integer { min } => {
            let mut schema = json!({ "type": "integer" });
            if let Some(min) = min {
                insert(&mut schema, "minimum", json!(min));
            }
            schema
        }
        Shape::Enum(names) => json!({ "enum": names }),
        Shape::Policy => policy,
        Shape::Policies => json!({ "type": ["object", "null"], "additionalProperties": policy }),
        Shape::Levels => json!({
            "type": "object",
            "additionalProperties": { "enum": super::Level::NAMES }
        }),
        Shape::Object { section, nullable } => {
            let schema = object(section, nullable, definitions);
            match section.definition {
                Some(name) => {
                    definitions.insert(name.into(), schema);
                    json!({ "$ref": format!("#/definitions/{name}") })
                }
                None => schema,
            }
        }
        Shape::List { section, nullable } => json!({
            "type": if nullable { json!(["array", "null"]) } else { json!("array") },
            "items": object(section, false, definitions),
        }),
    };
    if let Some(doc) = key.doc {
        insert(&mut schema, "description", json!(doc));
    }
    schema
}

/// The schema of a policy object (`defaults`, an `operations` entry): one property per
/// field of the table, sections nested.
pub fn policy_object() -> Value {
    let mut schema = section("");
    insert(&mut schema, "type", json!(["object", "null"]));
    schema
}

/// A section's mapping: exactly the fields the table puts in it.
fn section(name: &str) -> Value {
    let properties: Map<String, Value> = fields::in_section(name)
        .map(|field| (field.key().to_string(), property(field)))
        .collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
    })
}

fn property(field: &Field) -> Value {
    let mut schema = match field.kind {
        Kind::Integer => json!({ "type": "integer" }),
        Kind::Duration => json!({ "$ref": "#/definitions/duration" }),
        Kind::Number => json!({ "type": "number" }),
        Kind::Boolean => json!({ "type": "boolean" }),
        Kind::Enum(names) => json!({ "enum": names }),
        Kind::Signals => json!({ "type": "array", "items": { "$ref": "#/definitions/signal" } }),
        Kind::Strings => json!({ "type": "array", "items": { "type": "string" } }),
        Kind::String => json!({ "type": "string" }),
        Kind::Section => section(field.name),
    };
    if let Some(default) = field.default {
        insert(&mut schema, "default", value_of(field.kind, default));
    }
    insert(&mut schema, "description", json!(field.doc));
    schema
}

/// A default as JSON: numbers and booleans as themselves, anything else as the string.
fn value_of(kind: Kind, text: &str) -> Value {
    let typed = match kind {
        Kind::Integer | Kind::Number => text
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| text.parse::<f64>().map(Value::from))
            .ok(),
        Kind::Boolean => text.parse::<bool>().map(Value::from).ok(),
        _ => None,
    };
    typed.unwrap_or_else(|| json!(text))
}

fn insert(schema: &mut Value, key: &str, value: Value) {
    if let Value::Object(map) = schema {
        map.insert(key.to_string(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::source::{ParseLimits, SourceFile};

    /// A value for every key of `section`, as a file would write it.
    fn every_key(section: &Section) -> Value {
        let rule = crate::analysis::rules::names()[0];
        let values = section.keys.iter().map(|key| {
            let value = match key.shape {
                Shape::Version => json!(1),
                Shape::String if key.name == "rule" => json!(rule),
                Shape::String => json!("x"),
                Shape::Strings => json!(["listOrders"]),
                Shape::Integer { min } => json!(min.unwrap_or(3)),
                Shape::Enum(names) => json!(names[0]),
                Shape::Policy => json!({ "maxAttempts": 2 }),
                Shape::Policies => json!({ "GET /orders": { "maxAttempts": 2 } }),
                Shape::Levels => json!({ rule: "off" }),
                Shape::Object { section, .. } => every_key(section),
                Shape::List { section, .. } => json!([every_key(section)]),
            };
            (key.name.to_string(), value)
        });
        Value::Object(values.collect())
    }

    fn parse(policy: &Value) -> Result<super::super::PolicyFile, crate::error::InputError> {
        let text = serde_json::to_string_pretty(policy).unwrap_or_default();
        let file = SourceFile::parse("policy.json".into(), text, ParseLimits::default())
            .map_err(|(_, e)| crate::error::InputError::new(e.message))?;
        super::super::parse_policy_file(&file, 0, &crate::analysis::rules::names())
    }

    /// The properties the schema gives the mapping at `path` (`items` steps into a list,
    /// a `$ref` is followed).
    fn properties<'s>(schema: &'s Value, path: &[&str]) -> Vec<&'s str> {
        let mut at = schema;
        for step in path {
            at = match step {
                &"items" => &at["items"],
                key => &at["properties"][*key],
            };
            if let Some(name) = at["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
                at = &schema["definitions"][name];
            }
        }
        let mut keys: Vec<&str> = at["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        keys.sort_unstable();
        keys
    }

    /// The reader reads every key the schema describes, and refuses every other: a file
    /// that writes each key of every section is valid (a key the schema describes but the
    /// reader does not read would be refused), each section's properties in the schema are
    /// the keys the reader asks for, and a key besides them is an unknown key.
    #[test]
    fn the_reader_and_the_schema_take_the_same_keys() {
        let full = every_key(&sections::FILE);
        if let Err(e) = parse(&full) {
            let all: Vec<String> = e.each().map(|e| e.message.clone()).collect();
            panic!("{all:#?}\n{full:#}");
        }
        let schema = file();
        let cases: [(&[&str], &Section); 5] = [
            (&[], &sections::FILE),
            (&["service"], &sections::SERVICE),
            (&["layers", "items"], &sections::LAYER),
            (&["lint"], &sections::LINT),
            (&["lint", "ignore", "items"], &sections::IGNORE),
        ];
        for (path, section) in cases {
            let mut names = section.names();
            names.sort_unstable();
            assert_eq!(properties(&schema, path), names, "{path:?}");
            let mut extra = full.clone();
            let mut at = &mut extra;
            for step in path {
                at = match *step {
                    "items" => &mut at[0],
                    key => &mut at[key],
                };
            }
            at["unexpected"] = json!(1);
            let error = parse(&extra).err();
            let messages: Vec<String> = error
                .iter()
                .flat_map(|e| e.each().map(|e| e.message.clone()))
                .collect();
            assert!(
                messages
                    .iter()
                    .any(|m| m.starts_with("unknown key `unexpected`")),
                "{path:?}: {messages:?}"
            );
        }
    }

    #[test]
    fn every_field_is_a_property_where_its_name_says() {
        let policy = policy_object();
        for field in fields::FIELDS {
            let mut at = &policy;
            for key in field.name.split('.') {
                at = &at["properties"][key];
            }
            assert_eq!(at["description"], json!(field.doc), "{}", field.name);
        }
        assert_eq!(
            policy["properties"]["backoff"]["properties"]["multiplier"]["default"],
            json!(2)
        );
        assert_eq!(
            policy["properties"]["retryAfter"]["properties"]["honor"]["default"],
            json!(false)
        );
    }
}
