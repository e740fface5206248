//! Scoring the effects retrylint reads against hand-labelled operations.
//!
//! A labelled set is a folder per API: `labels.jsonl` (one operation a line: `method`,
//! `path`, `effect` — `read`, `idempotent-write` or `non-idempotent-write` — and the
//! quote that justifies it), `SOURCE`, and the description itself, or a line `corpus:
//! PATH` in `SOURCE` naming it under `RETRYLINT_CORPUS`. The binary is run on each
//! description as a user runs it — `report --format json` for each operation's effect,
//! `check --format json` (no policy: the contract rules) for its write findings — and
//! three figures come out:
//!
//! - **effect accuracy**: the share of labelled operations whose effect is the label
//!   (`unknown` is never right);
//! - **write-finding precision**: of the labelled operations that carry
//!   `write-without-retry-protection`, the share labelled non-idempotent writes;
//! - **non-idempotent-write recall**: of the operations labelled non-idempotent writes,
//!   the share retrylint treats as writes that may repeat (non-idempotent, or unknown,
//!   which every rule treats the same way).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One labelled operation and what retrylint said of it.
#[derive(Debug, Clone)]
pub(crate) struct Scored {
    pub(crate) set: String,
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) label: String,
    /// `None` when the description has no such operation.
    pub(crate) got: Option<String>,
    pub(crate) evidence: String,
    pub(crate) write_finding: bool,
}

/// The figures of some scored operations.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Figures {
    pub(crate) labelled: usize,
    pub(crate) correct: usize,
    pub(crate) unknown: usize,
    pub(crate) with_write_finding: usize,
    pub(crate) write_finding_true: usize,
    pub(crate) non_idempotent: usize,
    pub(crate) non_idempotent_caught: usize,
}

impl Figures {
    pub(crate) fn of<'a>(scored: impl IntoIterator<Item = &'a Scored>) -> Figures {
        let mut f = Figures::default();
        for s in scored {
            f.labelled += 1;
            let got = s.got.as_deref().unwrap_or("missing");
            f.correct += usize::from(got == s.label);
            f.unknown += usize::from(got == "unknown");
            if s.write_finding {
                f.with_write_finding += 1;
                f.write_finding_true += usize::from(s.label == "non-idempotent-write");
            }
            if s.label == "non-idempotent-write" {
                f.non_idempotent += 1;
                f.non_idempotent_caught +=
                    usize::from(matches!(got, "non-idempotent-write" | "unknown"));
            }
        }
        f
    }

    pub(crate) fn accuracy(&self) -> f64 {
        ratio(self.correct, self.labelled)
    }

    pub(crate) fn precision(&self) -> f64 {
        ratio(self.write_finding_true, self.with_write_finding)
    }

    pub(crate) fn recall(&self) -> f64 {
        ratio(self.non_idempotent_caught, self.non_idempotent)
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

/// The description a labelled folder scores: the file beside its labels, or the one
/// its `SOURCE` names under the corpus. `Err` says why there is none.
pub(crate) fn description_of(folder: &Path, corpus: Option<&Path>) -> Result<PathBuf, String> {
    let source = std::fs::read_to_string(folder.join("SOURCE")).unwrap_or_default();
    if let Some(rel) = source
        .lines()
        .find_map(|l| l.strip_prefix("corpus:"))
        .map(str::trim)
    {
        let Some(corpus) = corpus else {
            return Err(format!(
                "needs RETRYLINT_CORPUS (its description is the corpus's {rel})"
            ));
        };
        return Ok(corpus.join(rel));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| format!("{}: {e}", folder.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name != "SOURCE" && name != "labels.jsonl" && p.is_file()
        })
        .collect();
    files.sort();
    match files.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!(
            "{}: expected one description beside the labels",
            folder.display()
        )),
    }
}

/// Scores one labelled folder with the binary `bin`.
pub(crate) fn score(
    bin: &Path,
    folder: &Path,
    corpus: Option<&Path>,
) -> Result<Vec<Scored>, String> {
    let set = folder
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let description = description_of(folder, corpus)?;
    let labels = std::fs::read_to_string(folder.join("labels.jsonl"))
        .map_err(|e| format!("{}: {e}", folder.display()))?;
    let path = description.to_string_lossy().to_string();
    // `report` for the effects, `check` for the write findings, of every operation.
    let run = |command: &str| -> Result<serde_json::Value, String> {
        let args = [
            command,
            &path,
            "--format",
            "json",
            "--max-operations",
            "100000",
        ];
        let out = Command::new(bin)
            .args(args)
            .output()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        serde_json::from_slice(&out.stdout).map_err(|e| {
            format!(
                "{set}: {args:?} printed no JSON ({e}): {}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
    };
    let report = run("report")?;
    let check = run("check")?;
    let mut effects: BTreeMap<(String, String), String> = BTreeMap::new();
    for op in report["operations"].as_array().into_iter().flatten() {
        let key = (
            op["method"].as_str().unwrap_or_default().to_string(),
            op["path"].as_str().unwrap_or_default().to_string(),
        );
        let effect = op["contract"]["repeat"]["effect"]
            .as_str()
            .unwrap_or("missing");
        effects.insert(key, effect.to_string());
    }
    let mut flagged = std::collections::BTreeSet::new();
    for finding in check["findings"].as_array().into_iter().flatten() {
        if finding["rule"] == "write-without-retry-protection" {
            for op in finding["operations"].as_array().into_iter().flatten() {
                flagged.insert((
                    op["method"].as_str().unwrap_or_default().to_string(),
                    op["path"].as_str().unwrap_or_default().to_string(),
                ));
            }
            if let Some(op) = finding.get("operation").filter(|o| o.is_object()) {
                flagged.insert((
                    op["method"].as_str().unwrap_or_default().to_string(),
                    op["path"].as_str().unwrap_or_default().to_string(),
                ));
            }
        }
    }
    let mut out = Vec::new();
    for (n, line) in labels
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let label: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{set}/labels.jsonl:{}: {e}", n + 1))?;
        let key = (
            label["method"].as_str().unwrap_or_default().to_string(),
            label["path"].as_str().unwrap_or_default().to_string(),
        );
        out.push(Scored {
            set: set.clone(),
            got: effects.get(&key).cloned(),
            write_finding: flagged.contains(&key),
            method: key.0,
            path: key.1,
            label: label["effect"].as_str().unwrap_or_default().to_string(),
            evidence: label["evidence"].as_str().unwrap_or_default().to_string(),
        });
    }
    Ok(out)
}

/// The labelled folders under `root` (a folder of folders, or one folder).
pub(crate) fn folders(root: &Path) -> Vec<PathBuf> {
    if root.join("labels.jsonl").is_file() {
        return vec![root.to_path_buf()];
    }
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("labels.jsonl").is_file())
        .collect();
    out.sort();
    out
}
