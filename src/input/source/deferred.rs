//! Subtrees built on first use.
//!
//! Most of a large description is schemas and examples, which the model reads little of
//! (a request body's top-level properties, a `Retry-After` header's type) or nothing of.
//! The JSON parser validates such a subtree completely (syntax, nesting depth, repeated
//! keys: every error it could hold is reported with its span as before) but records only
//! its byte range; the first look inside parses that range into the same nodes, with the
//! same spans, that a full build would have made.

use std::fmt;
use std::sync::{Arc, OnceLock};

use super::{Node, ParseLimits, Span, Value};

/// Whether a deferring parse leaves the value of this key (when it is a list or a
/// mapping) unbuilt: schemas and examples, which the model reads at most a little of.
pub fn is_deferred_key(key: &str) -> bool {
    matches!(
        key,
        "schema"
            | "schemas"
            | "definitions"
            | "properties"
            | "items"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "not"
            | "additionalProperties"
            | "patternProperties"
            | "example"
            | "examples"
    )
}

/// Whether the value of this key is a mapping of named schemas (`components/schemas`,
/// `definitions`, `properties`, `patternProperties`): when it is built, each member is
/// left unbuilt in its turn, so that a `$ref` to one schema, or a look at one property,
/// builds that member alone rather than all of them.
pub(super) fn defers_members(key: &str) -> bool {
    matches!(
        key,
        "schemas" | "definitions" | "properties" | "patternProperties"
    )
}

/// A member of a deferred mapping, noted while the mapping was validated: its key and
/// where its value is written, so that the mapping can be built without reading it again.
#[derive(Debug)]
pub(super) struct Member {
    pub(super) key: super::Text,
    pub(super) key_span: Span,
    pub(super) value: Span,
}

/// A validated list or mapping of a JSON file, not yet built.
pub struct Deferred {
    /// The whole file's text.
    text: super::SharedText,
    /// Where the value is written.
    span: Span,
    /// How deeply the value is nested in its document (for the depth limit inside it).
    depth: usize,
    limits: ParseLimits,
    /// Whether it is a mapping (else a list).
    is_map: bool,
    /// Whether its members are left unbuilt when it is built (see [`defers_members`]).
    lazy_members: bool,
    /// Where its members are written, when they were noted as it was validated.
    members: Option<Box<[Member]>>,
    built: OnceLock<Node>,
}

impl Deferred {
    pub(super) fn new(
        text: super::SharedText,
        span: Span,
        depth: usize,
        limits: ParseLimits,
        is_map: bool,
        lazy_members: bool,
        members: Option<Box<[Member]>>,
    ) -> Deferred {
        Deferred {
            text,
            span,
            depth,
            limits,
            is_map,
            lazy_members,
            members,
            built: OnceLock::new(),
        }
    }

    /// The subtree, built now if it was not yet, and kept.
    pub fn node(&self) -> &Node {
        self.built.get_or_init(|| self.build())
    }

    /// The subtree for one reader alone: the one built already, else one built now and
    /// not kept, so that it is freed when the reader is done with it.
    pub fn build_alone(&self) -> Node {
        self.built.get().cloned().unwrap_or_else(|| self.build())
    }

    fn build(&self) -> Node {
        if let Some(members) = &self.members
            && let Some(node) = self.build_from_members(members)
        {
            return node;
        }
        // The range was validated when the file was parsed: this cannot fail. Were it to,
        // an empty container keeps every reader on its ordinary path.
        super::json::parse_range(
            &self.text,
            self.span,
            self.depth,
            self.limits,
            self.lazy_members,
        )
        .unwrap_or_else(|_| self.empty())
    }

    /// The mapping built from its noted members, each list or mapping among them left
    /// unbuilt: the same nodes as a parse of its text with its members deferred.
    fn build_from_members(&self, members: &[Member]) -> Option<Node> {
        let depth = self.depth + 1;
        let entries = members
            .iter()
            .map(|member| {
                let start = member.value.start as usize;
                let value = match self.text.as_bytes().get(start) {
                    Some(&open @ (b'{' | b'[')) => Node::new(
                        member.value,
                        Value::Deferred(Arc::new(Deferred::new(
                            self.text.clone(),
                            member.value,
                            depth,
                            self.limits,
                            open == b'{',
                            false,
                            None,
                        ))),
                    ),
                    _ => super::json::parse_range(
                        &self.text,
                        member.value,
                        depth,
                        self.limits,
                        false,
                    )
                    .ok()?,
                };
                Some(super::Entry {
                    key: member.key.clone(),
                    key_span: member.key_span,
                    value,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        // The keys were checked for repeats when the mapping was validated.
        let map = super::Map::from_unique(entries.into());
        Some(Node::new(self.span, Value::Map(map)))
    }

    fn empty(&self) -> Node {
        let value = if self.is_map {
            Value::Map(super::Map::default())
        } else {
            Value::Seq(Arc::new([]))
        };
        Node::new(self.span, value)
    }

    /// Whether the value is a mapping (else a list), without building it.
    pub fn is_map(&self) -> bool {
        self.is_map
    }

    /// Whether the subtree was built.
    #[cfg(test)]
    pub(crate) fn is_built(&self) -> bool {
        self.built.get().is_some()
    }

    /// The built subtree, taken out (when dropping a tree without recursion).
    pub(super) fn take_built(&mut self) -> Option<Node> {
        self.built.take()
    }
}

impl std::fmt::Debug for Deferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fmt::Debug::fmt(self.node(), f)
    }
}

impl PartialEq for Deferred {
    fn eq(&self, other: &Deferred) -> bool {
        self.node() == other.node()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subtree_nobody_reads_is_never_built_not_even_to_drop_it() {
        let text = Arc::new(r#"{"schemas": {"a": {"properties": {"b": 1}}}}"#.to_string());
        let root = super::super::json::parse_deferring(&text, ParseLimits::default()).unwrap();
        let Some(Value::Deferred(schemas)) = root.as_map().map(|m| &m.entries()[0].value.value)
        else {
            panic!("`schemas` is deferred")
        };
        let schemas = schemas.clone();
        drop(root);
        assert!(!schemas.is_built());
        assert_eq!(schemas.node().get("a").map(Node::kind), Some("a mapping"));
        assert!(schemas.is_built());
    }

    #[test]
    fn a_collection_of_schemas_is_built_one_member_at_a_time_from_where_they_were_noted() {
        let text = r#"{"components": {"schemas": {"a": {"type": "object"},
            "b": {"properties": {"k": {"type": "string"}, "x-k": [1]}}, "c": true}}}"#;
        let shared = Arc::new(text.to_string());
        let root = super::super::json::parse_deferring(&shared, ParseLimits::default()).unwrap();
        // `get` builds what it returns; the entries show what is still deferred.
        fn raw<'a>(node: &'a Node, key: &str) -> Option<&'a Value> {
            node.as_map()
                .and_then(|m| m.entry(key))
                .map(|e| &e.value.value)
        }
        let Some(Value::Deferred(schemas)) = root.get("components").and_then(|c| raw(c, "schemas"))
        else {
            panic!("`schemas` is deferred")
        };
        assert!(schemas.members.as_ref().is_some_and(|m| m.len() == 3));
        let built = schemas.node();
        let member = |key: &str| raw(built, key);
        let Some(Value::Deferred(a)) = member("a") else {
            panic!("a member that is a mapping is left unbuilt")
        };
        assert!(!a.is_built());
        assert_eq!(member("c"), Some(&Value::Bool(true)));
        // A member's members are deferred again where they are named properties.
        let Some(Value::Deferred(b)) = member("b") else {
            panic!("b is deferred")
        };
        let Some(Value::Deferred(properties)) = raw(b.node(), "properties") else {
            panic!("properties are deferred")
        };
        let Some(Value::Deferred(k)) = raw(properties.node(), "x-k") else {
            panic!("a property named like an extension is still a member")
        };
        assert!(!k.is_built());
        assert!(!a.is_built(), "looking at b built b alone");
        // The same nodes, spans included, as a parse that defers nothing.
        let plain = super::super::json::parse(text, ParseLimits::default()).unwrap();
        assert_eq!(root, plain);
        assert_eq!(
            root.at(["components", "schemas", "b", "properties", "k"])
                .map(|n| n.span),
            plain
                .at(["components", "schemas", "b", "properties", "k"])
                .map(|n| n.span)
        );
    }
}
