//! Findings and input errors as the protocol's diagnostics, sorted by the file each is
//! in: a finding's primary place gives its diagnostic, its other places the related
//! information; an input error gives an error diagnostic where it points, or at the
//! start of the description when it points nowhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Range, Uri,
};
use serde::{Deserialize, Serialize};

use super::text::{Lines, uri_of};
use crate::analysis::fix::{Change, Safety};
use crate::analysis::rules::RuleId;
use crate::analysis::rules::finding::{CheckResult, Finding, Label, Severity};
use crate::error::InputError;
use crate::input::source::path_text;

/// What the diagnostics of one check say, by the path of the file each is in.
pub(super) type ByFile = BTreeMap<PathBuf, Vec<Diagnostic>>;

/// What a finding's diagnostic carries for the code actions: the rule, the operation the
/// finding is about when there is one, and its fix when it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct FindingData {
    pub(super) rule: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) fix: Option<FixData>,
}

/// A finding's fix, its changes placed by the path of the file each changes (the edits
/// are made when the action is asked for, on the text the editor holds then).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct FixData {
    pub(super) title: String,
    pub(super) safety: Safety,
    /// Each change with the path of its file, and whether that file is a stream of
    /// documents.
    pub(super) changes: Vec<(PathBuf, bool, Change)>,
}

/// The name diagnostics give as their source.
const SOURCE: &str = "retrylint";

/// The diagnostics of a check of the description at `root`.
pub(super) fn of_result(result: &CheckResult, root: &Path) -> ByFile {
    let lines: Vec<Lines<'_>> = result.sources.iter().map(|f| Lines::new(&f.text)).collect();
    let path_of = |file: usize| -> PathBuf {
        if file == result.root_file {
            return root.to_path_buf();
        }
        result.sources.get(file).map_or_else(
            || root.to_path_buf(),
            |source| {
                source
                    .canonical
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(source.name()))
            },
        )
    };
    let place = |label: &Label| -> Option<(PathBuf, Range)> {
        let lines = lines.get(label.loc.file)?;
        Some((path_of(label.loc.file), lines.range(label.loc.span)))
    };
    let mut by_file = ByFile::new();
    for finding in &result.findings {
        let Some((path, range)) = place(&finding.primary) else {
            continue;
        };
        let related = std::iter::once(&finding.primary)
            .chain(&finding.related)
            .filter_map(|label| {
                let (path, range) = place(label)?;
                Some(DiagnosticRelatedInformation {
                    location: Location::new(uri_of(&path)?, range),
                    message: label_text(label),
                })
            })
            .collect();
        let fix = finding.fix.as_deref().map(|fix| FixData {
            title: fix.title.clone(),
            safety: fix.safety,
            changes: fix
                .changes
                .iter()
                .map(|change| {
                    let documents = result
                        .sources
                        .get(change.file())
                        .is_some_and(|f| f.documents);
                    (path_of(change.file()), documents, change.clone())
                })
                .collect(),
        });
        by_file
            .entry(path)
            .or_default()
            .push(diagnostic_of(finding, range, related, fix));
    }
    by_file
}

fn diagnostic_of(
    finding: &Finding,
    range: Range,
    related: Vec<DiagnosticRelatedInformation>,
    fix: Option<FixData>,
) -> Diagnostic {
    let data = FindingData {
        rule: finding.rule.to_string(),
        method: finding.operation.as_ref().map(|op| op.method.clone()),
        path: finding.operation.as_ref().map(|op| op.path.clone()),
        fix,
    };
    Diagnostic {
        range,
        severity: Some(severity(finding.severity)),
        code: Some(NumberOrString::String(finding.rule.to_string())),
        code_description: docs_link(finding.rule),
        source: Some(SOURCE.to_string()),
        message: with_help(&finding.message, finding.help.as_deref()),
        related_information: Some(related),
        data: serde_json::to_value(data).ok(),
        ..Diagnostic::default()
    }
}

/// The diagnostics of an input error that stopped the check of the description at `root`.
pub(super) fn of_error(error: &InputError, root: &Path) -> ByFile {
    let root_name = path_text(root);
    let path_of = |file: &str| -> PathBuf {
        if file == root_name {
            return root.to_path_buf();
        }
        let path = PathBuf::from(file);
        std::fs::canonicalize(&path).unwrap_or(path)
    };
    let mut by_file = ByFile::new();
    for each in error.each() {
        let (path, range) = match &each.site {
            Some(site) => (path_of(&site.file), Lines::new(&site.text).range(site.span)),
            None => (root.to_path_buf(), Range::default()),
        };
        let related = each
            .related
            .iter()
            .filter_map(|site| {
                Some(DiagnosticRelatedInformation {
                    location: Location::new(
                        uri_of(&path_of(&site.file))?,
                        Lines::new(&site.text).range(site.span),
                    ),
                    message: crate::escape::terminal(&site.label).into_owned(),
                })
            })
            .collect();
        by_file.entry(path).or_default().push(Diagnostic {
            range,
            severity: Some(DiagnosticSeverity::ERROR),
            source: Some(SOURCE.to_string()),
            message: with_help(&each.message, each.help.as_deref()),
            related_information: Some(related),
            ..Diagnostic::default()
        });
    }
    by_file
}

fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The rule's page, as the SARIF output links it.
fn docs_link(rule: RuleId) -> Option<CodeDescription> {
    let href = Uri::from_str(&crate::rendering::output::rule_url(rule)).ok()?;
    Some(CodeDescription { href })
}

/// A message, then its help on a line of its own; text from the files shown escaped.
fn with_help(message: &str, help: Option<&str>) -> String {
    let message = crate::escape::terminal(message);
    match help {
        Some(help) => format!("{message}\nhelp: {}", crate::escape::terminal(help)),
        None => message.into_owned(),
    }
}

/// What a place says, with where its value really comes from when it is not written there.
fn label_text(label: &Label) -> String {
    let text = match label.loc.note_text() {
        Some(note) => format!("{} ({note})", label.text),
        None => label.text.clone(),
    };
    crate::escape::terminal(&text).into_owned()
}
