//! `--scenario FILE`: the scenario flags written down, as YAML or JSON.
//!
//! ```yaml
//! scenario:
//!   clients: 1000
//!   arrival: uniform:60s
//!   capacity: 200/s
//!   faults: ["503@10s..40s", "timeout-after-processing@5s..20s"]
//!   latency: 50ms
//!   seed: 1
//!   compare: ["jitter=none", "keyHeader=Idempotency-Key"]
//! ```
//!
//! A flag given on the command line wins over the file's value; `--fault` and `--compare`
//! add to the file's lists.

use std::path::Path;

use crate::error::{InputError, did_you_mean};
use crate::load::{LoadOptions, read_source};
use crate::source::{Node, SourceFile, Value};

const KEYS: &[&str] = &[
    "clients", "arrival", "capacity", "faults", "latency", "seed", "compare",
];

/// The values a scenario file sets.
#[derive(Debug, Default)]
pub struct ScenarioFile {
    pub clients: Option<u32>,
    pub arrival: Option<String>,
    pub capacity: Option<String>,
    pub faults: Vec<String>,
    pub latency: Option<String>,
    pub seed: Option<u64>,
    pub compare: Vec<String>,
}

impl ScenarioFile {
    /// Reads a scenario file; every problem is an input error at its span.
    pub fn load(path: &Path) -> Result<ScenarioFile, InputError> {
        let file = read_source(path, path.to_path_buf(), &LoadOptions::default())?;
        let root = &file.root;
        let Some(scenario) = root.get("scenario") else {
            return Err(InputError::at(
                &file,
                root.span,
                "a scenario file needs a top-level `scenario:` mapping",
            ));
        };
        if let Some(map) = root.as_map()
            && let Some(other) = map.entries().iter().find(|e| &*e.key != "scenario")
        {
            return Err(InputError::at(
                &file,
                other.key_span,
                format!(
                    "unknown key `{}`: a scenario file holds only `scenario:`",
                    other.key
                ),
            ));
        }
        let Some(map) = scenario.as_map() else {
            return Err(InputError::at(
                &file,
                scenario.span,
                format!("`scenario` must be a mapping, found {}", scenario.kind()),
            ));
        };
        let mut out = ScenarioFile::default();
        for entry in map.entries() {
            let value = &entry.value;
            match &*entry.key {
                "clients" => out.clients = Some(number(&file, "clients", value)?),
                "seed" => out.seed = Some(number(&file, "seed", value)?),
                "arrival" => out.arrival = Some(text(&file, "arrival", value)?),
                "capacity" => out.capacity = Some(text(&file, "capacity", value)?),
                "latency" => out.latency = Some(text(&file, "latency", value)?),
                "faults" => out.faults = list(&file, "faults", value)?,
                "compare" => out.compare = list(&file, "compare", value)?,
                key => {
                    let error = InputError::at(
                        &file,
                        entry.key_span,
                        format!("unknown key `{key}` in the scenario"),
                    );
                    return Err(match did_you_mean(key, KEYS.iter().copied()) {
                        Some(near) => error.with_help(format!("did you mean `{near}`?")),
                        None => error.with_help(format!("expected one of: {}", KEYS.join(", "))),
                    });
                }
            }
        }
        Ok(out)
    }
}

fn number<T: std::str::FromStr>(
    file: &SourceFile,
    key: &str,
    node: &Node,
) -> Result<T, InputError> {
    match &node.value {
        Value::Number(n) => n.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| {
        InputError::at(
            file,
            node.span,
            format!("`{key}` must be a whole number, found {}", node.kind()),
        )
    })
}

fn text(file: &SourceFile, key: &str, node: &Node) -> Result<String, InputError> {
    node.scalar_text().map(str::to_string).ok_or_else(|| {
        InputError::at(
            file,
            node.span,
            format!(
                "`{key}` must be text such as the flag takes, found {}",
                node.kind()
            ),
        )
    })
}

fn list(file: &SourceFile, key: &str, node: &Node) -> Result<Vec<String>, InputError> {
    let Some(items) = node.as_seq() else {
        return Err(InputError::at(
            file,
            node.span,
            format!("`{key}` must be a list, found {}", node.kind()),
        ));
    };
    items.iter().map(|item| text(file, key, item)).collect()
}
