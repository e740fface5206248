//! The properties of an operation's request body: OpenAPI 3's `requestBody` (its first
//! JSON media type, else its form) or a Swagger 2.0 `in: body` parameter.
//!
//! A key the server deduplicates on may sit at the top of the body or inside it
//! (`data.attributes.idempotencyKey`, JSON:API), and a schema may be composed
//! (`allOf: [$ref: Base, …]`). The walk reads each schema's `properties`, the members of
//! its `allOf` (whose properties are required where the member's `required` or the
//! composing schema's names them) and of its `oneOf`
//! and `anyOf` (whose properties are sent only sometimes: never required), and the
//! properties of nested objects, named by their dotted path. Nested objects are read
//! [`MAX_NESTING`] levels below the body's own and at most [`MAX_SCHEMAS`] schemas per body: a key is
//! a field of the request, not of a deeply nested record, and a recursive or very large
//! schema stays cheap. Each field keeps its `description` and `title`, which say whether
//! the server de-duplicates on it.
//!
//! A schema reached through `$ref` at the top is read once and shared by every operation
//! that uses it, so many operations on one large schema stay linear. A reference that
//! does not resolve leaves that part of the body without properties rather than failing
//! the description: schemas were never required to resolve for the facts retrying needs.

use std::sync::Arc;

use foldhash::HashMap;

use super::{At, through};
use crate::input::load::{FileId, Loader};
use crate::input::model::{Place, RequestField, ResponseHeader};
use crate::input::source::{Node, Text};
use crate::location::Loc;

/// Where a `$ref`ed response is defined, and its headers.
pub(super) type SharedResponse = (Arc<Loc>, Arc<[ResponseHeader]>);

/// What the operations of a description share, read once: body properties by the schema's
/// file and pointer, the location and headers of a `$ref`ed response by the response's,
/// and the phrases of shared texts.
#[derive(Default)]
pub(super) struct BodyCache {
    bodies: HashMap<(FileId, Arc<str>), Arc<[RequestField]>>,
    pub(super) headers: HashMap<(FileId, Arc<str>), SharedResponse>,
    /// Whether Fern's `x-fern-idempotent: true` marks the operation itself idempotent:
    /// the document declares no `x-fern-idempotency-headers` for it to take.
    pub(super) fern_marks_idempotent: bool,
    /// The response and field texts already read for what they say of a repeat.
    pub(super) phrases: crate::input::model::effect::Seen,
}

/// A request media type that says something of the effect: a JSON merge patch
/// (RFC 7396), GraphQL.
fn telling(media: &str) -> bool {
    let essence = essence(media);
    essence == "application/merge-patch+json" || essence == "application/graphql"
}

/// The media types of Swagger 2.0's `consumes` that say something of the effect, with
/// where each is written.
pub(super) fn consumed_media_types(op: &At<'_>) -> Vec<(Box<str>, Loc)> {
    let Some(consumes) = op.node.as_map().and_then(|m| m.entry("consumes")) else {
        return Vec::new();
    };
    let list = op.loc.entry("consumes", consumes.key_span, &consumes.value);
    let items = consumes.value.as_seq().unwrap_or_default();
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let media = item.as_str().filter(|m| telling(m))?;
            Some((media.into(), list.item(i, item)))
        })
        .collect()
}

/// What an OpenAPI 3 request body holds that the model reads.
#[derive(Default)]
pub(super) struct RequestBody {
    /// The properties of its JSON schema.
    pub fields: Arc<[RequestField]>,
    /// The media types of `content` that say something of the effect, with their places.
    pub telling: Vec<(Box<str>, Loc)>,
}

/// The request body of the operation at `op` (OpenAPI 3), through its `$ref`, read once:
/// the properties of its JSON media type's schema and its telling media types.
pub(super) fn request_body(loader: &mut Loader, cache: &mut BodyCache, op: &At<'_>) -> RequestBody {
    let mut out = RequestBody {
        fields: Arc::from([]),
        telling: Vec::new(),
    };
    let Some(entry) = op.node.as_map().and_then(|m| m.entry("requestBody")) else {
        return out;
    };
    let here = At {
        id: op.id,
        file: op.file,
        node: &entry.value,
        loc: op.loc.entry("requestBody", entry.key_span, &entry.value),
    };
    let Ok(target) = loader.follow(here.id, here.node) else {
        return out;
    };
    let body = through(target.as_ref(), here);
    let Some(content) = body.node.as_map().and_then(|m| m.entry("content")) else {
        return out;
    };
    let content_loc = body.loc.entry("content", content.key_span, &content.value);
    let media_types = content
        .value
        .as_map()
        .map(crate::input::source::Map::entries)
        .unwrap_or_default();
    out.telling = media_types
        .iter()
        .filter(|m| telling(&m.key))
        .map(|m| {
            let loc = content_loc.entry(&m.key, m.key_span, &m.value);
            ((*m.key).into(), loc)
        })
        .collect();
    // A JSON body first; else a form, whose schema names its fields the same way
    // (Stripe's and Twilio's bodies are `application/x-www-form-urlencoded`).
    let media = media_types
        .iter()
        .find(|e| is_json(&e.key))
        .or_else(|| media_types.iter().find(|e| is_form(&e.key)));
    let Some(media) = media else {
        return out;
    };
    let Some(schema) = media.value.as_map().and_then(|m| m.entry("schema")) else {
        return out;
    };
    let media_loc = content_loc.entry(&media.key, media.key_span, &media.value);
    let at = At {
        id: body.id,
        file: body.file,
        node: &schema.value,
        loc: media_loc.entry("schema", schema.key_span, &schema.value),
    };
    out.fields = schema_properties(loader, cache, at);
    out
}

/// The properties of the body schema at `schema` (which may be a `$ref`): of a Swagger
/// 2.0 `in: body` parameter, or of an OpenAPI 3 media type.
pub(super) fn schema_properties(
    loader: &mut Loader,
    cache: &mut BodyCache,
    schema: At<'_>,
) -> Arc<[RequestField]> {
    let Ok(target) = loader.follow(schema.id, schema.node) else {
        return Arc::from([]);
    };
    let schema = through(target.as_ref(), schema);
    let key = (schema.id, schema.loc.pointer.clone());
    if let Some(known) = cache.bodies.get(&key) {
        return known.clone();
    }
    let mut walk = Walk {
        loader,
        fields: Vec::new(),
        schemas: 0,
    };
    walk.schema(&schema, "", true, 0, &[]);
    let fields: Arc<[RequestField]> = walk.fields.into();
    cache.bodies.insert(key, fields.clone());
    fields
}

/// How many levels of objects below the body's own are read: `data.attributes.key`
/// reads two (`attributes`, then `key`).
const MAX_NESTING: usize = 2;

/// How many schemas one body's walk reads at most, compositions and `$ref`s included.
const MAX_SCHEMAS: usize = 256;

/// A walk over one body schema, gathering its fields.
struct Walk<'l> {
    loader: &'l mut Loader,
    fields: Vec<RequestField>,
    schemas: usize,
}

impl Walk<'_> {
    /// Reads the schema at `schema` (already through its `$ref`): its compositions and
    /// properties, each property named after `prefix`, required only when `required` is
    /// and its schema's `required`, or the `required` of the schema that composes it with
    /// `allOf` (`also`), names it.
    fn schema(
        &mut self,
        schema: &At<'_>,
        prefix: &str,
        required: bool,
        nesting: usize,
        also: &[&str],
    ) {
        self.schemas += 1;
        if self.schemas > MAX_SCHEMAS {
            return;
        }
        let mut names: Vec<&str> = schema
            .node
            .get("required")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(Node::scalar_text)
            .collect();
        names.extend_from_slice(also);
        for (keyword, all) in [("allOf", true), ("oneOf", false), ("anyOf", false)] {
            let Some(entry) = schema.node.as_map().and_then(|m| m.entry(keyword)) else {
                continue;
            };
            let list = schema.loc.entry(keyword, entry.key_span, &entry.value);
            for (i, member) in entry.value.as_seq().unwrap_or_default().iter().enumerate() {
                let at = At {
                    id: schema.id,
                    file: schema.file,
                    node: member,
                    loc: list.item(i, member),
                };
                let also: &[&str] = if all { &names } else { &[] };
                self.follow(at, prefix, required && all, nesting, also);
            }
        }
        let Some(entry) = schema.node.as_map().and_then(|m| m.entry("properties")) else {
            return;
        };
        let list = schema.loc.entry("properties", entry.key_span, &entry.value);
        let entries = entry
            .value
            .as_map()
            .map(crate::input::source::Map::entries)
            .unwrap_or_default();
        for property in entries {
            let required = required && names.contains(&&*property.key);
            // Below the body's own fields, only a field that could be a key, or one that
            // every request sends (`spec.name`: "Must be unique across all apps"), is
            // kept: the rest say nothing of a repeat, and are read only to reach those
            // below them.
            let kept = nesting == 0 || required || crate::input::model::may_be_key(&property.key);
            if !kept && nesting >= MAX_NESTING {
                continue;
            }
            let name = if prefix.is_empty() {
                property.key.to_string()
            } else {
                format!("{prefix}.{}", property.key)
            };
            let loc = list.entry(&property.key, property.key_span, &property.value);
            // A nested field's words are kept only where its name could make it a key, or
            // where every request sends it.
            let worded =
                nesting == 0 || required || crate::input::model::ends_key_like(&property.key);
            let mut description = if worded { words(&property.value) } else { None };
            if nesting < MAX_NESTING || (worded && description.is_none()) {
                let at = At {
                    id: schema.id,
                    file: schema.file,
                    node: &property.value,
                    loc: loc.clone(),
                };
                // A `$ref`ed property is described where it is defined.
                if let Ok(Some(target)) = self.loader.follow(at.id, at.node) {
                    if worded && description.is_none() {
                        description = words(target.node());
                    }
                    if nesting < MAX_NESTING {
                        let at = through(Some(&target), at);
                        self.schema(&at, &name, required, nesting + 1, &[]);
                    }
                } else if nesting < MAX_NESTING {
                    self.schema(&at, &name, required, nesting + 1, &[]);
                }
            }
            if kept {
                self.fields.push(RequestField {
                    name,
                    place: Place::Body,
                    required,
                    description,
                    loc,
                });
            }
        }
    }

    /// Reads the schema at `at` through its `$ref`.
    fn follow(&mut self, at: At<'_>, prefix: &str, required: bool, nesting: usize, also: &[&str]) {
        if self.schemas > MAX_SCHEMAS {
            return;
        }
        match self.loader.follow(at.id, at.node) {
            Ok(Some(target)) => {
                let at = through(Some(&target), at);
                self.schema(&at, prefix, required, nesting, also);
            }
            Ok(None) => self.schema(&at, prefix, required, nesting, also),
            Err(_) => {}
        }
    }
}

/// A schema's `title` and `description`, as one text: what it says of the value. One of
/// them alone is shared with the source, not copied.
fn words(schema: &Node) -> Option<Text> {
    let title = schema.get("title").and_then(Node::as_text);
    let description = schema.get("description").and_then(Node::as_text);
    match (title, description) {
        (Some(t), Some(d)) => Some(Text::from(format!("{}. {}", t.as_str(), d.as_str()))),
        (t, d) => t.or(d).cloned(),
    }
}

/// A media type without its parameters, lower-cased: `application/json`.
fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a media type is a form: `application/x-www-form-urlencoded` or
/// `multipart/form-data`, with or without parameters.
fn is_form(media_type: &str) -> bool {
    let essence = essence(media_type);
    essence == "application/x-www-form-urlencoded" || essence == "multipart/form-data"
}

/// Whether a media type carries JSON: `application/json` (with parameters or not),
/// `text/json`, or a `+json` suffix (`application/merge-patch+json`).
fn is_json(media_type: &str) -> bool {
    let essence = essence(media_type);
    essence == "application/json" || essence == "text/json" || essence.ends_with("+json")
}

#[cfg(test)]
mod tests {
    use super::is_json;

    #[test]
    fn json_media_types_are_the_json_ones() {
        for json in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON",
            "application/merge-patch+json",
            "text/json",
        ] {
            assert!(is_json(json), "{json}");
        }
        for other in [
            "application/x-www-form-urlencoded",
            "multipart/form-data",
            "text/plain",
            "application/jsonl",
        ] {
            assert!(!is_json(other), "{other}");
        }
    }
}
