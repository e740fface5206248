//! What the files a hook hands over (`check --skip-non-descriptions`) ask to be checked.
//!
//! A pre-commit hook passes every changed YAML and JSON file. A description is checked as
//! it is. A change to anything else that a check reads must check the descriptions it
//! applies to, or a commit that only loosens a policy passes unchecked:
//!
//! - a retry policy (named `retry-policy.yaml` or `retry-policy.yml`, or shaped like one)
//!   applies to the descriptions that read it: the ones beside it, when it has a name a
//!   policy beside a description is found by and `-p` names no policy; every description
//!   of the repository when it is the policy `-p` names. A policy nothing reads is said
//!   to be so, and checks nothing (the policy format names no description);
//! - a layer file (a proxy's, gateway's or mesh's retry settings, as `-p` reads them)
//!   applies to every description of the repository: those a search of the repository's
//!   folder finds, as `check DIR` finds them, each checked with the layer as if given with
//!   `-p`, but only where it serves the description's hosts (its servers, the policy's
//!   `service.hosts`, `--host`): a mesh file of one service is not reported as serving
//!   nothing for every other service's description. A layer file that serves none of them
//!   is said to be so after the run. The repository's folder is `--root`, else the git
//!   work tree around the current folder, else the current folder;
//! - any other file is skipped, as before.
//!
//! Each choice is said in a note on standard error, with the files it checks.

use std::path::{Path, PathBuf};

use foldhash::{HashSet, HashSetExt};

use crate::analysis::check::{GivenPolicies, POLICY_FILE_NAMES};
use crate::analysis::layers::detect::{HandedOver, LayerFile, handed_over};
use crate::error::InputError;
use crate::escape::terminal;
use crate::input::load::LoadOptions;
use crate::input::load::discover::{self, STDIN};
use crate::input::source::path_text;

/// What to check for the files handed over.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// The descriptions to check, each once, in the order the files were handed over.
    pub descriptions: Vec<PathBuf>,
    /// Changed layer files to apply to every description, besides those of `-p`.
    pub layer_files: Vec<LayerFile>,
    /// What was chosen and why, one sentence each.
    pub notes: Vec<String>,
}

/// Works out what the files `arguments` ask to check; `given` is what `-p` named.
pub(super) fn plan(
    arguments: &[PathBuf],
    given: &GivenPolicies,
    options: &LoadOptions,
) -> Result<Plan, InputError> {
    let mut plan = Plan {
        descriptions: discover::descriptions(arguments, true, options)?,
        ..Plan::default()
    };
    let named: HashSet<PathBuf> = plan.descriptions.iter().cloned().collect();
    let given_policy = given
        .policy
        .as_ref()
        .map(|(path, _)| (path, std::fs::canonicalize(path).ok()));
    let given_layers: HashSet<PathBuf> = given
        .layer_files
        .iter()
        .filter_map(|f| f.file.canonical.clone())
        .collect();
    // Why every description of the repository is checked, when something asks for it.
    let mut repository_wide: Vec<String> = Vec::new();
    let mut changed_layers: Vec<String> = Vec::new();
    for argument in arguments {
        if argument.as_os_str() == STDIN || !argument.is_file() || named.contains(argument) {
            continue;
        }
        let shown = terminal(&path_text(argument)).into_owned();
        let canonical = std::fs::canonicalize(argument).ok();
        match handed_over(argument, options)? {
            HandedOver::Policy => match &given_policy {
                Some((_, Some(read))) if canonical.as_ref() == Some(read) => {
                    repository_wide.push(format!("{shown} changed, the policy -p names"));
                }
                Some((read, _)) => plan.notes.push(format!(
                    "{shown} changed, but -p names the policy `{}`: no description reads it here, nothing checked for it",
                    terminal(&path_text(read))
                )),
                None if is_discovery_name(argument) => {
                    let folder = folder_of(argument);
                    let beside = discover::under(&folder, Some(1), options)?;
                    plan.notes.push(if beside.is_empty() {
                        format!("{shown} changed: no description beside it reads it, nothing checked for it")
                    } else {
                        format!("{shown} changed: checking {} beside it", list(&beside))
                    });
                    plan.descriptions.extend(beside);
                }
                None => plan.notes.push(format!(
                    "{shown} changed: a retry policy no description reads (only {} beside a description is read without -p), nothing checked for it",
                    POLICY_FILE_NAMES.join(" or ")
                )),
            },
            HandedOver::Layers(file) => {
                changed_layers.push(shown);
                // A file `-p` names already applies to every description checked.
                if !canonical.is_some_and(|c| given_layers.contains(&c)) {
                    plan.layer_files.push(file);
                }
            }
            HandedOver::Other => {}
        }
    }
    if !changed_layers.is_empty() {
        repository_wide.push(format!(
            "{} changed, retry settings of a proxy, gateway or mesh",
            changed_layers.join(", ")
        ));
    }
    if !repository_wide.is_empty() {
        let folder = repository(options)?;
        let found = discover::under(&folder, None, options)?;
        let shown = terminal(&path_text(&folder)).into_owned();
        let why = repository_wide.join("; ");
        plan.notes.push(if found.is_empty() {
            format!("{why}: no description under `{shown}`, nothing checked for it")
        } else {
            format!(
                "{why}: checking every description under `{shown}` ({}), each layer where it serves the description's hosts",
                list(&found)
            )
        });
        plan.descriptions.extend(found);
    }
    let mut seen = HashSet::new();
    plan.descriptions
        .retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    Ok(plan)
}

/// Whether a policy beside a description is found under this name.
fn is_discovery_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| POLICY_FILE_NAMES.contains(&n))
}

/// The folder a file lies in, `.` for a bare name.
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The repository's folder, named relative to the current folder when inside it: `--root`,
/// else the git work tree around the current folder, else the current folder.
fn repository(options: &LoadOptions) -> Result<PathBuf, InputError> {
    let root = crate::input::load::root_for_stdin(options.root.as_deref())?;
    let current = std::env::current_dir().and_then(std::fs::canonicalize);
    Ok(
        match current.ok().and_then(|c| root.dir.strip_prefix(c).ok()) {
            Some(inside) if inside.as_os_str().is_empty() => PathBuf::from("."),
            Some(inside) => inside.to_path_buf(),
            None => root.dir.clone(),
        },
    )
}

/// The notes for the changed layer files of `plan` that served no description checked,
/// once the check has run.
pub(super) fn unserved_notes(layer_files: &[LayerFile]) -> Vec<String> {
    layer_files
        .iter()
        .filter(|f| {
            f.served
                .as_ref()
                .is_some_and(|s| !s.load(std::sync::atomic::Ordering::Relaxed))
        })
        .map(|f| {
            format!(
                "{} serves none of the descriptions checked (by their servers, the policy's service.hosts and --host): its retries were not checked",
                terminal(&f.file.name())
            )
        })
        .collect()
}

/// `a.yaml, b.yaml and c.yaml`, or the first three and how many more.
fn list(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| path_text(p)).collect();
    names_list(&names)
}

/// Names for a sentence: all of them up to three, else the first three and how many more.
fn names_list(names: &[String]) -> String {
    const SHOWN: usize = 3;
    let escaped: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|n| terminal(n).into_owned())
        .collect();
    match (escaped.split_last(), names.len()) {
        (None, _) => String::new(),
        (Some((last, [])), _) => last.clone(),
        (Some((last, rest)), total) if total <= SHOWN => format!("{} and {last}", rest.join(", ")),
        (Some(_), total) => format!("{} and {} more", escaped.join(", "), total - SHOWN),
    }
}
