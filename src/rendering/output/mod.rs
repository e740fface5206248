//! How results are shown. Each format is one module; all read the same [`CheckResult`]s.

pub mod color;
pub mod concise;
pub mod excerpt;
pub mod github;
pub mod gitlab;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod plan;
pub mod sarif;
pub mod source_links;
pub mod statistics;
pub mod write;

use crate::analysis::rules::RuleId;
pub use crate::analysis::rules::finding::CheckResult;
use crate::analysis::rules::finding::{Finding, Severity};
use crate::input::load::FileId;
use crate::input::load::Sources;
use crate::location::Loc;

/// Where the project lives; rule pages are under it.
pub const REPOSITORY_URL: &str = env!("CARGO_PKG_REPOSITORY");

/// The published page of a rule (for the two suppression warnings, the manual's page
/// on suppressions).
pub fn rule_url(rule: RuleId) -> String {
    if rule.is_rule() {
        format!("{REPOSITORY_URL}/blob/main/rules/{rule}.md")
    } else {
        format!("{REPOSITORY_URL}/blob/main/docs/src/suppressions.md")
    }
}

/// How to learn more about a rule, as the last line of a finding.
pub fn explain_hint(rule: RuleId) -> String {
    format!("more: retrylint explain {rule}")
}

/// The least severity that makes `check` exit with 1 (`--fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FailOn {
    #[default]
    Error,
    Warning,
    Info,
    Never,
}

impl FailOn {
    /// Whether a finding of `severity` fails the run.
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Never => false,
            FailOn::Info => true,
            FailOn::Warning => severity >= Severity::Warning,
            FailOn::Error => severity == Severity::Error,
        }
    }

    /// The flag's value, as typed.
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Error => "error",
            FailOn::Warning => "warning",
            FailOn::Info => "info",
            FailOn::Never => "never",
        }
    }
}

/// Which findings a text format shows: errors and warnings (infos only with
/// `--show-infos` or `--fail-on info`), only errors (`--quiet`), or the most severe
/// `--max-findings`. Formats for machines always hold every finding.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shown {
    /// Only error findings (`--quiet`).
    pub errors_only: bool,
    /// Info findings too (`--show-infos`, or `--fail-on info`).
    pub infos: bool,
    /// At most this many findings, the most severe first (`--max-findings`).
    pub max: Option<usize>,
}

impl Shown {
    /// Whether info findings are left out and the summary line says so (not under
    /// `--quiet`, which says it shows errors only).
    pub fn hides_infos(self) -> bool {
        !self.infos && !self.errors_only
    }

    /// Whether a finding of `severity` is shown.
    fn shows(self, severity: Severity) -> bool {
        match severity {
            Severity::Error => true,
            Severity::Warning => !self.errors_only,
            Severity::Info => !self.errors_only && self.infos,
        }
    }

    /// The findings to show, as (result index, finding index) in output order, and how
    /// many were left out by `max` (not those `errors_only` leaves out).
    pub fn select(self, results: &[CheckResult]) -> (Vec<(usize, usize)>, usize) {
        let mut picked: Vec<(usize, usize)> = results
            .iter()
            .enumerate()
            .flat_map(|(r, result)| {
                result
                    .findings
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| self.shows(f.severity))
                    .map(move |(f, _)| (r, f))
            })
            .collect();
        let Some(max) = self.max.filter(|&max| max < picked.len()) else {
            return (picked, 0);
        };
        // The most severe `max`, in their original order.
        let mut by_severity: Vec<usize> = (0..picked.len()).collect();
        by_severity.sort_by_key(|&i| {
            let (r, f) = picked[i];
            std::cmp::Reverse(results[r].findings[f].severity)
        });
        let mut keep: Vec<usize> = by_severity[..max].to_vec();
        keep.sort_unstable();
        let cut = picked.len() - max;
        picked = keep.into_iter().map(|i| picked[i]).collect();
        (picked, cut)
    }
}

/// Counts by severity over several results.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub operations: usize,
    pub suppressed: usize,
    pub baselined: usize,
    pub webhooks: usize,
    /// Operations at each contract state.
    pub contract: crate::analysis::contract::StateCounts,
}

impl Summary {
    pub fn of(results: &[CheckResult]) -> Summary {
        let mut summary = Summary::default();
        for result in results {
            summary.operations += result.operations.len();
            summary.suppressed += result.suppressed;
            summary.baselined += result.baselined;
            summary.webhooks += result.webhooks;
            summary.contract.merge(&result.contract);
            for finding in &result.findings {
                match finding.severity {
                    Severity::Error => summary.errors += 1,
                    Severity::Warning => summary.warnings += 1,
                    Severity::Info => summary.infos += 1,
                }
            }
        }
        summary
    }

    /// `3 errors, 2 warnings in 41 operations`.
    pub fn line(&self) -> String {
        self.line_shown(false)
    }

    /// The summary line of a text format that showed `shown`: the infos it left out are
    /// counted, with how to see them (`3 errors, 2 warnings, 40 info (hidden;
    /// --show-infos) in 41 operations`).
    pub fn line_for(&self, shown: Shown) -> String {
        self.line_shown(shown.hides_infos())
    }

    fn line_shown(&self, infos_hidden: bool) -> String {
        use crate::rendering::plural;
        let mut parts = vec![
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
        ];
        if self.infos > 0 && infos_hidden {
            parts.push(format!("{} info (hidden; --show-infos)", self.infos));
        } else if self.infos > 0 {
            parts.push(format!("{} info", self.infos));
        }
        let mut line = format!(
            "{} in {}",
            parts.join(", "),
            plural(self.operations, "operation")
        );
        let mut left_out = Vec::new();
        if self.suppressed > 0 {
            left_out.push(format!("{} suppressed", self.suppressed));
        }
        if self.baselined > 0 {
            left_out.push(format!("{} in the baseline", self.baselined));
        }
        if self.webhooks > 0 {
            left_out.push(format!("{} not checked", plural(self.webhooks, "webhook")));
        }
        if !left_out.is_empty() {
            line.push_str(&format!(" ({})", left_out.join(", ")));
        }
        line
    }
}

/// How many related places a grouped finding shows where a person reads it (human
/// output, GitHub annotations); the machine formats carry all.
pub const GROUP_PLACES_SHOWN: usize = 5;

/// How many of a finding's related places to show a person: all, or for a grouped
/// finding (a place per operation) the first [`GROUP_PLACES_SHOWN`].
pub fn related_shown(finding: &Finding) -> usize {
    if finding.affected.is_empty() {
        finding.related.len()
    } else {
        GROUP_PLACES_SHOWN.min(finding.related.len())
    }
}

/// Where a label is, in the terms every machine format uses.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Place {
    pub file: String,
    /// The JSON Pointer of the node in its file (empty for a comment).
    pub pointer: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    /// The column after the last character.
    pub end_column: u32,
}

impl Place {
    pub fn of(loc: &Loc, sources: &Sources) -> Place {
        let file = &sources[loc.file];
        let start = file.position(loc.span.start);
        let end = file.position(loc.span.end.max(loc.span.start));
        Place {
            file: file.name(),
            pointer: loc.pointer.to_string(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
        }
    }
}

/// An identity for a finding that survives edits which only move lines and renames of
/// the files (`git mv`): the rule, the operation (method and path template as written)
/// and the JSON Pointer of the primary place (or, for a place with no pointer such as a
/// comment, the text there). A grouped finding names no operation: its identity is the
/// rule and the shared place, so it stays as operations join or leave the group. A
/// finding with no operation whose place lies outside the description's root file (a
/// policy entry, a layer's route, a `$ref`'d file) adds that file's base name, so that
/// two files' `/defaults/retryOn/0` stay apart. 16 hex digits of FNV-1a.
///
/// `root` is the description's root file among `sources`.
pub fn fingerprint(finding: &Finding, sources: &Sources, root: FileId) -> String {
    let loc = &finding.primary.loc;
    let file = &sources[loc.file];
    let operation = finding
        .operation
        .as_ref()
        .map(|o| format!("{} {}", o.method, o.path))
        .unwrap_or_default();
    let scope = if finding.operation.is_some() || loc.file == root {
        String::new()
    } else {
        file.display
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    hash(&[
        "v2",
        finding.rule.as_str(),
        &scope,
        &operation,
        anchor(loc, sources),
    ])
}

/// The fingerprints of version 1 baselines, which named the file by its path: the rule,
/// the file's [`SourceFile::identity`](crate::input::source::SourceFile::identity), the
/// operation and the JSON Pointer. A grouped finding has one for its shared place and
/// one for each operation's finding it was merged from.
pub fn legacy_fingerprints(finding: &Finding, sources: &Sources) -> Vec<String> {
    let one = |loc: &Loc, operation: Option<&crate::analysis::rules::finding::OperationRef>| {
        let operation = operation
            .map(|o| format!("{} {}", o.method, o.path))
            .unwrap_or_default();
        hash(&[
            finding.rule.as_str(),
            sources[loc.file].identity(),
            &operation,
            anchor(loc, sources),
        ])
    };
    std::iter::once(one(&finding.primary.loc, finding.operation.as_ref()))
        .chain(
            finding
                .affected
                .iter()
                .map(|a| one(&a.site, Some(&a.operation))),
        )
        .collect()
}

/// What places a finding: its JSON Pointer, or the text there when it has none.
fn anchor<'a>(loc: &'a Loc, sources: &'a Sources) -> &'a str {
    if loc.pointer.is_empty() {
        sources[loc.file]
            .text
            .get(loc.span.range())
            .unwrap_or_default()
            .trim()
    } else {
        &loc.pointer
    }
}

/// FNV-1a over the parts, each ended by a zero byte, as 16 hex digits.
fn hash(parts: &[&str]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain([0u8]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}
