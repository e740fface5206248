//! `retrylint report`: the per-operation readiness report.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::InputArgs;
use super::{Outcome, write_output};
use crate::analysis::check::{CheckOptions, check_analysis};
use crate::rendering::report;

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The description.
    #[arg(value_name = "SPEC")]
    spec: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    /// Report format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
    format: ReportFormat,
    /// Write the report to a file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ReportFormat {
    /// For a pull-request comment.
    Markdown,
    /// One self-contained page.
    Html,
    /// For other tools.
    Json,
}

pub(crate) fn run(args: ReportArgs) -> Outcome {
    let (policy_path, policy, layers) = args.input.policy_for(&args.spec).map_err(|e| vec![e])?;
    let options = CheckOptions {
        load: args.input.load_options(),
        layers,
        ..CheckOptions::default()
    };
    let checked = check_analysis(&args.spec, policy.as_ref(), &options).map_err(|e| vec![e])?;
    let report = report::build(
        &checked,
        policy_path.as_deref().map(crate::input::source::path_text),
    );
    let text = match args.format {
        ReportFormat::Markdown => report::markdown::render(&report),
        ReportFormat::Html => report::html::render(&report),
        ReportFormat::Json => report::json(&report),
    };
    write_output(args.output.as_deref(), &text).map_err(|e| vec![e])?;
    Ok(ExitCode::SUCCESS)
}
