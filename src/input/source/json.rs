//! A JSON parser that builds the spanned [`Node`] tree directly.
//!
//! Iterative (an explicit stack, so deep nesting is a clear error, never a stack
//! overflow), strict about the grammar, lenient where real descriptions bend it: a lone
//! UTF-16 surrogate escape becomes U+FFFD instead of failing the file.

use std::borrow::Cow;
use std::sync::Arc;

use super::deferred::defers_members;
use super::tree::first_repeated;
use super::{Entry, Map, Node, ParseLimits, SharedText, Span, SyntaxError, Text, Value};

mod blocks;
mod defer;
mod scan;
mod skip;

use scan::{SPACES, string_stop};

/// Parses one JSON document, building all of it.
pub(super) fn parse(text: &str, limits: ParseLimits) -> Result<Node, SyntaxError> {
    Parser::new(text, None, limits).whole()
}

/// Parses one JSON document of a description, leaving schemas and examples unbuilt
/// until they are first looked at (see [`Deferred`]). Every syntax error is found now.
pub(super) fn parse_deferring(text: &SharedText, limits: ParseLimits) -> Result<Node, SyntaxError> {
    Parser::new(text, Some(text), limits).whole()
}

/// [`parse_deferring`] that takes the text for valid JSON, as [`validate`] checks it on
/// another core: what it leaves unbuilt is only measured (its brackets and strings), not
/// checked. On text that is not valid JSON its tree may be wrong, but it never fails
/// worse than by an error; the caller keeps it only once the check passed.
pub(super) fn parse_speculative(
    text: &SharedText,
    limits: ParseLimits,
) -> Result<Node, SyntaxError> {
    let mut parser = Parser::new(text, Some(text), limits);
    parser.validated = true;
    parser.whole()
}

/// Whether a [`parse_deferring`] of `text` succeeds: the same checks, nothing built.
pub(super) fn validate(text: &str, limits: ParseLimits) -> bool {
    Parser::new(text, None, limits)
        .whole_with(|parser| parser.skip_value(0))
        .is_ok()
}

/// Builds the list or mapping written at `span` of a file whose parse validated it, at
/// nesting depth `depth`; with `lazy_members`, each of its members that is a list or
/// a mapping is left unbuilt in its turn.
pub(super) fn parse_range(
    text: &SharedText,
    span: Span,
    depth: usize,
    limits: ParseLimits,
    lazy_members: bool,
) -> Result<Node, SyntaxError> {
    let mut parser = Parser::new(text, Some(text), limits);
    parser.pos = span.start as usize;
    parser.base_depth = depth;
    parser.validated = true;
    parser.lazy_members = lazy_members;
    parser.document()
}

/// An open list or mapping: where it starts, and where its children start in the
/// parser's shared buffers (children wait there, so that each finished container is one
/// allocation of the size it needs).
enum Frame {
    Seq {
        start: usize,
        first: usize,
    },
    Map {
        start: usize,
        first: usize,
        key: Text,
        key_span: Span,
    },
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    limits: ParseLimits,
    /// The file's shared text, when schemas and examples are deferred.
    deferring: Option<&'a SharedText>,
    /// How deeply the text parsed is nested in its document (for a deferred subtree).
    base_depth: usize,
    /// Whether the text parsed was validated already (a deferred subtree being built), or
    /// is being checked beside (see [`parse_speculative`]): the subtrees deferred inside
    /// it need only be measured, not checked.
    validated: bool,
    /// Whether the mapping being built is a collection of named schemas whose members are
    /// left unbuilt (see [`defers_members`]).
    lazy_members: bool,
    /// The finished items of the open lists, innermost last.
    items: Vec<Node>,
    /// The finished entries of the open mappings, innermost last.
    entries: Vec<Entry>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, deferring: Option<&'a SharedText>, limits: ParseLimits) -> Parser<'a> {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            limits,
            deferring,
            base_depth: 0,
            validated: false,
            lazy_members: false,
            items: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// The whole text as one document.
    fn whole(self) -> Result<Node, SyntaxError> {
        self.whole_with(Self::document)
    }

    /// `read` of the whole text as one document: after a byte order mark, and with
    /// nothing but white space after it.
    fn whole_with<T>(
        mut self,
        read: impl FnOnce(&mut Self) -> Result<T, SyntaxError>,
    ) -> Result<T, SyntaxError> {
        if self.text.starts_with('\u{feff}') {
            self.pos = 3;
        }
        let read = read(&mut self)?;
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self.error_here("unexpected text after the end of the JSON document"));
        }
        Ok(read)
    }

    /// The error for a list or mapping opened at `start` beyond the depth limit.
    fn too_deep(&self, start: usize) -> SyntaxError {
        SyntaxError::new(
            format!(
                "nesting is deeper than {} levels; refusing to go further (raise the limit with --max-depth)",
                self.limits.max_depth
            ),
            Span::new(start, start + 1),
        )
    }

    fn document(&mut self) -> Result<Node, SyntaxError> {
        let mut stack: Vec<Frame> = Vec::new();
        // The depth of the extension being read, if any (see `defers`).
        let mut plain: Option<usize> = None;
        'value: loop {
            self.skip_ws();
            let start = self.pos;
            let depth = self.base_depth + stack.len();
            if let Some(Frame::Map { key, .. }) = stack.last() {
                let member = self.defers_member(&stack);
                if member
                    || self.defers(key, depth, &mut plain)
                    || self.defers_path_item(&stack, plain)
                {
                    let lazy_members = !member && defers_members(key);
                    let node = self.deferred(depth, lazy_members)?;
                    if let Some(node) = self.attach(&mut stack, node, &mut plain)? {
                        return Ok(node);
                    }
                    continue 'value;
                }
            }
            let node = match self.peek() {
                Some(b'{' | b'[') if depth >= self.limits.max_depth => {
                    return Err(self.too_deep(start));
                }
                Some(b'{') => {
                    if self.opens_empty(b'}') {
                        Node::new(Span::new(start, self.pos), Value::Map(Map::default()))
                    } else {
                        let (key, key_span) = self.key()?;
                        stack.push(Frame::Map {
                            start,
                            first: self.entries.len(),
                            key,
                            key_span,
                        });
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    if self.opens_empty(b']') {
                        Node::new(Span::new(start, self.pos), Value::Seq(Arc::new([])))
                    } else {
                        stack.push(Frame::Seq {
                            start,
                            first: self.items.len(),
                        });
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    let s = self.string()?;
                    Node::new(Span::new(start, self.pos), Value::String(s))
                }
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(_) => return Err(self.error_here("expected a JSON value")),
                None => return Err(self.error_here("unexpected end of file: expected a value")),
            };
            if let Some(root) = self.attach(&mut stack, node, &mut plain)? {
                return Ok(root);
            }
        }
    }

    /// Attaches a finished node to its parent and closes the parents that end here.
    /// Returns the document's root once it is complete, else `None` with the parser at
    /// the next value to read.
    fn attach(
        &mut self,
        stack: &mut Vec<Frame>,
        mut node: Node,
        plain: &mut Option<usize>,
    ) -> Result<Option<Node>, SyntaxError> {
        loop {
            if *plain == Some(self.base_depth + stack.len()) {
                *plain = None;
            }
            match stack.last_mut() {
                None => return Ok(Some(node)),
                Some(Frame::Seq { .. }) => {
                    self.items.push(node);
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => {
                            self.pos += 1;
                            return Ok(None);
                        }
                        Some(b']') => {
                            self.pos += 1;
                            let Some(Frame::Seq { start, first }) = stack.pop() else {
                                unreachable!("the top frame was a list")
                            };
                            let items: Arc<[Node]> = self.items.drain(first..).collect();
                            node = Node::new(Span::new(start, self.pos), Value::Seq(items));
                        }
                        _ => return Err(self.error_here("expected `,` or `]` in this list")),
                    }
                }
                Some(Frame::Map { key, key_span, .. }) => {
                    self.entries.push(Entry {
                        key: std::mem::take(key),
                        key_span: *key_span,
                        value: node,
                    });
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => {
                            self.pos += 1;
                            self.skip_ws();
                            let (k, ks) = self.key()?;
                            *key = k;
                            *key_span = ks;
                            return Ok(None);
                        }
                        Some(b'}') => {
                            self.pos += 1;
                            let Some(Frame::Map { start, first, .. }) = stack.pop() else {
                                unreachable!("the top frame was a mapping")
                            };
                            node = self.close_map(Span::new(start, self.pos), first)?;
                        }
                        _ => {
                            return Err(self.error_here("expected `,` or `}` in this object"));
                        }
                    }
                }
            }
        }
    }

    /// The mapping at `span` from the entries waiting from `first` on; a repeated key is
    /// a syntax error at its second writing.
    fn close_map(&mut self, span: Span, first: usize) -> Result<Node, SyntaxError> {
        unique_map(&mut self.entries, first, span)
    }

    /// Reads `"key"` and the `:` after it.
    fn key(&mut self) -> Result<(Text, Span), SyntaxError> {
        self.raw_key().map(|(key, span)| (Text::from(key), span))
    }

    /// Moves past the `{` or `[` at the current position; if `close` follows it (an
    /// empty mapping or list), past that too, and says so.
    fn opens_empty(&mut self, close: u8) -> bool {
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            return true;
        }
        false
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Moves past whitespace. Pretty-printed descriptions indent with runs of spaces, so
    /// spaces are skipped eight at a time.
    fn skip_ws(&mut self) {
        loop {
            if let Some(word) = self.bytes.get(self.pos..self.pos + 8) {
                let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                // The first byte that is not a space (little-endian: the lowest).
                let spaces = (word ^ SPACES).trailing_zeros() as usize / 8;
                self.pos += spaces;
                if spaces == 8 {
                    continue;
                }
            }
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                _ => return,
            }
        }
    }

    fn error_here(&self, message: &str) -> SyntaxError {
        let end = self.text[self.pos..]
            .chars()
            .next()
            .map_or(self.pos, |c| self.pos + c.len_utf8());
        SyntaxError::new(message, Span::new(self.pos, end))
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Node, SyntaxError> {
        let start = self.pos;
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(Node::new(Span::new(start, self.pos), value))
        } else {
            Err(self.error_here("expected a JSON value"))
        }
    }

    fn number(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.scan_number()?;
        Ok(Node::new(
            Span::new(start, self.pos),
            Value::Number(self.text[start..self.pos].into()),
        ))
    }

    /// Moves past a number, checking its grammar.
    fn scan_number(&mut self) -> Result<(), SyntaxError> {
        let digits = |p: &mut Self| {
            let from = p.pos;
            while let Some(b'0'..=b'9') = p.peek() {
                p.pos += 1;
            }
            p.pos > from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else if !digits(self) {
            return Err(self.error_here("expected digits in this number"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !digits(self) {
                return Err(self.error_here("expected digits after the decimal point"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.error_here("expected digits in the exponent"));
            }
        }
        Ok(())
    }

    /// Reads a string starting at its opening quote.
    fn string(&mut self) -> Result<Text, SyntaxError> {
        self.raw_string().map(Text::from)
    }

    /// Reads a string starting at its opening quote: borrowed from the text when it has
    /// no escapes.
    fn raw_string(&mut self) -> Result<Cow<'a, str>, SyntaxError> {
        let open = self.pos;
        self.pos += 1;
        let from = self.pos;
        // Fast path: no escapes. Find the closing quote (or a backslash), then check
        // that no control character comes before it.
        let rest = &self.bytes[from..];
        let stop = string_stop(rest);
        if rest.get(stop).is_some_and(|&b| b < 0x20) {
            self.pos = from + stop;
            return Err(self.error_here("control character inside a string"));
        }
        self.pos = from + stop;
        if rest.get(stop) == Some(&b'"') {
            self.pos += 1;
            return Ok(Cow::Borrowed(&self.text[from..from + stop]));
        }
        let mut out = String::from(&self.text[from..self.pos]);
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(SyntaxError::new(
                    "unterminated string",
                    Span::new(open, open + 1),
                ));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                b'\\' => {
                    self.pos += 1;
                    let escaped = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            out.push(self.unicode_escape()?);
                            continue;
                        }
                        _ => return Err(self.error_here("invalid escape in string")),
                    };
                    self.pos += 1;
                    out.push(escaped);
                }
                0..=0x1f => return Err(self.error_here("control character inside a string")),
                _ => {
                    // Copy the run of plain characters up to the next quote or backslash.
                    let run_start = self.pos;
                    self.pos += string_stop(&self.bytes[self.pos..]);
                    out.push_str(&self.text[run_start..self.pos]);
                }
            }
        }
    }

    /// Reads the four hex digits after `\u` (and a low surrogate after a high one).
    fn unicode_escape(&mut self) -> Result<char, SyntaxError> {
        let high = self.hex4()?;
        if !(0xD800..0xDC00).contains(&high) {
            return Ok(char::from_u32(high).unwrap_or(char::REPLACEMENT_CHARACTER));
        }
        if self.bytes[self.pos..].starts_with(b"\\u") {
            let save = self.pos;
            self.pos += 2;
            let low = self.hex4()?;
            if (0xDC00..0xE000).contains(&low) {
                let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                return Ok(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            self.pos = save;
        }
        Ok(char::REPLACEMENT_CHARACTER)
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| self.error_here("expected four hex digits after \\u"))?;
        let text = std::str::from_utf8(digits).unwrap_or("0");
        let value = u32::from_str_radix(text, 16).unwrap_or(0xFFFD);
        self.pos += 4;
        Ok(value)
    }
}

/// The mapping at `span` made of the entries of `waiting` from `first` on (taken out in
/// one allocation of their number); a repeated key is a syntax error at its second
/// writing.
pub(super) fn unique_map(
    waiting: &mut Vec<Entry>,
    first: usize,
    span: Span,
) -> Result<Node, SyntaxError> {
    let entries = &waiting[first..];
    if let Some(index) = first_repeated(entries, |e| &e.key) {
        return Err(repeated_key(&entries[index].key, entries[index].key_span));
    }
    let entries: Arc<[Entry]> = waiting.drain(first..).collect();
    Ok(Node::new(span, Value::Map(Map::from_unique(entries))))
}

/// Builds a mapping node, turning a repeated key into a syntax error at that key.
pub(super) fn map_node(entries: Vec<Entry>, span: Span) -> Result<Node, SyntaxError> {
    match Map::from_entries(entries) {
        Ok(map) => Ok(Node::new(span, Value::Map(map))),
        Err((index, entries)) => Err(repeated_key(&entries[index].key, entries[index].key_span)),
    }
}

/// The error for a key written a second time in one mapping, at its second writing.
fn repeated_key(key: &str, span: Span) -> SyntaxError {
    SyntaxError::new(
        format!("duplicate key `{key}`: a mapping may name each key once"),
        span,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Node, SyntaxError> {
        parse(text, ParseLimits::default())
    }

    #[test]
    fn spans_point_at_values_and_keys() {
        let text = r#"{"a": [1, "x"], "b": {"c": true}}"#;
        let node = p(text).unwrap();
        let a = node.as_map().unwrap().entry("a").unwrap();
        assert_eq!(&text[a.key_span.range()], "\"a\"");
        assert_eq!(&text[a.value.span.range()], "[1, \"x\"]");
        let c = node.at(["b", "c"]).unwrap();
        assert_eq!(&text[c.span.range()], "true");
        assert_eq!(node.at(["a", "1"]).unwrap().as_str(), Some("x"));
    }

    #[test]
    fn escapes_and_surrogate_pairs_decode() {
        let node = p(r#"["\ud83d\udc4d", "a\"b\\n", "\ud800x", "\u00e9"]"#).unwrap();
        let items: Vec<_> = node
            .as_seq()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect();
        assert_eq!(items, ["👍", "a\"b\\n", "\u{fffd}x", "é"]);
    }

    #[test]
    fn errors_have_spans() {
        let e = p("{\"a\": 1,}").unwrap_err();
        assert_eq!(e.span.start, 8);
        let e = p("{\"a\": 1, \"a\": 2}").unwrap_err();
        assert!(e.message.contains("duplicate key `a`"), "{}", e.message);
        assert_eq!(e.span, Span::new(9, 12));
        let e = p("[1, 2").unwrap_err();
        assert!(e.message.contains("`,` or `]`"));
        assert!(p("01").is_err());
        assert!(p("[1] x").is_err());
        assert!(p("\"a\tb\"").is_err());
    }

    #[test]
    fn long_strings_are_read_like_short_ones() {
        let long = "x".repeat(40);
        let node = p(&format!(r#"["{long}", "{long}\n{long}"]"#)).unwrap();
        let items = node.as_seq().unwrap();
        assert_eq!(items[0].as_str(), Some(long.as_str()));
        assert_eq!(items[1].as_str(), Some(format!("{long}\n{long}").as_str()));
        let e = p(&format!("[\"{long}\t\"]")).unwrap_err();
        assert_eq!(e.span.start as usize, 2 + long.len());
        assert!(e.message.contains("control character"), "{}", e.message);
        let e = p(&format!("[\"{long}")).unwrap_err();
        assert_eq!(
            (e.span.start, e.message.as_str()),
            (1, "unterminated string")
        );
    }

    #[test]
    fn whitespace_of_any_run_length_is_skipped() {
        for run in 0..20 {
            for ws in [" ", "\n", "\r\n", "\t", " \n  "] {
                let pad = ws.repeat(run);
                let inner = "b".repeat(run);
                let text = format!("{pad}[{pad}1{pad},{pad}\"a{inner}\"{pad}]{pad}");
                let node = p(&text).unwrap();
                let items = node.as_seq().unwrap();
                assert_eq!(&text[items[0].span.range()], "1");
                assert_eq!(items[1].as_str(), Some(format!("a{inner}").as_str()));
                let bad = format!("[1{pad}x]");
                let e = p(&bad).unwrap_err();
                assert_eq!(e.span.start as usize, 2 + pad.len(), "{bad:?}");
            }
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(100_000);
        let e = p(&text).unwrap_err();
        assert!(e.message.contains("nesting is deeper"), "{}", e.message);
    }
}
