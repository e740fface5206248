//! Suppressions: `x-retrylint-ignore` on an operation, `# retrylint: ignore[rule] reason`
//! comments in YAML files, and `lint.ignore` entries of the policy.
//!
//! Every suppression needs a reason, and one that silences nothing is stale: both are
//! reported as warnings (`suppression-without-reason`, `unused-suppression`), which no
//! suppression can silence. Input errors are never suppressed; they are not findings.

use foldhash::{HashMap, HashMapExt};

use crate::analysis::rules::finding::{Finding, Label, Severity};
use crate::analysis::rules::{self, RuleId, RuleLevels};
use crate::error::{InputError, did_you_mean};
use crate::input::load::Sources;
use crate::input::model::Api;
use crate::input::policy::{PolicyFile, Selector};
use crate::input::source::{Span, Syntax};
use crate::location::Loc;

/// Reported for a suppression with no reason.
pub(crate) const WITHOUT_REASON: RuleId = RuleId::SuppressionWithoutReason;
/// Reported for a suppression that silences no finding.
pub(crate) const UNUSED: RuleId = RuleId::UnusedSuppression;

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
    rules: Vec<RuleId>,
    reason: Option<String>,
    /// Where it is written, for the warnings about it.
    loc: Loc,
    scope: Scope,
}

/// The suppressions of one description and its policy.
#[derive(Debug, Default)]
pub(crate) struct Suppressions {
    list: Vec<Suppression>,
}

/// Findings after suppression, and how many were silenced.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub findings: Vec<Finding>,
    pub suppressed: usize,
}

impl Suppressions {
    /// Collects every suppression; a misspelt rule name is an input error.
    pub(crate) fn collect(
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
                let rule = known_rule(&entry.key, file, entry.key_span)?;
                list.push(Suppression {
                    rules: vec![rule],
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
            // The policy reader checked the name; one it let through unknown silences nothing.
            let Some(rule) = RuleId::rule_named(&entry.rule.value) else {
                continue;
            };
            list.push(Suppression {
                rules: vec![rule],
                reason: entry.reason.as_ref().map(|r| r.value.clone()),
                loc: entry.loc.clone(),
                scope: Scope::Selectors(entry.operations.iter().map(|s| s.value.clone()).collect()),
            });
        }
        Ok(Suppressions { list })
    }

    /// Drops suppressed findings and adds the warnings about suppressions themselves.
    pub(crate) fn apply(
        &self,
        findings: Vec<Finding>,
        api: &Api,
        sources: &Sources,
        levels: &RuleLevels,
    ) -> Outcome {
        if self.list.is_empty() {
            // Nothing to look up, nor to warn about.
            return Outcome {
                findings,
                suppressed: 0,
            };
        }
        let by_key: HashMap<(&str, &str), usize> = api
            .operations
            .iter()
            .enumerate()
            .map(|(i, o)| ((o.method.as_str(), o.path.as_str()), i))
            .collect();
        let index = Index::new(&self.list);
        let mut used = vec![false; self.list.len()];
        let mut kept = Vec::with_capacity(findings.len());
        let mut suppressed = 0;
        // A finding of a shared place counts once per suppression that silences it,
        // however many operations share the place (it is reported once).
        let mut shared_silenced: foldhash::HashSet<(RuleId, Loc, usize)> =
            foldhash::HashSet::default();
        for finding in findings {
            let op = finding
                .operation
                .as_ref()
                .and_then(|r| by_key.get(&(r.method.as_str(), r.path.as_str())).copied());
            match index.first_hit(&self.list, &finding, op, api, sources) {
                Some(i) => {
                    used[i] = true;
                    let counted = match &finding.shared {
                        Some(shared) => {
                            shared_silenced.insert((finding.rule, shared.at.loc.clone(), i))
                        }
                        None => true,
                    };
                    if counted {
                        suppressed += 1;
                    }
                }
                None => kept.push(finding),
            }
        }
        for (s, used) in self.list.iter().zip(used) {
            let rules = s
                .rules
                .iter()
                .map(|r| r.as_str())
                .collect::<Vec<_>>()
                .join(", ");
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
            let all_ran = s.rules.iter().all(|&r| levels.severity(r).is_some());
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

/// The suppressions looked up by what a finding carries, so that many of them cost a
/// lookup per finding rather than a scan: comments by rule, file and line, operation
/// suppressions by rule and operation; `lint.ignore` entries (a few) by rule.
struct Index {
    lines: HashMap<(RuleId, usize, u32), usize>,
    operations: HashMap<(RuleId, usize), usize>,
    selectors: HashMap<RuleId, Vec<usize>>,
}

impl Index {
    fn new(list: &[Suppression]) -> Index {
        let mut index = Index {
            lines: HashMap::new(),
            operations: HashMap::new(),
            selectors: HashMap::new(),
        };
        for (i, s) in list.iter().enumerate() {
            for &rule in &s.rules {
                match &s.scope {
                    Scope::Lines { file, lines } => {
                        for line in lines {
                            index.lines.entry((rule, *file, *line)).or_insert(i);
                        }
                    }
                    Scope::Operation(op) => {
                        index.operations.entry((rule, *op)).or_insert(i);
                    }
                    Scope::Selectors(_) => index.selectors.entry(rule).or_default().push(i),
                }
            }
        }
        index
    }

    /// The first suppression, in the order they were collected, that covers `finding`.
    fn first_hit(
        &self,
        list: &[Suppression],
        finding: &Finding,
        op: Option<usize>,
        api: &Api,
        sources: &Sources,
    ) -> Option<usize> {
        let rule = finding.rule;
        // A comment on a shared place's line covers every operation that shares it.
        let shared = finding.shared.as_deref().map(|s| &s.at);
        let by_line = std::iter::once(&finding.primary)
            .chain(&finding.related)
            .chain(shared)
            .filter_map(|label| {
                let file = &sources[label.loc.file];
                let line = file.lines().line_of(&file.text, label.loc.span.start);
                self.lines.get(&(rule, label.loc.file, line)).copied()
            })
            .min();
        let by_operation = op.and_then(|o| self.operations.get(&(rule, o)).copied());
        let by_selector = self.selectors.get(&rule).and_then(|candidates| {
            candidates.iter().copied().find(|&i| match &list[i].scope {
                Scope::Selectors(selectors) => {
                    selectors.is_empty()
                        || op.is_some_and(|o| {
                            selectors.iter().any(|s| s.matches(&api.operations[o]))
                        })
                }
                _ => false,
            })
        });
        [by_line, by_operation, by_selector]
            .into_iter()
            .flatten()
            .min()
    }
}

/// The catalogue rule a suppression names; any other name is an input error at `span`.
fn known_rule(
    name: &str,
    file: &crate::input::source::SourceFile,
    span: Span,
) -> Result<RuleId, InputError> {
    if let Some(rule) = RuleId::rule_named(name) {
        return Ok(rule);
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
///
/// A comment is a `#` at the start of a line or after white space that lies in no scalar:
/// the parser recorded where the scalars holding a `#` are written (block and quoted
/// scalars that span lines included), so text inside a `description: |` is never taken
/// for a comment. Lines end at `\n`, `\r\n` or a lone `\r`, as YAML counts them.
fn comments(
    id: usize,
    file: &crate::input::source::SourceFile,
) -> Result<Vec<Suppression>, InputError> {
    const MARK: &str = "retrylint: ignore[";
    let mut out = Vec::new();
    if !file.text.contains(MARK) {
        return Ok(out);
    }
    let text: &str = &file.text;
    let lines = file.lines();
    for (line_no, line_span) in (1..).zip(lines.line_spans(text)) {
        let start = line_span.start as usize;
        let line = &text[line_span.range()];
        let Some(hash) = comment_start(line, |i| file.in_hash_scalar((start + i) as u32)) else {
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
            let name_at = start + line[hash..].find(name).map_or(hash, |i| hash + i);
            rules.push(known_rule(
                name,
                file,
                Span::new(name_at, name_at + name.len()),
            )?);
        }
        let reason = rest[close + 1..].trim();
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

/// Where a YAML comment starts on a line: the first `#` at the start or after white space
/// that is not inside a scalar (`in_scalar` tells, by the `#`'s offset in the line).
fn comment_start(line: &str, in_scalar: impl Fn(usize) -> bool) -> Option<usize> {
    let bytes = line.as_bytes();
    memchr::memchr_iter(b'#', bytes)
        .find(|&i| (i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') && !in_scalar(i))
}
