//! Source files: their text, one parse into a spanned [`Node`] tree, and positions.
//!
//! JSON goes through a hand-written parser (as fast as a plain `serde_json::Value`
//! parse, with spans); YAML through `saphyr-parser` events. The format is chosen by
//! content. Spans are byte offsets; [`SourceFile::position`] turns them into 1-based
//! lines and character columns for every output.

mod deferred;
pub mod haproxy;
mod json;
mod lines;
pub mod nginx;
pub mod pointer;
pub mod proto;
mod text;
mod tree;
mod validation;
mod yaml;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

pub use deferred::is_deferred_key;
pub use lines::LineIndex;
pub use tree::{Entry, Map, Node, Text, Value};
pub use yaml::NODE_BYTES;

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
    /// A gRPC `.proto` file: its facts are in [`SourceFile::proto`], its tree is empty.
    Proto,
}

/// Limits that keep hostile input from exhausting the machine.
#[derive(Debug, Clone, Copy)]
pub struct ParseLimits {
    /// Deepest nesting of lists and mappings.
    pub max_depth: usize,
    /// Most bytes that expansions may add to one description: YAML aliases and `<<` merges
    /// in any of its files, and operations reused through `$ref` from several paths.
    pub max_expansion_bytes: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            max_depth: 1_000,
            max_expansion_bytes: 64 * 1024 * 1024,
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
    pub(crate) fn new(message: impl Into<String>, span: Span) -> SyntaxError {
        SyntaxError {
            message: message.into(),
            span,
        }
    }
}

/// Parses a document, choosing JSON or YAML by its first significant character.
///
/// Text that opens with `{` or `[` is JSON unless the JSON parser rejects it and a YAML
/// parse (flow style is YAML too) accepts it; a file named `.json` is JSON only.
pub fn parse(text: &str, limits: ParseLimits) -> Result<(Node, Syntax), SyntaxError> {
    parse_as(text, limits, None)
}

/// Parses a document; with `Some(Syntax::Json)` (a `.json` file) JSON errors are final.
pub fn parse_as(
    text: &str,
    limits: ParseLimits,
    declared: Option<Syntax>,
) -> Result<(Node, Syntax), SyntaxError> {
    parse_counted(text, None, limits, declared).map(|(parsed, syntax)| (parsed.root, syntax))
}

/// Parses a document like [`parse_as`], with what the parse learnt besides the tree.
/// With `shared` (the same text, shared), JSON schemas and examples are deferred.
fn parse_counted(
    text: &str,
    shared: Option<&SharedText>,
    limits: ParseLimits,
    declared: Option<Syntax>,
) -> Result<(yaml::Parsed, Syntax), SyntaxError> {
    let json = |root| yaml::Parsed {
        root,
        expanded: 0,
        hash_scalars: Vec::new(),
    };
    if opens_like_json(text) {
        let parsed = match shared {
            Some(shared) => json::parse_deferring(shared, limits),
            None => json::parse(text, limits),
        };
        match parsed {
            Ok(node) => Ok((json(node), Syntax::Json)),
            Err(json_error) if declared == Some(Syntax::Json) => Err(json_error),
            Err(json_error) => match yaml::parse_counted(text, limits) {
                Ok(parsed) => Ok((parsed, Syntax::Yaml)),
                Err(_) => Err(json_error),
            },
        }
    } else {
        yaml::parse_counted(text, limits).map(|parsed| (parsed, Syntax::Yaml))
    }
}

/// Whether some `$ref` of `text` may name another file (see
/// [`SourceFile::may_name_other_files`]).
fn names_other_files(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, b"$ref").any(|at| {
        let after = &bytes[at + 4..];
        let value = after
            .iter()
            .position(|b| !matches!(b, b'"' | b'\'' | b':' | b' ' | b'\t'))
            .map_or(&after[..0], |start| &after[start..]);
        value.first().is_some_and(|&b| b != b'#')
    })
}

/// A file's text, shared. An `Arc<String>` rather than an `Arc<str>`: the text read from
/// disk moves in, where making an `Arc<str>` of it would copy every byte.
pub type SharedText = Arc<String>;

/// One loaded file.
#[derive(Debug)]
pub struct SourceFile {
    /// The path shown to users: as given, or relative to the file that referenced it.
    pub display: PathBuf,
    /// The file's text, shared by its deferred subtrees, findings and outputs.
    pub text: SharedText,
    pub root: Node,
    pub syntax: Syntax,
    /// Bytes that YAML aliases and merges added when the file was parsed (counted in the
    /// description's expansion budget).
    pub expanded_bytes: usize,
    /// Where the scalars of a YAML file whose text holds a `#` are written, in order; a
    /// `#` inside one of them does not start a comment.
    pub hash_scalars: Box<[Span]>,
    /// Where the file is on disk, resolved (none for text that came from elsewhere).
    pub canonical: Option<PathBuf>,
    /// Whether it was read as a stream of documents (a Kubernetes manifest): its root is
    /// the list of them, and its places start with a document's index.
    pub documents: bool,
    /// What a `.proto` file says (services, rpcs, imports), for [`Syntax::Proto`].
    pub proto: Option<Arc<proto::ProtoFile>>,
    /// The check of its text still running beside, when its parse read ahead of it
    /// (see [`validation`]).
    validation: Option<Arc<validation::Validation>>,
    /// Shared with the file made from it without its tree, and with the check of its
    /// text when that runs beside (which makes it once the text passed).
    lines: Arc<OnceLock<LineIndex>>,
    identity: OnceLock<String>,
}

impl SourceFile {
    pub fn new(display: PathBuf, text: String, root: Node, syntax: Syntax) -> SourceFile {
        SourceFile::from_shared(display, Arc::new(text), root, syntax)
    }

    fn from_shared(display: PathBuf, text: SharedText, root: Node, syntax: Syntax) -> SourceFile {
        SourceFile {
            display,
            text,
            root,
            syntax,
            expanded_bytes: 0,
            hash_scalars: Box::default(),
            canonical: None,
            documents: false,
            proto: None,
            validation: None,
            lines: Arc::default(),
            identity: OnceLock::new(),
        }
    }

    /// The same file without its tree: what findings and outputs need once the model is
    /// built (the text is shared, not copied).
    pub fn without_tree(&self) -> SourceFile {
        SourceFile {
            display: self.display.clone(),
            text: self.text.clone(),
            root: Node::new(Span::default(), Value::Null),
            syntax: self.syntax,
            expanded_bytes: self.expanded_bytes,
            hash_scalars: self.hash_scalars.clone(),
            canonical: self.canonical.clone(),
            documents: self.documents,
            proto: self.proto.clone(),
            validation: self.validation.clone(),
            lines: self.lines.clone(),
            identity: self.identity.clone(),
        }
    }

    /// Parses `text` into a source file.
    pub fn parse(
        display: PathBuf,
        text: String,
        limits: ParseLimits,
    ) -> Result<SourceFile, (String, SyntaxError)> {
        if is_proto_path(&display) {
            return SourceFile::parse_proto(display, Arc::new(text));
        }
        let declared = SourceFile::declared(&display);
        match parse_counted(&text, None, limits, declared) {
            Ok((parsed, syntax)) => Ok(SourceFile::parsed(display, text.into(), parsed, syntax)),
            Err(e) => Err((text, e)),
        }
    }

    /// Parses the text of a file of an API description: like [`SourceFile::parse`], but
    /// a JSON file's schemas and examples are built only when first looked at (every
    /// syntax error in them is still found now).
    pub fn parse_description(
        display: PathBuf,
        text: String,
        limits: ParseLimits,
    ) -> Result<SourceFile, (String, SyntaxError)> {
        // Moved, not copied: the text of a large description is megabytes.
        SourceFile::parse_description_shared(display, Arc::new(text), limits)
    }

    /// [`SourceFile::parse_description`] of a text already shared (an editor's buffer).
    pub fn parse_description_shared(
        display: PathBuf,
        shared: SharedText,
        limits: ParseLimits,
    ) -> Result<SourceFile, (String, SyntaxError)> {
        if is_proto_path(&display) {
            return SourceFile::parse_proto(display, shared);
        }
        let declared = SourceFile::declared(&display);
        match parse_counted(&shared, Some(&shared), limits, declared) {
            Ok((parsed, syntax)) => Ok(SourceFile::parsed(display, shared, parsed, syntax)),
            Err(e) => Err((shared.to_string(), e)),
        }
    }

    /// [`SourceFile::parse_description`] that, for a large JSON file on a machine with
    /// more than one core, builds its tree while its text is checked on another core
    /// (see [`validation`]): the caller must see [`SourceFile::confirmed`] before it
    /// trusts anything read from the file. Any other file is parsed the ordinary way.
    pub fn parse_description_speculative(
        display: PathBuf,
        text: String,
        limits: ParseLimits,
    ) -> Result<SourceFile, (String, SyntaxError)> {
        /// Below this size the check costs less than starting a thread for it.
        const READ_AHEAD_FROM: usize = 1 << 20;
        let shared = Arc::new(text);
        if opens_like_json(&shared)
            && shared.len() >= READ_AHEAD_FROM
            && crate::parallel::cores() > 1
            && !is_proto_path(&display)
            && let lines = Arc::<OnceLock<LineIndex>>::default()
            && let Some(validation) = validation::Validation::start(&shared, limits, &lines)
            && let Ok(root) = json::parse_speculative(&shared, limits)
        {
            let parsed = yaml::Parsed {
                root,
                expanded: 0,
                hash_scalars: Vec::new(),
            };
            let mut file = SourceFile::parsed(display, shared, parsed, Syntax::Json);
            file.validation = Some(Arc::new(validation));
            file.lines = lines;
            return Ok(file);
        }
        SourceFile::parse_description_shared(display, shared, limits)
    }

    /// Whether some `$ref` of the text may name another file (its value does not start
    /// with `#`): a quick look at the text that spares walking a large single-file
    /// description. A file whose text is checked beside its parse has it looked at there.
    pub fn may_name_other_files(&self) -> bool {
        self.validation
            .as_ref()
            .and_then(|v| v.names_other_files())
            .unwrap_or_else(|| names_other_files(&self.text))
    }

    /// Whether its parse read ahead of the check of its text (see [`validation`]).
    pub fn read_ahead(&self) -> bool {
        self.validation.is_some()
    }

    /// Whether what was read from the file can be trusted: true unless its parse read
    /// ahead of the check of its text and that check failed (see [`validation`]). Waits
    /// for the check if it is still running.
    pub fn confirmed(&self) -> bool {
        self.validation.as_ref().is_none_or(|v| v.passed())
    }

    /// Parses a gRPC `.proto` file (see [`proto`]): its tree is an empty mapping.
    fn parse_proto(
        display: PathBuf,
        text: SharedText,
    ) -> Result<SourceFile, (String, SyntaxError)> {
        match proto::parse(&path_text(&display), &text) {
            Ok(parsed) => {
                let root = Node::new(Span::default(), Value::Null);
                let mut file = SourceFile::from_shared(display, text, root, Syntax::Proto);
                file.proto = Some(Arc::new(parsed));
                Ok(file)
            }
            Err(e) => Err((text.to_string(), e)),
        }
    }

    /// JSON for a file named `.json` (its JSON errors are final), else by content.
    fn declared(display: &std::path::Path) -> Option<Syntax> {
        display
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
            .then_some(Syntax::Json)
    }

    fn parsed(display: PathBuf, text: SharedText, parsed: yaml::Parsed, syntax: Syntax) -> Self {
        let mut file = SourceFile::from_shared(display, text, parsed.root, syntax);
        file.expanded_bytes = parsed.expanded;
        file.hash_scalars = parsed.hash_scalars.into_boxed_slice();
        file
    }

    /// Parses `text` as a stream of documents (a Kubernetes manifest): the root is a
    /// list of the documents. A JSON file is one document.
    pub fn parse_documents(
        display: PathBuf,
        text: String,
        limits: ParseLimits,
    ) -> Result<SourceFile, (String, SyntaxError)> {
        let is_json = display
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if is_json || opens_like_json(&text) {
            return SourceFile::parse(display, text, limits).map(|mut file| {
                let span = Span::new(0, file.text.len());
                let root = std::mem::replace(&mut file.root, Node::new(span, Value::Null));
                file.root = Node::new(span, Value::Seq(vec![root].into()));
                file.documents = true;
                file
            });
        }
        match yaml::parse_stream(&text, limits) {
            Ok(parsed) => {
                let mut file = SourceFile::new(display, text, parsed.root, Syntax::Yaml);
                file.expanded_bytes = parsed.expanded;
                file.hash_scalars = parsed.hash_scalars.into_boxed_slice();
                file.documents = true;
                Ok(file)
            }
            Err(e) => Err((text, e)),
        }
    }

    /// The display path as text with forward slashes.
    pub fn name(&self) -> String {
        path_text(&self.display)
    }

    /// The file's name however it was typed (`api.yaml`, `./api.yaml`, `d/../api.yaml`
    /// or an absolute path): relative to the git work tree that holds it, else to the
    /// current folder, else absolute. Fingerprints and baselines use it.
    pub fn identity(&self) -> &str {
        self.identity.get_or_init(|| match &self.canonical {
            Some(path) => identity_of(path),
            None => path_text(&fold_dots(&self.display)),
        })
    }

    /// The file's line index, built on first use.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Whether a byte offset lies inside a scalar whose text holds a `#` (so a `#` there
    /// is text, not the start of a comment).
    pub fn in_hash_scalar(&self, offset: u32) -> bool {
        let after = self.hash_scalars.partition_point(|s| s.start <= offset);
        after > 0 && offset < self.hash_scalars[after - 1].end
    }

    /// The 1-based line and character column of a byte offset.
    pub fn position(&self, offset: u32) -> Position {
        self.lines().position(&self.text, offset)
    }
}

/// The first byte of `text` after a byte order mark and white space, if there is one.
pub fn first_byte(text: &str) -> Option<u8> {
    text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
        .bytes()
        .next()
}

/// Whether `text` opens with `{` or `[`: JSON (or YAML written as a flow), tried as JSON
/// first.
pub fn opens_like_json(text: &str) -> bool {
    matches!(first_byte(text), Some(b'{' | b'['))
}

/// Whether a file is named like a protobuf source (`.proto`, any case): it is read as a
/// gRPC description.
pub fn is_proto_path(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("proto"))
}

/// A path as text with forward slashes, the same on every platform.
pub fn path_text(path: &std::path::Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// The nearest folder at or above `folder` that holds a `.git` entry (folder or file).
pub fn git_work_tree(folder: &std::path::Path) -> Option<std::path::PathBuf> {
    folder
        .ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
        .map(std::path::Path::to_path_buf)
}

/// A resolved path named relative to its git work tree, else to the current folder,
/// else absolute.
pub fn identity_of(canonical: &std::path::Path) -> String {
    let current = std::env::current_dir().and_then(std::fs::canonicalize).ok();
    let base = canonical.parent().and_then(git_work_tree).or(current);
    match base.as_deref().and_then(|b| canonical.strip_prefix(b).ok()) {
        Some(relative) => path_text(relative),
        None => path_text(canonical),
    }
}

/// `path` without `.` components, and with each `..` taking away the name before it
/// when there is one (for names shown, and files that are not on disk).
pub fn fold_dots(path: &std::path::Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_fold_without_losing_leading_parents() {
        let fold = |p: &str| path_text(&fold_dots(std::path::Path::new(p)));
        assert_eq!(fold("../../a/./b/../c.yaml"), "../../a/c.yaml");
        assert_eq!(fold("./api/../openapi.yaml"), "openapi.yaml");
        assert_eq!(fold("a/../../b"), "../b");
    }

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
