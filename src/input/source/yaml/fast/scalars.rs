//! Quoted scalars on one line and block scalars (`|`, `>`), as `saphyr-parser`'s
//! `scan_flow_scalar` and `scan_block_scalar` read them.

use super::super::super::{Node, Span, Text, Value};
use super::Reader;

/// How a block scalar's final line breaks are kept.
#[derive(PartialEq)]
enum Chomping {
    Strip,
    Clip,
    Keep,
}

impl Reader<'_> {
    /// A quoted scalar that opens at `at`: its text and the position after its closing
    /// quote. It may go on over lines only where `parent` is given (a value in a block
    /// collection at that column; its lines must start right of it), as the parser's
    /// `scan_flow_scalar` folds them: a line's trailing blanks and the next line's leading
    /// ones go, one line break is a space, more are all but one kept. `None` for an escape
    /// the parser refuses or an escaped line break.
    pub(super) fn quoted(
        &self,
        at: usize,
        single: bool,
        parent: Option<usize>,
    ) -> Option<(Text, usize)> {
        let quote = self.b[at];
        let mut i = at + 1;
        let mut owned: Option<String> = None;
        let mut run = i;
        loop {
            match *self.b.get(i)? {
                b'\'' if single && self.b.get(i + 1) == Some(&b'\'') => {
                    owned.get_or_insert_default().push_str(&self.text[run..=i]);
                    i += 2;
                    run = i;
                }
                c if c == quote => {
                    let text = match owned {
                        Some(mut s) => {
                            s.push_str(&self.text[run..i]);
                            Text::from(s)
                        }
                        None => Text::from(&self.text[run..i]),
                    };
                    return Some((text, i + 1));
                }
                b'\\' if !single => {
                    let s = owned.get_or_insert_default();
                    s.push_str(&self.text[run..i]);
                    let (c, used) = escape(&self.b[i + 1..])?;
                    s.push(c);
                    i += 1 + used;
                    run = i;
                }
                b'\n' => {
                    let parent = parent?;
                    let s = owned.get_or_insert_default();
                    s.push_str(self.text[run..i].trim_end_matches(' '));
                    let mut breaks = 0usize;
                    let mut line = i + 1;
                    let mut next = self.skip_spaces(line);
                    while self.b.get(next) == Some(&b'\n') {
                        breaks += 1;
                        line = next + 1;
                        next = self.skip_spaces(line);
                    }
                    if next >= self.b.len() || next - line <= parent {
                        return None;
                    }
                    if breaks == 0 {
                        s.push(' ');
                    }
                    push_breaks(s, breaks);
                    i = next;
                    run = i;
                }
                _ => i += 1,
            }
        }
    }

    /// A block scalar whose indicator is at `at`, in a collection at column `parent`: its
    /// node and the start of the line where it stops. The parser's span runs from the
    /// first content line (the indicator when there is none before the end of the text)
    /// to the first character of the line that ends it.
    pub(super) fn block_scalar(&mut self, at: usize, parent: usize) -> Option<(Node, usize)> {
        let literal = self.b[at] == b'|';
        let mut i = at + 1;
        let chomping = match self.b.get(i) {
            Some(b'-') => {
                i += 1;
                Chomping::Strip
            }
            Some(b'+') => {
                i += 1;
                Chomping::Keep
            }
            _ => Chomping::Clip,
        };
        if self.b.get(i).is_some_and(u8::is_ascii_digit) || !self.rest_is_blank(i) {
            return None;
        }
        let len = self.b.len();
        // The first line's indentation: the most of the leading blank lines and the first
        // content line's (skip_block_scalar_first_line_indent).
        let mut breaks = 0usize;
        let (mut pos, mut line, most) =
            self.indentation(self.line_after(i), usize::MAX, &mut breaks);
        let indent = most.max(parent + 1);
        if pos >= len {
            if chomping == Chomping::Keep {
                return None;
            }
            let span = Span::new(at, len);
            return Some((Node::new(span, Value::String(Text::from(""))), len));
        }
        let col = pos - line;
        if col < indent && col > parent {
            return None;
        }
        let start = pos;
        let mut text = String::new();
        let mut leading_break = false;
        let mut leading_blank = false;
        while pos - line == indent && pos < len && self.b[pos] != b'\n' {
            let trailing_blank = self.b[pos] == b' ';
            if !literal && leading_break && !leading_blank && !trailing_blank {
                if breaks == 0 {
                    text.push(' ');
                }
                push_breaks(&mut text, breaks);
            } else {
                push_breaks(&mut text, usize::from(leading_break) + breaks);
            }
            leading_break = false;
            breaks = 0;
            leading_blank = trailing_blank;
            let end = self.line_end(pos);
            text.push_str(&self.text[pos..end]);
            pos = end;
            if pos >= len {
                break;
            }
            leading_break = true;
            // skip_block_scalar_indent: spaces up to the indentation, and empty lines.
            (pos, line, _) = self.indentation(pos + 1, indent, &mut breaks);
        }
        if chomping != Chomping::Strip {
            push_breaks(&mut text, usize::from(leading_break));
            if pos >= len && pos - line >= indent.max(1) {
                text.push('\n');
            }
        }
        if chomping == Chomping::Keep {
            push_breaks(&mut text, breaks);
        }
        let span = Span::new(start, pos);
        self.note_hash(&text, span);
        let resume = if pos >= len { len } else { line };
        Some((Node::new(span, Value::String(Text::from(text))), resume))
    }
}

impl Reader<'_> {
    /// From the start of a line: passes the spaces that indent it (`limit` of them at
    /// most) and the empty lines that follow, counting their `breaks`. Gives the position
    /// reached, the start of its line and the deepest indentation passed.
    fn indentation(
        &self,
        mut pos: usize,
        limit: usize,
        breaks: &mut usize,
    ) -> (usize, usize, usize) {
        let (mut line, mut most) = (pos, 0);
        loop {
            while pos - line < limit && self.b.get(pos) == Some(&b' ') {
                pos += 1;
            }
            most = most.max(pos - line);
            if self.b.get(pos) != Some(&b'\n') {
                return (pos, line, most);
            }
            *breaks += 1;
            pos += 1;
            line = pos;
        }
    }
}

fn push_breaks(text: &mut String, n: usize) {
    text.extend(std::iter::repeat_n('\n', n));
}

/// The character a double-quoted scalar's escape stands for (`rest` follows the
/// backslash), and how many bytes of `rest` it takes; `None` for what the parser
/// refuses or reads as a line continuation.
fn escape(rest: &[u8]) -> Option<(char, usize)> {
    let c = match rest.first()? {
        b'0' => '\0',
        b'a' => '\x07',
        b'b' => '\x08',
        b't' => '\t',
        b'n' => '\n',
        b'v' => '\x0b',
        b'f' => '\x0c',
        b'r' => '\r',
        b'e' => '\x1b',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' => return hex(rest, 2),
        b'u' => return hex(rest, 4),
        b'U' => return hex(rest, 8),
        _ => return None,
    };
    Some((c, 1))
}

fn hex(rest: &[u8], digits: usize) -> Option<(char, usize)> {
    let code = rest.get(1..=digits)?;
    let text = std::str::from_utf8(code).ok()?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let value = u32::from_str_radix(text, 16).ok()?;
    Some((char::from_u32(value)?, 1 + digits))
}
