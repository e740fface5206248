//! `retrylint check SPEC... --base REF`: each description against itself at a git
//! revision, whose files are read with git as they are needed (see [`Revision`]).
//!
//! Each side reads its own files: the base reads every `-p` path as it was at the
//! revision (or `--base-policy`'s files instead), and its policy is the one beside the
//! description there when `-p` names none. A `-p` path only one side has is absent on
//! the other, said in a note ([`sides`](super::sides)).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use super::compare::{DiffFormat, DiffOutput, check_options, note, policy, rendered, side};
use super::sides::{self, Counterpart, SidePaths};
use super::{InputArgs, Outcome, write_output};
use crate::analysis::check::load_given;
use crate::error::InputError;
use crate::input::load::revision::{Revision, RevisionLimits};
use crate::rendering::diff::Diff;

/// Compares each of `specs` with `revision`; `base_policy`, when it names files, is what
/// the base reads instead of the `-p` paths at the revision.
pub(super) fn against_revision(
    specs: &[PathBuf],
    revision: &str,
    base_policy: &[PathBuf],
    input: &InputArgs,
    output: &DiffOutput,
) -> Outcome {
    let load = input.load_options();
    // Folders and globs name the head's descriptions; each is looked for at the revision.
    let specs =
        crate::input::load::discover::descriptions(specs, false, &load).map_err(|e| vec![e])?;
    if specs.len() > 1 && matches!(output.format, DiffFormat::Json | DiffFormat::Sarif) {
        return Err(vec![
            InputError::new("--base with json or sarif output compares one description at a time")
                .with_help("run once per description, or use --format human, markdown or github"),
        ]);
    }
    // Git runs on the repository around the trusted root, never on one found near a
    // description: a change can plant a folder that git would take for a repository.
    let trusted = load.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let revision = Arc::new(
        Revision::open(
            &trusted,
            revision,
            RevisionLimits {
                max_file_size: load.max_file_size,
                max_files: load.max_files,
                max_total_bytes: load.max_total_bytes,
            },
        )
        .map_err(|e| vec![e])?,
    );
    let mut base_load = load.clone();
    base_load.root = Some(revision.dir.clone());
    base_load.revision = Some(revision.clone());
    let rename = (
        crate::input::source::path_text(&revision.dir),
        format!("{}:", revision.revision),
    );
    let at_revision = |e| crate::rendering::diff::renamed_error(e, &rename);
    let sides = if base_policy.is_empty() {
        sides::split(&input.policy, " in the work tree", |path| {
            counterpart_at(&revision, &base_load, path).map_err(at_revision)
        })
        .map_err(|e| vec![e])?
    } else {
        SidePaths {
            head: input.policy.clone(),
            base: base_policy.to_vec(),
            notes: Vec::new(),
        }
    };
    note(&sides.notes, output.quiet);
    let head_given = load_given(&sides.head, &load).map_err(|e| vec![e])?;
    let options = check_options(input, &load, head_given.layer_files);
    // --base-policy's files are read from the work tree, as `diff` reads them.
    let base_given = if base_policy.is_empty() {
        load_given(&sides.base, &base_load).map_err(|e| vec![at_revision(e)])?
    } else {
        load_given(&sides.base, &load).map_err(|e| vec![e])?
    };
    let mut base_options = options.clone();
    base_options.load = base_load;
    base_options.layers.files = base_given.layer_files;
    let mut failed = false;
    let mut texts = Vec::new();
    for spec in &specs {
        let head_policy = policy(head_given.policy.clone(), spec, &options)?;
        let base_spec = revision.path_of(spec).map_err(|e| vec![e])?;
        base_options
            .load
            .prepare(&base_spec, false)
            .map_err(|e| vec![at_revision(e)])?;
        let mut notes = sides.notes.clone();
        if !base_spec.is_file() {
            // New since the revision: compared with an empty description, every
            // operation is added (and every unprotected write a regression).
            let text = format!(
                "`{}` does not exist at {}: every operation is new",
                crate::input::source::path_text(spec),
                revision.revision
            );
            note(std::slice::from_ref(&text), output.quiet);
            notes.push(text);
            write_empty_description(&base_spec).map_err(|e| vec![e])?;
        }
        let base_policy = policy(base_given.policy.clone(), &base_spec, &base_options)
            .map_err(|errors| errors.into_iter().map(at_revision).collect::<Vec<_>>())?;
        let base = side(
            &base_spec,
            base_policy,
            &base_options,
            Some(rename.clone()),
            None,
        )?;
        let head = side(spec, head_policy, &options, None, None)?;
        let mut diff = Diff::new(base, head);
        diff.notes = notes;
        failed |= diff.fails(output.fail_on);
        texts.push(rendered(&diff, output));
    }
    let mut text = texts.join("\n");
    if output.format == DiffFormat::Markdown {
        text.insert_str(0, crate::rendering::output::markdown::COMMENT_MARKER);
    }
    write_output(output.output.as_deref(), &text).map_err(|e| vec![e])?;
    Ok(ExitCode::from(u8::from(failed)))
}

/// A `-p` path as it was at the revision: written out of git when it was there.
fn counterpart_at(
    revision: &Revision,
    load: &crate::input::load::LoadOptions,
    path: &Path,
) -> Result<Counterpart, InputError> {
    let Ok(base) = revision.path_of(path) else {
        return Ok(Counterpart::Outside("the git repository".to_string()));
    };
    load.prepare(&base, true)?;
    Ok(if std::fs::metadata(&base).is_ok() {
        Counterpart::Present {
            path: base,
            shown: format!("it at {}", revision.revision),
        }
    } else {
        Counterpart::Absent(format!("does not exist at {}", revision.revision))
    })
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
