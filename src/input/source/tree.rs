//! The document tree both parsers produce: every node knows its byte span.
//!
//! YAML and JSON land in the same shape so that everything downstream (refs, the
//! operation model, the policy reader) is written once. Scalars keep their text;
//! numbers are parsed on demand so that `openapi: 3.0` keeps its spelling.

use std::sync::Arc;

use super::Span;
use super::deferred::Deferred;
/// Text in the tree: keys and scalars, inline when short, shared when long.
pub use super::text::Text;

/// A node of a parsed document.
#[derive(Debug, Clone)]
pub struct Node {
    /// Where the node is written, in bytes of its file.
    pub span: Span,
    /// What the node holds.
    pub value: Value,
}

/// Nodes are equal when they are written at the same place and hold the same, whether
/// or not one of them was deferred.
impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        self.span == other.span && self.resolved().value == other.resolved().value
    }
}

/// The value of a node.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// A number, as written.
    Number(Text),
    String(Text),
    /// Shared: a YAML alias or anchor is a reference count, never a deep copy.
    Seq(Arc<[Node]>),
    Map(Map),
    /// A list or mapping of a JSON description not built yet: every accessor of [`Node`]
    /// builds it on first use and answers from what it built.
    Deferred(Arc<Deferred>),
}

/// One `key: value` entry of a mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key as text (a YAML `200:` key is `"200"`).
    pub key: Text,
    /// Where the key is written.
    pub key_span: Span,
    pub value: Node,
}

/// A mapping that keeps file order and looks keys up quickly when it is large.
///
/// Entries are shared like lists: cloning a map (an alias, a merge source) is cheap.
#[derive(Debug, Clone, PartialEq)]
pub struct Map {
    entries: Arc<[Entry]>,
    /// Entry indices sorted by key; present only for maps larger than [`Map::INDEXED_FROM`].
    /// (A thin pointer: every map of a tree carries this field, and few have an index.)
    #[allow(
        clippy::redundant_allocation,
        reason = "a thin pointer keeps every node smaller"
    )]
    sorted: Option<Arc<Box<[u32]>>>,
}

impl Default for Map {
    fn default() -> Self {
        Map {
            entries: Arc::new([]),
            sorted: None,
        }
    }
}

impl Map {
    /// Maps with at least this many entries get a sorted index for lookups.
    const INDEXED_FROM: usize = 12;

    /// Builds a map from its entries, or gives them back with the index of an entry whose
    /// key repeats an earlier one.
    #[allow(clippy::result_large_err)]
    pub fn from_entries(entries: Vec<Entry>) -> Result<Map, (usize, Vec<Entry>)> {
        if let Some(index) = first_repeated(&entries, |e| &e.key) {
            return Err((index, entries));
        }
        Ok(Map::from_unique(entries.into()))
    }

    /// Builds a map from entries whose keys are known to differ.
    pub(super) fn from_unique(entries: Arc<[Entry]>) -> Map {
        let sorted = (entries.len() >= Self::INDEXED_FROM).then(|| {
            let mut sorted: Vec<u32> = (0..entries.len() as u32).collect();
            sorted.sort_by(|&a, &b| entries[a as usize].key.cmp(&entries[b as usize].key));
            Arc::new(sorted.into_boxed_slice())
        });
        Map { entries, sorted }
    }

    /// The entry with this key.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        match &self.sorted {
            None => self.entries.iter().find(|e| &*e.key == key),
            Some(sorted) => sorted
                .binary_search_by(|&i| (*self.entries[i as usize].key).cmp(key))
                .ok()
                .map(|pos| &self.entries[sorted[pos] as usize]),
        }
    }

    /// The value under this key (built, when it was deferred).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| e.value.resolved())
    }

    /// The entry whose key equals this one ignoring ASCII case.
    pub fn entry_ignore_case(&self, key: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The index of the first key that repeats an earlier one, as a map reports it: in file
/// order for a small map; for a large one (checked in key order), the second of the
/// smallest repeated key's first two writings.
pub(super) fn first_repeated<T, K: Ord + ?Sized>(
    items: &[T],
    key: impl Fn(&T) -> &K,
) -> Option<usize> {
    if items.len() < Map::INDEXED_FROM {
        return (0..items.len()).find(|&i| items[..i].iter().any(|e| key(e) == key(&items[i])));
    }
    let mut sorted: Vec<u32> = (0..items.len() as u32).collect();
    sorted.sort_by(|&a, &b| {
        key(&items[a as usize])
            .cmp(key(&items[b as usize]))
            .then(a.cmp(&b))
    });
    sorted
        .windows(2)
        .find(|pair| key(&items[pair[0] as usize]) == key(&items[pair[1] as usize]))
        .map(|pair| pair[1] as usize)
}

/// Dropping a tree walks it with an explicit stack: a document nested millions of levels
/// deep (allowed by a raised `--max-depth`) must not overflow the thread's stack.
impl Drop for Node {
    fn drop(&mut self) {
        let mut pending = Vec::new();
        take_nested(&mut self.value, &mut pending);
        while let Some(mut node) = pending.pop() {
            take_nested(&mut node.value, &mut pending);
            // `node` now holds no nested container: dropping it recurses no further.
        }
    }
}

/// Moves the non-empty containers among a value's children (when this value is their
/// only owner) onto `pending`, leaving nulls behind.
fn take_nested(value: &mut Value, pending: &mut Vec<Node>) {
    let mut take = |child: &mut Node| {
        if child.has_children() {
            let value = std::mem::replace(&mut child.value, Value::Null);
            pending.push(Node::new(child.span, value));
        }
    };
    match value {
        Value::Seq(items) => {
            if let Some(items) = Arc::get_mut(items) {
                items.iter_mut().for_each(&mut take);
            }
        }
        Value::Map(map) => {
            if let Some(entries) = Arc::get_mut(&mut map.entries) {
                for e in entries.iter_mut() {
                    take(&mut e.value);
                }
            }
        }
        Value::Deferred(deferred) => {
            if let Some(built) = Arc::get_mut(deferred).and_then(Deferred::take_built) {
                pending.push(built);
            }
        }
        _ => {}
    }
}

impl Node {
    /// Whether this is a list or mapping with at least one child, or a deferred one
    /// (never built to find out: dropping a tree must not build what nobody read).
    fn has_children(&self) -> bool {
        match &self.value {
            Value::Seq(items) => !items.is_empty(),
            Value::Map(map) => !map.is_empty(),
            Value::Deferred(_) => true,
            _ => false,
        }
    }

    pub fn new(span: Span, value: Value) -> Node {
        Node { span, value }
    }

    /// This node, or the subtree it stands for when it was deferred (built now if need be).
    pub fn resolved(&self) -> &Node {
        match &self.value {
            Value::Deferred(deferred) => deferred.node(),
            _ => self,
        }
    }

    /// This node, or the subtree it stands for when it was deferred, for one reader
    /// alone (see [`Deferred::build_alone`]).
    pub fn built_alone(&self) -> Node {
        match &self.value {
            Value::Deferred(deferred) => deferred.build_alone(),
            _ => self.clone(),
        }
    }

    pub fn as_map(&self) -> Option<&Map> {
        match &self.resolved().value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.resolved().value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        self.as_text().map(Text::as_str)
    }

    /// A string's text, to be kept cheaply (a clone shares a long text's bytes).
    pub fn as_text(&self) -> Option<&Text> {
        match &self.resolved().value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The text of a scalar (string, number, boolean); `None` for null and containers.
    pub fn scalar_text(&self) -> Option<&str> {
        match &self.resolved().value {
            Value::String(s) | Value::Number(s) => Some(s),
            Value::Bool(true) => Some("true"),
            Value::Bool(false) => Some("false"),
            _ => None,
        }
    }

    /// The value under `key` when this node is a map.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map().and_then(|m| m.get(key))
    }

    /// Whether the node is a scalar (its whole text fits one label).
    pub fn is_scalar(&self) -> bool {
        !matches!(
            self.value,
            Value::Seq(_) | Value::Map(_) | Value::Deferred(_)
        )
    }

    /// A short name of the node's kind, for messages ("expected a mapping, found a string").
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
            Value::Deferred(ref deferred) if deferred.is_map() => "a mapping",
            Value::Deferred(_) => "a list",
        }
    }

    /// Follows already-decoded JSON Pointer tokens from this node.
    pub fn at<'a, I, S>(&self, tokens: I) -> Option<&Node>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str> + 'a,
    {
        let mut node = self.resolved();
        for token in tokens {
            let token = token.as_ref();
            node = match &node.value {
                Value::Map(m) => m.get(token)?,
                Value::Seq(items) => items.get(parse_index(token)?)?.resolved(),
                _ => return None,
            };
        }
        Some(node)
    }
}

/// An array index token of a JSON Pointer: digits without a leading zero.
fn parse_index(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str) -> Entry {
        Entry {
            key: key.into(),
            key_span: Span::default(),
            value: Node::new(Span::default(), Value::Null),
        }
    }

    #[test]
    fn small_and_large_maps_find_keys_and_reject_duplicates() {
        for n in [3usize, 40] {
            let keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
            let map = Map::from_entries(keys.iter().map(|k| entry(k)).collect()).unwrap();
            for k in &keys {
                assert_eq!(&*map.entry(k).unwrap().key, k.as_str());
            }
            assert!(map.get("missing").is_none());
            let mut dup: Vec<Entry> = keys.iter().map(|k| entry(k)).collect();
            dup.push(entry("k1"));
            assert_eq!(Map::from_entries(dup).map_err(|(i, _)| i), Err(n));
        }
    }

    #[test]
    fn array_index_tokens_are_strict() {
        assert_eq!(parse_index("0"), Some(0));
        assert_eq!(parse_index("12"), Some(12));
        assert_eq!(parse_index("01"), None);
        assert_eq!(parse_index("-1"), None);
        assert_eq!(parse_index(""), None);
    }
}
