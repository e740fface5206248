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
    built: OnceLock<Node>,
}

impl Deferred {
    pub(super) fn new(
        text: super::SharedText,
        span: Span,
        depth: usize,
        limits: ParseLimits,
        is_map: bool,
    ) -> Deferred {
        Deferred {
            text,
            span,
            depth,
            limits,
            is_map,
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
        // The range was validated when the file was parsed: this cannot fail. Were it to,
        // an empty container keeps every reader on its ordinary path.
        super::json::parse_range(&self.text, self.span, self.depth, self.limits)
            .unwrap_or_else(|_| self.empty())
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
}
