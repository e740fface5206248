//! Line index of a text: byte offsets to 1-based lines and character columns.

use super::{Position, Span};

/// Where each line of a text starts. A line ends at `\n`, `\r\n` or a lone `\r` (as YAML
/// counts lines); the break is in no column.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut starts = vec![0u32];
        starts.extend(
            memchr::memchr2_iter(b'\n', b'\r', bytes)
                // The `\r` of a `\r\n` ends nothing: its `\n` does.
                .filter(|&i| !(bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n')))
                .map(|i| i as u32 + 1),
        );
        LineIndex { starts }
    }

    /// How many lines the text has.
    pub fn line_count(&self) -> u32 {
        self.starts.len() as u32
    }

    /// The 1-based line of a byte offset.
    pub fn line_of(&self, offset: u32) -> u32 {
        self.starts.partition_point(|&s| s <= offset).max(1) as u32
    }

    /// The 1-based line and character column of a byte offset.
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let line = self.line_of(offset);
        let start = self.starts[(line - 1) as usize] as usize;
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
        let idx = (line.max(1) - 1) as usize;
        let start = self.starts.get(idx).map_or(text.len(), |&s| s as usize);
        let end = self
            .starts
            .get(idx + 1)
            .map_or(text.len(), |&next| next as usize);
        let content = text.get(start..end).unwrap_or_default();
        Span::new(start, start + content.trim_end_matches(['\n', '\r']).len())
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

    #[test]
    fn lines_start_after_every_break_at_every_offset() {
        // Newlines at every offset of a word and of the tail, next to bytes one away from
        // `\n` (`\t`, `\u{b}`) and to the bytes of multi-byte characters.
        for len in 0..20 {
            for filler in ["a", "\t", "\u{b}", "ʊ", "é", "\u{8a}", "\n"] {
                for end in ["\n", "\r\n", "\r", "", "\n\n"] {
                    let text = format!("{}{end}{}", filler.repeat(len), "x".repeat(len % 9));
                    let index = LineIndex::new(&text);
                    assert_eq!(index.starts, naive(&text), "{text:?}");
                }
            }
        }
        let text = "a\nbc\n\nd";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        assert_eq!(index.line_of(5), 3);
    }
}
