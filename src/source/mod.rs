//! Source files: their text, one parse into a spanned [`Node`] tree, and positions.
//!
//! JSON goes through a hand-written parser (as fast as a plain `serde_json::Value`
//! parse, with spans); YAML through `saphyr-parser` events. The format is chosen by
//! content. Spans are byte offsets; [`SourceFile::position`] turns them into 1-based
//! lines and character columns for every output.

mod json;
pub mod pointer;
mod tree;
mod yaml;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

pub use tree::{Entry, Map, Node, Value};

/// A byte range of a file, end exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// An empty span at one offset.
    pub fn at(offset: usize) -> Span {
        Span::new(offset, offset)
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.end <= self.start
    }
}

/// A 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// How a file was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Json,
    Yaml,
}

/// Limits that keep hostile input from exhausting the machine.
#[derive(Debug, Clone, Copy)]
pub struct ParseLimits {
    /// Deepest nesting of lists and mappings.
    pub max_depth: usize,
    /// Most nodes YAML aliases may add by expansion.
    pub max_alias_nodes: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            max_depth: 1_000,
            max_alias_nodes: 1_000_000,
        }
    }
}

/// A syntax problem found while parsing one file.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub message: String,
    pub span: Span,
}

impl SyntaxError {
    fn new(message: impl Into<String>, span: Span) -> SyntaxError {
        SyntaxError {
            message: message.into(),
            span,
        }
    }
}

/// Parses a document, choosing JSON or YAML by its first significant character.
///
/// Text that opens with `{` or `[` is JSON unless the JSON parser rejects it and a YAML
/// parse (flow style is YAML too) accepts it.
pub fn parse(text: &str, limits: ParseLimits) -> Result<(Node, Syntax), SyntaxError> {
    let first = text
        .trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
        .bytes()
        .next();
    if matches!(first, Some(b'{' | b'[')) {
        match json::parse(text, limits) {
            Ok(node) => Ok((node, Syntax::Json)),
            Err(json_error) => match yaml::parse(text, limits) {
                Ok(node) => Ok((node, Syntax::Yaml)),
                Err(_) => Err(json_error),
            },
        }
    } else {
        yaml::parse(text, limits).map(|node| (node, Syntax::Yaml))
    }
}

/// One loaded file.
#[derive(Debug)]
pub struct SourceFile {
    /// The path shown to users: as given, or relative to the file that referenced it.
    pub display: PathBuf,
    pub text: Arc<str>,
    pub root: Node,
    pub syntax: Syntax,
    lines: OnceLock<Vec<u32>>,
}

impl SourceFile {
    pub fn new(display: PathBuf, text: String, root: Node, syntax: Syntax) -> SourceFile {
        SourceFile {
            display,
            text: text.into(),
            root,
            syntax,
            lines: OnceLock::new(),
        }
    }

    /// Parses `text` into a source file.
    pub fn parse(
        display: PathBuf,
        text: String,
        limits: ParseLimits,
    ) -> Result<SourceFile, (String, SyntaxError)> {
        match parse(&text, limits) {
            Ok((root, syntax)) => Ok(SourceFile::new(display, text, root, syntax)),
            Err(e) => Err((text, e)),
        }
    }

    /// The display path as text with forward slashes.
    pub fn name(&self) -> String {
        path_text(&self.display)
    }

    fn line_starts(&self) -> &[u32] {
        self.lines.get_or_init(|| line_starts(&self.text))
    }

    /// The 1-based line and character column of a byte offset.
    pub fn position(&self, offset: u32) -> Position {
        let starts = self.line_starts();
        let line = starts.partition_point(|&s| s <= offset).saturating_sub(1);
        let start = starts[line] as usize;
        let offset = (offset as usize).min(self.text.len());
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.trim_end_matches('\r').chars().count());
        Position {
            line: line as u32 + 1,
            column: column as u32 + 1,
        }
    }

    /// How many lines the file has.
    pub fn line_count(&self) -> u32 {
        self.line_starts().len() as u32
    }

    /// The 1-based line of a byte offset.
    pub fn line_of(&self, offset: u32) -> u32 {
        self.position(offset).line
    }

    /// Byte range of the whole line (without its line break) holding `offset`, 1-based line.
    pub fn line_span(&self, line: u32) -> Span {
        let starts = self.line_starts();
        let idx = (line.max(1) - 1) as usize;
        let start = starts.get(idx).copied().unwrap_or(self.text.len() as u32) as usize;
        let end = starts
            .get(idx + 1)
            .map_or(self.text.len(), |&next| next as usize);
        let text = &self.text[start..end];
        let trimmed = text.trim_end_matches(['\n', '\r']);
        Span::new(start, start + trimmed.len())
    }
}

/// Offsets where lines start. A line ends at `\n`; a `\r` before it belongs to no column.
fn line_starts(text: &str) -> Vec<u32> {
    let mut starts = vec![0u32];
    starts.extend(
        text.bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .map(|(i, _)| i as u32 + 1),
    );
    starts
}

/// A path as text with forward slashes, the same on every platform.
pub fn path_text(path: &std::path::Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> SourceFile {
        SourceFile::parse("t.yaml".into(), text.into(), ParseLimits::default()).unwrap()
    }

    #[test]
    fn positions_count_characters_and_ignore_crlf() {
        let f = file("a: 1\r\nnamé: x\r\nb: 2\r\n");
        let x = f.text.find('x').unwrap() as u32;
        assert_eq!(f.position(x), Position { line: 2, column: 7 });
        let b = f.text.find('b').unwrap() as u32;
        assert_eq!(f.position(b), Position { line: 3, column: 1 });
        assert_eq!(f.position(f.text.len() as u32 - 1).line, 3);
    }

    #[test]
    fn format_is_chosen_by_content() {
        let (_, syntax) = parse("{\"a\": 1}", ParseLimits::default()).unwrap();
        assert_eq!(syntax, Syntax::Json);
        let (node, syntax) = parse("{a: 1}", ParseLimits::default()).unwrap();
        assert_eq!(syntax, Syntax::Yaml);
        assert_eq!(node.get("a").and_then(|n| n.scalar_text()), Some("1"));
        let (_, syntax) = parse("a: 1", ParseLimits::default()).unwrap();
        assert_eq!(syntax, Syntax::Yaml);
    }
}
