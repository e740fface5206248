//! One reader for the files retrylint reads value by value from their spanned trees: the
//! policy file and `x-retry-policy`, the values of layer files, and the scenario file.
//!
//! A [`Context`] holds the file and collects every error found in it, so that a file with
//! three mistakes reports the three at once (as one [`InputError`] with
//! [`InputError::further`] errors, in file order). A [`Value`] is one node with the name
//! messages call it by and its location; [`FromNode`] reads a typed value from one; a
//! [`Table`] reads a mapping key by key and, when finished, reports every key it was not
//! asked for with a "did you mean".
//!
//! Every fault has one wording, written here:
//!
//! - "`maxAttempts` must be a whole number of 1 or more, found `0`"
//! - "`deadline` must be a duration such as 500ms or 2s, found a list"
//! - "`jitter` cannot be `ful`: expected one of none, full, equal, decorrelated"
//! - "unknown key `maxAtempts` in `defaults`" (help: "did you mean `maxAttempts`?")
//! - "a `layers` entry needs a `position`"

mod table;
#[cfg(test)]
mod tests;
mod types;

use std::cell::RefCell;
use std::fmt;

pub(crate) use table::Table;
pub(crate) use types::{ScalarText, Whole, whole_number};

use crate::error::{InputError, did_you_mean};
use crate::input::source::{Entry, Node, SourceFile, Span};
use crate::location::{FileId, Loc};

/// The file being read and the errors found in it so far.
#[derive(Debug)]
pub(crate) struct Context<'f> {
    file: &'f SourceFile,
    id: FileId,
    errors: RefCell<Vec<InputError>>,
}

impl<'f> Context<'f> {
    /// A reader of `file`, whose locations carry the file id `id`.
    pub(crate) fn new(file: &'f SourceFile, id: FileId) -> Context<'f> {
        Context {
            file,
            id,
            errors: RefCell::new(Vec::new()),
        }
    }

    /// The file's root node, called `name` in messages ("the policy file").
    pub(crate) fn root(&self, name: &str) -> Value<'_, 'f> {
        let root = &self.file.root;
        Value::new(
            self,
            root,
            Loc::new(self.id, "", root.span),
            Name::Phrase(name.into()),
        )
    }

    /// An error at `span` of the file.
    pub(crate) fn error(&self, span: Span, message: impl Into<String>) -> InputError {
        InputError::at(self.file, span, message)
    }

    /// Records an error; reading goes on, to find the file's other errors.
    pub(crate) fn report(&self, error: InputError) {
        self.errors.borrow_mut().push(error);
    }

    /// `value` when nothing went wrong, else every error recorded, in file order.
    pub(crate) fn finish<T>(self, value: Option<T>) -> Result<T, InputError> {
        let mut errors = self.errors.into_inner();
        errors.sort_by_key(|e| e.site.as_ref().map(|s| s.span.start));
        match (InputError::combine(errors), value) {
            (Some(error), _) => Err(error),
            (None, Some(value)) => Ok(value),
            (None, None) => Err(InputError::new(
                "internal error: a value was not read and no error says why",
            )),
        }
    }
}

/// How messages call a value: a key, written in backticks (`` `maxAttempts` ``), or a
/// phrase ("the policy file", "a `layers` entry").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Name {
    Key(String),
    Phrase(String),
}

impl Name {
    /// The name of item `index` of a list of this name: `` `hosts[0]` ``.
    fn item(&self, index: usize) -> Name {
        match self {
            Name::Key(key) => Name::Key(format!("{key}[{index}]")),
            Name::Phrase(phrase) => Name::Phrase(format!("item {index} of {phrase}")),
        }
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Name::Key(key) => write!(f, "`{key}`"),
            Name::Phrase(phrase) => f.write_str(phrase),
        }
    }
}

/// One node being read: what it is called, where it is, and the reader's context.
#[derive(Debug, Clone)]
pub(crate) struct Value<'a, 'f> {
    cx: &'a Context<'f>,
    pub node: &'a Node,
    pub loc: Loc,
    name: Name,
    /// Where errors about the value point: the node, unless told otherwise.
    span: Span,
}

impl<'a, 'f> Value<'a, 'f> {
    pub(crate) fn new(cx: &'a Context<'f>, node: &'a Node, loc: Loc, name: Name) -> Value<'a, 'f> {
        Value {
            cx,
            node,
            loc,
            name,
            span: node.span,
        }
    }

    /// The same value, with errors about it pointing at `span`.
    pub(crate) fn pointing_at(self, span: Span) -> Value<'a, 'f> {
        Value { span, ..self }
    }

    pub(crate) fn context(&self) -> &'a Context<'f> {
        self.cx
    }

    pub(crate) fn name(&self) -> &Name {
        &self.name
    }

    /// The error `message` about this value.
    pub(crate) fn error(&self, message: impl Into<String>) -> InputError {
        self.cx.error(self.span, message)
    }

    /// Records the error `message` about this value; `None`, for `return`.
    pub(crate) fn fail<T>(&self, message: impl Into<String>) -> Option<T> {
        self.cx.report(self.error(message));
        None
    }

    /// Records that the value is not `what` ("a whole number"), naming what it is instead.
    pub(crate) fn expected<T>(&self, what: &str) -> Option<T> {
        self.fail(format!(
            "{} must be {what}, found {}",
            self.name,
            self.node.kind()
        ))
    }

    /// Records that the value, of the right type, is not `what`, quoting its text.
    pub(crate) fn expected_text<T>(&self, what: &str, text: &str) -> Option<T> {
        self.fail(format!("{} must be {what}, found `{text}`", self.name))
    }

    /// Reads the value as `T`.
    pub(crate) fn read<T: FromNode>(&self) -> Option<T> {
        T::from_node(self)
    }

    /// The items of a list.
    pub(crate) fn items(&self) -> Option<Vec<Value<'a, 'f>>> {
        let Some(items) = self.node.as_seq() else {
            return self.expected("a list");
        };
        let values = items
            .iter()
            .enumerate()
            .map(|(i, item)| Value::new(self.cx, item, self.loc.item(i, item), self.name.item(i)));
        Some(values.collect())
    }

    /// The value as a mapping whose keys are `keys` (see [`Table`]).
    pub(crate) fn table(&self, keys: &'a [&'a str]) -> Option<Table<'a, 'f>> {
        Table::new(self.clone(), keys)
    }

    /// The entries of a mapping whose keys are free (selectors, rule names), each with
    /// its value.
    pub(crate) fn entries(&self) -> Option<Vec<(&'a Entry, Value<'a, 'f>)>> {
        let Some(map) = self.node.as_map() else {
            return self.expected("a mapping");
        };
        let values = map.entries().iter().map(|e| {
            let loc = self.loc.entry(&e.key, e.key_span, &e.value);
            let value = Value::new(self.cx, &e.value, loc, Name::Key(e.key.to_string()));
            (e, value)
        });
        Some(values.collect())
    }

    /// The index in `names` of the value, which must be one of them.
    pub(crate) fn one_of(&self, names: &[&str]) -> Option<usize> {
        let Some(text) = self.node.scalar_text() else {
            return self.expected(&format!("one of {}", names.join(", ")));
        };
        if let Some(index) = names.iter().position(|name| *name == text) {
            return Some(index);
        }
        let error = self.error(format!(
            "{} cannot be `{text}`: expected one of {}",
            self.name,
            names.join(", ")
        ));
        self.cx.report(with_suggestion(error, text, names, None));
        None
    }
}

/// Adds "did you mean `x`?" to an error when `word` is a typo of one of `candidates`, or
/// `otherwise` as its help.
pub(crate) fn with_suggestion(
    error: InputError,
    word: &str,
    candidates: &[&str],
    otherwise: Option<String>,
) -> InputError {
    match (did_you_mean(word, candidates.iter().copied()), otherwise) {
        (Some(near), _) => error.with_help(format!("did you mean `{near}`?")),
        (None, Some(help)) => error.with_help(help),
        (None, None) => error,
    }
}

/// A value read from one node; `None` once the errors that stop it are recorded.
pub(crate) trait FromNode: Sized {
    fn from_node(value: &Value<'_, '_>) -> Option<Self>;
}
