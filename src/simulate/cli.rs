//! `retrylint simulate SPEC [-p POLICY] [--operation SELECTOR] [scenario flags]`: the
//! flags, which operations are simulated, and where the output goes.
//!
//! Without `--operation`, every operation the effective policy retries
//! (`maxAttempts > 1`) is simulated, the clients spread over them in turn; with it, every
//! operation the selector matches, retried or not.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

use super::output::{self, Report};
use super::scenario::{Scenario, ScenarioFlags};
use super::scenario_file::ScenarioFile;
use super::variant::Variant;
use super::{MAX_ATTEMPTS, Target, html, simulate};
use crate::check::{analyze, discover_policy, load_policy};
use crate::error::InputError;
use crate::load::LoadOptions;
use crate::policy::{Selector, resolve};

/// The flags of `retrylint simulate`.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// The description.
    #[arg(value_name = "SPEC")]
    spec: PathBuf,
    /// The retry policy; defaults to retry-policy.yaml beside the description.
    #[arg(short = 'p', long = "policy", value_name = "POLICY")]
    policy: Option<PathBuf>,
    /// Follow `$ref`s to files outside the root folder.
    #[arg(long)]
    allow_outside_refs: bool,
    /// The folder `$ref`s and discovered files may not leave [default: the enclosing git
    /// work tree, else the current folder].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Simulate the operations this selector matches (default: every retried operation).
    #[arg(long, value_name = "SELECTOR")]
    operation: Option<String>,
    /// The scenario written in a file (`scenario:` with the flags' names); flags win.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// How many calls the clients make, one each [default: 1000].
    #[arg(long, value_name = "N")]
    clients: Option<u32>,
    /// How the calls arrive: uniform:WINDOW (spread over a window) or poisson:RATE/s
    /// [default: uniform:60s].
    #[arg(long, value_name = "PROCESS")]
    arrival: Option<String>,
    /// Requests per second the server answers; beyond that it answers 503 [default: 200/s].
    #[arg(long, value_name = "RATE")]
    capacity: Option<String>,
    /// A fault window, SIGNAL@FROM..TO: 503@10s..40s, '429 retry-after=5s@0s..30s',
    /// connect-failure@…, timeout-before-processing@…, timeout-after-processing@…
    #[arg(long = "fault", value_name = "SIGNAL@FROM..TO")]
    faults: Vec<String>,
    /// The round trip of an answered request [default: 50ms].
    #[arg(long, value_name = "DURATION")]
    latency: Option<String>,
    /// The random seed: the same seed gives the same output [default: 1].
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Also run the policy with fields changed, side by side: jitter=none, maxAttempts=1,
    /// keyHeader=Idempotency-Key, deadline=10s, honorRetryAfter=false, …
    #[arg(long = "compare", value_name = "KEY=VALUE")]
    compare: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SimulateFormat::Text)]
    format: SimulateFormat,
    /// Write the output to a file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

/// What `simulate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimulateFormat {
    /// A summary table and load sparklines.
    Text,
    /// A versioned JSON document.
    Json,
    /// One self-contained page with an SVG chart of the load.
    Html,
}

/// Runs `retrylint simulate`; exit code 0, or the input errors (exit code 2).
pub fn run(args: SimulateArgs) -> Result<ExitCode, Vec<InputError>> {
    let mut errors = Vec::new();
    let file = match &args.scenario {
        Some(path) => ScenarioFile::load(path).map_err(|e| vec![e])?,
        None => ScenarioFile::default(),
    };
    let faults: Vec<String> = file.faults.iter().chain(&args.faults).cloned().collect();
    let compare: Vec<String> = file.compare.iter().chain(&args.compare).cloned().collect();
    let pick = |flag: &Option<String>, from_file: &Option<String>, default: &'static str| {
        flag.clone()
            .or_else(|| from_file.clone())
            .unwrap_or_else(|| default.to_string())
    };
    let arrival = pick(&args.arrival, &file.arrival, "uniform:60s");
    let capacity = pick(&args.capacity, &file.capacity, "200/s");
    let latency = pick(&args.latency, &file.latency, "50ms");
    let scenario = Scenario::from_flags(&ScenarioFlags {
        clients: args.clients.or(file.clients).unwrap_or(1_000),
        arrival: &arrival,
        capacity: &capacity,
        faults: &faults,
        latency: &latency,
        seed: args.seed.or(file.seed).unwrap_or(1),
    })
    .map_err(|mut e| errors.append(&mut e))
    .ok();
    let variants: Vec<Variant> = compare
        .iter()
        .filter_map(|text| Variant::parse(text).map_err(|e| errors.push(e)).ok())
        .collect();
    let selector = match &args.operation {
        Some(text) => Selector::parse(text)
            .map_err(|why| errors.push(InputError::new(format!("bad --operation `{text}`: {why}"))))
            .ok(),
        None => None,
    };
    let Some(scenario) = scenario.filter(|_| errors.is_empty()) else {
        return Err(errors);
    };
    let (targets, operations) =
        targets(&args, selector.as_ref(), args.operation.as_deref()).map_err(|e| vec![e])?;
    let outcomes = simulate(&scenario, &targets, &variants);
    let report = Report {
        scenario,
        operations,
        outcomes,
    };
    let text = match args.format {
        SimulateFormat::Text => output::text(&report),
        SimulateFormat::Json => output::json(&report),
        SimulateFormat::Html => html::render(&report),
    };
    crate::output::write::to_file_or_stdout(args.output.as_deref(), &text).map_err(|e| vec![e])?;
    Ok(ExitCode::SUCCESS)
}

/// The operations to simulate with their effective policies, and their headings.
fn targets(
    args: &SimulateArgs,
    selector: Option<&Selector>,
    selector_text: Option<&str>,
) -> Result<(Vec<Target>, Vec<String>), InputError> {
    let options = LoadOptions {
        allow_outside_refs: args.allow_outside_refs,
        root: args.root.clone(),
        ..LoadOptions::default()
    };
    let policy = match &args.policy {
        Some(path) => Some(load_policy(path, &options)?),
        None => match discover_policy(&args.spec, &options)? {
            Some(found) => Some(found.load(&options)?),
            None => None,
        },
    };
    let analysis = analyze(&args.spec, policy.as_ref(), &options)?;
    // Without a policy file, the description's own `x-retry-policy` still applies.
    let effective = if policy.is_some() {
        analysis.effective
    } else {
        resolve(&analysis.api, None, &analysis.sources)?.0
    };
    let mut targets = Vec::new();
    let mut headings = Vec::new();
    for (op, policy) in analysis.api.operations.iter().zip(effective) {
        let chosen = match selector {
            Some(s) => s.matches(op),
            None => policy.is_retried(),
        };
        if !chosen {
            continue;
        }
        if policy.max_attempts() > MAX_ATTEMPTS {
            return Err(InputError::new(format!(
                "{} makes up to {} attempts: simulate handles at most {MAX_ATTEMPTS}",
                op.key(),
                policy.max_attempts()
            ))
            .with_help("simulate it with --compare maxAttempts=N"));
        }
        let b = crate::plan::schedule::backoff_of(&policy);
        if b.cap_ms < b.base_ms || b.multiplier < 1.0 {
            eprintln!(
                "note: {}: backoff.cap is below backoff.base or backoff.multiplier below 1: \
                 every retry stops with invalid-delay (see invalid-backoff)",
                op.key().escape_debug()
            );
        }
        headings.push(match &op.operation_id {
            Some(id) => format!("{} ({id})", op.key()),
            None => op.key(),
        });
        targets.push(Target {
            operation: op.key(),
            policy,
        });
    }
    if targets.is_empty() {
        return Err(match selector_text {
            Some(text) => {
                let keys: Vec<String> = analysis.api.operations.iter().map(|o| o.key()).collect();
                let ids = analysis
                    .api
                    .operations
                    .iter()
                    .filter_map(|o| o.operation_id.as_deref());
                let error = InputError::new(format!("--operation `{text}` matches no operation"));
                match crate::error::did_you_mean(text, keys.iter().map(String::as_str).chain(ids)) {
                    Some(near) => error.with_help(format!("did you mean `{near}`?")),
                    None => error.with_help("`retrylint plan` lists the operations"),
                }
            }
            None => {
                InputError::new("the policy retries no operation: there is nothing to simulate")
                    .with_help(
                        "name one with --operation SELECTOR, as in --operation \"POST /orders\"",
                    )
            }
        });
    }
    Ok((targets, headings))
}
