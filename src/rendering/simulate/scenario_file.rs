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

use crate::error::InputError;
use crate::input::load::{LoadOptions, read_source};
use crate::input::read::{Context, ScalarText};

/// The keys of `scenario:`.
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
    /// Reads a scenario file; every problem is an input error at its span, all of the
    /// file's problems at once.
    pub fn load(path: &Path) -> Result<ScenarioFile, InputError> {
        let file = read_source(path, path.to_path_buf(), &LoadOptions::default())?;
        let cx = Context::new(&file, 0);
        let scenario = read(&cx);
        cx.finish(scenario)
    }
}

fn read(cx: &Context<'_>) -> Option<ScenarioFile> {
    let root = cx.root("a scenario file");
    let mut top = root.table(&["scenario"])?;
    let scenario = top.entry("scenario");
    if scenario.is_none() {
        top.missing::<()>("scenario");
    }
    top.finish();
    let mut table = scenario?.table(KEYS)?;
    let text = |t: Option<ScalarText>| t.map(|ScalarText(t)| t);
    let texts =
        |t: Option<Vec<ScalarText>>| t.unwrap_or_default().into_iter().map(|ScalarText(t)| t);
    let out = ScenarioFile {
        clients: table.optional("clients"),
        arrival: text(table.optional("arrival")),
        capacity: text(table.optional("capacity")),
        faults: texts(table.optional("faults")).collect(),
        latency: text(table.optional("latency")),
        seed: table.optional("seed"),
        compare: texts(table.optional("compare")).collect(),
    };
    table.finish();
    Some(out)
}
