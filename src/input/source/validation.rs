//! The check of a large JSON description, run on another core while its tree is built
//! (see [`SourceFile::parse_description_speculative`]).
//!
//! Checking every byte of GitHub's 13 MB description is a third of a `check`'s work, and
//! the model needs only a small part of the tree; so a parse that reads ahead builds what
//! the model reads, takes the rest for valid and only measures it, while this check reads
//! all of it beside. The caller keeps what it built only when the check passed
//! ([`Validation::passed`]); when it failed, everything is done again the ordinary way,
//! so that what the user sees (the first syntax error, with its place; or, for a file that
//! is not JSON, its reading as YAML) is exactly what it would have been.
//!
//! [`SourceFile::parse_description_speculative`]: super::SourceFile::parse_description_speculative

use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;

use super::lines::LineIndex;
use super::{ParseLimits, SharedText, json};

/// A check of a file's text running on another thread.
#[derive(Debug)]
pub(super) struct Validation {
    running: Mutex<Option<JoinHandle<()>>>,
    found: Arc<Found>,
}

/// What the thread finds, each as soon as it has it.
#[derive(Debug, Default)]
struct Found {
    /// Whether some `$ref` of the text may name another file, found before the check:
    /// the loader asks while the thread is still checking.
    names_other_files: OnceLock<bool>,
    /// Whether the text is valid.
    passed: OnceLock<bool>,
}

impl Validation {
    /// Starts checking `text` on a thread of its own; `None` when no thread can be made
    /// (then the file is parsed the ordinary way). Once the text passed, the thread also
    /// makes its line index into `lines` (the file's): a finding's place needs it when
    /// the report is written, and the thread is idle by then.
    pub(super) fn start(
        text: &SharedText,
        limits: ParseLimits,
        lines: &Arc<OnceLock<LineIndex>>,
    ) -> Option<Validation> {
        let text = text.clone();
        let lines = lines.clone();
        let found = Arc::new(Found::default());
        let finding = found.clone();
        let handle = std::thread::Builder::new()
            .name("check-json".into())
            .spawn(move || {
                let _ = finding
                    .names_other_files
                    .set(super::names_other_files(&text));
                let passed = json::validate(&text, limits);
                let _ = finding.passed.set(passed);
                if passed {
                    lines.get_or_init(|| LineIndex::new(&text));
                }
            })
            .ok()?;
        Some(Validation {
            running: Mutex::new(Some(handle)),
            found,
        })
    }

    /// Whether some `$ref` of the text may name another file, when the thread has found
    /// out already (it does so first).
    pub(super) fn names_other_files(&self) -> Option<bool> {
        self.found.names_other_files.get().copied()
    }

    /// Whether the text is valid, waiting for the check if it is still running. A check
    /// that stopped without an answer (a panic) counts as failed: the caller then does
    /// everything the ordinary way, which says what is wrong.
    pub(super) fn passed(&self) -> bool {
        if let Some(&passed) = self.found.passed.get() {
            return passed;
        }
        // Held while the thread is joined: another caller waits here rather than take
        // a thread still running for one that ended without an answer.
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(handle) = running.take() {
            let _ = handle.join();
        }
        // The thread has ended: it answered, or it never will.
        *self.found.passed.get_or_init(|| false)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::{ParseLimits, json};

    /// A description touching every path of the parsers: deferred schemas and examples,
    /// path items, a collection of named schemas, extensions, escapes in keys and values,
    /// numbers and literals, and the bytes that look like brackets to a quick scan.
    const SAMPLE: &str = r##"{"openapi": "3.1.0", "info": {"title": "Y_y\u007f", "version": "1"},
  "paths": {"/a/{id}": {"parameters": [{"name": "id", "in": "path", "required": true,
      "schema": {"type": "string", "pattern": "^[a-z_]+$"}}],
    "post": {"operationId": "make\"It", "x-retry": {"max": 3, "on": [503, 429]},
      "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"},
        "examples": {"one": {"value": {"name": "Ünïcode \ud83d\ude00", "n": -1.5e3}}}}}},
      "responses": {"201": {"description": "made\nnew", "headers": {"Retry-After": {"schema": {"type": "integer"}}}},
        "default": {"description": "", "content": {}}}}},
    "/b": {"get": {"responses": {"200": {"description": "ok", "content": {"text/plain": {"example": [[], {}, null, false]}}}}}}},
  "components": {"schemas": {"Item": {"type": "object", "required": ["name"],
      "properties": {"name": {"type": "string"}, "k\u0065y": {"type": "number", "minimum": 0}}},
    "Empty": {}, "List": [1, 2, {"a": "]"}], "Flag": true, "Num": 12},
    "parameters": {"Key": {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string"}}}}}
"##;

    fn limits() -> ParseLimits {
        ParseLimits::default()
    }

    /// The texts made from `text` by deleting, doubling or inserting one byte at each
    /// place (only where the result is still UTF-8).
    fn mutations(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (at, c) in text.char_indices() {
            let (before, after) = text.split_at(at);
            out.push(format!("{before}{}", &after[c.len_utf8()..]));
            out.push(format!("{before}{c}{after}"));
            for inserted in ["\"", "{", "}", "[", "]", ",", ":", "\\", "x", "1"] {
                out.push(format!("{before}{inserted}{after}"));
            }
        }
        out
    }

    /// Checks that the check of `text` passes exactly when the ordinary parse succeeds,
    /// and that reading ahead never fails worse than with an error and, on valid text,
    /// builds the very tree of the ordinary parse. Whether the text is valid.
    fn agrees(text: String) -> bool {
        let shared = Arc::new(text);
        let ordinary = json::parse_deferring(&shared, limits());
        assert_eq!(
            json::validate(&shared, limits()),
            ordinary.is_ok(),
            "{shared}"
        );
        let ahead = json::parse_speculative(&shared, limits());
        match ordinary {
            Ok(tree) => {
                assert_eq!(ahead.ok().as_ref(), Some(&tree), "{shared}");
                true
            }
            Err(_) => false,
        }
    }

    #[test]
    fn the_check_beside_fails_exactly_where_the_ordinary_parse_does() {
        let texts = std::iter::once(SAMPLE.to_string()).chain(mutations(SAMPLE));
        let invalid = texts.filter(|text| !agrees(text.clone())).count();
        assert!(
            invalid > 1000,
            "the mutations exercise the errors: {invalid}"
        );
    }

    #[test]
    fn reading_ahead_of_any_cut_of_a_description_fails_as_the_ordinary_parse_never_by_a_panic() {
        // Every prefix, and every prefix ending in a backslash or a quote: strings and
        // escapes cut off inside what the parse only measures.
        let mut valid = 0;
        for (at, _) in SAMPLE.char_indices() {
            for tail in ["", "\\", "\"", "\"\\"] {
                valid += usize::from(agrees(format!("{}{tail}", &SAMPLE[..at])));
            }
        }
        // Only the whole document, less its final line break, is valid.
        assert_eq!(valid, 1);
    }

    #[test]
    fn a_repeated_key_or_a_deep_nesting_fails_the_check() {
        let repeated = r#"{"paths": {"/a": {"get": {}, "get": {}}}}"#;
        assert!(!json::validate(repeated, limits()));
        let deep = format!("{}{}", "[".repeat(1001), "]".repeat(1001));
        assert!(!json::validate(&deep, limits()));
        let trailing = "{} x";
        assert!(!json::validate(trailing, limits()));
        assert!(json::validate("\u{feff} {\"a\": [1]} \n", limits()));
    }

    #[test]
    fn a_check_on_its_own_thread_answers_once_and_keeps_its_answer() {
        let (good_lines, bad_lines) = (Arc::default(), Arc::default());
        let good = super::Validation::start(&Arc::new(SAMPLE.to_string()), limits(), &good_lines);
        let bad =
            super::Validation::start(&Arc::new("{\"a\": }".to_string()), limits(), &bad_lines);
        let (Some(good), Some(bad)) = (good, bad) else {
            panic!("threads can be made")
        };
        assert!(good.passed() && good.passed());
        // Found before the check, so known once it has passed: the sample's `$ref`s all
        // start with `#`.
        assert_eq!(good.names_other_files(), Some(false));
        // The lines of the text, whether the thread or the caller made them.
        let lines = super::LineIndex::new(SAMPLE);
        let line_of = |index: &super::LineIndex| {
            (0..SAMPLE.len() as u32)
                .map(|at| index.line_of(SAMPLE, at))
                .collect::<Vec<_>>()
        };
        let made = good_lines.get_or_init(|| super::LineIndex::new(SAMPLE));
        assert_eq!(line_of(made), line_of(&lines));
        assert!(!bad.passed() && !bad.passed());
        // Text that failed its check gets no line index from the thread.
        assert!(bad_lines.get().is_none());
    }
}
