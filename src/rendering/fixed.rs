//! The files as a check's fixes leave them: the fixes gathered into the new text of each
//! file they change.
//!
//! Every file is parsed again from the text the check read (outputs keep no tree), each
//! fix's changes become edits ([`super::edit`]), and the edits of one file are applied
//! together: a fix is taken whole or not at all, an edit that overlaps one already taken
//! is left for the next run, the same edit asked for by several findings (a shared
//! policy entry) is made once, and a file whose new text does not parse back is left as
//! it was.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::analysis::fix::edit::{Target, TextEdit};
use crate::analysis::fix::{Change, Fix, Safety};
use crate::analysis::rules::finding::CheckResult;
use crate::input::source::{Node, ParseLimits, SharedText, SourceFile, Syntax, path_text};

/// The new text of one file.
#[derive(Debug, Clone)]
pub struct FileFix {
    /// How the file is named in findings.
    pub display: PathBuf,
    /// Where it was read from, resolved (none for standard input or a git revision).
    pub canonical: Option<PathBuf>,
    /// The description whose check read it first (its root bounds where fixes go).
    pub description: String,
    pub before: SharedText,
    pub after: String,
}

/// What `--fix` would do.
#[derive(Debug, Default)]
pub struct Plan {
    pub files: Vec<FileFix>,
    /// Findings whose fix is in the new texts.
    pub fixed: usize,
    /// Findings with an unsafe fix that was not asked for.
    pub unsafe_left: usize,
    /// Why some fixes were not made (one line each).
    pub notes: Vec<String>,
}

/// One file being fixed.
struct Pending {
    display: PathBuf,
    canonical: Option<PathBuf>,
    description: String,
    text: SharedText,
    syntax: Syntax,
    documents: bool,
    /// Parsed again on first use.
    root: Option<Node>,
    edits: Vec<TextEdit>,
}

/// Whether a file may be changed: why not, when it may not (it cannot be written). A fix
/// that would change such a file is left whole, so that no fix is made in part.
pub type MayChange<'a> = &'a dyn Fn(&FileFix) -> Result<(), String>;

/// The fixes of `results`, unsafe ones too when `allow_unsafe`, that change only files
/// `may_change` allows.
pub fn plan(
    results: &[CheckResult],
    allow_unsafe: bool,
    limits: ParseLimits,
    may_change: MayChange<'_>,
) -> Plan {
    let mut plan = Plan::default();
    let mut files: Vec<Pending> = Vec::new();
    let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
    for result in results {
        for finding in &result.findings {
            let Some(fix) = &finding.fix else { continue };
            if fix.safety == Safety::Unsafe && !allow_unsafe {
                plan.unsafe_left += 1;
                continue;
            }
            match edits_of(fix, result, &mut files, &mut by_path, limits, may_change) {
                Ok(edits) => {
                    for (slot, edit) in edits {
                        files[slot].edits.push(edit);
                    }
                    plan.fixed += 1;
                }
                Err(why) => plan
                    .notes
                    .push(format!("{}: not fixed: {why}", finding.rule)),
            }
        }
    }
    for file in files {
        if file.edits.is_empty() {
            continue;
        }
        let shown = path_text(&file.display);
        match apply(&file.text, file.edits) {
            Ok((after, skipped)) => {
                if skipped > 0 {
                    plan.notes.push(format!(
                        "{shown}: {skipped} fixes overlap others and wait for the next --fix"
                    ));
                }
                if let Err(why) = reparse(&file.display, &after, file.documents, limits) {
                    plan.notes.push(format!(
                        "{shown}: left unchanged: the fixed text would not parse ({why})"
                    ));
                    continue;
                }
                plan.files.push(FileFix {
                    display: file.display,
                    canonical: file.canonical,
                    description: file.description,
                    before: file.text,
                    after,
                });
            }
            Err(why) => plan.notes.push(format!("{shown}: left unchanged: {why}")),
        }
    }
    plan
}

/// The edits of one fix, each with the slot of its file; all of them or an error.
fn edits_of(
    fix: &Fix,
    result: &CheckResult,
    files: &mut Vec<Pending>,
    by_path: &mut HashMap<PathBuf, usize>,
    limits: ParseLimits,
    may_change: MayChange<'_>,
) -> Result<Vec<(usize, TextEdit)>, String> {
    let mut out = Vec::new();
    for change in &fix.changes {
        let source = result
            .sources
            .get(change.file())
            .ok_or("the fix names a file the check did not read")?;
        let key = source
            .canonical
            .clone()
            .unwrap_or_else(|| source.display.clone());
        let slot = *by_path.entry(key).or_insert_with(|| {
            files.push(Pending {
                display: source.display.clone(),
                canonical: source.canonical.clone(),
                description: result.description.clone(),
                text: source.text.clone(),
                syntax: source.syntax,
                documents: source.documents,
                root: None,
                edits: Vec::new(),
            });
            files.len() - 1
        });
        let file = &mut files[slot];
        let whole = FileFix {
            display: file.display.clone(),
            canonical: file.canonical.clone(),
            description: file.description.clone(),
            before: file.text.clone(),
            after: String::new(),
        };
        may_change(&whole)
            .map_err(|why| format!("{} cannot be changed: {why}", path_text(&file.display)))?;
        if file.root.is_none() {
            file.root = Some(reparse(&file.display, &file.text, file.documents, limits)?.root);
        }
        let Some(root) = &file.root else {
            return Err("the file did not parse".into());
        };
        let target = Target {
            text: &file.text,
            root,
            syntax: file.syntax,
        };
        out.extend(target.edits(change)?.into_iter().map(|edit| (slot, edit)));
    }
    Ok(out)
}

/// The edits that make `change` in `text` (the file shown as `display`, a stream of
/// documents when `documents`), parsed now: what an editor's quick fix applies to the text
/// it holds.
pub fn edits_in(
    change: &Change,
    display: &std::path::Path,
    text: &str,
    documents: bool,
    limits: ParseLimits,
) -> Result<Vec<TextEdit>, String> {
    let parsed = reparse(display, text, documents, limits)?;
    Target {
        text,
        root: &parsed.root,
        syntax: parsed.syntax,
    }
    .edits(change)
}

/// `text` with `edits` made, and how many were left out for overlapping others.
fn apply(text: &str, mut edits: Vec<TextEdit>) -> Result<(String, usize), String> {
    edits.sort();
    edits.dedup();
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0usize;
    let mut skipped = 0;
    for edit in edits {
        let range = edit.span.range();
        if range.start < at || range.end > text.len() {
            skipped += 1;
            continue;
        }
        out.push_str(
            text.get(at..range.start)
                .ok_or("an edit falls inside a character")?,
        );
        out.push_str(&edit.text);
        at = range.end;
    }
    out.push_str(text.get(at..).ok_or("an edit falls inside a character")?);
    Ok((out, skipped))
}

/// A file's text parsed again as the check read it: one document, or a stream of them.
fn reparse(
    display: &std::path::Path,
    text: &str,
    documents: bool,
    limits: ParseLimits,
) -> Result<SourceFile, String> {
    let parse = if documents {
        SourceFile::parse_documents
    } else {
        SourceFile::parse
    };
    parse(display.to_path_buf(), text.to_string(), limits).map_err(|(_, e)| e.message)
}
