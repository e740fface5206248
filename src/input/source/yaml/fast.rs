//! A fast path for the YAML that API descriptions are written in.
//!
//! `saphyr-parser` spends about 150 instructions on each byte of a description; most of a
//! multi-file description's check was its scanning. This reader builds the same tree
//! (the same values and the same spans, byte for byte) straight from the text for the
//! plain subset of YAML that descriptions use: block mappings and lists indented with
//! spaces, plain, quoted and block scalars, and flow collections written on one line.
//!
//! It is only a fast path. Whatever it does not follow with certainty (tabs, anchors,
//! aliases, tags, merge keys, document markers, multi-line quoted scalars or flow
//! collections, indentation indicators, anything the YAML parser would refuse) makes it
//! give up, and the file is parsed again by [`super::parse_with`] from its start: errors,
//! their messages and their places always come from `saphyr-parser`. Where the parser's
//! spans are odd (a block scalar runs on to the next token; an indentless list starts
//! after its first `-`), this reader follows its source, `saphyr-parser`'s
//! `src/scanner.rs` and `src/parser.rs` (version 0.3.4), and the tests compare both
//! readers on every YAML file of the corpus and on mutations of them.

use std::borrow::Cow;

use super::super::json::unique_map;
use super::super::{Entry, Node, ParseLimits, Span, Text, Value};
use super::{Parsed, scalar};

mod flow;
mod scalars;
#[cfg(test)]
mod tests;

/// The deepest nesting this reader follows itself (it recurses); deeper text goes to the
/// full parser, which has its own limits.
const MAX_DEPTH: usize = 100;

/// The longest key this reader takes: YAML refuses a simple key of more than 1,024
/// characters, and the parser has its own way to say so.
const MAX_KEY_BYTES: usize = 1_000;

/// Parses `text` when it is in the subset this reader follows; `None` leaves it to the
/// full parser.
pub(super) fn parse(text: &str, limits: ParseLimits) -> Option<Parsed> {
    // An explicit start of the one document (`---` alone on the first line) is allowed.
    let b = text.as_bytes();
    let from = if b.starts_with(b"---") && matches!(b.get(3), None | Some(b' ' | b'\n')) {
        let end = memchr::memchr(b'\n', b).map_or(b.len(), |i| i + 1);
        if !text[3..end]
            .trim_start_matches(' ')
            .trim_end_matches('\n')
            .is_empty()
        {
            return None;
        }
        end
    } else {
        0
    };
    if !plain_characters(&b[from..]) {
        return None;
    }
    let mut reader = Reader {
        text,
        b: text.as_bytes(),
        max_depth: limits.max_depth.min(MAX_DEPTH),
        entries: Vec::new(),
        items: Vec::new(),
        hash_scalars: Vec::new(),
        last_content: std::cell::Cell::new((usize::MAX, None)),
    };
    let (line, at) = reader.next_content(from)?;
    let (root, resume) = if reader.is_entry(at) {
        reader.block_seq(line, at, 0, false)?
    } else {
        reader.block_map(line, at, 0)?
    };
    if reader.next_content(resume).is_some() {
        return None;
    }
    Some(Parsed {
        root,
        expanded: 0,
        hash_scalars: reader.hash_scalars,
    })
}

/// Whether `b` holds only characters this reader handles as the parser does: no tab,
/// carriage return or other control character, no byte order mark, no Unicode line or
/// paragraph separator, no non-character; and no line that starts with a document marker
/// or a directive. Lines of printable ASCII, nearly all of them, are passed in one
/// vectorised sweep each.
fn plain_characters(b: &[u8]) -> bool {
    let mut start = 0;
    while start < b.len() {
        let end = memchr::memchr(b'\n', &b[start..]).map_or(b.len(), |i| start + i);
        let line = &b[start..end];
        if line.first() == Some(&b'%') || line.starts_with(b"---") || line.starts_with(b"...") {
            return false;
        }
        let other = line
            .iter()
            .fold(false, |other, &c| other | !(0x20..0x7f).contains(&c));
        if other && !other_characters(line) {
            return false;
        }
        start = end + 1;
    }
    true
}

/// Whether a line holding more than printable ASCII holds only what the reader handles.
fn other_characters(line: &[u8]) -> bool {
    line.iter().enumerate().all(|(i, &c)| {
        let next = &line[i + 1..];
        match c {
            0x20..=0x7e => true,
            // C1 controls, U+0085 (a line break to YAML 1.1) among them.
            0xc2 => !next.first().is_some_and(|n| (0x80..=0x9f).contains(n)),
            // U+2028 and U+2029.
            0xe2 => !next.starts_with(&[0x80, 0xa8]) && !next.starts_with(&[0x80, 0xa9]),
            // The byte order mark, U+FFFE and U+FFFF.
            0xef => {
                !next.starts_with(&[0xbb, 0xbf])
                    && !next.starts_with(&[0xbf, 0xbe])
                    && !next.starts_with(&[0xbf, 0xbf])
            }
            0x80..=0xff => true,
            _ => false,
        }
    })
}

/// Whether `c` ends a plain scalar's run of text, or separates it from a comment.
fn is_blank_or_break(c: Option<&u8>) -> bool {
    matches!(c, None | Some(b' ' | b'\n'))
}

/// Whether `c` is one of the flow indicators, which end a plain scalar in a flow collection.
fn is_flow(c: Option<&u8>) -> bool {
    matches!(c, Some(b',' | b'[' | b']' | b'{' | b'}'))
}

/// What the reader found where a key may be written.
enum KeyScan {
    /// A key, where it is written, and the position just after its `:`.
    Key(Text, Span, usize),
    /// Not a key: the line holds a scalar or a flow collection.
    NotKey,
}

struct Reader<'a> {
    text: &'a str,
    b: &'a [u8],
    max_depth: usize,
    /// The finished entries of the open mappings, innermost last.
    entries: Vec<Entry>,
    /// The finished items of the open lists, innermost last.
    items: Vec<Node>,
    hash_scalars: Vec<Span>,
    /// The last question to [`Reader::next_content`] and its answer.
    last_content: std::cell::Cell<(usize, Option<(usize, usize)>)>,
}

impl Reader<'_> {
    /// The position of the line break that ends the line holding `at`, or the text's end.
    fn line_end(&self, at: usize) -> usize {
        memchr::memchr(b'\n', &self.b[at..]).map_or(self.b.len(), |i| at + i)
    }

    /// The start of the line after the one holding `at` (the text's end on the last line).
    fn line_after(&self, at: usize) -> usize {
        (self.line_end(at) + 1).min(self.b.len())
    }

    fn skip_spaces(&self, mut at: usize) -> usize {
        while self.b.get(at) == Some(&b' ') {
            at += 1;
        }
        at
    }

    /// From the start of a line: the first line with content (not blank, not only a
    /// comment), as its start and the position of its first character. Each enclosing
    /// collection asks again from the same line; the last answer is kept, so that a run of
    /// blank lines after a deep node is passed over once.
    fn next_content(&self, from: usize) -> Option<(usize, usize)> {
        let (asked, answer) = self.last_content.get();
        if asked == from {
            return answer;
        }
        let answer = self.find_content(from);
        self.last_content.set((from, answer));
        answer
    }

    fn find_content(&self, mut line: usize) -> Option<(usize, usize)> {
        while line < self.b.len() {
            let at = self.skip_spaces(line);
            match self.b.get(at) {
                None => return None,
                Some(b'\n') => line = at + 1,
                Some(b'#') => line = self.line_after(at),
                Some(_) => return Some((line, at)),
            }
        }
        None
    }

    /// Whether a list entry (`-` then a blank or the line's end) starts at `at`.
    fn is_entry(&self, at: usize) -> bool {
        self.b.get(at) == Some(&b'-') && is_blank_or_break(self.b.get(at + 1))
    }

    /// Whether only blanks and a comment follow `at` on its line.
    fn rest_is_blank(&self, at: usize) -> bool {
        let next = self.skip_spaces(at);
        match self.b.get(next) {
            None | Some(b'\n') => true,
            Some(b'#') => next > at,
            Some(_) => false,
        }
    }

    /// Notes where a scalar is written when its text holds a `#`.
    fn note_hash(&mut self, text: &str, span: Span) {
        if text.contains('#') {
            self.hash_scalars.push(span);
        }
    }

    /// A block mapping whose first key is at `at`, on the line starting at `line`.
    /// Gives the mapping and the start of the line after its last.
    fn block_map(&mut self, line: usize, mut at: usize, depth: usize) -> Option<(Node, usize)> {
        if depth >= self.max_depth {
            return None;
        }
        let indent = at - line;
        let (start, first) = (at, self.entries.len());
        let mut resume;
        loop {
            let KeyScan::Key(key, key_span, after) = self.key(at)? else {
                return None;
            };
            if &*key == "<<" && !matches!(self.b[at], b'"' | b'\'') {
                return None;
            }
            self.note_hash(&key, key_span);
            let (value, next) = self.mapping_value(after, indent, depth)?;
            resume = next;
            self.entries.push(Entry {
                key,
                key_span,
                value,
            });
            match self.next_content(resume) {
                Some((l, a)) if a - l == indent && !self.is_entry(a) => at = a,
                Some((l, a)) if a - l > indent => return None,
                Some((l, a)) if a - l == indent && self.is_entry(a) => return None,
                _ => break,
            }
        }
        let end = self
            .entries
            .last()
            .map_or(start, |e| e.value.span.end as usize);
        let node = unique_map(&mut self.entries, first, Span::new(start, end.max(start))).ok()?;
        Some((node, resume))
    }

    /// A key at `at`: plain or quoted, on one line, followed by `:` and a blank.
    fn key(&mut self, at: usize) -> Option<KeyScan> {
        match self.b[at] {
            quote @ (b'"' | b'\'') => {
                let (text, end) = self.quoted(at, quote == b'\'', None)?;
                let colon = self.skip_spaces(end);
                if self.b.get(colon) == Some(&b':') && is_blank_or_break(self.b.get(colon + 1)) {
                    return Some(KeyScan::Key(text, Span::new(at, end), colon + 1));
                }
                Some(KeyScan::NotKey)
            }
            c if !starts_plain(c, self.b.get(at + 1)) || matches!(c, b'-' | b'?' | b':') => {
                Some(KeyScan::NotKey)
            }
            _ => {
                let end = self.line_end(at);
                let mut i = at;
                while i < end {
                    match self.b[i] {
                        b':' if is_blank_or_break(self.b.get(i + 1)) => {
                            if i - at > MAX_KEY_BYTES {
                                return None;
                            }
                            let written = self.text[at..i].trim_end_matches(' ');
                            let span = Span::new(at, at + written.len());
                            return Some(KeyScan::Key(Text::from(written), span, i + 1));
                        }
                        b'#' if self.b[i - 1] == b' ' => return Some(KeyScan::NotKey),
                        _ => i += 1,
                    }
                }
                Some(KeyScan::NotKey)
            }
        }
    }

    /// The value of a mapping entry whose `:` ends just before `after`, in a mapping at
    /// column `indent`.
    fn mapping_value(
        &mut self,
        after: usize,
        indent: usize,
        depth: usize,
    ) -> Option<(Node, usize)> {
        let at = self.skip_spaces(after);
        match self.b.get(at) {
            None | Some(b'\n' | b'#') => {
                let resume = self.line_after(at);
                match self.next_content(resume) {
                    Some((l, a)) if a - l > indent => self.block_node(l, a, indent, depth + 1),
                    Some((l, a)) if a - l == indent && self.is_entry(a) => {
                        self.block_seq(l, a, depth + 1, true)
                    }
                    _ => {
                        // The parser puts an empty value at its `:`.
                        let colon = after - 1;
                        Some((Node::new(Span::new(colon, colon), Value::Null), resume))
                    }
                }
            }
            Some(_) => self.inline_value(at, indent, depth + 1),
        }
    }

    /// A node that starts a line of its own, at `at`, more indented than its parent.
    fn block_node(
        &mut self,
        line: usize,
        at: usize,
        parent: usize,
        depth: usize,
    ) -> Option<(Node, usize)> {
        if self.is_entry(at) {
            return self.block_seq(line, at, depth, false);
        }
        match self.key(at)? {
            KeyScan::Key(..) => self.block_map(line, at, depth),
            KeyScan::NotKey => self.inline_value(at, parent, depth),
        }
    }

    /// A block list whose first `-` is at `at`. An indentless list (a mapping's value at
    /// the mapping's own column) starts where its first entry's content does, as the
    /// parser's does.
    fn block_seq(
        &mut self,
        line: usize,
        mut at: usize,
        depth: usize,
        indentless: bool,
    ) -> Option<(Node, usize)> {
        if depth >= self.max_depth {
            return None;
        }
        let indent = at - line;
        let mut line = line;
        let mut start = at;
        let first = self.items.len();
        let mut resume;
        loop {
            // The parser's entry token ends after the `-`, its blanks and a comment.
            let content = self.skip_spaces(at + 1);
            let mark = match self.b.get(content) {
                Some(b'#') if content > at + 1 => self.line_end(content),
                _ => content,
            };
            if indentless && self.items.len() == first {
                start = mark;
            }
            let (item, next) = match self.b.get(mark) {
                None | Some(b'\n') => {
                    let after = self.line_after(mark);
                    match self.next_content(after) {
                        Some((l, a)) if a - l > indent => {
                            self.block_node(l, a, indent, depth + 1)?
                        }
                        _ => (Node::new(Span::new(mark, mark), Value::Null), after),
                    }
                }
                Some(_) if self.is_entry(mark) => self.block_seq(line, mark, depth + 1, false)?,
                Some(_) => match self.key(mark)? {
                    KeyScan::Key(..) => self.block_map(line, mark, depth + 1)?,
                    KeyScan::NotKey => self.inline_value(mark, indent, depth + 1)?,
                },
            };
            self.items.push(item);
            resume = next;
            match self.next_content(resume) {
                Some((l, a)) if a - l == indent && self.is_entry(a) => (line, at) = (l, a),
                Some((l, a)) if a - l == indent && indentless => break,
                Some((l, a)) if a - l >= indent => return None,
                _ => break,
            }
        }
        let end = self.items.last().map_or(start, |n| n.span.end as usize);
        let items: std::sync::Arc<[Node]> = self.items.drain(first..).collect();
        Some((
            Node::new(Span::new(start, end.max(start)), Value::Seq(items)),
            resume,
        ))
    }

    /// A value that starts at `at` on a line (after a key's `:`, a list's `-`, or alone):
    /// a scalar or a flow collection. `parent` is the column of the collection it is in.
    fn inline_value(&mut self, at: usize, parent: usize, depth: usize) -> Option<(Node, usize)> {
        match self.b[at] {
            b'|' | b'>' => self.block_scalar(at, parent),
            quote @ (b'"' | b'\'') => {
                let (text, end) = self.quoted(at, quote == b'\'', Some(parent))?;
                if !self.rest_is_blank(end) {
                    return None;
                }
                // The parser's span of a quoted scalar runs on over the blanks and the
                // comment after it; the tree keeps that, less trailing blanks.
                let next = self.skip_spaces(end);
                let end = if self.b.get(next) == Some(&b'#') {
                    next + self.text[next..self.line_end(next)]
                        .trim_end_matches(' ')
                        .len()
                } else {
                    end
                };
                let span = Span::new(at, end);
                self.note_hash(&text, span);
                Some((Node::new(span, Value::String(text)), self.line_after(end)))
            }
            b'[' | b'{' => {
                let (node, end) = self.flow(at, depth)?;
                self.rest_is_blank(end)
                    .then(|| (node, self.line_after(end)))
            }
            c if starts_plain(c, self.b.get(at + 1)) => self.plain(at, parent),
            _ => None,
        }
    }

    /// A plain scalar in block context, on one line or folded over several lines more
    /// indented than `parent` (the parser's `scan_plain_scalar`).
    fn plain(&mut self, at: usize, parent: usize) -> Option<(Node, usize)> {
        let (first_end, stop) = self.plain_run(at)?;
        let mut end = first_end;
        let mut text: Cow<'_, str> = Cow::Borrowed(&self.text[at..first_end]);
        let mut resume = self.line_after(stop);
        if self.b.get(stop) != Some(&b'#') {
            // Continuation lines: more indented than the parent, not a comment.
            let mut line = resume;
            let mut breaks = 0usize;
            while line < self.b.len() {
                let a = self.skip_spaces(line);
                match self.b.get(a) {
                    None => break,
                    Some(b'\n') => {
                        breaks += 1;
                        line = a + 1;
                        continue;
                    }
                    Some(b'#') => break,
                    Some(_) if a - line <= parent => break,
                    Some(_) => {}
                }
                let (run_end, run_stop) = self.plain_run(a)?;
                let joined = text.to_mut();
                if breaks == 0 {
                    joined.push(' ');
                } else {
                    joined.extend(std::iter::repeat_n('\n', breaks));
                }
                joined.push_str(&self.text[a..run_end]);
                end = run_end;
                breaks = 0;
                line = self.line_after(run_stop);
                resume = line;
                if self.b.get(run_stop) == Some(&b'#') {
                    break;
                }
            }
        }
        let span = Span::new(at, end);
        self.note_hash(&text, span);
        let value = scalar(text, true);
        Some((Node::new(span, value), resume))
    }

    /// One line's run of a plain scalar from `at`: where its text ends (blanks trimmed)
    /// and where the run stops (the line break, the text's end, or a comment's `#`).
    /// `None` when a `:` and a blank stop it: a mapping where the parser wants none.
    fn plain_run(&self, at: usize) -> Option<(usize, usize)> {
        let end = self.line_end(at);
        let mut i = at;
        let mut text_end = at;
        while i < end {
            match self.b[i] {
                b' ' => {}
                b'#' if self.b[i - 1] == b' ' => return Some((text_end, i)),
                b':' if is_blank_or_break(self.b.get(i + 1)) => return None,
                _ => text_end = i + 1,
            }
            i += 1;
        }
        Some((text_end, end))
    }
}

/// Whether a plain scalar may start with `c` (followed by `next`) in block context.
/// (The same in a flow collection: the parser refuses a `-` before a flow indicator there.)
fn starts_plain(c: u8, next: Option<&u8>) -> bool {
    match c {
        b'-' | b'?' | b':' => !is_blank_or_break(next) && !is_flow(next),
        b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' | b' ' | b'\n' => false,
        _ => true,
    }
}
