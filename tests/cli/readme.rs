//! The examples of the README and of every page of the manual (`docs/src`) are what the
//! binary does.
//!
//! - Every ```` ```console ```` block is a `$ retrylint …` command (continued over lines
//!   ending in `\`) and the standard output it prints, which is compared with what the
//!   binary prints, colours off, run in the repository's root. A line `…` stands for any
//!   number of lines left out; without one, the output is shown whole. The command exits
//!   with 0 or 1 (a shown output is never an input error), or with the code a trailing
//!   `# exits N` gives.
//! - Every `retrylint` command of a ```` ```sh ```` block (or `cargo run --release --`,
//!   which runs it) that reads the repository's `fixtures/` runs and exits with the code
//!   its `# exits N` comment documents. One that reads none of the repository's files is a
//!   template for the reader's own files (`retrylint check openapi.yaml --base …`).
//! - The only other blocks that look like output are the usage synopsis (```` ```text ````,
//!   in `docs/src/usage.md`) and the pull-request comment of `retrylint diff`
//!   (```` ```markdown ````, in `docs/src/review.md`), compared whole by `tests/cli/diff.rs`.
//! - The OpenAPI versions the README claims are the ones the binary reads.
//!
//! A page the tests expect (`common::docs::PAGES`) that is missing fails them.

use crate::common;

use common::docs::{read, readme_and_pages};
use common::{retrylint, shell_words};
use std::path::Path;

fn readme() -> String {
    read("README.md")
}

/// Every fenced block: its info string, its first line's number and its lines.
fn blocks(text: &str) -> Vec<(String, usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, Vec<String>)> = None;
    for (index, line) in text.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.to_string(), index + 1, Vec::new())),
            (Some(_), Some("")) => out.extend(open.take()),
            (Some((_, _, lines)), _) => lines.push(line.to_string()),
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a fenced block is not closed");
    out
}

/// A command of an example: its text (continuations joined) and the exit code its
/// `# exits N` comment documents.
struct Command {
    text: String,
    exits: Option<i32>,
}

impl Command {
    fn parse(text: &str) -> Command {
        let (text, exits) = match text.rsplit_once("# exits ") {
            Some((command, code)) => (command.trim_end(), code.trim().parse().ok()),
            None => (text, None),
        };
        Command {
            text: text.to_string(),
            exits,
        }
    }

    /// The binary's arguments, when the command runs retrylint.
    fn arguments(&self) -> Option<Vec<String>> {
        let words = shell_words(&self.text);
        let skip = match words.first().map(String::as_str) {
            Some("retrylint") => 1,
            Some("cargo") if words[..4.min(words.len())] == ["cargo", "run", "--release", "--"] => {
                4
            }
            _ => return None,
        };
        Some(words[skip..].to_vec())
    }
}

/// Joins the lines of a command continued with a trailing `\`, from `lines[start]`;
/// returns the command and the index after it.
fn continued(lines: &[String], start: usize, first: &str) -> (String, usize) {
    let mut text = first.to_string();
    let mut next = start + 1;
    while text.ends_with('\\') && next < lines.len() {
        text.pop();
        text.push(' ');
        text.push_str(lines[next].trim());
        next += 1;
    }
    (text, next)
}

/// Output as compared: colour codes out, paths relative to the repository, no trailing
/// spaces or empty lines at the end.
fn normalise(output: &str) -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/");
    let mut lines: Vec<String> = output
        .replace(root, "")
        .lines()
        .map(|line| strip_ansi(line).trim_end().to_string())
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

fn strip_ansi(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: up to and including the final byte (a letter).
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `actual` is `expected`, where a line `…` of `expected` stands for any number of
/// lines; otherwise the first line of `expected` not found where it should be.
fn matches(expected: &[String], actual: &[String]) -> Result<(), String> {
    let chunks: Vec<&[String]> = expected.split(|l| l == "…").collect();
    let mut at = 0usize;
    for (index, chunk) in chunks.iter().enumerate() {
        if chunk.is_empty() {
            continue;
        }
        let first = index == 0;
        let last = index == chunks.len() - 1;
        let found = if first {
            actual.starts_with(chunk).then_some(0)
        } else {
            (at..=actual.len().saturating_sub(chunk.len()))
                .find(|&start| actual[start..].starts_with(chunk))
        };
        let Some(start) = found else {
            return Err(format!("not printed here: {chunk:#?}"));
        };
        at = start + chunk.len();
        if last && at != actual.len() {
            return Err(format!(
                "printed after the last line shown: {:#?}",
                &actual[at..]
            ));
        }
    }
    Ok(())
}

fn check_exit(where_: &str, command: &Command, code: i32, transcript: &str) {
    match command.exits {
        Some(exits) => assert_eq!(code, exits, "{where_}: `{}`\n{transcript}", command.text),
        None => assert!(
            code == 0 || code == 1,
            "{where_}: `{}` exits {code}\n{transcript}",
            command.text
        ),
    }
}

#[test]
fn every_console_example_prints_what_the_docs_show() {
    let mut run_count = 0;
    for (file, text) in readme_and_pages() {
        run_count += run_console_examples(&file, &text);
    }
    assert!(run_count >= 6, "the console examples: {run_count}");
}

/// Runs the console examples of one file; returns how many commands ran.
fn run_console_examples(file: &str, text: &str) -> usize {
    let mut run_count = 0;
    for (_, line, lines) in blocks(text)
        .into_iter()
        .filter(|(info, _, _)| info == "console")
    {
        let mut index = 0;
        assert!(
            lines.first().is_some_and(|l| l.starts_with("$ ")),
            "{file}:{line}: a console block starts with a `$ ` command"
        );
        while index < lines.len() {
            let first = lines[index].strip_prefix("$ ").unwrap_or_default();
            let (text, mut next) = continued(&lines, index, first);
            let command = Command::parse(&text);
            let arguments = command
                .arguments()
                .unwrap_or_else(|| panic!("{file}:{line}: `{text}` does not run retrylint"));
            let mut expected = Vec::new();
            while next < lines.len() && !lines[next].starts_with("$ ") {
                expected.push(lines[next].trim_end().to_string());
                next += 1;
            }
            while expected.last().is_some_and(String::is_empty) {
                expected.pop();
            }
            let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
            let run = retrylint(&arguments);
            let where_ = format!("{file}:{line}");
            check_exit(&where_, &command, run.code, &run.transcript());
            if let Err(why) = matches(&expected, &normalise(&run.stdout)) {
                panic!(
                    "{where_}: `{}` prints otherwise than {file} shows; {why}\nit prints:\n{}",
                    command.text, run.stdout
                );
            }
            run_count += 1;
            index = next;
        }
    }
    run_count
}

#[test]
fn every_sh_example_on_the_fixtures_runs_and_exits_as_documented() {
    let mut ran = 0;
    for (file, text) in readme_and_pages() {
        ran += run_sh_examples(&file, &text);
    }
    assert!(ran >= 2, "the sh examples on the fixtures: {ran}");
}

/// Runs the sh examples of one file that read the fixtures; returns how many ran.
fn run_sh_examples(file: &str, text: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut ran = 0;
    for (_, line, lines) in blocks(text).into_iter().filter(|(info, _, _)| info == "sh") {
        let mut index = 0;
        while index < lines.len() {
            let (text, next) = continued(&lines, index, &lines[index]);
            index = next;
            let command = Command::parse(&text);
            let Some(arguments) = command.arguments() else {
                continue;
            };
            let where_ = format!("{file}:{line}");
            let reads_fixtures = arguments.iter().any(|a| a.starts_with("fixtures/"));
            if !reads_fixtures {
                // A template for the reader's own files: none of them is the repository's.
                assert!(
                    !arguments
                        .iter()
                        .any(|a| a.contains('.') && root.join(a).exists()),
                    "{where_}: `{text}` names a file of the repository: run it on the fixtures and document its exit code"
                );
                continue;
            }
            assert!(
                command.exits.is_some(),
                "{where_}: `{text}` runs on the fixtures: document its exit code with `# exits N`"
            );
            let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
            let run = retrylint(&arguments);
            check_exit(&where_, &command, run.code, &run.transcript());
            ran += 1;
        }
    }
    ran
}

#[test]
fn every_other_output_block_is_accounted_for() {
    let blocks: Vec<_> = readme_and_pages()
        .iter()
        .flat_map(|(_, text)| blocks(text))
        .collect();
    let text: Vec<_> = blocks
        .iter()
        .filter(|(info, _, _)| info == "text")
        .collect();
    assert_eq!(
        text.len(),
        1,
        "a ```text block is the synopsis only; output goes in ```console"
    );
    assert!(
        text[0].2[0].starts_with("retrylint check SPEC"),
        "the usage synopsis"
    );
    // The diff comment is compared whole by tests/cli/diff.rs.
    let markdown = blocks
        .iter()
        .filter(|(info, _, _)| info == "markdown")
        .count();
    assert_eq!(markdown, 1);
}

/// The versions README's opening claims, and a minimal description of each.
const READ: &[(&str, &str)] = &[
    (
        "Swagger 2.0",
        "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n",
    ),
    (
        "OpenAPI 3.0",
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
    ),
    (
        "OpenAPI 3.1",
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n",
    ),
    (
        "OpenAPI 3.2",
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths: {}\n",
    ),
];

#[test]
fn the_openapi_versions_the_readme_claims_are_read_and_no_others() {
    let readme = readme();
    assert!(
        readme.contains("for OpenAPI 3.0, 3.1 and 3.2 and Swagger 2.0, in YAML or JSON"),
        "the README's claim changed: update this test's versions"
    );
    let dir = common::scratch("readme-versions");
    for (name, text) in READ {
        std::fs::write(dir.join("openapi.yaml"), text).unwrap();
        let run = common::retrylint_in(&dir, &["check", "openapi.yaml"]);
        assert_eq!(run.code, 0, "{name}: {}", run.transcript());
    }
    for version in [
        "openapi: 3.3.0",
        "openapi: 4.0.0",
        "openapi: 2.0.0",
        "swagger: '1.2'",
    ] {
        let text = format!("{version}\ninfo: {{title: t, version: '1'}}\npaths: {{}}\n");
        std::fs::write(dir.join("openapi.yaml"), text).unwrap();
        let run = common::retrylint_in(&dir, &["check", "openapi.yaml"]);
        assert_eq!(run.code, 2, "{version} is refused: {}", run.transcript());
        assert!(run.stderr.contains("unsupported version"), "{}", run.stderr);
    }
}
