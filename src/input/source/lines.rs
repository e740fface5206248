//! Line index of a text: byte offsets to 1-based lines and character columns.
//!
//! The index counts the line breaks of each block of [`BLOCK`] bytes (a vectorised count)
//! rather than recording where every line starts: a description of 13 MB has some 350,000
//! lines, and an output looks up the lines of a few hundred places. A lookup counts within
//! one block.

use super::{Position, Span};

/// Bytes per block of the index.
const BLOCK: usize = 1024;

/// Where each line of a text starts. A line ends at `\n`, `\r\n` or a lone `\r` (as YAML
/// counts lines); the break is in no column.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// `before[k]`: the line breaks in the bytes before `k * BLOCK`.
    before: Vec<u32>,
    /// The line breaks of the whole text.
    breaks: u32,
    /// Whether the text has a `\r` (then a break is not simply a `\n`).
    carriage_returns: bool,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let carriage_returns = memchr::memchr(b'\r', bytes).is_some();
        let mut before = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut breaks = 0u32;
        before.push(0);
        for (k, block) in bytes.chunks(BLOCK).enumerate() {
            breaks += count_breaks(bytes, k * BLOCK, k * BLOCK + block.len(), carriage_returns);
            before.push(breaks);
        }
        // `before` has an entry for every block start up to and including the text's end.
        before.truncate(bytes.len() / BLOCK + 1);
        LineIndex {
            before,
            breaks,
            carriage_returns,
        }
    }

    /// How many lines the text has.
    pub fn line_count(&self) -> u32 {
        self.breaks + 1
    }

    /// The 1-based line of a byte offset of `text`.
    pub fn line_of(&self, text: &str, offset: u32) -> u32 {
        let offset = (offset as usize).min(text.len());
        let block = offset / BLOCK;
        let from = block * BLOCK;
        self.before[block] + count_breaks(text.as_bytes(), from, offset, self.carriage_returns) + 1
    }

    /// Where a 1-based line of `text` starts (the text's end for a line past its last).
    fn line_start(&self, text: &str, line: u32) -> usize {
        // The line starts just after the text's `line - 1`th break.
        let nth = line.saturating_sub(1);
        if nth == 0 {
            return 0;
        }
        if nth > self.breaks {
            return text.len();
        }
        // The block holding that break: the last whose start has fewer breaks before it.
        let block = self.before.partition_point(|&b| b < nth) - 1;
        let from = block * BLOCK;
        let skip = (nth - self.before[block] - 1) as usize;
        breaks_in(text.as_bytes(), from, text.len(), self.carriage_returns)
            .nth(skip)
            .map_or(text.len(), |i| i + 1)
    }

    /// The 1-based line and character column of a byte offset.
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let line = self.line_of(text, offset);
        let start = self.line_start(text, line);
        let offset = (offset as usize).min(text.len());
        let column = text
            .get(start..offset)
            .map_or(0, |s| s.trim_end_matches('\r').chars().count());
        Position {
            line,
            column: column as u32 + 1,
        }
    }

    /// The bytes of a 1-based line, without its line break.
    pub fn line_span(&self, text: &str, line: u32) -> Span {
        let start = self.line_start(text, line.max(1));
        let end = self.line_start(text, line.max(1) + 1);
        line_without_break(text, start, end)
    }

    /// The bytes of every line of `text` in turn, without their line breaks.
    pub fn line_spans<'t>(&self, text: &'t str) -> impl Iterator<Item = Span> + 't {
        self.line_spans_from(text, 1)
    }

    /// The bytes of each line of `text` from the 1-based line `first` on, without their
    /// line breaks: the first line's start looked up once, the rest found by walking on.
    pub fn line_spans_from<'t>(
        &self,
        text: &'t str,
        first: u32,
    ) -> impl Iterator<Item = Span> + 't {
        let from = self.line_start(text, first.max(1));
        let carriage_returns = self.carriage_returns;
        let breaks = move || breaks_in(text.as_bytes(), from, text.len(), carriage_returns);
        let starts = std::iter::once(from).chain(breaks().map(|i| i + 1));
        let ends = breaks().map(|i| i + 1).chain(std::iter::once(text.len()));
        starts
            .zip(ends)
            .map(move |(start, end)| line_without_break(text, start, end))
    }
}

/// The span of `text[start..end]` without the line break that ends it.
fn line_without_break(text: &str, start: usize, end: usize) -> Span {
    let content = text.get(start..end).unwrap_or_default();
    Span::new(start, start + content.trim_end_matches(['\n', '\r']).len())
}

/// The offsets of the line breaks in `bytes[from..to]`: each `\n`, and each `\r` not
/// followed by a `\n` (the `\r` of a `\r\n` ends nothing: its `\n` does).
fn breaks_in(
    bytes: &[u8],
    from: usize,
    to: usize,
    carriage_returns: bool,
) -> impl Iterator<Item = usize> + '_ {
    let second = if carriage_returns { b'\r' } else { b'\n' };
    memchr::memchr2_iter(b'\n', second, &bytes[from..to])
        .map(move |i| from + i)
        .filter(move |&i| !(bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n')))
}

/// How many line breaks `bytes[from..to]` holds.
fn count_breaks(bytes: &[u8], from: usize, to: usize, carriage_returns: bool) -> u32 {
    if carriage_returns {
        breaks_in(bytes, from, to, true).count() as u32
    } else {
        // A vectorised count.
        memchr::memchr_iter(b'\n', &bytes[from..to]).count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where lines start, found byte by byte.
    fn naive(text: &str) -> Vec<u32> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            let crlf = b == b'\r' && bytes.get(i + 1) == Some(&b'\n');
            if (b == b'\n' || b == b'\r') && !crlf {
                starts.push(i as u32 + 1);
            }
        }
        starts
    }

    /// Checks every lookup of `index` against the naive starts of `text`.
    fn agrees(text: &str, index: &LineIndex) {
        let starts = naive(text);
        assert_eq!(index.line_count() as usize, starts.len(), "{text:?}");
        for offset in 0..=text.len() as u32 + 1 {
            let line = starts.partition_point(|&s| s <= offset) as u32;
            assert_eq!(index.line_of(text, offset), line, "{text:?} at {offset}");
        }
        let spans: Vec<Span> = index.line_spans(text).collect();
        assert_eq!(spans.len(), starts.len(), "{text:?}");
        for (i, &start) in starts.iter().enumerate() {
            let line = i as u32 + 1;
            assert_eq!(
                index.line_span(text, line).start,
                start,
                "{text:?} line {line}"
            );
            assert_eq!(
                index.line_span(text, line),
                spans[i],
                "{text:?} line {line}"
            );
            // From any line on, the same spans as looking each line up.
            let from: Vec<Span> = index.line_spans_from(text, line).collect();
            assert_eq!(from, spans[i..], "{text:?} from line {line}");
        }
        assert_eq!(
            index.line_span(text, starts.len() as u32 + 1),
            Span::new(text.len(), text.len())
        );
    }

    #[test]
    fn lines_start_after_every_break_at_every_offset() {
        // Newlines at every offset of a word and of the tail, next to bytes one away from
        // `\n` (`\t`, `\u{b}`) and to the bytes of multi-byte characters.
        for len in 0..20 {
            for filler in ["a", "\t", "\u{b}", "ʊ", "é", "\u{8a}", "\n"] {
                for end in ["\n", "\r\n", "\r", "", "\n\n"] {
                    let text = format!("{}{end}{}", filler.repeat(len), "x".repeat(len % 9));
                    agrees(&text, &LineIndex::new(&text));
                }
            }
        }
        let text = "a\nbc\n\nd";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        assert_eq!(index.line_of(text, 5), 3);
    }

    #[test]
    fn breaks_at_and_across_block_edges_are_counted_once() {
        // A `\r\n` split by a block edge, breaks on both sides of it, lines longer than a
        // block and blocks with no break at all.
        for edge in [BLOCK - 2, BLOCK - 1, BLOCK, BLOCK + 1] {
            for brk in ["\n", "\r\n", "\r"] {
                let mut text = "y".repeat(edge);
                text.push_str(brk);
                text.push_str(&"z".repeat(BLOCK * 2 + 3));
                text.push_str(brk);
                text.push_str(&format!("w{brk}").repeat(BLOCK));
                agrees(&text, &LineIndex::new(&text));
            }
        }
    }
}
