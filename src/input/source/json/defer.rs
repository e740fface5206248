//! Which values a deferring parse leaves unbuilt (schemas and examples, path items, the
//! members of a collection of named schemas), and how such a value is validated and
//! recorded (see [`crate::input::source::deferred`]).

use std::sync::Arc;

use super::{Frame, Parser};
use crate::input::source::deferred::{Deferred, is_deferred_key};
use crate::input::source::{Node, Span, SyntaxError, Value};

impl Parser<'_> {
    /// Whether the value about to be read, under `key` at nesting `depth`, is left
    /// unbuilt; `plain` holds the depth of an extension (`x-…`) being read, inside which
    /// nothing is deferred: rules read extensions node by node.
    pub(super) fn defers(&self, key: &str, depth: usize, plain: &mut Option<usize>) -> bool {
        if self.deferring.is_none() || plain.is_some() || !matches!(self.peek(), Some(b'{' | b'['))
        {
            return false;
        }
        if key.starts_with("x-") {
            *plain = Some(depth);
            return false;
        }
        is_deferred_key(key)
    }

    /// Whether the value about to be read is a path item of the document's `paths`: left
    /// unbuilt, so that the model builds one path item at a time and lets it go once its
    /// operations are read (a description's paths are most of its tree).
    pub(super) fn defers_path_item(&self, stack: &[Frame], plain: Option<usize>) -> bool {
        self.deferring.is_some()
            && plain.is_none()
            && self.base_depth == 0
            && self.peek() == Some(b'{')
            && matches!(
                stack,
                [Frame::Map { key: parent, .. }, Frame::Map { key, .. }]
                    if &**parent == "paths" && !key.starts_with("x-")
            )
    }

    /// Whether the value about to be read is a member of the collection of named schemas
    /// being built (see [`defers_members`]): left unbuilt until it is looked at.
    pub(super) fn defers_member(&self, stack: &[Frame]) -> bool {
        self.lazy_members
            && matches!(stack, [Frame::Map { .. }])
            && matches!(self.peek(), Some(b'{' | b'['))
    }

    /// Validates the list or mapping at the current position and records it unbuilt;
    /// with `lazy_members`, its members are left unbuilt in their turn when it is built.
    pub(super) fn deferred(
        &mut self,
        depth: usize,
        lazy_members: bool,
    ) -> Result<Node, SyntaxError> {
        let start = self.pos;
        let is_map = self.peek() == Some(b'{');
        let mut members = Vec::new();
        let noted = if self.validated && lazy_members && is_map {
            self.skip_validated_noting(&mut members);
            Some(members.into_boxed_slice())
        } else if self.validated {
            self.skip_validated();
            None
        } else if lazy_members && is_map {
            self.skip_value_noting(depth, Some(&mut members))?;
            Some(members.into_boxed_slice())
        } else {
            self.skip_value(depth)?;
            None
        };
        let span = Span::new(start, self.pos);
        let text = self.deferring.cloned().unwrap_or_default();
        let deferred = Deferred::new(text, span, depth, self.limits, is_map, lazy_members, noted);
        Ok(Node::new(span, Value::Deferred(Arc::new(deferred))))
    }
}
