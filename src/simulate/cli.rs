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
    /// Follow `$ref`s to files outside the root description's folder.
    #[arg(long)]
    allow_outside_refs: bool,
    /// Simulate the operations this selector matches (default: every retried operation).
    #[arg(long, value_name = "SELECTOR")]
    operation: Option<String>,
    /// How many calls the clients make, one each.
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    clients: u32,
    /// How the calls arrive: uniform:WINDOW (spread over a window) or poisson:RATE/s.
    #[arg(long, value_name = "PROCESS", default_value = "uniform:60s")]
    arrival: String,
    /// Requests per second the server answers; beyond that it answers 503.
    #[arg(long, value_name = "RATE", default_value = "200/s")]
    capacity: String,
    /// A fault window, SIGNAL@FROM..TO: 503@10s..40s, '429 retry-after=5s@0s..30s',
    /// connect-failure@…, timeout-before-processing@…, timeout-after-processing@…
    #[arg(long = "fault", value_name = "SIGNAL@FROM..TO")]
    faults: Vec<String>,
    /// The round trip of an answered request.
    #[arg(long, value_name = "DURATION", default_value = "50ms")]
    latency: String,
    /// The random seed: the same seed gives the same output.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
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
    let scenario = Scenario::from_flags(&ScenarioFlags {
        clients: args.clients,
        arrival: &args.arrival,
        capacity: &args.capacity,
        faults: &args.faults,
        latency: &args.latency,
        seed: args.seed,
    })
    .map_err(|mut e| errors.append(&mut e))
    .ok();
    let variants: Vec<Variant> = args
        .compare
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
    crate::cli::write_output(args.output.as_deref(), &text).map_err(|e| vec![e])?;
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
        ..LoadOptions::default()
    };
    let policy_path = args.policy.clone().or_else(|| discover_policy(&args.spec));
    let policy = match &policy_path {
        Some(path) => Some(load_policy(path, &options)?),
        None => None,
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
