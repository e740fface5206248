//! `retrylint init`: a starting policy for a description, and for the layers in front of it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{Outcome, write_output};
use crate::analysis::check::{LayerInputs, analyze_layers, load_given};
use crate::error::InputError;
use crate::input::load::LoadOptions;

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The description.
    #[arg(value_name = "SPEC")]
    spec: PathBuf,
    /// Write the policy to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
    /// Follow `$ref`s to files outside the root folder.
    #[arg(long)]
    allow_outside_refs: bool,
    /// The folder `$ref`s may not leave [default: the enclosing git work tree, else the
    /// current folder].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Retry settings of proxies, gateways and meshes in front of the service (files or
    /// folders; repeatable): the client's attempts leave room for theirs.
    #[arg(
        short = 'p',
        long = "policy",
        visible_alias = "layers",
        value_name = "FILE"
    )]
    layers: Vec<PathBuf>,
    /// A host name the service answers to in the mesh or gateway (repeatable); written to
    /// `service.hosts`.
    #[arg(long = "host", value_name = "NAME")]
    hosts: Vec<String>,
    /// A header that carries idempotency keys, besides `Idempotency-Key` and the known
    /// vendor names (repeatable); written to `lint.keyHeaders`.
    #[arg(long = "key-header", value_name = "NAME")]
    key_headers: Vec<String>,
}

pub(crate) fn run(args: InitArgs) -> Outcome {
    if let Some(path) = &args.output
        && path.exists()
        && !args.force
    {
        return Err(vec![
            InputError::new(format!(
                "`{}` already exists",
                crate::input::source::path_text(path)
            ))
            .with_help("pass --force to overwrite it"),
        ]);
    }
    let options = LoadOptions {
        allow_outside_refs: args.allow_outside_refs,
        root: args.root.clone(),
        ..LoadOptions::default()
    };
    let given = load_given(&args.layers, &options).map_err(|e| vec![e])?;
    if let Some((path, _)) = &given.policy {
        return Err(vec![
            InputError::new(format!(
                "`{}` is a retrylint policy: init writes one",
                crate::input::source::path_text(path)
            ))
            .with_help("give init only mesh, gateway or proxy files with -p"),
        ]);
    }
    let inputs = LayerInputs {
        files: given.layer_files,
        hosts: args.hosts.clone(),
    };
    let analysis = analyze_layers(&args.spec, None, &inputs, &options).map_err(|e| vec![e])?;
    let name = analysis.sources[analysis.api.root_file].name();
    let seen = crate::analysis::init::LayersSeen {
        bound: &analysis.layers,
        hosts: &args.hosts,
    };
    let layered = !analysis.layers.is_empty() || !args.hosts.is_empty();
    // `--key-header` names count as keys in the contract the policy is chosen from.
    let keys = crate::analysis::contract::KeyHeaders::new(args.key_headers.iter().cloned());
    let contracts = crate::analysis::contract::derive(&analysis.api, &keys);
    let text = crate::analysis::init::starting_policy_with(
        &analysis.api,
        &contracts,
        &name,
        layered.then_some(&seen),
        &args.key_headers,
    );
    write_output(args.output.as_deref(), &text).map_err(|e| vec![e])?;
    Ok(ExitCode::SUCCESS)
}
