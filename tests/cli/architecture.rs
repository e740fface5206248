//! The crate's flow goes one way: a top-level module may use the modules below it, never
//! one above. The graph is read from the source itself — every `crate::module` path in
//! code that is not a test or a comment — so a new back-edge fails here, naming the cycle
//! it closes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules: `src/NAME.rs` and `src/NAME/`, less the binary and the root.
fn modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .expect("src/ is readable")
        .filter_map(|entry| {
            let path = entry.expect("an entry of src/").path();
            let name = path.file_stem()?.to_str()?.to_owned();
            let module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
            (module && name != "main" && name != "lib").then_some(name)
        })
        .collect()
}

/// Every `.rs` file under `path`.
fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).expect("a folder of src/") {
            rust_files(&entry.expect("an entry").path(), out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The modules a file declares under `#[cfg(test)]` (`#[cfg(test)] mod tester;`): their
/// files are compiled for tests only.
fn test_modules(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line == "#[cfg(test)]"
            && let Some(next) = lines.next()
            && let Some(name) = next
                .strip_prefix("mod ")
                .or_else(|| next.strip_prefix("pub(crate) mod "))
                .and_then(|rest| rest.strip_suffix(';'))
        {
            names.push(name.to_owned());
        }
    }
    names
}

/// Whether a file holds tests only: anything under a `tests/` folder, or a file a
/// `#[cfg(test)] mod` declares (`tests.rs`, `tester.rs`, `test_support.rs`, …).
fn is_test_file(path: &Path, test_only: &BTreeSet<PathBuf>) -> bool {
    path.components().any(|c| c.as_os_str() == "tests") || test_only.contains(path)
}

/// The code of a file that a build without tests compiles: up to its first `#[cfg(test)]`
/// item at the top level (the tests module comes last by convention), without comments.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The top-level modules a piece of code names through `crate::`.
fn used(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        // `retrylint::…` and the like are other crates' paths.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group
                .split('}')
                .next()
                .unwrap_or_default()
                .split(',')
                .map(|part| part.trim().split("::").next().unwrap_or_default())
                .collect(),
            None => vec![
                rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or_default(),
            ],
        };
        found.extend(
            names
                .into_iter()
                .filter(|name| modules.contains(*name))
                .map(str::to_owned),
        );
    }
    found
}

/// Which top-level modules each one uses, from its non-test code.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src);
    let mut graph = BTreeMap::new();
    for module in &modules {
        let mut files = Vec::new();
        let dir = src.join(module);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else {
            files.push(src.join(format!("{module}.rs")));
        }
        let texts: Vec<(PathBuf, String)> = files
            .into_iter()
            .map(|f| {
                let text = std::fs::read_to_string(&f).expect("a source file");
                (f, text)
            })
            .collect();
        // A `#[cfg(test)] mod x;` in `a/mod.rs` or `a.rs` is `a/x.rs` or `a/x/mod.rs`.
        let mut test_only = BTreeSet::new();
        for (file, text) in &texts {
            let folder = match file.file_stem().and_then(|s| s.to_str()) {
                Some("mod" | "lib") => file.parent().map(Path::to_path_buf),
                Some(stem) => file.parent().map(|p| p.join(stem)),
                None => None,
            };
            for name in test_modules(text) {
                if let Some(folder) = &folder {
                    test_only.insert(folder.join(format!("{name}.rs")));
                    test_only.insert(folder.join(&name).join("mod.rs"));
                }
            }
        }
        let mut uses = BTreeSet::new();
        for (_, text) in texts.iter().filter(|(f, _)| !is_test_file(f, &test_only)) {
            uses.extend(used(&code(text), &modules));
        }
        uses.remove(module);
        graph.insert(module.clone(), uses);
    }
    graph
}

/// A cycle through `start`, if the graph has one: the modules in order, `start` last.
fn cycle_from(
    graph: &BTreeMap<String, BTreeSet<String>>,
    start: &str,
    at: &str,
    path: &mut Vec<String>,
    seen: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    for next in graph.get(at).into_iter().flatten() {
        if next == start {
            let mut cycle = path.clone();
            cycle.push(next.clone());
            return Some(cycle);
        }
        if seen.insert(next.clone()) {
            path.push(next.clone());
            if let Some(cycle) = cycle_from(graph, start, next, path, seen) {
                return Some(cycle);
            }
            path.pop();
        }
    }
    None
}

#[test]
fn the_module_graph_has_no_cycle() {
    let graph = graph();
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|start| {
            let mut path = vec![start.clone()];
            cycle_from(&graph, start, start, &mut path, &mut BTreeSet::new())
        })
        .map(|cycle| cycle.join(" → "))
        .collect();
    let edges: Vec<String> = graph
        .iter()
        .map(|(module, uses)| {
            format!(
                "{module} uses {}",
                Vec::from_iter(uses.iter().cloned()).join(", ")
            )
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "the top-level modules use each other in a cycle (cut one edge of each):\n{}\n\nthe graph:\n{}",
        cycles.join("\n"),
        edges.join("\n")
    );
}

#[test]
fn the_graph_reader_sees_paths_groups_and_skips_comments_and_tests() {
    let modules: BTreeSet<String> = ["load", "model", "source", "output"]
        .map(String::from)
        .into();
    let text = "use crate::load::Sources;\n\
                use crate::{model, source::Node};\n\
                // crate::output in a comment\n\
                let x = othercrate::output::render();\n\
                #[cfg(test)]\n\
                mod tests { use crate::output; }\n";
    let expected: BTreeSet<String> = ["load", "model", "source"].map(String::from).into();
    assert_eq!(used(&code(text), &modules), expected);
    assert_eq!(
        test_modules("mod shared;\n#[cfg(test)]\nmod tester;\n#[cfg(test)]\nmod tests {\n"),
        ["tester"]
    );
    let test_only = BTreeSet::from([PathBuf::from("src/rules/tester.rs")]);
    assert!(is_test_file(
        Path::new("src/layers/envoy/tests/fixtures.rs"),
        &test_only
    ));
    assert!(is_test_file(Path::new("src/rules/tester.rs"), &test_only));
    assert!(!is_test_file(Path::new("src/rules/mod.rs"), &test_only));
}

#[test]
fn a_back_edge_is_found_as_a_cycle() {
    let mut graph = BTreeMap::new();
    graph.insert("load".to_owned(), BTreeSet::from(["source".to_owned()]));
    graph.insert("source".to_owned(), BTreeSet::from(["error".to_owned()]));
    graph.insert("error".to_owned(), BTreeSet::from(["load".to_owned()]));
    let mut path = vec!["load".to_owned()];
    let cycle = cycle_from(&graph, "load", "load", &mut path, &mut BTreeSet::new());
    assert_eq!(
        cycle.map(|c| c.join(" → ")).as_deref(),
        Some("load → source → error → load")
    );
}
