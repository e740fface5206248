//! Validating a JSON value without building it: the same grammar, depth limit and
//! repeated-key check as the building parser, with the same errors at the same spans, so
//! that a deferred subtree fails a file exactly where a full build would have.

use std::borrow::Cow;

use super::Parser;
use super::first_repeated;
use crate::input::source::deferred::Member;
use crate::input::source::{Span, SyntaxError, Value};

/// An open list or mapping; a mapping's keys wait in a buffer shared by all open
/// mappings, from `first` on, to find a repeated one when it ends.
enum Open {
    Seq,
    Map { first: usize },
}

impl<'a> Parser<'a> {
    /// Moves past the value at the current position, nested `depth` levels deep,
    /// checking everything the building parser checks.
    pub(super) fn skip_value(&mut self, depth: usize) -> Result<(), SyntaxError> {
        self.skip_value_noting(depth, None)
    }

    /// [`Parser::skip_value`], noting in `members`, when the value is a mapping, where each
    /// of its own members is written (see [`Member`]).
    pub(super) fn skip_value_noting(
        &mut self,
        depth: usize,
        mut members: Option<&mut Vec<Member>>,
    ) -> Result<(), SyntaxError> {
        let mut open: Vec<Open> = Vec::new();
        let mut keys: Vec<(Cow<'a, str>, Span)> = Vec::new();
        // Where the member of the outermost mapping being read starts.
        let mut member_start: Option<usize> = None;
        'value: loop {
            self.skip_ws();
            let start = self.pos;
            if members.is_some() && matches!(open[..], [Open::Map { .. }]) {
                member_start = Some(start);
            }
            match self.peek() {
                Some(b'{' | b'[') if depth + open.len() >= self.limits.max_depth => {
                    return Err(self.too_deep(start));
                }
                Some(b'{') => {
                    if !self.opens_empty(b'}') {
                        open.push(Open::Map { first: keys.len() });
                        keys.push(self.raw_key()?);
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    if !self.opens_empty(b']') {
                        open.push(Open::Seq);
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    self.raw_string()?;
                }
                Some(b't') => {
                    self.literal("true", Value::Null)?;
                }
                Some(b'f') => {
                    self.literal("false", Value::Null)?;
                }
                Some(b'n') => {
                    self.literal("null", Value::Null)?;
                }
                Some(b'-' | b'0'..=b'9') => self.scan_number()?,
                Some(_) => return Err(self.error_here("expected a JSON value")),
                None => return Err(self.error_here("unexpected end of file: expected a value")),
            }
            // Close the containers that end here.
            loop {
                if let (Some(members), Some(start), [Open::Map { .. }], Some((key, key_span))) =
                    (members.as_deref_mut(), member_start, &open[..], keys.last())
                {
                    members.push(Member {
                        key: key.clone().into(),
                        key_span: *key_span,
                        value: Span::new(start, self.pos),
                    });
                    member_start = None;
                }
                self.skip_ws();
                match open.last_mut() {
                    None => return Ok(()),
                    Some(Open::Seq) => match self.peek() {
                        Some(b',') => {
                            self.pos += 1;
                            continue 'value;
                        }
                        Some(b']') => {
                            self.pos += 1;
                            open.pop();
                        }
                        _ => return Err(self.error_here("expected `,` or `]` in this list")),
                    },
                    Some(&mut Open::Map { first }) => match self.peek() {
                        Some(b',') => {
                            self.pos += 1;
                            self.skip_ws();
                            keys.push(self.raw_key()?);
                            continue 'value;
                        }
                        Some(b'}') => {
                            self.pos += 1;
                            open.pop();
                            let written = &keys[first..];
                            if let Some(index) = first_repeated(written, |(k, _)| &**k) {
                                let (key, span) = &written[index];
                                return Err(super::repeated_key(key, *span));
                            }
                            keys.truncate(first);
                        }
                        _ => return Err(self.error_here("expected `,` or `}` in this object")),
                    },
                }
            }
        }
    }

    /// [`Parser::skip_validated`] of a mapping, noting where each of its members is
    /// written (see [`Member`]). Text that is not valid JSON (a parse that reads ahead of
    /// its check, see [`super::parse_speculative`]) ends it early, at worst.
    pub(super) fn skip_validated_noting(&mut self, members: &mut Vec<Member>) {
        // Past the `{`.
        self.pos += 1;
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                break;
            }
            let Ok((key, key_span)) = self.raw_key() else {
                break;
            };
            self.skip_ws();
            let start = self.pos;
            match self.peek() {
                Some(b'{' | b'[') => self.skip_validated(),
                Some(b'"') => {
                    if self.raw_string().is_err() {
                        break;
                    }
                }
                // A number or a literal: up to what ends it.
                _ => {
                    while let Some(b) = self.peek()
                        && !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                    {
                        self.pos += 1;
                    }
                }
            }
            members.push(Member {
                key: key.into(),
                key_span,
                value: Span::new(start, self.pos),
            });
            self.skip_ws();
            if self.peek() != Some(b',') {
                break;
            }
            self.pos += 1;
        }
        if self.peek() == Some(b'}') {
            self.pos += 1;
        }
    }

    /// Moves past the list or mapping at the current position of text that a parse has
    /// validated already: only strings and brackets matter, to find where it ends.
    pub(super) fn skip_validated(&mut self) {
        self.pos += super::blocks::container_end(&self.bytes[self.pos..]);
    }

    /// Reads `"key"` and the `:` after it, borrowing the key when it has no escapes.
    pub(super) fn raw_key(&mut self) -> Result<(Cow<'a, str>, Span), SyntaxError> {
        let start = self.pos;
        if self.peek() != Some(b'"') {
            return Err(self.error_here("expected a quoted object key"));
        }
        let key = self.raw_string()?;
        let span = Span::new(start, self.pos);
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.error_here("expected `:` after the object key"));
        }
        self.pos += 1;
        Ok((key, span))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::input::source::json::{parse, parse_deferring};
    use crate::input::source::{Node, ParseLimits, SyntaxError, Value};

    fn both(
        text: &str,
        limits: ParseLimits,
    ) -> (Result<Node, SyntaxError>, Result<Node, SyntaxError>) {
        let shared = Arc::new(text.to_string());
        (parse(text, limits), parse_deferring(&shared, limits))
    }

    fn deferred_somewhere(node: &Node) -> bool {
        match &node.value {
            Value::Deferred(_) => true,
            Value::Map(m) => m.entries().iter().any(|e| deferred_somewhere(&e.value)),
            Value::Seq(items) => items.iter().any(deferred_somewhere),
            _ => false,
        }
    }

    #[test]
    fn deferred_subtrees_build_the_same_nodes_with_the_same_spans() {
        let text = r##"{"openapi": "3.1.0", "components": {"schemas": {"A": {"type": "object",
            "properties": {"id": {"type": "string", "description": "é\n"}, "n": {"items": [1, 2.5e3, -0]}}},
            "B": {"allOf": [{"$ref": "#/components/schemas/A"}], "x-meta": {"schema": {"k": [true, null]}}}},
            "examples": {"e": {"value": {"\u00e9": "\ud83d\udc4d", "schema": []}}}}, "x-ext": {"schema": {"a": 1}}}"##;
        let (full, deferred) = both(text, ParseLimits::default());
        let (full, deferred) = (full.unwrap(), deferred.unwrap());
        assert!(deferred_somewhere(&deferred));
        assert!(!deferred_somewhere(deferred.get("x-ext").unwrap()));
        assert_eq!(full, deferred);
        let path = [
            "components",
            "schemas",
            "A",
            "properties",
            "id",
            "description",
        ];
        assert_eq!(full.at(path).unwrap().span, deferred.at(path).unwrap().span);
        assert_eq!(deferred.at(path).unwrap().as_str(), Some("é\n"));
        let schemas = deferred.at(["components", "schemas"]).unwrap();
        assert_eq!(schemas.kind(), "a mapping");
        assert_eq!(schemas.as_map().unwrap().len(), 2);
    }

    #[test]
    fn subtrees_deferred_inside_a_built_one_end_where_they_end() {
        // Brackets, quotes and backslashes inside strings, escapes at the end of a
        // string, empty containers and whitespace of every kind, in subtrees deferred
        // again when their deferred parent is built.
        let text = r#"{"components": {"schemas": {"A": {"properties": {
            "s": {"example": "a \"]}\" \\", "b": "[{\\"}, "u": {"items": ["\u005d", {}, [], "\\\""]},
            "t": {"allOf": [ { "x" : [ ] } ,	{"y": "}}]]"} ] }},
            "after": {"examples": {"e": {"value": [1, -2.5e-3, true, null, "]"]}}}}}},
            "last": {"schema": {"z": "{"}}}"#;
        let (full, deferred) = both(text, ParseLimits::default());
        let (full, deferred) = (full.unwrap(), deferred.unwrap());
        assert_eq!(full, deferred);
        for path in [
            &["components", "schemas", "A", "properties", "s", "example"][..],
            &["components", "schemas", "A", "properties", "u", "items"],
            &["components", "schemas", "A", "properties", "t", "allOf"],
            &["components", "schemas", "A", "after", "examples"],
            &["last", "schema"],
        ] {
            let (f, d) = (full.at(path).unwrap(), deferred.at(path).unwrap());
            assert_eq!(f.span, d.span, "{path:?}");
            assert_eq!(f, d, "{path:?}");
        }
    }

    #[test]
    fn errors_inside_deferred_subtrees_are_the_errors_of_a_full_parse() {
        let mut keys: String = (0..20).map(|i| format!("\"k{}\": {i}, ", 19 - i)).collect();
        keys.push_str("\"k3\": 0, \"k1\": 1");
        let cases = [
            r#"{"schema": {"a": 1, "b": [1, 2,], "c": 3}}"#.to_string(),
            r#"{"schema": {"a": 1, "a": 2}}"#.to_string(),
            r#"{"schema": {"a": 1, "\u0061": 2}}"#.to_string(),
            format!(r#"{{"examples": {{{keys}}}}}"#),
            r#"{"items": [{"a": tru}]}"#.to_string(),
            r#"{"properties": {"a": "x	y"}}"#.to_string(),
            r#"{"properties": {"a": "\q"}}"#.to_string(),
            r#"{"properties": {"a": 01}}"#.to_string(),
            r#"{"properties": {"a" 1}}"#.to_string(),
            r#"{"properties": {"a": [1 2]}}"#.to_string(),
            r#"{"properties": {"a": "unterminated}}"#.to_string(),
            r#"{"properties": {"a": {}}"#.to_string(),
            r#"{"schema": [[[[[1]]]]]}"#.to_string(),
        ];
        for text in &cases {
            let limits = ParseLimits {
                max_depth: 5,
                ..ParseLimits::default()
            };
            let (full, deferred) = both(text, limits);
            assert!(full.is_err(), "{text}");
            assert_eq!(full, deferred, "{text}");
        }
    }
}
