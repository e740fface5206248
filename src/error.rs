//! Input errors: what makes retrylint stop with exit code 2.
//!
//! An input error is not a finding: it cannot be suppressed, and it means no result was
//! produced. It names the file, points at the span where there is one, and may carry a
//! second location ("referenced here").

use std::fmt;

use crate::input::source::{SourceFile, Span};

/// A place in a file's text, for an error message.
#[derive(Debug, Clone)]
pub struct ErrorSite {
    /// The file's display name.
    pub file: String,
    pub text: crate::input::source::SharedText,
    pub span: Span,
    pub label: String,
}

impl ErrorSite {
    pub fn new(file: &SourceFile, span: Span, label: impl Into<String>) -> ErrorSite {
        ErrorSite {
            file: file.name(),
            text: file.text.clone(),
            span,
            label: label.into(),
        }
    }
}

/// A problem with the input that stops the run.
#[derive(Debug, Clone)]
pub struct InputError {
    pub message: String,
    pub help: Option<String>,
    /// Where the problem is.
    pub site: Option<Box<ErrorSite>>,
    /// Further places that explain it (where a bad `$ref` was written).
    pub related: Vec<ErrorSite>,
    /// The other errors found in the same read of a file, reported with this one so that
    /// one run shows every mistake of the file (see [`InputError::combine`]).
    pub further: Vec<InputError>,
}

impl InputError {
    pub fn new(message: impl Into<String>) -> InputError {
        InputError {
            message: message.into(),
            help: None,
            site: None,
            related: Vec::new(),
            further: Vec::new(),
        }
    }

    /// One error that carries every error of `errors`, in order: the first, with the rest
    /// as [`InputError::further`]; `None` when there is none.
    pub fn combine(errors: impl IntoIterator<Item = InputError>) -> Option<InputError> {
        let mut errors = errors.into_iter().flat_map(InputError::into_each);
        let mut first = errors.next()?;
        first.further.extend(errors);
        Some(first)
    }

    /// This error and every further one, each without further errors of its own.
    pub fn into_each(mut self) -> Vec<InputError> {
        let further = std::mem::take(&mut self.further);
        std::iter::once(self)
            .chain(further.into_iter().flat_map(InputError::into_each))
            .collect()
    }

    /// This error, then every further one.
    pub fn each(&self) -> Box<dyn Iterator<Item = &InputError> + '_> {
        Box::new(std::iter::once(self).chain(self.further.iter().flat_map(InputError::each)))
    }

    /// An error at a span of a loaded file.
    pub fn at(file: &SourceFile, span: Span, message: impl Into<String>) -> InputError {
        let message = message.into();
        InputError::new(message.clone()).with_site(ErrorSite::new(file, span, "here"))
    }

    pub fn with_site(mut self, site: ErrorSite) -> InputError {
        self.site = Some(Box::new(site));
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> InputError {
        self.help = Some(help.into());
        self
    }

    pub fn with_related(mut self, site: ErrorSite) -> InputError {
        self.related.push(site);
        self
    }

    /// The file, line and column the error is about, as `file:line:column`.
    pub fn location(&self) -> Option<String> {
        let site = self.site.as_ref()?;
        let before = site.text.get(..site.span.start as usize)?;
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        Some(format!("{}:{line}:{column}", site.file))
    }
}

/// One line of text per error (the further ones on lines of their own): file names and
/// messages may hold description text, shown escaped.
impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = crate::escape::terminal(&self.message);
        match self.location() {
            Some(location) => write!(f, "{}: {message}", crate::escape::terminal(&location))?,
            None => write!(f, "{message}")?,
        }
        self.further.iter().try_for_each(|e| write!(f, "\n{e}"))
    }
}

impl std::error::Error for InputError {}

/// Longest word or candidate compared, in characters: a typo is a short word's.
const SUGGEST_MAX_CHARS: usize = 64;
/// Most character pairs compared in one call (the sum of `word × candidate` lengths), so
/// that a long list of candidates costs a bounded time: about a millisecond.
const SUGGEST_BUDGET: usize = 1 << 20;

/// Suggests the candidate closest to `word`, when one is close enough to be a typo.
///
/// Bounded whatever the input: words and candidates over [`SUGGEST_MAX_CHARS`] are not
/// compared, and the candidates are compared in order until [`SUGGEST_BUDGET`] is spent.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    if word.len() > SUGGEST_MAX_CHARS * 4 || word.chars().count() > SUGGEST_MAX_CHARS {
        return None;
    }
    let word = word.to_ascii_lowercase();
    let mut spent = 0usize;
    candidates
        .into_iter()
        .filter(|c| c.len() <= SUGGEST_MAX_CHARS * 4 && c.chars().count() <= SUGGEST_MAX_CHARS)
        .take_while(|c| {
            spent = spent.saturating_add(word.len().max(1) * c.len().max(1));
            spent <= SUGGEST_BUDGET
        })
        .map(|c| (strsim::jaro_winkler(&word, &c.to_ascii_lowercase()), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combined_errors_keep_their_order_and_flatten() {
        let nested = InputError::combine([InputError::new("b"), InputError::new("c")]);
        let all = InputError::combine([InputError::new("a")].into_iter().chain(nested));
        let all = all.expect("three errors");
        let messages: Vec<&str> = all.each().map(|e| e.message.as_str()).collect();
        assert_eq!(messages, ["a", "b", "c"]);
        assert!(all.further.iter().all(|e| e.further.is_empty()));
        assert_eq!(all.to_string(), "a\nb\nc");
        assert!(InputError::combine(Vec::new()).is_none());
    }

    #[test]
    fn suggestions_find_typos_only() {
        let keys = ["maxAttempts", "deadline", "backoff"];
        assert_eq!(did_you_mean("maxAtempts", keys), Some("maxAttempts"));
        assert_eq!(did_you_mean("deadlne", keys), Some("deadline"));
        assert_eq!(did_you_mean("colour", keys), None);
    }

    #[test]
    fn suggestions_are_bounded_for_long_words_and_many_candidates() {
        let long = "a".repeat(100_000);
        assert_eq!(did_you_mean(&long, [long.as_str()]), None);
        let many: Vec<String> = (0..1_000_000).map(|i| format!("operation{i}")).collect();
        assert_eq!(
            did_you_mean("operaton1", many.iter().map(String::as_str)),
            Some("operation1")
        );
    }
}
