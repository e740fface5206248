//! The JSON Schema of the policy file, checked in as `schema/retry-policy.schema.json` and
//! printed by `retrylint schema`: the policy object comes from the field table, the rest of
//! the file (its top level, durations, conditions, `lint`) is written here.
//!
//! `tests/cli/generated.rs` fails when the checked-in file differs from [`text`], and rewrites
//! it when asked to (see there).

use serde_json::{Map, Value, json};

use super::fields::{self, Field, Kind};

/// The whole schema, as the checked-in file holds it: pretty-printed, ending in a newline.
pub fn text() -> String {
    let mut text = serde_json::to_string_pretty(&file()).unwrap_or_default();
    text.push('\n');
    text
}

/// The schema of a whole policy file.
pub fn file() -> Value {
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/schema/retry-policy.schema.json"),
        "title": "retrylint retry policy",
        "description": "What an HTTP client does when a call fails: attempts, deadline, backoff, retried conditions, Retry-After, idempotency keys and the plan for an unknown outcome, per operation.",
        "type": "object",
        "required": ["version"],
        "additionalProperties": false,
        "properties": {
            "$schema": { "type": "string" },
            "version": { "const": 1, "description": "The policy format version; only 1 exists." },
            "defaults": { "$ref": "#/definitions/policy", "description": "Applied to every operation." },
            "operations": {
                "description": "Selector -> policy fields that override the defaults one by one. A selector is `METHOD /path` exactly as the description writes the path (`*` as method matches every method; in paths `*` matches one segment and `**` any number), an operationId, or `tag:NAME`.",
                "type": ["object", "null"],
                "additionalProperties": { "$ref": "#/definitions/policy" }
            },
            "service": {
                "description": "The names a mesh or gateway knows the service by, besides the hosts of the description's servers.",
                "type": ["object", "null"],
                "additionalProperties": false,
                "properties": { "hosts": { "type": "array", "items": { "type": "string" } } }
            },
            "layers": {
                "description": "The position of the layers of a -p file or object: client, edge, gateway or mesh.",
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "required": ["position"],
                    "additionalProperties": false,
                    "properties": {
                        "file": { "type": "string", "description": "The end of a -p file's path." },
                        "name": { "type": "string", "description": "A layer's object name, or its full name." },
                        "position": { "enum": ["client", "edge", "gateway", "mesh"] }
                    }
                }
            },
            "lint": { "$ref": "#/definitions/lint" }
        },
        "definitions": {
            "duration": {
                "description": "A duration with units: 250ms, 2s, 1m30s, 24h, 0.5s.",
                "type": "string",
                "pattern": "^-?([0-9]+(\\.[0-9]+)?(us|ms|s|m|h|d))+$"
            },
            "signal": {
                "description": "A status (503), a class (5xx), or a transport signal.",
                "oneOf": [
                    { "type": "integer", "minimum": 100, "maximum": 599 },
                    { "type": "string", "pattern": "^([1-5][0-9][0-9]|[1-5][xX][xX])$" },
                    { "enum": fields::SIGNALS }
                ]
            },
            "policy": policy_object(),
            "lint": {
                "type": ["object", "null"],
                "additionalProperties": false,
                "properties": {
                    "rules": {
                        "type": "object",
                        "description": "A rule's severity, or off.",
                        "additionalProperties": { "enum": ["off", "info", "warning", "error"] }
                    },
                    "maxAttemptsLimit": { "type": "integer", "description": "The most attempts unbounded-attempts allows (10 by default)." },
                    "maxAmplification": { "type": "integer", "minimum": 1, "description": "The most requests at the backend per call that retry-amplification allows across layers (10 by default)." },
                    "keyHeaders": { "type": "array", "items": { "type": "string" }, "description": "Header names that carry idempotency keys in the description, besides Idempotency-Key and the known vendor names." },
                    "ignore": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["rule"],
                            "additionalProperties": false,
                            "properties": {
                                "rule": { "type": "string" },
                                "operations": { "type": "array", "items": { "type": "string" } },
                                "reason": { "type": "string" }
                            }
                        }
                    }
                }
            }
        }
    })
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
