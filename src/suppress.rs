//! Suppressions: `x-retrylint-ignore` on an operation, `# retrylint: ignore[rule] reason`
//! comments in YAML files, and `lint.ignore` entries of the policy.
//!
//! Every suppression needs a reason, and one that silences nothing is stale: both are
//! reported as warnings (`suppression-without-reason`, `unused-suppression`), which no
//! suppression can silence. Input errors are never suppressed; they are not findings.

use std::collections::HashMap;

use crate::error::{InputError, did_you_mean};
use crate::finding::{Finding, Label, Severity};
use crate::load::Sources;
use crate::location::Loc;
use crate::model::{Api, Operation};
use crate::policy::{PolicyFile, Selector};
use crate::rules::{self, RuleLevels, RuleMeta};
use crate::source::{Span, Syntax};

/// Reported for a suppression with no reason.
pub const WITHOUT_REASON: &str = "suppression-without-reason";
/// Reported for a suppression that silences no finding.
pub const UNUSED: &str = "unused-suppression";

/// What the two suppression warnings say about themselves (for SARIF rule entries).
pub static META: [RuleMeta; 2] = [
    RuleMeta {
        name: WITHOUT_REASON,
        severity: Severity::Warning,
        summary: "a suppression gives no reason",
        doc: "# suppression-without-reason\n\n## What it checks\n\nA suppression (`x-retrylint-ignore`, a `# retrylint: ignore[rule]` comment or a `lint.ignore` entry) without a reason.\n\n## Fix\n\nSay why the finding does not apply, so that the next reader can judge it.\n",
    },
    RuleMeta {
        name: UNUSED,
        severity: Severity::Warning,
        summary: "a suppression silences no finding",
        doc: "# unused-suppression\n\n## What it checks\n\nA suppression that silenced no finding of a rule that ran: the finding it was written for is gone.\n\n## Fix\n\nRemove the suppression.\n",
    },
];

/// What a suppression covers.
#[derive(Debug, Clone)]
enum Scope {
    /// One operation (its `x-retrylint-ignore`).
    Operation(usize),
    /// Findings with a label on these lines of a file (a comment).
    Lines { file: usize, lines: [u32; 2] },
    /// Operations matching any selector; every finding when there are none (`lint.ignore`).
    Selectors(Vec<Selector>),
}

/// One suppression, wherever it was written.
#[derive(Debug, Clone)]
struct Suppression {
    rules: Vec<String>,
    reason: Option<String>,
    /// Where it is written, for the warnings about it.
    loc: Loc,
    scope: Scope,
}

/// The suppressions of one description and its policy.
#[derive(Debug, Default)]
pub struct Suppressions {
    list: Vec<Suppression>,
}

/// Findings after suppression, and how many were silenced.
#[derive(Debug)]
pub struct Outcome {
    pub findings: Vec<Finding>,
    pub suppressed: usize,
}

impl Suppressions {
    /// Collects every suppression; a misspelt rule name is an input error.
    pub fn collect(
        api: &Api,
        sources: &Sources,
        policy: Option<&PolicyFile>,
    ) -> Result<Suppressions, InputError> {
        let mut list = Vec::new();
        for (index, op) in api.operations.iter().enumerate() {
            let Some(ext) = &op.ignore else { continue };
            let file = &sources[ext.loc.file];
            let Some(map) = ext.node.as_map() else {
                return Err(InputError::at(
                    file,
                    ext.node.span,
                    "`x-retrylint-ignore` must map rule names to reasons, as in `{unprotected-write-retry: \"reason\"}`",
                ));
            };
            for entry in map.entries() {
                known_rule(&entry.key, file, entry.key_span)?;
                list.push(Suppression {
                    rules: vec![entry.key.to_string()],
                    reason: entry.value.scalar_text().map(str::to_string),
                    loc: ext.loc.entry(&entry.key, entry.key_span, &entry.value),
                    scope: Scope::Operation(index),
                });
            }
        }
        for (id, file) in sources.iter().enumerate() {
            if file.syntax == Syntax::Yaml {
                list.extend(comments(id, file)?);
            }
        }
        for entry in policy.map(|p| p.lint.ignore.as_slice()).unwrap_or_default() {
            list.push(Suppression {
                rules: vec![entry.rule.value.clone()],
                reason: entry.reason.as_ref().map(|r| r.value.clone()),
                loc: entry.loc.clone(),
                scope: Scope::Selectors(entry.operations.iter().map(|s| s.value.clone()).collect()),
            });
        }
        Ok(Suppressions { list })
    }

    /// Drops suppressed findings and adds the warnings about suppressions themselves.
    pub fn apply(
        &self,
        findings: Vec<Finding>,
        api: &Api,
        sources: &Sources,
        levels: &RuleLevels,
    ) -> Outcome {
        let by_key: HashMap<(&str, &str), &Operation> = api
            .operations
            .iter()
            .map(|o| ((o.method.as_str(), o.path.as_str()), o))
            .collect();
        let mut used = vec![false; self.list.len()];
        let mut kept = Vec::with_capacity(findings.len());
        let mut suppressed = 0;
        for finding in findings {
            let op = finding
                .operation
                .as_ref()
                .and_then(|r| by_key.get(&(r.method.as_str(), r.path.as_str())).copied());
            let hit = self.list.iter().position(|s| {
                s.rules.iter().any(|r| r == finding.rule) && s.covers(&finding, op, api, sources)
            });
            match hit {
                Some(i) => {
                    used[i] = true;
                    suppressed += 1;
                }
                None => kept.push(finding),
            }
        }
        for (s, used) in self.list.iter().zip(used) {
            let rules = s.rules.join(", ");
            if s.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
                kept.push(
                    Finding::new(
                        WITHOUT_REASON,
                        format!("this suppression of {rules} gives no reason"),
                        Label::new(&s.loc, "no reason"),
                    )
                    .help(
                        "say why the finding does not apply, so that the next reader can judge it",
                    ),
                );
            }
            // A suppression of a rule that did not run cannot be judged stale.
            let all_ran = s.rules.iter().all(|r| levels.severity(r).is_some());
            if !used && all_ran {
                kept.push(
                    Finding::new(
                        UNUSED,
                        format!("this suppression of {rules} silences no finding"),
                        Label::new(&s.loc, "silences nothing"),
                    )
                    .help("remove it: the finding it was written for is gone"),
                );
            }
        }
        for f in kept
            .iter_mut()
            .filter(|f| f.rule == WITHOUT_REASON || f.rule == UNUSED)
        {
            f.severity = Severity::Warning;
        }
        Outcome {
            findings: kept,
            suppressed,
        }
    }
}

impl Suppression {
    fn covers(
        &self,
        finding: &Finding,
        op: Option<&Operation>,
        api: &Api,
        sources: &Sources,
    ) -> bool {
        match &self.scope {
            Scope::Operation(index) => op.is_some_and(|o| std::ptr::eq(o, &api.operations[*index])),
            Scope::Selectors(selectors) => {
                selectors.is_empty() || op.is_some_and(|o| selectors.iter().any(|s| s.matches(o)))
            }
            Scope::Lines { file, lines } => std::iter::once(&finding.primary)
                .chain(&finding.related)
                .any(|label| {
                    label.loc.file == *file
                        && lines.contains(&sources[*file].lines().line_of(label.loc.span.start))
                }),
        }
    }
}

fn known_rule(name: &str, file: &crate::source::SourceFile, span: Span) -> Result<(), InputError> {
    if rules::by_name(name).is_some() {
        return Ok(());
    }
    let error = InputError::at(
        file,
        span,
        format!("unknown rule `{name}` in a suppression"),
    );
    Err(match did_you_mean(name, rules::names()) {
        Some(near) => error.with_help(format!("did you mean `{near}`?")),
        None => error.with_help("`retrylint rules` lists every rule"),
    })
}

/// The `# retrylint: ignore[rule, …] reason` comments of a YAML file.
fn comments(id: usize, file: &crate::source::SourceFile) -> Result<Vec<Suppression>, InputError> {
    const MARK: &str = "retrylint: ignore[";
    let mut out = Vec::new();
    if !file.text.contains(MARK) {
        return Ok(out);
    }
    let mut offset = 0usize;
    for (index, line) in file.text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let Some(hash) = comment_start(line) else {
            continue;
        };
        let comment = line[hash + 1..].trim_start();
        let Some(rest) = comment.strip_prefix(MARK) else {
            continue;
        };
        let Some(close) = rest.find(']') else {
            continue;
        };
        let at = start + hash;
        let span = Span::new(at, start + line.trim_end().len());
        let mut rules = Vec::new();
        for name in rest[..close]
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            let name_at = start + line.find(name).unwrap_or(hash);
            known_rule(name, file, Span::new(name_at, name_at + name.len()))?;
            rules.push(name.to_string());
        }
        let reason = rest[close + 1..].trim();
        let line_no = index as u32 + 1;
        // A comment alone on its line covers the next line too.
        let alone = line[..hash].trim().is_empty();
        out.push(Suppression {
            rules,
            reason: (!reason.is_empty()).then(|| reason.to_string()),
            loc: Loc::new(id, "", span),
            scope: Scope::Lines {
                file: id,
                lines: [line_no, if alone { line_no + 1 } else { line_no }],
            },
        });
    }
    Ok(out)
}

/// Where a YAML comment starts on a line: a `#` at the start or after white space, outside
/// quotes.
fn comment_start(line: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            // A quote opens a scalar only where a scalar can start (`don't` opens nothing).
            None if (c == '"' || c == '\'')
                && (previous.is_whitespace() || ":[{,-".contains(previous)) =>
            {
                quote = Some(c)
            }
            None if c == '#' && previous.is_whitespace() => return Some(i),
            None => {}
        }
        previous = c;
    }
    None
}
