//! The model built from a JSON description whose path items the parse left unbuilt.

use std::sync::Arc;

use crate::input::load::{LoadOptions, Loader};
use crate::input::model::{Operation, build};
use crate::input::source::{Node, ParseLimits, SourceFile, Value};

const PATHS: &str = r##"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
  "paths": {
    "/a": {"post": {"operationId": "makeA", "responses": {"201": {"description": "ok"}}}},
    "/b": {"$ref": "#/paths/~1a"},
    "/c": {"get": {"responses": {"200": {"description": "ok"}}}},
    "x-note": {"post": {}}
  }}"##;

/// The value written under `paths` for `path`, as the parse left it (not built to look).
fn path_item<'a>(root: &'a Node, path: &str) -> &'a Node {
    root.get("paths")
        .and_then(Node::as_map)
        .and_then(|paths| paths.entry(path))
        .map_or_else(|| panic!("{path} is written"), |entry| &entry.value)
}

fn is_built(node: &Node) -> Option<bool> {
    match &node.value {
        Value::Deferred(deferred) => Some(deferred.is_built()),
        _ => None,
    }
}

#[test]
fn each_path_item_is_built_for_its_operations_alone_and_a_ref_still_reaches_one() {
    let file = SourceFile::parse_description(
        "openapi.json".into(),
        PATHS.to_string(),
        ParseLimits::default(),
    )
    .unwrap_or_else(|(_, e)| panic!("{}", e.message));
    let root = file.root.clone();
    // The parse validates every path item but builds none of them; an extension under
    // `paths` is read as written.
    for path in ["/a", "/b", "/c"] {
        assert_eq!(is_built(path_item(&root, path)), Some(false), "{path}");
    }
    assert_eq!(is_built(path_item(&root, "x-note")), None);
    let mut loader = Loader::new(LoadOptions::default());
    let id = loader.add(Arc::new(file));
    let api = build(&mut loader, id).unwrap();
    let keys: Vec<_> = api.operations.iter().map(Operation::title).collect();
    assert_eq!(keys, ["POST /a (makeA)", "POST /b (makeA)", "GET /c"]);
    assert_eq!(&*api.operations[2].loc.pointer, "/paths/~1c/get");
    // `/c` was built for its own operations and let go; `/a` is kept, since `/b` leads
    // to it through a `$ref`.
    assert_eq!(is_built(path_item(&root, "/c")), Some(false));
    assert_eq!(is_built(path_item(&root, "/a")), Some(true));
}
