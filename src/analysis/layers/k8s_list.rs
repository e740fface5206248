//! Kubernetes lists (`kind: List`, `VirtualServiceList`, … — any object with `items`), read
//! as the API machinery reads them: each item is an object of its own, and an item that
//! names neither its `kind` nor its `apiVersion` takes the list's `apiVersion` and the
//! list's kind without its `List` suffix.
//!
//! Source: kubernetes/apimachinery `pkg/apis/meta/v1/unstructured/unstructured.go`
//! (`unstructuredJSONScheme.decode`: an object whose `items` is present is a list;
//! `decodeToList`: the item kind is `strings.TrimSuffix(listKind, "List")`), which
//! `kubectl apply -f` uses on every document of a file before visiting each item.

use crate::input::source::{Entry, Map, Node, Value};

/// Lists nested deeper than this are not flattened further (the API server would refuse
/// them long before).
const MAX_NESTING: usize = 8;

/// The objects of a file's documents, each with its JSON Pointer (`/0`, `/1/items/3`):
/// a document that is a list stands for its items, in order.
pub(super) fn objects(documents: &[Node]) -> Vec<(String, Node)> {
    let mut out = Vec::new();
    for (index, doc) in documents.iter().enumerate() {
        push_object(format!("/{index}"), doc.clone(), 0, &mut out);
    }
    out
}

fn push_object(pointer: String, node: Node, depth: usize, out: &mut Vec<(String, Node)>) {
    let items = node.get("items").and_then(Node::as_seq);
    let Some(items) = items.filter(|_| depth < MAX_NESTING) else {
        out.push((pointer, node));
        return;
    };
    for (index, item) in items.iter().enumerate() {
        let item = with_type_of_list(item, &node);
        push_object(format!("{pointer}/items/{index}"), item, depth + 1, out);
    }
}

/// An item as the API machinery reads it: with the list's `apiVersion` and item kind when
/// it names neither (spans point at the list's own fields).
fn with_type_of_list(item: &Node, list: &Node) -> Node {
    let Some(map) = item.as_map() else {
        return item.clone();
    };
    if map.get("kind").is_some() || map.get("apiVersion").is_some() {
        return item.clone();
    }
    let (Some(list_map), Some(kind)) = (list.as_map(), list.get("kind").and_then(Node::as_str))
    else {
        return item.clone();
    };
    let mut entries: Vec<Entry> = map.entries().to_vec();
    let item_kind = kind.strip_suffix("List").unwrap_or(kind);
    if let Some(kind_entry) = list_map.entry("kind") {
        entries.push(Entry {
            key: "kind".into(),
            key_span: kind_entry.key_span,
            value: Node::new(kind_entry.value.span, Value::String(item_kind.into())),
        });
    }
    if let Some(version) = list_map.entry("apiVersion") {
        entries.push(version.clone());
    }
    match Map::from_entries(entries) {
        Ok(map) => Node::new(item.span, Value::Map(map)),
        Err(_) => item.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::source::{ParseLimits, SourceFile};

    fn documents(text: &str) -> Vec<Node> {
        let file =
            SourceFile::parse_documents("x.yaml".into(), text.to_string(), ParseLimits::default())
                .unwrap_or_else(|(_, e)| panic!("{e:?}"));
        file.root.as_seq().unwrap_or_default().to_vec()
    }

    #[test]
    fn a_list_stands_for_its_items_which_take_its_type() {
        let docs = documents(
            "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: networking.istio.io/v1, kind: VirtualService, metadata: {name: a}}\n- {metadata: {name: b}}\n---\napiVersion: networking.istio.io/v1\nkind: VirtualServiceList\nitems:\n- {metadata: {name: c}}\n---\nkind: Service\n",
        );
        let objects = objects(&docs);
        let pointers: Vec<&str> = objects.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(pointers, ["/0/items/0", "/0/items/1", "/1/items/0", "/2"]);
        let kind = |i: usize| objects[i].1.get("kind").and_then(Node::as_str);
        assert_eq!(kind(0), Some("VirtualService"));
        // `kind: List` gives its items kind `List` stripped: nothing an importer reads.
        assert_eq!(kind(1), Some(""));
        assert_eq!(kind(2), Some("VirtualService"));
        assert_eq!(
            objects[2].1.get("apiVersion").and_then(Node::as_str),
            Some("networking.istio.io/v1")
        );
    }
}
