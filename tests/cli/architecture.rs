//! The crate's flow goes one way. Its folders are the stages — `input`, `analysis`,
//! `rendering` — and a module may use the modules of its own stage or an earlier one, never
//! a later one; and no modules use each other in a cycle. The graph is read from the source
//! itself — every `crate::` path in code that is not a test or a comment — so a new
//! back-edge fails here, naming the edge or the cycle it closes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The stages, in the order a check runs them: the folders of `src/`.
const STAGES: [&str; 3] = ["input", "analysis", "rendering"];

/// Where a module outside the stage folders stands: the vocabulary every stage uses with
/// the input, the interfaces (library and command line) after the rendering.
fn stage_of(module: &str) -> usize {
    match module.split_once("::") {
        Some((stage, _)) => STAGES.iter().position(|s| *s == stage).unwrap_or(0),
        None if matches!(module, "error" | "escape" | "location" | "parallel") => 0,
        None => STAGES.len(),
    }
}

/// The names in a folder of modules: `NAME.rs` and `NAME/`, less the binary, the root and
/// a folder's own `mod.rs`.
fn names_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("a folder of src/ is readable")
        .filter_map(|entry| {
            let path = entry.expect("an entry of src/").path();
            let name = path.file_stem()?.to_str()?.to_owned();
            let module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
            (module && !matches!(name.as_str(), "main" | "lib" | "mod")).then_some(name)
        })
        .collect()
}

/// The modules the graph is made of, each with its path under `src/`: a stage's modules
/// (`input::load`) and the modules outside the stages (`cli`).
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut modules = BTreeMap::new();
    for name in names_in(src) {
        if STAGES.contains(&name.as_str()) {
            for inner in names_in(&src.join(&name)) {
                let path = src.join(&name).join(&inner);
                modules.insert(format!("{name}::{inner}"), path);
            }
        } else {
            modules.insert(name.clone(), src.join(name));
        }
    }
    modules
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

/// The code of a file that a build without tests compiles, without comments: a top-level
/// item under `#[cfg(test)]` is left out, up to its closing `}` at the start of a line (or
/// its `;`, for `mod tests;`).
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("#[cfg(test)]") {
            for item in lines.by_ref() {
                if item == "}" || (!item.starts_with([' ', '#']) && item.ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        if line.trim_start().starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The modules a piece of code names through `crate::` (`crate::input::load::Sources` names
/// `input::load`), among `modules`.
fn used(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let ident = |text: &str| -> String {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        // `retrylint::…` and the like are other crates' paths.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let paths: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group
                .split('}')
                .next()
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .collect(),
            None => vec![rest],
        };
        for path in paths {
            let first = ident(path);
            let name = if STAGES.contains(&first.as_str()) {
                let inner = path
                    .get(first.len()..)
                    .and_then(|p| p.strip_prefix("::"))
                    .map(ident)
                    .unwrap_or_default();
                format!("{first}::{inner}")
            } else {
                first
            };
            if modules.contains(&name) {
                found.insert(name);
            }
        }
    }
    found
}

/// Which modules each one uses, from its non-test code.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src);
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (module, path) in &modules {
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(path, &mut files);
        } else {
            files.push(path.with_extension("rs"));
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
            uses.extend(used(&code(text), &names));
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
                uses.iter().cloned().collect::<Vec<_>>().join(", ")
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
fn no_module_uses_a_later_stage() {
    let graph = graph();
    assert!(
        graph.keys().filter(|m| m.contains("::")).count() > 10,
        "the stage folders hold the modules: {:?}",
        graph.keys().collect::<Vec<_>>()
    );
    let back: Vec<String> = graph
        .iter()
        .flat_map(|(module, uses)| {
            uses.iter()
                .filter(|used| stage_of(used) > stage_of(module))
                .map(move |used| format!("{module} uses {used}"))
        })
        .collect();
    assert!(
        back.is_empty(),
        "a module uses one of a later stage ({}):\n{}",
        STAGES.join(" → "),
        back.join("\n")
    );
}

#[test]
fn the_graph_reader_sees_paths_groups_and_skips_comments_and_tests() {
    let modules: BTreeSet<String> = [
        "input::load",
        "input::model",
        "error",
        "input::source",
        "rendering::output",
    ]
    .map(String::from)
    .into();
    let text = "use crate::input::load::Sources;\n\
                use crate::{error, input::source::Node};\n\
                // crate::rendering::output in a comment\n\
                let x = othercrate::output::render();\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::rendering::output;\n}\n\
                use crate::input::model;\n";
    // The code after the tests module counts again.
    let expected: BTreeSet<String> = ["input::load", "input::model", "error", "input::source"]
        .map(String::from)
        .into();
    assert_eq!(used(&code(text), &modules), expected);
    assert_eq!(
        test_modules("mod shared;\n#[cfg(test)]\nmod tester;\n#[cfg(test)]\nmod tests {\n"),
        ["tester"]
    );
    let test_only = BTreeSet::from([PathBuf::from("src/analysis/rules/tester.rs")]);
    assert!(is_test_file(
        Path::new("src/analysis/layers/envoy/tests/fixtures.rs"),
        &test_only
    ));
    assert!(is_test_file(
        Path::new("src/analysis/rules/tester.rs"),
        &test_only
    ));
    assert!(!is_test_file(
        Path::new("src/analysis/rules/mod.rs"),
        &test_only
    ));
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
