//! Flow collections (`[a, b]`, `{a: 1}`) written on one line, as `saphyr-parser` reads
//! them in a block document.

use super::super::super::json::unique_map;
use super::super::super::{Entry, Node, Span, Text, Value};
use super::{KeyScan, Reader, is_blank_or_break, is_flow, scalar, starts_plain};

impl Reader<'_> {
    /// The flow collection that opens at `at`: its node (spanning its brackets, and the
    /// blanks and comment after them as the parser's span does) and the
    /// position after its closing bracket. `None` for one that goes on to another line,
    /// an empty entry, a key without a value, or anything else this reader leaves to the
    /// parser.
    pub(super) fn flow(&mut self, at: usize, depth: usize) -> Option<(Node, usize)> {
        if depth >= self.max_depth {
            return None;
        }
        let mapping = self.b[at] == b'{';
        let close = if mapping { b'}' } else { b']' };
        let first = if mapping {
            self.entries.len()
        } else {
            self.items.len()
        };
        let mut i = self.skip_spaces(at + 1);
        if self.b.get(i) != Some(&close) {
            loop {
                if mapping {
                    let KeyScan::Key(key, key_span, after) = self.flow_key(i)? else {
                        return None;
                    };
                    self.note_hash(&key, key_span);
                    let (value, end) = self.flow_item(self.skip_spaces(after), depth)?;
                    self.entries.push(Entry {
                        key,
                        key_span,
                        value,
                    });
                    i = self.skip_spaces(end);
                } else {
                    let (item, end) = self.flow_item(i, depth)?;
                    self.items.push(item);
                    i = self.skip_spaces(end);
                }
                match self.b.get(i) {
                    Some(b',') => {
                        i = self.skip_spaces(i + 1);
                        if matches!(self.b.get(i), Some(b',' | b']' | b'}')) {
                            return None;
                        }
                    }
                    Some(&c) if c == close => break,
                    _ => return None,
                }
            }
        }
        // The parser's closing bracket runs on over the blanks and the comment after it.
        let mut end = self.skip_spaces(i + 1);
        if self.b.get(end) == Some(&b'#') && end > i + 1 {
            end = self.line_end(end);
        }
        let span = Span::new(at, end);
        let node = if mapping {
            unique_map(&mut self.entries, first, span).ok()?
        } else {
            let items: std::sync::Arc<[Node]> = self.items.drain(first..).collect();
            Node::new(span, Value::Seq(items))
        };
        Some((node, i + 1))
    }

    /// A flow mapping's key at `at`, followed by `:` and a blank.
    fn flow_key(&mut self, at: usize) -> Option<KeyScan> {
        let quote = *self.b.get(at)?;
        let (text, span, after) = if quote == b'"' || quote == b'\'' {
            let (text, end) = self.quoted(at, quote == b'\'', None)?;
            (text, Span::new(at, end), self.skip_spaces(end))
        } else {
            let (end, stop) = self.flow_plain(at)?;
            (Text::from(&self.text[at..end]), Span::new(at, end), stop)
        };
        if self.b.get(after) == Some(&b':') && is_blank_or_break(self.b.get(after + 1)) {
            return Some(KeyScan::Key(text, span, after + 1));
        }
        Some(KeyScan::NotKey)
    }

    /// A flow collection's item (or a flow mapping's value) at `at`: its node and the
    /// position after it.
    fn flow_item(&mut self, at: usize, depth: usize) -> Option<(Node, usize)> {
        match self.b.get(at)? {
            b'[' | b'{' => self.flow(at, depth + 1),
            quote @ (b'"' | b'\'') => {
                let (text, end) = self.quoted(at, *quote == b'\'', None)?;
                let next = self.skip_spaces(end);
                if !matches!(self.b.get(next), Some(b',' | b']' | b'}')) {
                    return None;
                }
                let span = Span::new(at, end);
                self.note_hash(&text, span);
                Some((Node::new(span, Value::String(text)), end))
            }
            _ => {
                let (end, stop) = self.flow_plain(at)?;
                if !matches!(self.b.get(stop), Some(b',' | b']' | b'}')) {
                    return None;
                }
                let written = &self.text[at..end];
                let span = Span::new(at, end);
                self.note_hash(written, span);
                Some((Node::new(span, scalar(written.into(), true)), end))
            }
        }
    }

    /// A plain scalar in a flow collection at `at`: where its text ends (blanks trimmed)
    /// and where the scan stopped (a flow indicator, or a `:` and a blank). `None` when it
    /// may not start here, or a comment or the line's end comes first.
    fn flow_plain(&self, at: usize) -> Option<(usize, usize)> {
        if !starts_plain(*self.b.get(at)?, self.b.get(at + 1)) {
            return None;
        }
        let mut i = at;
        let mut end = at;
        loop {
            match self.b.get(i) {
                None | Some(b'\n') => return None,
                Some(b',' | b'[' | b']' | b'{' | b'}') => return Some((end, i)),
                Some(b':')
                    if is_blank_or_break(self.b.get(i + 1)) || is_flow(self.b.get(i + 1)) =>
                {
                    return Some((end, i));
                }
                Some(b'#') if self.b[i - 1] == b' ' => return None,
                // The parser refuses a `-` after a blank and before a flow indicator.
                Some(b'-') if self.b[i - 1] == b' ' && is_flow(self.b.get(i + 1)) => return None,
                Some(b' ') => {}
                Some(_) => end = i + 1,
            }
            i += 1;
        }
    }
}
