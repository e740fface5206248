//! `--format sarif`: SARIF 2.1.0 for code scanning (GitHub and others).
//!
//! One run; one rule entry per rule that reported something, with its page as help; one
//! result per finding with 1-based regions whose columns count characters
//! (`columnKind: unicodeCodePoints`), related locations, and a partial fingerprint that
//! survives edits which only move lines.

use std::path::Path;

use serde_json::{Value, json};

use super::{CheckResult, Place, fingerprint};
use crate::analysis::rules::RuleMeta;
use crate::analysis::rules::finding::{Finding, Severity};
use crate::input::source::SourceFile;

/// How many results GitHub code scanning accepts in one run (it shows the first 5,000).
pub const GITHUB_RESULTS_PER_RUN: usize = 25_000;

/// A rendered SARIF log.
pub struct Sarif {
    pub text: String,
    /// How many results it holds.
    pub results: usize,
}

/// The base of relative artifact URIs.
const ROOT_ID: &str = "ROOT";

/// Renders every result as one SARIF log; artifact URIs are relative to `root` (else the
/// current folder) when the file is inside it.
pub fn render(results: &[CheckResult], root: Option<&Path>) -> Sarif {
    let root = root
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok())
        .and_then(|r| std::fs::canonicalize(r).ok());
    let uris = Uris {
        root: root.as_deref(),
    };
    let mut used: Vec<&'static RuleMeta> = Vec::new();
    for finding in results.iter().flat_map(|r| &r.findings) {
        let meta = finding.rule.meta();
        if !used.iter().any(|m| m.id == meta.id) {
            used.push(meta);
        }
    }
    used.sort_by_key(|m| m.name);
    let rule_entries: Vec<Value> = used.iter().map(|m| rule(m)).collect();
    let results_json: Vec<Value> = results
        .iter()
        .flat_map(|r| {
            r.findings.iter().map(|f| {
                let index = used.iter().position(|m| m.id == f.rule);
                result(f, r, index, &uris)
            })
        })
        .collect();
    let result_count = results_json.len();
    // Every file a result points into: the description's files, the policy, and the
    // mesh, gateway and proxy files of layers.
    let mut artifacts: Vec<Value> = Vec::new();
    let mut seen = foldhash::HashSet::default();
    for (i, r) in results.iter().enumerate() {
        for f in &r.findings {
            for label in std::iter::once(&f.primary).chain(&f.related) {
                if seen.insert((i, label.loc.file)) {
                    let location = uris.of(&r.sources[label.loc.file]);
                    if !artifacts.iter().any(|a| a["location"] == location) {
                        artifacts.push(json!({ "location": location }));
                    }
                }
            }
        }
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "retrylint",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": super::REPOSITORY_URL,
                    "rules": rule_entries,
                }
            },
            "originalUriBaseIds": uris.base_ids(),
            "columnKind": "unicodeCodePoints",
            "artifacts": artifacts,
            "results": results_json,
            // What the descriptions alone let any client retry safely.
            "properties": {
                "contract": crate::rendering::output::Summary::of(results).contract,
            },
        }]
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    Sarif {
        text,
        results: result_count,
    }
}

/// Artifact locations: relative to the root (`uriBaseId: ROOT`) when inside it, else an
/// absolute `file:` URI; every path percent-encoded per RFC 3986.
struct Uris<'a> {
    root: Option<&'a Path>,
}

impl Uris<'_> {
    /// The `artifactLocation` of a file.
    fn of(&self, file: &SourceFile) -> Value {
        let absolute = file.canonical.clone().or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|current| current.join(&file.display))
        });
        let relative = match (&absolute, self.root) {
            (Some(path), Some(root)) => path.strip_prefix(root).ok(),
            _ => None,
        };
        match (relative, absolute.as_deref()) {
            (Some(relative), _) => json!({
                "uri": encode(&crate::input::source::path_text(relative)),
                "uriBaseId": ROOT_ID,
            }),
            (None, Some(path)) => json!({ "uri": file_uri(path) }),
            (None, None) => json!({ "uri": encode(&file.name()) }),
        }
    }

    /// `originalUriBaseIds`: where `ROOT` is.
    fn base_ids(&self) -> Value {
        match self.root {
            Some(root) => {
                let mut uri = file_uri(root);
                if !uri.ends_with('/') {
                    uri.push('/');
                }
                json!({ ROOT_ID: { "uri": uri } })
            }
            None => json!({}),
        }
    }
}

fn encode(path: &str) -> String {
    crate::escape::uri_path(path)
}

/// `file:///a/b` for an absolute path (on Windows, `file:///C:/a/b`).
fn file_uri(path: &Path) -> String {
    let text = crate::input::source::path_text(path);
    let text = text.strip_prefix('/').unwrap_or(&text);
    let mut encoded = encode(text);
    // A drive letter's colon stays a colon.
    if let Some(drive) = text.get(..2).filter(|d| d.ends_with(':')) {
        encoded = format!("{drive}{}", &encoded[drive.len() + 2..]);
    }
    format!("file:///{encoded}")
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn rule(meta: &RuleMeta) -> Value {
    json!({
        "id": meta.name,
        "name": pascal(meta.name),
        "shortDescription": { "text": meta.summary },
        "fullDescription": { "text": what_it_checks(meta.doc).unwrap_or(meta.summary) },
        "help": { "text": meta.doc, "markdown": meta.doc },
        "helpUri": super::rule_url(meta.id),
        "defaultConfiguration": { "level": level(meta.severity) },
        "properties": {
            "tags": ["reliability", "api", "retry", meta.scope.as_str()],
            "precision": "high",
            "problem.severity": match meta.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "recommendation",
            },
        },
    })
}

fn result(
    finding: &Finding,
    checked: &CheckResult,
    rule_index: Option<usize>,
    uris: &Uris,
) -> Value {
    let sources = &checked.sources;
    let primary = &finding.primary.loc;
    let mut value = json!({
        "ruleId": finding.rule,
        "level": level(finding.severity),
        "message": { "text": crate::escape::sarif_text(&message(finding)) },
        "locations": [location(&Place::of(primary, sources), uris.of(&sources[primary.file]), None, None)],
        "partialFingerprints": { "retrylint/v2": fingerprint(finding, sources, checked.root_file) },
    });
    if let Some(index) = rule_index {
        value["ruleIndex"] = json!(index);
    }
    if !finding.related.is_empty() {
        value["relatedLocations"] = Value::Array(
            finding
                .related
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let place = Place::of(&l.loc, sources);
                    location(
                        &place,
                        uris.of(&sources[l.loc.file]),
                        Some(i + 1),
                        Some(&l.text),
                    )
                })
                .collect(),
        );
    }
    if let Some(op) = &finding.operation {
        value["properties"] = json!({ "operation": format!("{} {}", op.method, op.path) });
    } else if !finding.affected.is_empty() {
        // One result at the shared place; the operations it affects ride along.
        let operations: Vec<String> = finding
            .operations()
            .map(|op| format!("{} {}", op.method, op.path))
            .collect();
        value["properties"] = json!({ "operations": operations });
    }
    value
}

/// The message with its help, as code scanning shows one text.
fn message(finding: &Finding) -> String {
    match &finding.help {
        Some(help) => format!("{}\nHelp: {help}", finding.message),
        None => finding.message.clone(),
    }
}

fn location(place: &Place, artifact: Value, id: Option<usize>, text: Option<&str>) -> Value {
    let mut value = json!({
        "physicalLocation": {
            "artifactLocation": artifact,
            "region": {
                "startLine": place.line,
                "startColumn": place.column,
                "endLine": place.end_line,
                "endColumn": place.end_column,
            }
        }
    });
    if let Some(id) = id {
        value["id"] = json!(id);
    }
    if let Some(text) = text {
        value["message"] = json!({ "text": crate::escape::sarif_text(text) });
    }
    value
}

/// `unprotected-write-retry` → `UnprotectedWriteRetry`.
fn pascal(name: &str) -> String {
    name.split('-')
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The text of a page's "What it checks" section.
fn what_it_checks(doc: &str) -> Option<&str> {
    let start = doc.find("## What it checks")? + "## What it checks".len();
    let rest = &doc[start..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    Some(rest[..end].trim())
}
