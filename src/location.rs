//! [`Loc`]: a place in one of the run's files, as a file, a JSON Pointer and a span.
//!
//! Every fact of the model and every field of a policy carries one, so that findings can
//! point at "retried here" and "declared here" in whichever file said it.

use std::sync::Arc;

use crate::input::source::{Node, Span, pointer};

/// The index of a file among the run's files, given as each file is loaded.
pub type FileId = usize;

/// A place in a file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub file: FileId,
    /// The escaped JSON Pointer of the node (shared: locations are cloned into every
    /// effective policy that inherits a field).
    pub pointer: Arc<str>,
    /// What to underline: a key with its scalar value, or just the key of a larger value.
    pub span: Span,
    /// Where the value really comes from, when it is not written at this place: a format's
    /// built-in default (`built-in default of Istio`) or a command-line value. The place is
    /// then the nearest thing written (the route the default applies to).
    /// (A thin pointer: every policy field carries a location, so its size counts.)
    pub note: Option<Arc<String>>,
}

impl Loc {
    pub fn new(file: FileId, pointer: impl Into<Arc<str>>, span: Span) -> Loc {
        Loc {
            file,
            pointer: pointer.into(),
            span,
            note: None,
        }
    }

    /// Where the value really comes from, when it is not written here.
    pub fn note_text(&self) -> Option<&str> {
        self.note.as_deref().map(String::as_str)
    }

    /// This place, standing for a value that is not written here (see [`Loc::note`]).
    pub fn noted(&self, note: impl AsRef<str>) -> Loc {
        Loc {
            note: Some(Arc::new(note.as_ref().to_string())),
            ..self.clone()
        }
    }

    /// The location of the entry `key` of a mapping at this location.
    pub fn entry(&self, key: &str, key_span: Span, value: &Node) -> Loc {
        Loc::new(
            self.file,
            pointer::push_shared(&self.pointer, key),
            entry_span(key_span, value),
        )
    }

    /// The location of item `index` of a list at this location.
    pub fn item(&self, index: usize, item: &Node) -> Loc {
        Loc::new(
            self.file,
            pointer::push_shared(&self.pointer, &index.to_string()),
            item.span,
        )
    }

    /// The location of the value under `key` of the mapping `map` at this location.
    pub fn child(&self, map: &Node, key: &str) -> Option<Loc> {
        let entry = map.as_map()?.entry(key)?;
        Some(self.entry(key, entry.key_span, &entry.value))
    }
}

/// The span covering a key and its scalar value, or only the key of a larger value.
pub fn entry_span(key_span: Span, value: &Node) -> Span {
    if value.is_scalar() {
        Span {
            start: key_span.start,
            end: value.span.end.max(key_span.end),
        }
    } else {
        key_span
    }
}
/// A value together with the place it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub loc: Loc,
}

impl<T> Spanned<T> {
    pub fn new(value: T, loc: Loc) -> Spanned<T> {
        Spanned { value, loc }
    }
}
