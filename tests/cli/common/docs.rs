//! The documentation as the tests read it: the README and the manual's pages under
//! `docs/src`, their sections and their fenced blocks.

use std::path::Path;

/// The manual's pages whose examples and claims the tests check; each must exist.
pub(crate) const PAGES: &[&str] = &[
    "introduction.md",
    "usage.md",
    "ci.md",
    "review.md",
    "reports.md",
    "rules.md",
    "suppressions.md",
    "policy.md",
    "policy-fields.md",
    "layers.md",
    "simulate.md",
    "library.md",
    "performance.md",
];

/// A file of the repository, by its path from the root.
pub(crate) fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// A page of the manual, by its name under `docs/src`.
pub(crate) fn page(name: &str) -> String {
    read(&format!("docs/src/{name}"))
}

/// The README and every page under `docs/src` (the names of `PAGES` first, so that a
/// missing one fails), each with its path from the root.
pub(crate) fn readme_and_pages() -> Vec<(String, String)> {
    let mut names: Vec<String> = PAGES.iter().map(std::string::ToString::to_string).collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src");
    let mut others: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("docs/src: {e}"))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md") && !names.contains(name))
        .collect();
    others.sort();
    names.extend(others);
    let mut files = vec![("README.md".to_owned(), read("README.md"))];
    for name in names {
        let relative = format!("docs/src/{name}");
        let text = read(&relative);
        files.push((relative, text));
    }
    files
}

/// The lines of `text` with whether each is inside a fenced block (fences included).
pub(crate) fn fenced_lines(text: &str) -> Vec<(&str, bool)> {
    let mut inside = false;
    text.lines()
        .map(|line| {
            if line.starts_with("```") {
                inside = !inside;
                (line, true)
            } else {
                (line, inside)
            }
        })
        .collect()
}

/// The section of `text` under the heading line `heading` (`## pre-commit`), up to the
/// next heading of the same or a higher level outside fenced blocks.
pub(crate) fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let level = heading.chars().take_while(|&c| c == '#').count();
    let mut start = None;
    let mut offset = 0;
    for (line, fenced) in fenced_lines(text) {
        let here = offset;
        offset += line.len() + 1;
        if fenced {
            continue;
        }
        match start {
            None if line == heading => start = Some(here),
            Some(from) => {
                let hashes = line.chars().take_while(|&c| c == '#').count();
                if (1..=level).contains(&hashes) && line[hashes..].starts_with(' ') {
                    return &text[from..here];
                }
            }
            None => {}
        }
    }
    let from = start.unwrap_or_else(|| panic!("no heading `{heading}`"));
    &text[from..]
}

/// The bodies of the ```` ```language ```` blocks of `text`.
pub(crate) fn blocks<'a>(text: &'a str, language: &str) -> Vec<&'a str> {
    let fence = format!("```{language}\n");
    text.match_indices(&fence)
        .filter(|(at, _)| *at == 0 || text[..*at].ends_with('\n'))
        .map(|(at, _)| {
            let from = at + fence.len();
            let end = text[from..]
                .find("\n```")
                .map_or(text.len(), |e| from + e + 1);
            &text[from..end]
        })
        .collect()
}
