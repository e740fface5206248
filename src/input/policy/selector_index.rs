//! Which policy entries match an operation, without trying every selector on it.
//!
//! Exact `METHOD /path` selectors and operationIds are looked up in maps, tags in a map by
//! tag name, and globs are walked through a trie of path segments: the cost per operation
//! follows its path length and the trie states it reaches, not the number of selectors,
//! so thousands of globs against thousands of operations stay near-linear.

use foldhash::{HashMap, HashMapExt};

use super::{PolicyFile, Selector};
use crate::input::model::{Method, Operation};

/// The policy's `operations` entries, indexed by what their selectors look at.
pub(super) struct SelectorIndex<'p> {
    by_key: HashMap<(Method, &'p str), Vec<usize>>,
    by_operation_id: HashMap<&'p str, Vec<usize>>,
    by_tag: HashMap<&'p str, Vec<usize>>,
    globs: GlobTrie<'p>,
}

impl<'p> SelectorIndex<'p> {
    pub(super) fn new(policy: &'p PolicyFile) -> SelectorIndex<'p> {
        let mut index = SelectorIndex {
            by_key: HashMap::new(),
            by_operation_id: HashMap::new(),
            by_tag: HashMap::new(),
            globs: GlobTrie::default(),
        };
        for (i, entry) in policy.operations.iter().enumerate() {
            match &entry.selector {
                Selector::Exact { method, path } => index
                    .by_key
                    .entry((*method, path.as_str()))
                    .or_default()
                    .push(i),
                Selector::OperationId(id) => index
                    .by_operation_id
                    .entry(id.as_str())
                    .or_default()
                    .push(i),
                Selector::Tag(tag) => index.by_tag.entry(tag.as_str()).or_default().push(i),
                Selector::Glob { segments, .. } => index.globs.insert(segments, i),
            }
        }
        index
    }

    /// The matching entries, sorted by (rank, file order): the order to apply them.
    pub(super) fn matching(&self, policy: &PolicyFile, op: &Operation) -> Vec<usize> {
        let mut found: Vec<usize> = Vec::new();
        if let Some(list) = self.by_key.get(&(op.method, op.path.as_str())) {
            found.extend(list);
        }
        if let Some(list) = op
            .operation_id
            .as_deref()
            .and_then(|id| self.by_operation_id.get(id))
        {
            found.extend(list);
        }
        for tag in &op.tags {
            if let Some(list) = self.by_tag.get(tag.as_str()) {
                found.extend(list);
            }
        }
        // The trie matched the path; the selector itself checks the method.
        found.extend(
            self.globs
                .matching(&op.path)
                .into_iter()
                .filter(|&i| policy.operations[i].selector.matches(op)),
        );
        found.sort_by_key(|&i| (policy.operations[i].selector.rank(), i));
        found.dedup();
        found
    }
}

/// A trie of glob path segments: literal children by text, one `*` child, one `**` child.
#[derive(Default)]
struct GlobTrie<'p> {
    nodes: Vec<TrieNode<'p>>,
}

#[derive(Default)]
struct TrieNode<'p> {
    literal: HashMap<&'p str, usize>,
    star: Option<usize>,
    double_star: Option<usize>,
    /// Whether this node was reached through `**` (it may consume more segments).
    is_double_star: bool,
    /// Entries whose glob ends here.
    ends: Vec<usize>,
}

impl<'p> GlobTrie<'p> {
    fn insert(&mut self, segments: &'p [String], entry: usize) {
        if self.nodes.is_empty() {
            self.nodes.push(TrieNode::default());
        }
        let mut at = 0;
        for segment in segments {
            let existing = match segment.as_str() {
                "*" => self.nodes[at].star,
                "**" => self.nodes[at].double_star,
                literal => self.nodes[at].literal.get(literal).copied(),
            };
            at = if let Some(next) = existing {
                next
            } else {
                let next = self.nodes.len();
                self.nodes.push(TrieNode {
                    is_double_star: segment == "**",
                    ..TrieNode::default()
                });
                let node = &mut self.nodes[at];
                match segment.as_str() {
                    "*" => node.star = Some(next),
                    "**" => node.double_star = Some(next),
                    literal => {
                        node.literal.insert(literal, next);
                    }
                }
                next
            };
        }
        self.nodes[at].ends.push(entry);
    }

    /// Entries whose glob matches `path` (method not checked), in no particular order.
    fn matching(&self, path: &str) -> Vec<usize> {
        if self.nodes.is_empty() {
            return Vec::new();
        }
        let mut states = Vec::new();
        self.enter(0, &mut states);
        for segment in path.trim_start_matches('/').split('/') {
            let mut next = Vec::new();
            for &s in &states {
                let node = &self.nodes[s];
                if let Some(&n) = node.literal.get(segment) {
                    self.enter(n, &mut next);
                }
                if let Some(n) = node.star {
                    self.enter(n, &mut next);
                }
                if node.is_double_star {
                    self.enter(s, &mut next);
                }
            }
            // Each state once per step, whatever number of ways leads to it: the work per
            // segment follows the states reached, not the size of the trie.
            next.sort_unstable();
            next.dedup();
            if next.is_empty() {
                return Vec::new();
            }
            states = next;
        }
        states
            .iter()
            .flat_map(|&s| self.nodes[s].ends.iter().copied())
            .collect()
    }

    /// Adds a state and, through `**` children (which may match no segment), the states
    /// reachable from it without consuming a segment.
    fn enter(&self, start: usize, states: &mut Vec<usize>) {
        let mut at = Some(start);
        while let Some(s) = at {
            states.push(s);
            at = self.nodes[s].double_star;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trie_agrees_with_glob_matching() {
        let globs = [
            "orders/*",
            "orders/**",
            "**/refunds",
            "**",
            "*",
            "a/**/b/*",
            "a/**/**/c",
        ];
        let segments: Vec<Vec<String>> = globs
            .iter()
            .map(|g| g.split('/').map(str::to_string).collect())
            .collect();
        let mut t = GlobTrie::default();
        for (i, s) in segments.iter().enumerate() {
            t.insert(s, i);
        }
        for path in [
            "/orders",
            "/orders/{id}",
            "/orders/a/b",
            "/payments/{id}/refunds",
            "/refunds",
            "/a/b/x",
            "/a/x/y/b/z",
            "/a/c",
            "/a/q/c",
            "/",
        ] {
            let mut got = t.matching(path);
            got.sort_unstable();
            let op_segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
            let want: Vec<usize> = segments
                .iter()
                .enumerate()
                .filter(|(_, s)| super::super::selector::glob_match(s, &op_segments))
                .map(|(i, _)| i)
                .collect();
            assert_eq!(got, want, "{path}");
        }
    }
}
