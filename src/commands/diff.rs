//! `retrylint diff BASE HEAD`, and `retrylint check --base REF`: what a change does to
//! the retry contract, for review.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{InputArgs, Outcome, write_output};
use crate::check::{
    CheckOptions, LayerInputs, LoadedPolicy, check_analysis, discover_policy, load_given,
};
use crate::diff::{Diff, Side, render};
use crate::error::InputError;
use crate::load::revision::{Revision, RevisionLimits};
use crate::output::FailOn;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The description before the change.
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// The description after the change.
    #[arg(value_name = "HEAD")]
    head: PathBuf,
    /// The base's policy and layer files (repeatable); without it, the base's policy is
    /// the one beside it and its layers are those `-p` names.
    #[arg(long, value_name = "POLICY")]
    base_policy: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    output: DiffOutput,
}

/// How a diff is shown and when it fails.
#[derive(Debug, Args)]
pub struct DiffOutput {
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// Write the output to a file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Besides any regression, exit with 1 when a new finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// No notes on standard error.
    #[arg(short, long)]
    pub quiet: bool,
}

/// The formats of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// Changes per operation, then new and fixed findings (also `human`).
    #[value(alias = "human")]
    Text,
    /// A versioned JSON document.
    Json,
    /// A pull-request comment.
    Markdown,
    /// GitHub Actions annotations on the head's files.
    Github,
    /// SARIF of the new findings only.
    Sarif,
}

pub fn run(args: DiffArgs) -> Outcome {
    let load = args.input.load_options();
    let head_given = load_given(&args.input.policy, &load).map_err(|e| vec![e])?;
    let options = check_options(&args.input, &load, head_given.layer_files);
    let head_policy = policy(head_given.policy, &args.head, &options)?;
    // The base's layers are --base-policy's when it names any, else the head's.
    let mut base_options = options.clone();
    let mut base_given = None;
    if !args.base_policy.is_empty() {
        let given = load_given(&args.base_policy, &load).map_err(|e| vec![e])?;
        base_options.layers.files = given.layer_files;
        base_given = given.policy;
    }
    let base_policy = policy(base_given, &args.base, &base_options)?;
    let base = side(&args.base, base_policy, &base_options, None)?;
    let head = side(&args.head, head_policy, &options, None)?;
    show(Diff::new(base, head), &args.output)
}

/// The options of a check, with the layer files `-p` named.
fn check_options(
    input: &InputArgs,
    load: &crate::load::LoadOptions,
    layer_files: Vec<crate::layers::detect::LayerFile>,
) -> CheckOptions {
    CheckOptions {
        load: load.clone(),
        select: Vec::new(),
        ignore: Vec::new(),
        layers: LayerInputs {
            files: layer_files,
            hosts: input.hosts.clone(),
        },
    }
}

/// The policy `-p` gave (read once), or else the one beside `description`.
fn policy(
    given: Option<(PathBuf, LoadedPolicy)>,
    description: &Path,
    options: &CheckOptions,
) -> Result<Option<(String, LoadedPolicy)>, Vec<InputError>> {
    if let Some((path, policy)) = given {
        return Ok(Some((crate::source::path_text(&path), policy)));
    }
    match discover_policy(description, &options.load).map_err(|e| vec![e])? {
        Some(found) => {
            let policy = found.load(&options.load).map_err(|e| vec![e])?;
            Ok(Some((crate::source::path_text(&found.path), policy)))
        }
        None => Ok(None),
    }
}

/// Checks one version.
fn side(
    path: &Path,
    policy: Option<(String, LoadedPolicy)>,
    options: &CheckOptions,
    rename: Option<(String, String)>,
) -> Result<Side, Vec<InputError>> {
    let (name, loaded) = match policy {
        Some((name, loaded)) => (Some(name), Some(loaded)),
        None => (None, None),
    };
    let checked = check_analysis(path, loaded.as_ref(), options).map_err(|e| {
        vec![match &rename {
            Some(rename) => crate::diff::renamed_error(e, rename),
            None => e,
        }]
    })?;
    Ok(Side {
        checked,
        name: crate::diff::renamed(crate::source::path_text(path), rename.as_ref()),
        policy: name.map(|n| crate::diff::renamed(n, rename.as_ref())),
        rename,
    })
}

/// Renders a diff and says how it ends.
fn show(diff: Diff, output: &DiffOutput) -> Outcome {
    let text = rendered(&diff, output);
    write_output(output.output.as_deref(), &text).map_err(|e| vec![e])?;
    Ok(ExitCode::from(u8::from(diff.fails(output.fail_on))))
}

fn rendered(diff: &Diff, output: &DiffOutput) -> String {
    match output.format {
        DiffFormat::Text => render::text(diff),
        DiffFormat::Json => render::json::render(diff),
        DiffFormat::Markdown => render::markdown::render(diff),
        DiffFormat::Github => render::github(diff, output.fail_on),
        DiffFormat::Sarif => crate::output::sarif::render(&[render::new_findings(diff)], None).text,
    }
}

/// `check SPEC... --base REF`: each description against itself at a git revision, whose
/// files are read with git as they are needed (see [`Revision`]); the base's policy is
/// the one beside it there (or `-p`'s file as it was at that revision).
pub fn against_revision(
    specs: &[PathBuf],
    revision: &str,
    input: &InputArgs,
    output: &DiffOutput,
) -> Outcome {
    let load = input.load_options();
    let head_given = load_given(&input.policy, &load).map_err(|e| vec![e])?;
    let options = check_options(input, &load, head_given.layer_files);
    // Folders and globs name the head's descriptions; each is looked for at the revision.
    let specs = crate::load::discover::descriptions(specs, false, &load).map_err(|e| vec![e])?;
    let specs = &specs;
    // Git runs on the repository around the trusted root, never on one found near a
    // description: a change can plant a folder that git would take for a repository.
    let trusted = load.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let revision = Revision::open(
        &trusted,
        revision,
        RevisionLimits {
            max_file_size: load.max_file_size,
            max_files: load.max_files,
            max_total_bytes: load.max_total_bytes,
        },
    )
    .map_err(|e| vec![e])?;
    let revision = std::sync::Arc::new(revision);
    let mut base_options = options.clone();
    base_options.load.root = Some(revision.dir.clone());
    base_options.load.revision = Some(revision.clone());
    let rename = (
        crate::source::path_text(&revision.dir),
        format!("{}:", revision.revision),
    );
    let at_revision = |e| vec![crate::diff::renamed_error(e, &rename)];
    // `-p`'s files as they were at the revision.
    let base_policy_paths: Vec<PathBuf> = input
        .policy
        .iter()
        .map(|p| revision.path_of(p))
        .collect::<Result<_, _>>()
        .map_err(|e| vec![e])?;
    let base_given = load_given(&base_policy_paths, &base_options.load).map_err(at_revision)?;
    base_options.layers.files = base_given.layer_files;
    if specs.len() > 1 && matches!(output.format, DiffFormat::Json | DiffFormat::Sarif) {
        return Err(vec![
            InputError::new("--base with json or sarif output compares one description at a time")
                .with_help("run once per description, or use --format human, markdown or github"),
        ]);
    }
    let mut failed = false;
    let mut texts = Vec::new();
    for spec in specs {
        let head_policy = policy(head_given.policy.clone(), spec, &options)?;
        let base_spec = revision.path_of(spec).map_err(|e| vec![e])?;
        base_options
            .load
            .prepare(&base_spec, false)
            .map_err(at_revision)?;
        if !base_spec.is_file() {
            // New since the revision: compared with an empty description, every
            // operation is added (and every unprotected write a regression).
            if !output.quiet {
                eprintln!(
                    "note: `{}` does not exist at {}: every operation is new",
                    crate::output::escape::terminal(&crate::source::path_text(spec)),
                    crate::output::escape::terminal(&revision.revision)
                );
            }
            write_empty_description(&base_spec).map_err(|e| vec![e])?;
        }
        let base_policy =
            policy(base_given.policy.clone(), &base_spec, &base_options).map_err(|errors| {
                errors
                    .into_iter()
                    .map(|e| crate::diff::renamed_error(e, &rename))
                    .collect::<Vec<_>>()
            })?;
        let base = side(&base_spec, base_policy, &base_options, Some(rename.clone()))?;
        let head = side(spec, head_policy, &options, None)?;
        let diff = Diff::new(base, head);
        failed |= diff.fails(output.fail_on);
        texts.push(rendered(&diff, output));
    }
    write_output(output.output.as_deref(), &texts.join("\n")).map_err(|e| vec![e])?;
    Ok(ExitCode::from(u8::from(failed)))
}

/// An OpenAPI description with no operation, standing for one that did not exist.
fn write_empty_description(path: &Path) -> Result<(), InputError> {
    let fail = |e: std::io::Error| InputError::new(format!("cannot write the empty base: {e}"));
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    std::fs::write(
        path,
        "openapi: 3.0.3\ninfo: {title: none, version: none}\npaths: {}\n",
    )
    .map_err(fail)
}
