//! Baselines: record today's findings, then report only new ones.
//!
//! A baseline file lists findings by fingerprint (see [`fingerprint`]: the rule, the
//! operation and the JSON Pointer, stable across edits that move lines and across renames
//! of the description), with the rule, file and message for the reader of a diff. A
//! finding is left out once per matching entry, so a second identical finding is still
//! new.
//!
//! Version 1 files named the file in the fingerprint; they are still read, and matched
//! by the fingerprints of that version ([`legacy_fingerprints`]). Files are written in
//! version 2.

use std::path::Path;

use foldhash::{HashMap, HashMapExt};
use serde::{Deserialize, Serialize};

use crate::error::InputError;
use crate::rendering::output::{CheckResult, fingerprint, legacy_fingerprints};

/// The version written.
const VERSION: u32 = 2;
/// The version whose fingerprints named the file, still read.
const LEGACY_VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    findings: Vec<Entry>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    fingerprint: String,
    rule: String,
    file: String,
    message: String,
}

/// The fingerprints of a baseline, with how many findings each may leave out.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    counts: HashMap<String, usize>,
    /// Whether the file is of version 1, whose fingerprints name the file.
    legacy: bool,
}

impl Baseline {
    /// Reads a baseline file of at most `max_size` bytes.
    pub(crate) fn load(path: &Path, max_size: u64) -> Result<Baseline, InputError> {
        let shown = crate::input::source::path_text(path);
        let text = crate::input::load::read_text(path, &shown, max_size)?;
        let file: File = serde_json::from_str(&text).map_err(|e| {
            InputError::new(format!(
                "`{shown}` is not a retrylint baseline: {e} (line {}, column {})",
                e.line(),
                e.column()
            ))
            .with_help("write one with --write-baseline FILE")
        })?;
        if file.version != VERSION && file.version != LEGACY_VERSION {
            return Err(InputError::new(format!(
                "`{shown}` is a baseline of version {}; this retrylint reads versions {LEGACY_VERSION} and {VERSION}",
                file.version
            )));
        }
        let mut counts = HashMap::new();
        for entry in file.findings {
            *counts.entry(entry.fingerprint).or_insert(0) += 1;
        }
        Ok(Baseline {
            counts,
            legacy: file.version == LEGACY_VERSION,
        })
    }

    /// Leaves out the findings the baseline holds, counting them per result.
    pub(crate) fn apply(&mut self, results: &mut [CheckResult]) {
        for result in results {
            let (sources, root) = (&result.sources, result.root_file);
            let counts = &mut self.counts;
            let legacy = self.legacy;
            let before = result.findings.len();
            result.findings.retain(|f| {
                let keys = if legacy {
                    legacy_fingerprints(f, sources)
                } else {
                    vec![fingerprint(f, sources, root)]
                };
                // A grouped finding is held by any entry of its shared place or of one of
                // its operations (a version 1 file listed each); it takes all of them.
                let mut held = false;
                for key in keys {
                    if let Some(n) = counts.get_mut(&key).filter(|n| **n > 0) {
                        *n -= 1;
                        held = true;
                    }
                }
                !held
            });
            result.baselined += before - result.findings.len();
        }
    }
}

/// Writes every finding of `results` as a baseline; returns how many it holds.
pub(crate) fn write(path: &Path, results: &[CheckResult]) -> Result<usize, InputError> {
    let mut findings: Vec<Entry> = results
        .iter()
        .flat_map(|r| {
            r.findings.iter().map(|f| Entry {
                fingerprint: fingerprint(f, &r.sources, r.root_file),
                rule: f.rule.to_string(),
                file: r.sources[f.primary.loc.file].identity().to_string(),
                message: f.message.clone(),
            })
        })
        .collect();
    findings.sort_by(|a, b| {
        (&a.file, &a.rule, &a.fingerprint).cmp(&(&b.file, &b.rule, &b.fingerprint))
    });
    let count = findings.len();
    let mut text = serde_json::to_string_pretty(&File {
        version: VERSION,
        findings,
    })
    .unwrap_or_default();
    text.push('\n');
    crate::rendering::output::write::to_file(path, &text)?;
    Ok(count)
}
