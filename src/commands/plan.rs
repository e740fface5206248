//! `retrylint plan`: each operation's worst-case schedule, per layer.

use std::path::PathBuf;

use clap::Args;

use super::InputArgs;
use super::{Outcome, print};
use crate::analysis::check::analyze_layers;
use crate::error::InputError;
use crate::input::policy::Selector;
use crate::rendering::output::plan;

#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    /// The description.
    #[arg(value_name = "SPEC")]
    spec: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    /// Only operations this selector matches (`POST /orders`, an operationId, `tag:NAME`, a glob).
    #[arg(long, value_name = "SELECTOR")]
    operation: Option<String>,
}

pub(crate) fn run(args: PlanArgs) -> Outcome {
    let options = args.input.load_options();
    let only = match &args.operation {
        Some(text) => Some(
            Selector::parse(text)
                .map_err(|why| vec![InputError::new(format!("bad --operation `{text}`: {why}"))])?,
        ),
        None => None,
    };
    let (_, policy, layers) = args.input.policy_for(&args.spec).map_err(|e| vec![e])?;
    let analysis =
        analyze_layers(&args.spec, policy.as_ref(), &layers, &options).map_err(|e| vec![e])?;
    print(&plan::render(&analysis, only.as_ref()))
}
