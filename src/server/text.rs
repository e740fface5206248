//! Between retrylint's places and the protocol's: byte offsets and LSP positions (lines
//! from 0, columns in UTF-16 code units, the protocol's default encoding), and file
//! paths and `file:` URIs.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Range, Uri};
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};

/// The line starts of one text, to turn byte offsets into positions and back.
#[derive(Debug)]
pub(super) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Lines<'a> {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        Lines { text, starts }
    }

    /// The position of byte `offset` (clamped to the text, and back to a character start).
    pub(super) fn position(&self, offset: u32) -> Position {
        let mut offset = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let character = self.text[self.starts[line]..offset]
            .chars()
            .map(char::len_utf16)
            .sum::<usize>();
        Position::new(line as u32, character as u32)
    }

    pub(super) fn range(&self, span: crate::input::source::Span) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of `position`: past the end of its line, the line's end; past the
    /// last line, the text's end.
    pub(super) fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(self.text.len(), |next| next - 1);
        let mut units = 0usize;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= position.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }

    /// The text of line `line`, without its line break.
    pub(super) fn line(&self, line: u32) -> &'a str {
        let Some(&start) = self.starts.get(line as usize) else {
            return "";
        };
        let end = self
            .starts
            .get(line as usize + 1)
            .map_or(self.text.len(), |next| next - 1);
        self.text[start..end].trim_end_matches('\r')
    }
}

/// What a `file:` URI path leaves as it is: RFC 3986's unreserved characters, `/` and the
/// sub-delimiters editors leave unescaped.
const URI_PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The `file:` URI of an absolute path.
pub(super) fn uri_of(path: &Path) -> Option<Uri> {
    let text = crate::input::source::path_text(path);
    let rooted = if text.starts_with('/') {
        text
    } else {
        // A Windows path (`C:/x`) is written `file:///C:/x`.
        format!("/{text}")
    };
    Uri::from_str(&format!(
        "file://{}",
        utf8_percent_encode(&rooted, URI_PATH)
    ))
    .ok()
}

/// The path a `file:` URI names; `None` for another scheme.
pub(super) fn path_of(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str().strip_prefix("file://")?;
    let path = text.find(['?', '#']).map_or(text, |end| &text[..end]);
    // A host part (`file://host/x`) is not a local file.
    let path = path.strip_prefix("localhost").unwrap_or(path);
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_decode_str(path).decode_utf8().ok()?;
    let bytes = decoded.as_bytes();
    // `/C:/x` on Windows.
    if cfg!(windows) && bytes.len() > 2 && bytes[2] == b':' {
        return Some(PathBuf::from(&decoded[1..]));
    }
    Some(PathBuf::from(decoded.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_positions_count_utf16_units() {
        let text = "a: 1\nkey: \"é😀x\"\r\nlast";
        let lines = Lines::new(text);
        let x = text.find('x').expect("an x") as u32;
        assert_eq!(lines.position(x), Position::new(1, 9));
        assert_eq!(lines.offset(Position::new(1, 9)), x as usize);
        assert_eq!(lines.position(text.len() as u32), Position::new(2, 4));
        assert_eq!(
            lines.offset(Position::new(1, 99)),
            text.find("\nlast").expect("a line")
        );
        assert_eq!(lines.offset(Position::new(9, 0)), text.len());
        assert_eq!(lines.line(1), "key: \"é😀x\"");
    }

    #[test]
    fn file_uris_round_trip_with_escapes() {
        let path = Path::new("/tmp/a b/ré#1.yaml");
        let uri = uri_of(path).expect("a URI");
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/r%C3%A9%231.yaml");
        assert_eq!(path_of(&uri), Some(path.to_path_buf()));
        let other = Uri::from_str("untitled:Untitled-1").expect("a URI");
        assert_eq!(path_of(&other), None);
    }
}
