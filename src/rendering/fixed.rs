//! The files as a check's fixes leave them: the fixes gathered into the new text of each
//! file they change.
//!
//! Every file is parsed again from the text the check read (outputs keep no tree), each
//! fix's changes become edits ([`super::edit`]), and the edits of one file are applied
//! together: a fix is taken whole or not at all, an edit that overlaps one already taken
//! is left for the next run, the same edit asked for by several findings (a shared
//! policy entry) is made once, and a file whose new text does not parse back is left as
//! it was.

use std::path::PathBuf;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

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
    /// Each edit with the fix it belongs to.
    edits: Vec<(usize, TextEdit)>,
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
    // Every fix taken, by its index here; its edits carry the index.
    let mut taken = 0usize;
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
                        files[slot].edits.push((taken, edit));
                    }
                    taken += 1;
                }
                Err(why) => plan
                    .notes
                    .push(format!("{}: not fixed: {why}", finding.rule)),
            }
        }
    }
    // A fix one of whose edits cannot be made is not made at all: its other edits are
    // taken out of every file, and the files made again without them.
    let mut failed: HashSet<usize> = HashSet::new();
    loop {
        let mut newly: HashSet<usize> = HashSet::new();
        plan.files.clear();
        for file in &files {
            let edits: Vec<&(usize, TextEdit)> = file
                .edits
                .iter()
                .filter(|(fix, _)| !failed.contains(fix))
                .collect();
            if edits.is_empty() {
                continue;
            }
            let shown = path_text(&file.display);
            let every = || edits.iter().map(|(fix, _)| *fix);
            match apply(&file.text, &edits) {
                Err(why) => {
                    plan.notes.push(format!("{shown}: left unchanged: {why}"));
                    newly.extend(every());
                }
                Ok((_, overlapping)) if !overlapping.is_empty() => {
                    plan.notes.push(format!(
                        "{shown}: {} overlap others and wait for the next --fix",
                        crate::rendering::plural(overlapping.len(), "fix")
                    ));
                    newly.extend(overlapping);
                }
                Ok((after, _)) => match reparse(&file.display, &after, file.documents, limits) {
                    Err(why) => {
                        plan.notes.push(format!(
                            "{shown}: left unchanged: the fixed text would not parse ({why})"
                        ));
                        newly.extend(every());
                    }
                    Ok(_) => plan.files.push(FileFix {
                        display: file.display.clone(),
                        canonical: file.canonical.clone(),
                        description: file.description.clone(),
                        before: file.text.clone(),
                        after,
                    }),
                },
            }
        }
        if newly.is_empty() {
            break;
        }
        failed.extend(newly);
    }
    plan.fixed = taken - failed.len();
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

/// `text` with `edits` made (each tagged with its fix), and the fixes of the edits left
/// out for overlapping others. The same edit asked for by several fixes is made once.
fn apply(text: &str, edits: &[&(usize, TextEdit)]) -> Result<(String, Vec<usize>), String> {
    let mut edits: Vec<&(usize, TextEdit)> = edits.to_vec();
    edits.sort_by(|a, b| a.1.cmp(&b.1));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0usize;
    let mut overlapping = Vec::new();
    let mut last: Option<&TextEdit> = None;
    for (fix, edit) in edits {
        if last == Some(edit) {
            continue;
        }
        let range = edit.span.range();
        if range.start < at || range.end > text.len() {
            overlapping.push(*fix);
            continue;
        }
        out.push_str(
            text.get(at..range.start)
                .ok_or("an edit falls inside a character")?,
        );
        out.push_str(&edit.text);
        at = range.end;
        last = Some(edit);
    }
    out.push_str(text.get(at..).ok_or("an edit falls inside a character")?);
    Ok((out, overlapping))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::check::{CheckOptions, check_description, load_policy};
    use crate::analysis::fix::NewValue;

    /// A check of a small description against a policy that retries with no deadline.
    fn checked(name: &str) -> CheckResult {
        let dir =
            std::env::temp_dir().join(format!("retrylint-fixed-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        std::fs::write(
            dir.join("openapi.yaml"),
            "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {description: ok}\n",
        )
        .expect("written");
        std::fs::write(
            dir.join("retry-policy.yaml"),
            "version: 1\ndefaults:\n  maxAttempts: 2\n  retryOn: [503]\n",
        )
        .expect("written");
        let options = CheckOptions::default();
        let policy = load_policy(&dir.join("retry-policy.yaml"), &options.load).expect("loads");
        let result =
            check_description(&dir.join("openapi.yaml"), Some(&policy), &options).expect("checks");
        std::fs::remove_dir_all(&dir).ok();
        result
    }

    fn with_fix(mut result: CheckResult, value: NewValue) -> CheckResult {
        let change = Change::Set {
            file: crate::analysis::check::POLICY_FILE_ID,
            map: "/defaults".into(),
            key: "deadline".into(),
            value,
        };
        result.findings.truncate(1);
        result.findings[0].fix = Some(Box::new(Fix::new(Safety::Safe, "test", vec![change])));
        result
    }

    #[test]
    fn a_file_whose_fixed_text_would_not_parse_is_left_as_it_was() {
        let anything = |_: &FileFix| Ok(());
        let broken = with_fix(checked("broken"), NewValue::Plain("[5s".into()));
        let planned = super::plan(
            std::slice::from_ref(&broken),
            false,
            ParseLimits::default(),
            &anything,
        );
        assert!(planned.files.is_empty(), "{:?}", planned.files);
        assert!(
            planned
                .notes
                .iter()
                .any(|n| n.contains("left unchanged: the fixed text would not parse")),
            "{:?}",
            planned.notes
        );
        let sound = with_fix(checked("sound"), NewValue::str("5s"));
        let planned = super::plan(
            std::slice::from_ref(&sound),
            false,
            ParseLimits::default(),
            &anything,
        );
        assert_eq!(planned.files.len(), 1, "{:?}", planned.notes);
        assert!(planned.files[0].after.contains("  deadline: 5s\n"));
    }

    #[test]
    fn a_fix_is_never_made_in_part() {
        let anything = |_: &FileFix| Ok(());
        let mut result = with_fix(checked("part"), NewValue::str("5s"));
        // The same fix also breaks the description: neither file changes.
        if let Some(fix) = result.findings[0].fix.as_mut() {
            fix.changes.push(Change::Set {
                file: result.root_file,
                map: "/info".into(),
                key: "x-note".into(),
                value: NewValue::Plain("[".into()),
            });
        }
        let planned = super::plan(
            std::slice::from_ref(&result),
            false,
            ParseLimits::default(),
            &anything,
        );
        assert!(planned.files.is_empty(), "{:?}", planned.files);
        assert_eq!(planned.fixed, 0);
    }

    #[test]
    fn a_fix_that_needs_a_file_that_may_not_change_is_left_whole() {
        let refused = |_: &FileFix| Err("read-only here".to_string());
        let result = with_fix(checked("refused"), NewValue::str("5s"));
        let planned = super::plan(
            std::slice::from_ref(&result),
            false,
            ParseLimits::default(),
            &refused,
        );
        assert!(planned.files.is_empty());
        assert_eq!(planned.fixed, 0);
        assert!(
            planned.notes[0].contains("cannot be changed: read-only here"),
            "{:?}",
            planned.notes
        );
    }
}
