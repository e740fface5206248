//! `retrylint diff BASE HEAD`: what a change does to the retry contract, for review.

use std::path::PathBuf;

use clap::Args;

use super::compare::{
    DiffFormat, DiffOutput, check_options, note, policy, show, side, source_links_unused,
};
use super::sides::{self, DescriptionRoots, SidePaths};
use super::{InputArgs, Outcome};
use crate::analysis::check::load_given;
use crate::rendering::diff::Diff;

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The description before the change.
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// The description after the change.
    #[arg(value_name = "HEAD")]
    head: PathBuf,
    /// The base's policy and layer files (repeatable), read instead of the counterparts
    /// of the `-p` paths. Without it, the base reads each `-p` path at the same place
    /// under its own folder (`-p new/mesh` is `old/mesh` for `old/openapi.yaml` and
    /// `new/openapi.yaml`); a path the base has no counterpart of is absent there, and a
    /// note says so.
    #[arg(long, value_name = "POLICY")]
    base_policy: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    output: DiffOutput,
}

pub(crate) fn run(args: DiffArgs) -> Outcome {
    let output = &args.output;
    source_links_unused(
        output.source_links.is_some(),
        output.format == DiffFormat::Markdown,
        output.quiet,
    );
    let load = args.input.load_options();
    // Each side reads its own files: --base-policy's, else each -p path's counterpart
    // under the base description's folder.
    let roots = DescriptionRoots::of(&args.base, &args.head).map_err(|e| vec![e])?;
    let sides = if args.base_policy.is_empty() {
        sides::split(&args.input.policy, "", |path| Ok(roots.counterpart(path)))
            .map_err(|e| vec![e])?
    } else {
        SidePaths {
            head: args.input.policy.clone(),
            base: args.base_policy.clone(),
            notes: Vec::new(),
        }
    };
    note(&sides.notes, args.output.quiet);
    let head_given = load_given(&sides.head, &load).map_err(|e| vec![e])?;
    let options = check_options(&args.input, &load, head_given.layer_files);
    let head_policy = policy(head_given.policy, &args.head, &options)?;
    let base_given = load_given(&sides.base, &load).map_err(|e| vec![e])?;
    let mut base_options = options.clone();
    base_options.layers.files = base_given.layer_files;
    let base_policy = policy(base_given.policy, &args.base, &base_options)?;
    let (base_root, head_root) = roots.resolved();
    let base = side(&args.base, base_policy, &base_options, None, base_root)?;
    let head = side(&args.head, head_policy, &options, None, head_root)?;
    let mut diff = Diff::new(base, head);
    diff.notes = sides.notes;
    show(diff, &args.output)
}
