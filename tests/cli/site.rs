//! The documentation holds together: every relative link of the README, SECURITY.md,
//! ARCHITECTURE.md and the manual's pages (`docs/src`) leads to a file that exists and,
//! for an `#anchor` into a Markdown page, to one of its headings; and the manual's table of
//! contents (`docs/src/SUMMARY.md`) lists every page, so that `mdbook build docs` shows it.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::docs::fenced_lines;
use common::outside_code_spans;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every Markdown file under `dir`, recursively, sorted.
fn markdown_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The files whose links are checked: the root's documents and every page of the manual.
fn documents() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["README.md", "SECURITY.md", "ARCHITECTURE.md"]
        .iter()
        .map(|name| root().join(name))
        .collect();
    files.extend(markdown_under(&root().join("docs/src")));
    files
}

/// The text a reader sees as Markdown: fenced blocks and code spans taken out.
fn prose(text: &str) -> String {
    let lines: Vec<&str> = fenced_lines(text)
        .into_iter()
        .map(|(line, fenced)| if fenced { "" } else { line })
        .collect();
    outside_code_spans(&lines.join("\n"))
}

/// The targets of the inline links and images of `text`: `[text](target)`.
fn link_targets(text: &str) -> Vec<String> {
    let prose = prose(text);
    prose
        .match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &prose[at + 2..];
            let end = rest.find(')')?;
            let target = rest[..end].split_whitespace().next().unwrap_or("");
            Some(target.to_string())
        })
        .collect()
}

/// A heading's anchor as GitHub and mdBook make it: lower case, punctuation dropped,
/// spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings (outside fenced blocks); a repeated heading
/// gets `-1`, `-2`, … as on GitHub.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (line, fenced) in fenced_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if fenced || !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = anchor(&line[hashes..]);
        let mut name = base.clone();
        let mut count = 0;
        while seen.contains(&name) {
            count += 1;
            name = format!("{base}-{count}");
        }
        seen.insert(name);
    }
    seen
}

/// What is wrong with the relative links of `file`, one line each.
fn broken_links(file: &Path, text: &str) -> Vec<String> {
    let mut broken = Vec::new();
    let folder = file.parent().unwrap();
    for target in link_targets(text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
        let linked = if path.is_empty() {
            file.to_path_buf()
        } else {
            folder.join(path)
        };
        if !linked.exists() {
            broken.push(format!("{target}: no such file"));
            continue;
        }
        if fragment.is_empty() || linked.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let page = std::fs::read_to_string(&linked).unwrap();
        if !anchors(&page).contains(fragment) {
            broken.push(format!("{target}: no heading makes #{fragment}"));
        }
    }
    broken
}

#[test]
fn every_relative_link_leads_to_a_file_and_a_heading() {
    let mut broken = Vec::new();
    let mut links = 0;
    for file in documents() {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        links += link_targets(&text).len();
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        broken.extend(
            broken_links(&file, &text)
                .into_iter()
                .map(|why| format!("{name}: {why}")),
        );
    }
    assert!(links >= 100, "the documents' links: {links}");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn a_broken_link_or_anchor_is_found() {
    let file = root().join("docs/src/usage.md");
    let text = "# Usage\n\n## Exit codes\n\n[a](#exit-codes) [b](#exit) [c](nowhere.md) \
                [d](rules.md#one-fix-one-finding) [e](rules.md#two-fixes) `[f](gone.md)`\n\
                ```sh\n[g](gone.md)\n```\n![h](images/report-shop.png)\n";
    assert_eq!(
        broken_links(&file, text),
        [
            "#exit: no heading makes #exit",
            "nowhere.md: no such file",
            "rules.md#two-fixes: no heading makes #two-fixes",
        ]
    );
    assert_eq!(
        anchor(" `check --base` runs git on your repository only, and git runs nothing"),
        "check---base-runs-git-on-your-repository-only-and-git-runs-nothing"
    );
}

#[test]
fn the_table_of_contents_lists_every_page() {
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = link_targets(&summary)
        .iter()
        .map(|target| src.join(target))
        .collect();
    let pages: Vec<PathBuf> = markdown_under(&src)
        .into_iter()
        .filter(|page| !page.ends_with("SUMMARY.md"))
        .collect();
    assert!(pages.len() >= common::docs::PAGES.len(), "{}", pages.len());
    for page in pages {
        assert!(
            listed.contains(&page),
            "docs/src/SUMMARY.md does not list {}",
            page.display()
        );
    }
    // The book's configuration reads these pages.
    let book = std::fs::read_to_string(root().join("docs/book.toml")).unwrap();
    assert!(book.contains("src = \"src\""), "{book}");
}
