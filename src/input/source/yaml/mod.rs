//! YAML into the spanned [`Node`] tree, from `saphyr-parser` events.
//!
//! The tree is built with an explicit stack (deep nesting is an error, never a stack
//! overflow). An alias shares the anchored node (lists and mappings are reference
//! counted; only a scalar is copied), and every alias and `<<` merge charges the bytes it
//! stands for to one budget ([`ParseLimits::max_expansion_bytes`]), so an alias bomb, or a
//! long string aliased many times, is refused quickly. Plain scalars resolve by the YAML
//! 1.2 core schema; `<<` merge keys are honoured. Markers count characters; spans are
//! turned into byte offsets as the events arrive.

use foldhash::{HashMap, HashMapExt, HashSet};
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span as YamlSpan};

mod fast;
mod offsets;

use super::json::{map_node, unique_map};
use super::{Entry, Node, ParseLimits, Span, SyntaxError, Text, Value};
use offsets::Offsets;

/// What one node costs in the expansion budget besides its text: about its size in memory.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// Parses the single YAML document of `text`.
#[cfg(test)]
pub(super) fn parse(text: &str, limits: ParseLimits) -> Result<Node, SyntaxError> {
    parse_counted(text, limits).map(|parsed| parsed.root)
}

/// A parsed YAML document with what the parse learnt besides the tree.
pub(super) struct Parsed {
    pub root: Node,
    /// Bytes its aliases and merges added by expansion.
    pub expanded: usize,
    /// Where the scalars (keys and values) whose text holds a `#` are written, in order:
    /// a `#` inside one of them is text, not a comment.
    pub hash_scalars: Vec<Span>,
}

/// Parses the single YAML document of `text`, with its expansion count and the places of
/// scalars that hold a `#`.
pub(super) fn parse_counted(text: &str, limits: ParseLimits) -> Result<Parsed, SyntaxError> {
    parse_with(text, limits, false)
}

/// Parses every YAML document of `text` (a Kubernetes manifest holds several, separated
/// by `---`): the root is a list of the documents, in order. Anchors do not cross
/// documents; the expansion budget covers the whole file. Empty documents are skipped.
pub(super) fn parse_stream(text: &str, limits: ParseLimits) -> Result<Parsed, SyntaxError> {
    parse_with(text, limits, true)
}

fn parse_with(text: &str, limits: ParseLimits, stream: bool) -> Result<Parsed, SyntaxError> {
    if let Some(mut parsed) = fast::parse(text, limits) {
        if stream {
            // A stream of one document (the fast path reads no other): the list of it.
            let document = std::mem::replace(&mut parsed.root, Node::new(Span::at(0), Value::Null));
            let documents: std::sync::Arc<[Node]> = std::sync::Arc::new([document]);
            parsed.root = Node::new(Span::new(0, text.len()), Value::Seq(documents));
        }
        return Ok(parsed);
    }
    events(text, limits, stream)
}

/// Parses `text` from `saphyr-parser`'s events: the reader of record, for everything the
/// fast path leaves to it.
fn events(text: &str, limits: ParseLimits, stream: bool) -> Result<Parsed, SyntaxError> {
    let mut builder = Builder {
        stream: stream.then(Vec::new),
        offsets: Offsets::new(text),
        stack: Vec::new(),
        items: Vec::new(),
        entries: Vec::new(),
        anchors: HashMap::new(),
        expanded: 0,
        hash_scalars: Vec::new(),
        limits,
        root: None,
    };
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| builder.scan_error(&e))?;
        if builder.event(event, span)? {
            break;
        }
    }
    let (expanded, hash_scalars) = (builder.expanded, builder.hash_scalars);
    if let Some(mut documents) = builder.stream {
        documents.extend(builder.root);
        let root = Node::new(Span::new(0, text.len()), Value::Seq(documents.into()));
        return Ok(Parsed {
            root,
            expanded,
            hash_scalars,
        });
    }
    builder
        .root
        .map(|root| Parsed {
            root,
            expanded,
            hash_scalars,
        })
        .ok_or_else(|| SyntaxError::new("the file is empty: expected a document", Span::at(0)))
}

/// A finished node with the bytes it stands for: its text and nodes, as an alias of it
/// would add them (for the expansion budget).
struct Built {
    node: Node,
    size: usize,
}

/// An open list or mapping; its finished children wait in the builder's shared buffers
/// from `first` on, so that each finished container is one allocation of its size.
enum Frame {
    Seq {
        start: usize,
        anchor: usize,
        first: usize,
        size: usize,
    },
    Map {
        start: usize,
        anchor: usize,
        first: usize,
        merges: Vec<Node>,
        key: Option<(Text, Span, bool)>,
        size: usize,
    },
}

struct Builder<'a> {
    offsets: Offsets<'a>,
    /// The finished documents, when the whole stream is read.
    stream: Option<Vec<Node>>,
    stack: Vec<Frame>,
    /// The finished items of the open lists, innermost last.
    items: Vec<Node>,
    /// The finished entries of the open mappings, innermost last.
    entries: Vec<Entry>,
    anchors: HashMap<usize, Built>,
    /// Bytes added by aliases and merges so far.
    expanded: usize,
    /// Spans of scalars whose text holds a `#`.
    hash_scalars: Vec<Span>,
    limits: ParseLimits,
    root: Option<Node>,
}

impl Builder<'_> {
    fn span(&mut self, span: YamlSpan) -> Span {
        let start = self.offsets.byte(span.start.index());
        let end = self.offsets.byte(span.end.index());
        Span::new(start, end.max(start))
    }

    fn scan_error(&mut self, e: &ScanError) -> SyntaxError {
        let at = self.offsets.byte(e.marker().index());
        let end = self.offsets.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8());
        let message = if e.info().contains("recursion limit") {
            "nesting is deeper than the YAML parser allows; refusing to go further".to_string()
        } else if e.info().contains("invalid indentation in quoted scalar") {
            // A continuation line at column 0 (or left of its block) ends the block.
            "YAML syntax error: a continuation line of this quoted string is not indented: indent every continuation line of a multi-line quoted string further than its key, or write the string on one line".to_string()
        } else {
            format!("YAML syntax error: {}", e.info())
        };
        SyntaxError::new(message, Span::new(at, end))
    }

    /// Handles one event; returns `true` once the document is complete.
    fn event(&mut self, event: Event<'_>, yspan: YamlSpan) -> Result<bool, SyntaxError> {
        let span = self.span(yspan);
        let built = match event {
            Event::StreamStart | Event::Nothing | Event::DocumentEnd => return Ok(false),
            Event::StreamEnd => return Ok(true),
            Event::DocumentStart(_) => {
                if let Some(documents) = &mut self.stream {
                    documents.extend(self.root.take());
                    self.anchors.clear();
                    return Ok(false);
                }
                if self.root.is_some() {
                    return Err(SyntaxError::new(
                        "a second YAML document starts here; a description or policy is one document",
                        span,
                    ));
                }
                return Ok(false);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if self.stack.len() >= self.limits.max_depth {
                    return Err(SyntaxError::new(
                        format!(
                            "nesting is deeper than {} levels; refusing to go further (raise the limit with --max-depth)",
                            self.limits.max_depth
                        ),
                        span,
                    ));
                }
                let start = span.start as usize;
                self.stack
                    .push(if matches!(event, Event::SequenceStart(..)) {
                        Frame::Seq {
                            start,
                            anchor,
                            first: self.items.len(),
                            size: NODE_BYTES,
                        }
                    } else {
                        Frame::Map {
                            start,
                            anchor,
                            first: self.entries.len(),
                            merges: Vec::new(),
                            key: None,
                            size: NODE_BYTES,
                        }
                    });
                return Ok(false);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = self.stack.pop() else {
                    return Err(SyntaxError::new("unbalanced YAML collection end", span));
                };
                self.close(frame, span)?
            }
            Event::Scalar(text, style, anchor, tag) => {
                // In a flow collection the parser's span of a quoted scalar runs on over the
                // blanks after the closing quote (`{a: "x" }`): it ends at the quote.
                let span = if matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted)
                {
                    let written = &self.offsets.text[span.start as usize..span.end as usize];
                    let trimmed = written.trim_end_matches([' ', '\t', '\r', '\n']);
                    Span::new(span.start as usize, span.start as usize + trimmed.len())
                } else {
                    span
                };
                if text.contains('#') {
                    self.hash_scalars.push(span);
                }
                let plain = style == ScalarStyle::Plain;
                let force_string = tag.as_ref().is_some_and(|t| t.suffix == "str");
                // A key scalar is taken as text: `200:` is the key "200".
                if let Some(Frame::Map {
                    key: key @ None, ..
                }) = self.stack.last_mut()
                {
                    let text: Text = Text::from(text);
                    if anchor > 0 {
                        let value =
                            scalar(std::borrow::Cow::Borrowed(&*text), plain && !force_string);
                        self.anchors.insert(
                            anchor,
                            Built {
                                node: Node::new(span, value),
                                size: NODE_BYTES + text.len(),
                            },
                        );
                    }
                    *key = Some((text, span, plain));
                    return Ok(false);
                }
                let size = NODE_BYTES + text.len();
                let value = scalar(text, plain && !force_string);
                let built = Built {
                    node: Node::new(span, value),
                    size,
                };
                if anchor > 0 {
                    self.anchors.insert(
                        anchor,
                        Built {
                            node: built.node.clone(),
                            size,
                        },
                    );
                }
                built
            }
            Event::Alias(id) => {
                let Some(target) = self.anchors.get(&id) else {
                    return Err(SyntaxError::new("alias to an unknown anchor", span));
                };
                let size = target.size;
                let mut node = target.node.clone();
                self.charge(size, span)?;
                node.span = span;
                Built { node, size }
            }
        };
        self.attach(built)
    }

    /// Adds `bytes` of expansion to the budget, or refuses past it.
    fn charge(&mut self, bytes: usize, span: Span) -> Result<(), SyntaxError> {
        self.expanded = self.expanded.saturating_add(bytes);
        if self.expanded > self.limits.max_expansion_bytes {
            return Err(expansion_error(self.limits.max_expansion_bytes, span));
        }
        Ok(())
    }

    /// Finishes a collection when its end event arrives.
    fn close(&mut self, frame: Frame, end: Span) -> Result<Built, SyntaxError> {
        let (built, anchor) = match frame {
            Frame::Seq {
                start,
                anchor,
                first,
                size,
            } => {
                let last = self.items[first..].last().map(|n| n.span.end);
                let stop = collection_end(start, last, end);
                let items: std::sync::Arc<[Node]> = self.items.drain(first..).collect();
                let node = Node::new(Span::new(start, stop), Value::Seq(items));
                (Built { node, size }, anchor)
            }
            Frame::Map {
                start,
                anchor,
                first,
                merges,
                key,
                size,
            } => {
                if let Some((_, key_span, _)) = key {
                    return Err(SyntaxError::new("mapping key without a value", key_span));
                }
                let node = if merges.is_empty() {
                    let last = self.entries[first..].last().map(|e| e.value.span.end);
                    let span = Span::new(start, collection_end(start, last, end));
                    unique_map(&mut self.entries, first, span)?
                } else {
                    let mut entries: Vec<Entry> = self.entries.drain(first..).collect();
                    let merged = apply_merges(&mut entries, merges, end)?;
                    self.charge(merged, end)?;
                    let last = entries.last().map(|e| e.value.span.end);
                    map_node(entries, Span::new(start, collection_end(start, last, end)))?
                };
                (Built { node, size }, anchor)
            }
        };
        if anchor > 0 {
            self.anchors.insert(
                anchor,
                Built {
                    node: built.node.clone(),
                    size: built.size,
                },
            );
        }
        Ok(built)
    }

    /// Puts a finished node into its parent (or makes it the document).
    fn attach(&mut self, built: Built) -> Result<bool, SyntaxError> {
        match self.stack.last_mut() {
            None => {
                self.root = Some(built.node);
                Ok(false)
            }
            Some(Frame::Seq { size, .. }) => {
                *size = size.saturating_add(built.size);
                self.items.push(built.node);
                Ok(false)
            }
            Some(Frame::Map {
                merges, key, size, ..
            }) => {
                *size = size.saturating_add(built.size);
                if let Some((k, _, _)) = key.as_ref() {
                    *size = size.saturating_add(k.len());
                }
                match key.take() {
                    Some((k, _, true)) if &*k == "<<" => merges.push(built.node),
                    Some((k, key_span, _)) => self.entries.push(Entry {
                        key: k,
                        key_span,
                        value: built.node,
                    }),
                    None => {
                        return Err(SyntaxError::new(
                            "a list or mapping used as a mapping key is not supported",
                            built.node.span,
                        ));
                    }
                }
                Ok(false)
            }
        }
    }
}

/// Where a collection ends: at its closing bracket in flow style, after its last child
/// in block style.
fn collection_end(start: usize, last_child: Option<u32>, end_event: Span) -> usize {
    let flow_end = (!end_event.is_empty()).then_some(end_event.end as usize);
    flow_end
        .or(last_child.map(|e| e as usize))
        .unwrap_or(start)
        .max(start)
}

/// Adds the entries of `<<` merge values that the mapping does not state itself; gives the
/// bytes the added entries cost (values are shared, keys and entries are new).
///
/// Keys are looked up in a set, so a merge of many keys stays linear.
fn apply_merges(
    entries: &mut Vec<Entry>,
    merges: Vec<Node>,
    at: Span,
) -> Result<usize, SyntaxError> {
    if merges.is_empty() {
        return Ok(0);
    }
    let not_mappings = |span| {
        SyntaxError::new(
            "a `<<` merge key needs a mapping or a list of mappings",
            span,
        )
    };
    let mut seen: HashSet<Text> = entries.iter().map(|e| e.key.clone()).collect();
    let mut added = 0usize;
    for merge in &merges {
        let sources: &[Node] = match &merge.value {
            Value::Map(_) => std::slice::from_ref(merge),
            Value::Seq(items) => items,
            _ => return Err(not_mappings(merge.span)),
        };
        for source in sources {
            let Value::Map(map) = &source.value else {
                return Err(not_mappings(at));
            };
            for entry in map.entries() {
                if seen.insert(entry.key.clone()) {
                    added = added.saturating_add(NODE_BYTES + entry.key.len());
                    entries.push(entry.clone());
                }
            }
        }
    }
    Ok(added)
}

/// The error for a document whose aliases and merges expand past the budget.
pub(super) fn expansion_error(limit: usize, span: Span) -> SyntaxError {
    SyntaxError::new(
        format!(
            "YAML aliases and merges expand to more than {limit} bytes (an alias bomb?); refusing to expand them (raise the limit with --max-expansion-bytes)"
        ),
        span,
    )
}

/// A scalar's value: plain scalars resolve by the YAML 1.2 core schema, others are text.
fn scalar(text: std::borrow::Cow<'_, str>, resolve: bool) -> Value {
    if resolve {
        match text.as_ref() {
            "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
            "true" | "True" | "TRUE" => return Value::Bool(true),
            "false" | "False" | "FALSE" => return Value::Bool(false),
            t if is_core_number(t) => return Value::Number(Text::from(text)),
            _ => {}
        }
    }
    Value::String(Text::from(text))
}

fn is_core_number(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if let Some(hex) = text.strip_prefix("0x") {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    if let Some(oct) = text.strip_prefix("0o") {
        return !oct.is_empty() && oct.bytes().all(|b| (b'0'..=b'7').contains(&b));
    }
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac {
        None => !int.is_empty() && digits(int),
        Some(f) => digits(int) && digits(f) && !(int.is_empty() && f.is_empty()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_scalar_in_a_flow_mapping_ends_at_its_quote() {
        let text = "{a: \"x\" , b: 'y'   }";
        let root = parse(text, ParseLimits::default()).unwrap_or_else(|e| panic!("{e:?}"));
        for (key, written) in [("a", "\"x\""), ("b", "'y'")] {
            let span = root.get(key).map(|n| n.span).unwrap_or_default();
            assert_eq!(&text[span.start as usize..span.end as usize], written);
        }
    }

    fn p(text: &str) -> Result<Node, SyntaxError> {
        parse(text, ParseLimits::default())
    }

    #[test]
    fn scalars_resolve_by_the_core_schema() {
        let node = p("a: 3\nb: '3'\nc: true\nd: ~\ne: 3.0\nf: 1e3\ng: 1.2.3\n200: x\n").unwrap();
        assert_eq!(node.get("a").unwrap().value, Value::Number("3".into()));
        assert_eq!(node.get("b").unwrap().value, Value::String("3".into()));
        assert_eq!(node.get("c").unwrap().value, Value::Bool(true));
        assert_eq!(node.get("d").unwrap().value, Value::Null);
        assert_eq!(node.get("e").unwrap().value, Value::Number("3.0".into()));
        assert_eq!(node.get("f").unwrap().value, Value::Number("1e3".into()));
        assert_eq!(node.get("g").unwrap().value, Value::String("1.2.3".into()));
        assert_eq!(node.get("200").unwrap().as_str(), Some("x"));
    }

    #[test]
    fn spans_are_bytes_after_non_ascii_text() {
        let text = "title: Café ☕ 👍\nkey: value\nlist: [a, b]\n";
        let node = p(text).unwrap();
        let value = node.get("key").unwrap();
        assert_eq!(&text[value.span.range()], "value");
        let entry = node.as_map().unwrap().entry("key").unwrap();
        assert_eq!(&text[entry.key_span.range()], "key");
        let list = node.get("list").unwrap();
        assert_eq!(&text[list.span.range()], "[a, b]");
    }

    #[test]
    fn block_collections_end_at_their_last_child() {
        let text = "a:\n  b: 1\n  c: [2]\n# trailing\nd: 3\n";
        let node = p(text).unwrap();
        let a = node.get("a").unwrap();
        assert_eq!(&text[a.span.range()], "b: 1\n  c: [2]");
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let text = "base: &b {x: 1, y: 2}\nuse: *b\nmerged:\n  <<: *b\n  y: 3\n";
        let node = p(text).unwrap();
        assert_eq!(node.at(["use", "x"]).unwrap().scalar_text(), Some("1"));
        assert_eq!(node.at(["merged", "x"]).unwrap().scalar_text(), Some("1"));
        assert_eq!(node.at(["merged", "y"]).unwrap().scalar_text(), Some("3"));
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let prev = (b'a' + i - 1) as char;
            let cur = (b'a' + i) as char;
            text.push_str(&format!(
                "{cur}: &{cur} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
        }
        let e = p(&text).unwrap_err();
        assert!(e.message.contains("alias bomb"), "{}", e.message);
    }

    #[test]
    fn problems_are_syntax_errors() {
        assert!(
            p("a: 1\na: 2\n")
                .unwrap_err()
                .message
                .contains("duplicate key")
        );
        assert!(p("").unwrap_err().message.contains("empty"));
        assert!(
            p("a: 1\n---\nb: 2\n")
                .unwrap_err()
                .message
                .contains("second")
        );
        let e = p("a: [1, 2\n").unwrap_err();
        assert!(e.message.starts_with("YAML syntax error"), "{}", e.message);
        let deep = "- ".repeat(5_000) + "x\n";
        assert!(p(&deep).unwrap_err().message.contains("nesting"));
        let deep = "[".repeat(100_000);
        assert!(p(&deep).is_err());
    }
}
