//! Route regular expressions, read the way the proxy that matches them reads them.
//!
//! Envoy, and so Istio and the Envoy-based Gateway API implementations, match routes with
//! Google RE2; Linkerd's proxy, written in Rust, with the `regex` crate. The two read the
//! same text differently: RE2's `\d`, `\s`, `\w` and `\b` are ASCII (google/re2
//! `re2/perl_groups.cc`), the `regex` crate's are Unicode. A pattern is translated for the
//! engine of its format, then checked when its file is read; it is compiled the first time
//! a layer that serves the service is bound (see [`RouteRegex`]). A pattern retrylint
//! cannot read as its proxy does, or one too big to compile, is an input error at the
//! pattern: a route that silently matched nothing would hide its findings.

use std::sync::OnceLock;

use regex_syntax::ast::{self, Ast, ClassPerlKind, ClassSetItem, Flag, FlagsItemKind};

use crate::error::{ErrorSite, InputError};

/// The compiled size a route's regular expression may take: patterns come from files
/// anyone can change. Far above what the proxies accept (Envoy refuses an RE2 program
/// over `re2.max_program_size.error_level`, 100 unless configured, 32768 under Istio).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// RE2's largest counted repetition (`kMaxRepeat`): `a{1001}` is a syntax error there.
const RE2_MAX_REPEAT: u32 = 1000;

/// The regular expression engine of a format's proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegexEngine {
    /// Google RE2 (Envoy, Istio, Envoy-based Gateway API implementations): ASCII Perl
    /// classes and word boundaries, and the whole text must match (`RE2::FullMatch`).
    Re2,
    /// The `regex` crate as linkerd2-proxy uses it for `ServiceProfile` routes
    /// (`linkerd/service-profiles/src/proto.rs`): Unicode classes; the pattern is trimmed
    /// and `^` and `$` are added where it lacks them, without a group around it.
    Linkerd,
}

/// A route's regular expression as its proxy matches it. Reading a cluster's manifests
/// must not cost a compilation per route: the syntax is checked when the file is read,
/// and the automaton is built when a layer that serves the service is bound
/// ([`crate::analysis::layers::chain::Bound::new`] compiles its routes' patterns first and stops
/// with the error of one that does not compile).
#[derive(Debug)]
pub struct RouteRegex {
    /// The pattern as the file writes it.
    written: String,
    /// The pattern handed to the `regex` crate: translated and anchored.
    translated: String,
    /// Where the pattern is written, for the error when it does not compile.
    site: Option<Box<ErrorSite>>,
    compiled: OnceLock<Result<regex::Regex, String>>,
}

impl RouteRegex {
    /// Reads `pattern` as `engine` does and checks its syntax; the error says what is
    /// wrong.
    pub fn new(pattern: &str, engine: RegexEngine) -> Result<RouteRegex, String> {
        let translated = match engine {
            RegexEngine::Re2 => format!("^(?:{})$", re2_to_rust(pattern)?),
            RegexEngine::Linkerd => linkerd_anchored(pattern),
        };
        regex_syntax::Parser::new()
            .parse(&translated)
            .map_err(|e| last_line(&e.to_string()))?;
        Ok(RouteRegex {
            written: pattern.to_string(),
            translated,
            site: None,
            compiled: OnceLock::new(),
        })
    }

    /// The same pattern, with the place its file writes it (for the compile error).
    pub fn located(mut self, site: ErrorSite) -> RouteRegex {
        self.site = Some(Box::new(site));
        self
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.written
    }

    /// Whether the pattern was compiled (successfully or not).
    pub fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }

    /// The compiled pattern, or the input error of one too big to compile.
    pub fn compile(&self) -> Result<&regex::Regex, InputError> {
        let compiled = self.compiled.get_or_init(|| {
            regex::RegexBuilder::new(&self.translated)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| last_line(&e.to_string()))
        });
        compiled.as_ref().map_err(|why| {
            let error = InputError::new(format!(
                "the regular expression `{}` is too big for retrylint to match ({why}); \
                 Envoy also refuses RE2 programs past its re2.max_program_size",
                self.written
            ))
            .with_help("write a shorter pattern: fewer or smaller counted repetitions");
            match &self.site {
                Some(site) => error.with_site((**site).clone()),
                None => error,
            }
        })
    }

    /// Whether the whole `text` matches. Binding compiles every pattern of a serving
    /// layer first and stops on one that fails, so a failure is never read here as "no
    /// match" in a check.
    pub fn is_match(&self, text: &str) -> bool {
        self.compile().is_ok_and(|r| r.is_match(text))
    }
}

/// The last line of an error of the `regex` crates (the earlier ones repeat the pattern).
fn last_line(message: &str) -> String {
    let line = message.lines().last().unwrap_or_default();
    line.trim_end_matches('.').to_string()
}

/// The pattern as Linkerd's proxy anchors it: trimmed, `^` and `$` added where missing.
fn linkerd_anchored(pattern: &str) -> String {
    let trimmed = pattern.trim();
    let head = if trimmed.starts_with('^') { "" } else { "^" };
    let tail = if trimmed.ends_with('$') { "" } else { "$" };
    format!("{head}{trimmed}{tail}")
}

/// An RE2 pattern in the `regex` crate's syntax with RE2's meaning: the Perl classes
/// become their ASCII sets and word boundaries ASCII ones. What the crate reads otherwise
/// than RE2 (nested classes and `&&`/`--`/`~~` in a class, which RE2 reads as literal
/// characters; `\<`, `\b{start}`; the flags `x`, `u`, `R`; `{,n}`, which RE2 reads as
/// text; counts over 1000, an RE2 syntax error) is refused.
fn re2_to_rust(pattern: &str) -> Result<String, String> {
    let parsed = ast::parse::Parser::new()
        .parse(pattern)
        .map_err(|e| last_line(&e.to_string()))?;
    let edits = ast::visit(
        &parsed,
        Re2Reader {
            pattern,
            edits: Vec::new(),
        },
    )?;
    let mut out = String::with_capacity(pattern.len() + 16 * edits.len());
    let mut done = 0;
    for (start, end, replacement) in edits {
        out.push_str(&pattern[done..start]);
        out.push_str(replacement);
        done = end;
    }
    out.push_str(&pattern[done..]);
    Ok(out)
}

/// RE2's Perl class (google/re2 `re2/perl_groups.cc`) as a bracketed ASCII class, which
/// the `regex` crate also reads inside another class. `\x20` rather than a space: a space
/// would vanish under the `x` flag.
fn re2_perl_class(class: &ast::ClassPerl) -> &'static str {
    match (&class.kind, class.negated) {
        (ClassPerlKind::Digit, false) => "[0-9]",
        (ClassPerlKind::Digit, true) => "[^0-9]",
        (ClassPerlKind::Space, false) => r"[\t\n\f\r\x20]",
        (ClassPerlKind::Space, true) => r"[^\t\n\f\r\x20]",
        (ClassPerlKind::Word, false) => "[0-9A-Za-z_]",
        (ClassPerlKind::Word, true) => "[^0-9A-Za-z_]",
    }
}

/// Walks an RE2 pattern's syntax tree: the replacements to make, in pattern order, or
/// why the pattern cannot be read as RE2 reads it.
struct Re2Reader<'a> {
    pattern: &'a str,
    edits: Vec<(usize, usize, &'static str)>,
}

impl Re2Reader<'_> {
    /// Writes `with` in place of the text at `span`.
    fn replace(&mut self, span: &ast::Span, with: &'static str) {
        self.edits.push((span.start.offset, span.end.offset, with));
    }

    fn refuse(&self, span: &ast::Span, why: &str) -> Result<(), String> {
        let text = self.pattern.get(span.start.offset..span.end.offset);
        Err(format!(
            "`{}` {why} (Envoy and Istio match routes with RE2)",
            text.unwrap_or_default()
        ))
    }

    fn flags(&self, flags: &ast::Flags) -> Result<(), String> {
        for item in &flags.items {
            if let FlagsItemKind::Flag(Flag::IgnoreWhitespace | Flag::Unicode | Flag::CRLF) =
                item.kind
            {
                return self.refuse(&item.span, "is not a flag of RE2, which has i, m, s and U");
            }
        }
        Ok(())
    }
}

impl ast::Visitor for Re2Reader<'_> {
    type Output = Vec<(usize, usize, &'static str)>;
    type Err = String;

    fn finish(mut self) -> Result<Self::Output, String> {
        self.edits.sort_by_key(|edit| edit.0);
        Ok(self.edits)
    }

    fn visit_pre(&mut self, node: &Ast) -> Result<(), String> {
        match node {
            Ast::ClassPerl(class) => self.replace(&class.span, re2_perl_class(class)),
            Ast::Assertion(assertion) => {
                let ascii = match assertion.kind {
                    ast::AssertionKind::WordBoundary => r"(?-u:\b)",
                    ast::AssertionKind::NotWordBoundary => r"(?-u:\B)",
                    ast::AssertionKind::StartLine
                    | ast::AssertionKind::EndLine
                    | ast::AssertionKind::StartText
                    | ast::AssertionKind::EndText => return Ok(()),
                    _ => return self.refuse(&assertion.span, "is not an assertion of RE2"),
                };
                self.replace(&assertion.span, ascii);
            }
            Ast::Flags(set) => self.flags(&set.flags)?,
            Ast::Group(group) => {
                if let ast::GroupKind::NonCapturing(flags) = &group.kind {
                    self.flags(flags)?;
                }
            }
            Ast::Repetition(repetition) => {
                if let ast::RepetitionKind::Range(range) = &repetition.op.kind {
                    let span = &repetition.op.span;
                    let text = self.pattern.get(span.start.offset..span.end.offset);
                    if text.is_some_and(|t| t.starts_with("{,")) {
                        return self.refuse(span, "is text to RE2, not a repetition");
                    }
                    let (ast::RepetitionRange::Exactly(n)
                    | ast::RepetitionRange::AtLeast(n)
                    | ast::RepetitionRange::Bounded(_, n)) = range;
                    if *n > RE2_MAX_REPEAT {
                        return self.refuse(span, "repeats more than RE2's 1000 times");
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), String> {
        match item {
            ClassSetItem::Perl(class) => self.replace(&class.span, re2_perl_class(class)),
            ClassSetItem::Bracketed(nested) => {
                return self.refuse(
                    &nested.span,
                    "is a class inside a class, which RE2 reads as `[` and `]` characters: escape them",
                );
            }
            _ => {}
        }
        Ok(())
    }

    fn visit_class_set_binary_op_pre(&mut self, op: &ast::ClassSetBinaryOp) -> Result<(), String> {
        self.refuse(
            &op.span,
            "is a class operation RE2 does not have: it reads `&&`, `--` and `~~` as characters",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{RegexEngine, RouteRegex};

    fn re2(pattern: &str) -> RouteRegex {
        RouteRegex::new(pattern, RegexEngine::Re2).unwrap_or_else(|e| panic!("{e}"))
    }

    fn linkerd(pattern: &str) -> RouteRegex {
        RouteRegex::new(pattern, RegexEngine::Linkerd).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_route_regex_is_checked_when_read_and_compiled_when_matched() {
        assert!(RouteRegex::new("/books/(", RegexEngine::Re2).is_err());
        let regex = re2(r"/books/\d+");
        assert_eq!(regex.as_str(), r"/books/\d+");
        assert!(regex.is_match("/books/12") && !regex.is_match("/books/12/x"));
    }

    #[test]
    fn a_pattern_past_the_size_limit_is_an_error_not_a_route_that_matches_nothing() {
        let huge = re2("(?:(?:[a-z]{1000}){1000})?/books");
        let error = huge.compile().expect_err("too big");
        assert!(error.message.contains("too big"), "{}", error.message);
    }

    #[test]
    fn re2_perl_classes_and_word_boundaries_are_ascii() {
        // google/re2 re2/perl_groups.cc: \d [0-9], \s [\t\n\f\r ], \w [0-9A-Za-z_].
        assert!(!re2(r"\d").is_match("٣") && re2(r"\d").is_match("3"));
        assert!(re2(r"\D").is_match("٣"));
        assert!(!re2(r"\w+").is_match("café") && re2(r"\w+").is_match("cafe_9"));
        assert!(re2(r"caf\W").is_match("café"));
        assert!(!re2(r"\s").is_match("\u{0B}") && re2(r"\s").is_match("\u{0C}"));
        assert!(!re2(r"\s").is_match("\u{A0}") && re2(r"\S").is_match("\u{0B}"));
        assert!(re2(r"[\d.]+").is_match("1.5") && !re2(r"[\w]").is_match("é"));
        assert!(re2(r"[^\d]").is_match("٣") && re2(r"[\D]").is_match("٣"));
        assert!(re2(r"(?i)\w").is_match("K"));
        // \b between `é` and `x`: a word boundary in RE2 (é is not an ASCII word character).
        assert!(re2(r"é\bx").is_match("éx"));
        assert!(!re2(r"a\Bé").is_match("aé"));
    }

    #[test]
    fn linkerd_reads_unicode_classes_and_anchors_without_a_group() {
        // linkerd/linkerd2-proxy linkerd/service-profiles/src/proto.rs: `^{re}$` with
        // the `regex` crate, whose classes are Unicode.
        assert!(linkerd(r"\w+").is_match("café") && linkerd(r"\d").is_match("٣"));
        let alternatives = linkerd("/a|/b");
        assert!(alternatives.is_match("/a/anything") && alternatives.is_match("/x/b"));
        assert!(linkerd(" ^/a$ ").is_match("/a") && !linkerd("^/a$").is_match("/a/b"));
    }

    #[test]
    fn what_rust_reads_otherwise_than_re2_is_refused() {
        for pattern in [
            "[[a]]",
            "[a&&b]",
            "[a--b]",
            r"\<a",
            r"\b{start}a",
            "(?x)a b",
            "(?u)a",
            "a{,5}",
            "a{1001}",
            "a{2,1001}",
        ] {
            assert!(
                RouteRegex::new(pattern, RegexEngine::Re2).is_err(),
                "{pattern}"
            );
        }
        // A pattern cannot close the anchoring group around it.
        assert!(RouteRegex::new("/a)|(?:/b", RegexEngine::Re2).is_err());
        assert!(RouteRegex::new("[[a]]", RegexEngine::Linkerd).is_ok());
    }
}
