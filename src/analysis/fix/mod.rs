//! Fixes: what a rule proposes to change, said symbolically — a key to set in the mapping
//! at a JSON Pointer of a file, items to take out of a list — and turned into text edits
//! that keep the file's formatting, comments and key order in one place ([`edit`]).
//! `rendering::fixed` gathers the fixes of a check's findings into the new text of each
//! file.
//!
//! A fix is *safe* when it changes only what the client does (a policy value); *unsafe*
//! when it changes what the API promises or what a layer does, and is applied only when
//! asked for (`--unsafe-fixes`).

pub mod edit;

use crate::input::load::FileId;
use crate::location::Loc;

/// Whether a fix may be applied without being asked for.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Safety {
    /// Changes only what the client does: applied by `--fix`.
    Safe,
    /// Changes the contract or a layer: applied only with `--unsafe-fixes`.
    Unsafe,
}

impl Safety {
    pub fn as_str(self) -> &'static str {
        match self {
            Safety::Safe => "safe",
            Safety::Unsafe => "unsafe",
        }
    }
}

/// What a finding's fix changes, and how safe that is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does, in a few words (`set backoff.jitter: full`).
    pub title: String,
    pub safety: Safety,
    pub changes: Vec<Change>,
}

impl Fix {
    pub fn new(safety: Safety, title: impl Into<String>, changes: Vec<Change>) -> Fix {
        Fix {
            title: title.into(),
            safety,
            changes,
        }
    }
}

/// One change to one file, by the place of a node.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// Sets `key` to `value` in the mapping at `map`: the value is replaced where the key
    /// is written, else the entry is added after the mapping's last one, in its style. A
    /// mapping not written yet is written in its parent, with the entry.
    Set {
        file: FileId,
        /// The escaped JSON Pointer of the mapping.
        map: String,
        key: String,
        value: NewValue,
    },
    /// Takes the items at these indexes out of the list at `list`.
    RemoveItems {
        file: FileId,
        list: String,
        items: Vec<usize>,
    },
    /// Adds an item at the end of the list under `key` in the mapping at `map`; writes
    /// the list, with the item, when the key is not there.
    Append {
        file: FileId,
        map: String,
        key: String,
        value: NewValue,
    },
}

impl Change {
    /// Sets `key` inside the mapping written at `loc` (`backoff` → `backoff.jitter`).
    /// `None` when nothing is written there (a built-in default).
    pub fn set_in(loc: &Loc, key: &str, value: NewValue) -> Option<Change> {
        written(loc).then(|| Change::Set {
            file: loc.file,
            map: loc.pointer.to_string(),
            key: key.to_string(),
            value,
        })
    }

    /// Sets `key` in the mapping under `child` of the mapping written at `loc` (a
    /// response's `headers`), written with the entry when it is not there yet.
    pub fn set_under(loc: &Loc, child: &str, key: &str, value: NewValue) -> Option<Change> {
        written(loc).then(|| Change::Set {
            file: loc.file,
            map: crate::input::source::pointer::push(&loc.pointer, child),
            key: key.to_string(),
            value,
        })
    }

    /// Sets `key` in the mapping that holds the value written at `loc` (beside
    /// `maxAttempts`, a `deadline`).
    pub fn set_beside(loc: &Loc, key: &str, value: NewValue) -> Option<Change> {
        let (parent, _) = loc.pointer.rsplit_once('/')?;
        written(loc).then(|| Change::Set {
            file: loc.file,
            map: parent.to_string(),
            key: key.to_string(),
            value,
        })
    }

    /// The file the change is in.
    pub fn file(&self) -> FileId {
        match self {
            Change::Set { file, .. }
            | Change::RemoveItems { file, .. }
            | Change::Append { file, .. } => *file,
        }
    }
}

/// Whether `loc` is a place written in a file, not a default it stands for.
fn written(loc: &Loc) -> bool {
    loc.note.is_none()
}

/// A value a fix writes, rendered in the style of the file it goes into.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NewValue {
    /// A string (quoted where the syntax needs it).
    Str(String),
    /// A number or boolean, written as is.
    Plain(String),
    Map(Vec<(String, NewValue)>),
    Seq(Vec<NewValue>),
}

impl NewValue {
    pub fn str(text: impl Into<String>) -> NewValue {
        NewValue::Str(text.into())
    }

    pub fn map<const N: usize>(entries: [(&str, NewValue); N]) -> NewValue {
        NewValue::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }
}
