//! `retrylint diff --format markdown`: a pull-request comment — the summary, the
//! regressions in the open, improvements, neutral changes and findings folded away.
//!
//! Text from either description is neutralised: operations and places are code spans,
//! messages escaped Markdown (or escaped HTML inside `<summary>`), so a description
//! cannot add a link, an image, HTML or a mention to the comment.

use std::fmt::Write;

use crate::output::escape::{markdown_code as code, markdown_text as text};

use super::super::{Class, Diff, Side};
use super::{at, states, summary_line};

/// Renders the comment.
pub fn render(diff: &Diff) -> String {
    let mut out = String::from("## retrylint diff\n\n");
    let _ = writeln!(
        out,
        "{} → {}: **{}**\n",
        code(&diff.base.name),
        code(&diff.head.name),
        summary_line(diff)
    );
    for (class, title, open) in [
        (Class::Regression, "Regressions", true),
        (Class::Improvement, "Improvements", false),
        (Class::Neutral, "Other changes", false),
    ] {
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
                            .map(|l| code(&at(&diff.head, l)))
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
            continue;
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
    findings(&mut out, "New findings", &diff.head, &diff.new_findings);
    findings(&mut out, "Fixed findings", &diff.base, &diff.fixed_findings);
    out
}

fn findings(out: &mut String, title: &str, side: &Side, indices: &[usize]) {
    if indices.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<details><summary>{title} ({})</summary>\n",
        indices.len()
    );
    for &i in indices {
        let f = &side.checked.findings[i];
        let _ = writeln!(
            out,
            "- **{}** `{}` at {}: {}",
            f.severity,
            f.rule,
            code(&at(side, &f.primary.loc)),
            text(&f.message)
        );
    }
    out.push_str("\n</details>\n\n");
}
