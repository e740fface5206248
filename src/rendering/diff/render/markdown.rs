//! `retrylint diff --format markdown`: a pull-request comment — the summary and any
//! notes, the regressions and the new findings in the open (new errors always; new
//! warnings and infos folded when long), then improvements, neutral changes and fixed
//! findings folded away. The command puts the comment's marker line first
//! ([`COMMENT_MARKER`](crate::rendering::output::markdown::COMMENT_MARKER)).
//!
//! Text from either description is neutralised: operations and places are code spans,
//! messages escaped Markdown (or escaped HTML inside `<summary>`), so a description
//! cannot add a link, an image, HTML or a mention to the comment. With `--source-links`,
//! the head's places link to their file and line; the base's stay plain text.

use std::fmt::Write;

use crate::escape::{markdown_code as code, markdown_text as text};
use crate::location::Loc;
use crate::rendering::output::markdown::{by_severity, item};
use crate::rendering::output::source_links::{SourceLinks, place};

use super::super::{Class, Diff, Side};
use super::{at, states, summary_line};

/// Renders the comment, the head's places linked under `links` when it is given.
pub(crate) fn render(diff: &Diff, links: Option<&SourceLinks>) -> String {
    let mut out = String::from("## retrylint diff\n\n");
    let _ = writeln!(
        out,
        "{} → {}: **{}**\n",
        code(&diff.base.name),
        code(&diff.head.name),
        summary_line(diff)
    );
    for note in &diff.notes {
        let _ = writeln!(out, "> **Note:** {}\n", text(note));
    }
    changes(
        &mut out,
        diff,
        links,
        Class::Regression,
        "Regressions",
        true,
    );
    let new: Vec<_> = diff
        .new_findings
        .iter()
        .map(|&i| {
            let f = &diff.head.checked.findings[i];
            (
                f.severity,
                item(f, false, &head_place(diff, links, &f.primary.loc)),
            )
        })
        .collect();
    if !new.is_empty() {
        by_severity(&mut out, new, usize::MAX, "New");
        out.push('\n');
    }
    changes(
        &mut out,
        diff,
        links,
        Class::Improvement,
        "Improvements",
        false,
    );
    changes(
        &mut out,
        diff,
        links,
        Class::Neutral,
        "Other changes",
        false,
    );
    fixed(&mut out, diff);
    out
}

/// A place in the head, linked when `links` is given.
fn head_place(diff: &Diff, links: Option<&SourceLinks>, loc: &Loc) -> String {
    let shown = diff.head.place(loc);
    place(links, &at(&diff.head, loc), &shown.file, shown.line)
}

/// The table of one class of changes: in the open, or folded away.
fn changes(
    out: &mut String,
    diff: &Diff,
    links: Option<&SourceLinks>,
    class: Class,
    title: &str,
    open: bool,
) {
    let rows: Vec<String> = diff
        .operations
        .iter()
        .flat_map(|op| {
            op.changes
                .iter()
                .filter(move |c| c.class == class)
                .map(move |c| {
                    let place = c
                        .head
                        .as_ref()
                        .filter(|_| op.head_index.is_some())
                        .map(|l| head_place(diff, links, l))
                        .or_else(|| {
                            c.base
                                .as_ref()
                                .map(|l| format!("base {}", code(&at(&diff.base, l))))
                        })
                        .unwrap_or_default();
                    format!(
                        "| {} | `{}` | {} | {} | {} |",
                        code(&op.title),
                        c.kind,
                        text(&c.message),
                        code(&states(op)),
                        place
                    )
                })
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let head = format!("{title} ({})", rows.len());
    if open {
        let _ = writeln!(out, "### {head}\n");
    } else {
        let _ = writeln!(out, "<details><summary>{head}</summary>\n");
    }
    out.push_str("| operation | change | what | contract | where |\n|---|---|---|---|---|\n");
    for row in rows {
        out.push_str(&row);
        out.push('\n');
    }
    out.push_str(if open { "\n" } else { "\n</details>\n\n" });
}

/// The base's findings the head no longer has, most severe first, folded away; their
/// places are the base's, never linked.
fn fixed(out: &mut String, diff: &Diff) {
    let side: &Side = &diff.base;
    let mut findings: Vec<_> = diff
        .fixed_findings
        .iter()
        .map(|&i| &side.checked.findings[i])
        .collect();
    if findings.is_empty() {
        return;
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    let _ = writeln!(
        out,
        "<details><summary>Fixed findings ({})</summary>\n",
        findings.len()
    );
    for f in findings {
        let _ = writeln!(out, "{}", item(f, false, &code(&at(side, &f.primary.loc))));
    }
    out.push_str("\n</details>\n\n");
}
