//! Comparing two versions of a description, shared by `retrylint diff BASE HEAD` and
//! `retrylint check --base REF`: each side checked with its own policy and layer files,
//! and the difference rendered in the format asked for.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{InputArgs, Outcome, write_output};
use crate::analysis::check::{
    CheckOptions, LayerInputs, LoadedPolicy, check_analysis, discover_policy,
};
use crate::error::InputError;
use crate::rendering::diff::{Diff, Side, render};
use crate::rendering::output::FailOn;
use crate::rendering::output::source_links::SourceLinks;

/// How a diff is shown and when it fails.
#[derive(Debug, Args)]
pub(crate) struct DiffOutput {
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
    /// In markdown output, link each place in the head to its file and line under this
    /// URL (`URL/<path>#L<line>`), such as https://github.com/OWNER/REPO/blob/SHA; paths
    /// are as shown, relative to the current folder.
    #[arg(long, value_name = "URL", value_parser = SourceLinks::parse)]
    pub source_links: Option<SourceLinks>,
}

/// The formats of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFormat {
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

/// Says that `--source-links` was given for a format it does not apply to.
pub(super) fn source_links_unused(given: bool, markdown: bool, quiet: bool) {
    if given && !markdown && !quiet {
        eprintln!("note: --source-links applies to markdown output only");
    }
}

/// Notes on standard error, unless `--quiet`.
pub(super) fn note(notes: &[String], quiet: bool) {
    if quiet {
        return;
    }
    for text in notes {
        eprintln!("note: {}", crate::escape::terminal(text));
    }
}

/// The options of a check, with the layer files `-p` named.
pub(super) fn check_options(
    input: &InputArgs,
    load: &crate::input::load::LoadOptions,
    layer_files: Vec<crate::analysis::layers::detect::LayerFile>,
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
pub(super) fn policy(
    given: Option<(PathBuf, LoadedPolicy)>,
    description: &Path,
    options: &CheckOptions,
) -> Result<Option<(String, LoadedPolicy)>, Vec<InputError>> {
    if let Some((path, policy)) = given {
        return Ok(Some((crate::input::source::path_text(&path), policy)));
    }
    match discover_policy(description, &options.load).map_err(|e| vec![e])? {
        Some(found) => {
            let policy = found.load(&options.load).map_err(|e| vec![e])?;
            Ok(Some((crate::input::source::path_text(&found.path), policy)))
        }
        None => Ok(None),
    }
}

/// Checks one version.
pub(super) fn side(
    path: &Path,
    policy: Option<(String, LoadedPolicy)>,
    options: &CheckOptions,
    rename: Option<(String, String)>,
    root: Option<PathBuf>,
) -> Result<Side, Vec<InputError>> {
    let (name, loaded) = match policy {
        Some((name, loaded)) => (Some(name), Some(loaded)),
        None => (None, None),
    };
    let checked = check_analysis(path, loaded.as_ref(), options).map_err(|e| {
        vec![match &rename {
            Some(rename) => crate::rendering::diff::renamed_error(e, rename),
            None => e,
        }]
    })?;
    Ok(Side {
        checked,
        name: crate::rendering::diff::renamed(
            crate::input::source::path_text(path),
            rename.as_ref(),
        ),
        policy: name.map(|n| crate::rendering::diff::renamed(n, rename.as_ref())),
        rename,
        root,
    })
}

/// Renders a diff and says how it ends.
pub(super) fn show(diff: Diff, output: &DiffOutput) -> Outcome {
    let mut text = rendered(&diff, output);
    if output.format == DiffFormat::Markdown {
        text.insert_str(0, crate::rendering::output::markdown::COMMENT_MARKER);
    }
    write_output(output.output.as_deref(), &text).map_err(|e| vec![e])?;
    Ok(ExitCode::from(u8::from(diff.fails(output.fail_on))))
}

pub(super) fn rendered(diff: &Diff, output: &DiffOutput) -> String {
    match output.format {
        DiffFormat::Text => render::text(diff),
        DiffFormat::Json => render::json::render(diff),
        DiffFormat::Markdown => render::markdown::render(diff, output.source_links.as_ref()),
        DiffFormat::Github => render::github(diff, output.fail_on),
        DiffFormat::Sarif => {
            crate::rendering::output::sarif::render(&[render::new_findings(diff)], None).text
        }
    }
}
