//! `--format sarif`: SARIF 2.1.0 for code scanning (GitHub and others).
//!
//! One run; one rule entry per rule that reported something, with its page as help; one
//! result per finding with 1-based regions whose columns count characters
//! (`columnKind: unicodeCodePoints`), related locations, and a partial fingerprint that
//! survives edits which only move lines.

use serde_json::{Value, json};

use super::{CheckResult, Place, fingerprint};
use crate::finding::{Finding, Severity};
use crate::load::Sources;
use crate::rules::{self, RuleMeta};
use crate::suppress;

/// Where the rule pages are published.
pub const RULES_URL: &str = "https://github.com/retrylint/retrylint/blob/main/rules";

/// Renders every result as one SARIF log.
pub fn render(results: &[CheckResult]) -> String {
    let mut used: Vec<&'static RuleMeta> = Vec::new();
    for finding in results.iter().flat_map(|r| &r.findings) {
        if let Some(meta) = meta_of(finding.rule)
            && !used.iter().any(|m| m.name == meta.name)
        {
            used.push(meta);
        }
    }
    used.sort_by_key(|m| m.name);
    let rule_entries: Vec<Value> = used.iter().map(|m| rule(m)).collect();
    let results_json: Vec<Value> = results
        .iter()
        .flat_map(|r| {
            r.findings
                .iter()
                .map(|f| result(f, &r.sources, used.iter().position(|m| m.name == f.rule)))
        })
        .collect();
    // Every file a result points into: the description's files, the policy, and the
    // mesh, gateway and proxy files of layers.
    let mut artifacts: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, r) in results.iter().enumerate() {
        for f in &r.findings {
            for label in std::iter::once(&f.primary).chain(&f.related) {
                if seen.insert((i, label.loc.file)) {
                    let file = uri(&r.sources[label.loc.file].name());
                    if !artifacts.contains(&file) {
                        artifacts.push(file);
                    }
                }
            }
        }
    }
    let artifacts: Vec<Value> = artifacts
        .into_iter()
        .map(|file| json!({ "location": { "uri": file } }))
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "retrylint",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://github.com/retrylint/retrylint",
                    "rules": rule_entries,
                }
            },
            "columnKind": "unicodeCodePoints",
            "artifacts": artifacts,
            "results": results_json,
            // What the descriptions alone let any client retry safely.
            "properties": {
                "contract": crate::output::Summary::of(results).contract,
            },
        }]
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

/// The metadata of a catalogue rule or of a suppression warning.
fn meta_of(name: &str) -> Option<&'static RuleMeta> {
    rules::by_name(name)
        .map(|r| r.meta())
        .or_else(|| suppress::META.iter().find(|m| m.name == name))
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
        "helpUri": format!("{RULES_URL}/{}.md", meta.name),
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

fn result(finding: &Finding, sources: &Sources, rule_index: Option<usize>) -> Value {
    let mut value = json!({
        "ruleId": finding.rule,
        "level": level(finding.severity),
        "message": { "text": message(finding) },
        "locations": [location(&Place::of(&finding.primary.loc, sources), None, None)],
        "partialFingerprints": { "retrylint/v1": fingerprint(finding, sources) },
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
                .map(|(i, l)| location(&Place::of(&l.loc, sources), Some(i + 1), Some(&l.text)))
                .collect(),
        );
    }
    if let Some(op) = &finding.operation {
        value["properties"] = json!({ "operation": format!("{} {}", op.method, op.path) });
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

fn location(place: &Place, id: Option<usize>, text: Option<&str>) -> Value {
    let mut value = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(&place.file) },
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
        value["message"] = json!({ "text": text });
    }
    value
}

/// A file's URI: relative to the working directory when it is inside it.
fn uri(file: &str) -> String {
    let path = std::path::Path::new(file);
    let relative = match std::env::current_dir() {
        Ok(cwd) if path.is_absolute() => path.strip_prefix(&cwd).map(|p| p.to_path_buf()).ok(),
        _ if path.is_absolute() => None,
        _ => Some(path.to_path_buf()),
    };
    let escape = |text: &str| {
        text.chars()
            .map(|c| match c {
                ' ' => "%20".to_string(),
                '%' => "%25".to_string(),
                '#' => "%23".to_string(),
                '?' => "%3F".to_string(),
                c => c.to_string(),
            })
            .collect::<String>()
    };
    match relative {
        Some(p) => escape(&crate::source::path_text(&p)),
        None => format!("file://{}", escape(&crate::source::path_text(path))),
    }
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
