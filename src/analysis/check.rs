//! `check`: one description (or several, in parallel) from files to findings.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::analysis::contract::{self, Contract, KeyHeaders};
use crate::analysis::layers::Layer;
use crate::analysis::layers::bind::Service;
use crate::analysis::layers::chain::{Bound, LayerHop};
use crate::analysis::layers::detect::{Detected, LayerFile};
use crate::analysis::layers::settings::LayerSettings;
use crate::analysis::rules::finding::CheckResult;
use crate::analysis::rules::finding::{Finding, OperationRef};
use crate::analysis::rules::{self, RuleLevels, RunContext};
use crate::analysis::suppress::Suppressions;
use crate::error::InputError;
use crate::input::load::{LoadOptions, Loader, Sources, io_reason, read_source, root_for};
use crate::input::model;
use crate::input::policy::{Effective, Matches, PolicyFile, parse_policy_file, resolve};
use crate::input::source::{SourceFile, path_text};

pub use crate::input::policy::{POLICY_FILE_NAME, POLICY_FILE_NAMES};

/// Settings of one `check` run.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub load: LoadOptions,
    /// Only these rules (all when empty).
    pub select: Vec<crate::analysis::rules::RuleId>,
    /// Not these rules.
    pub ignore: Vec<crate::analysis::rules::RuleId>,
    /// Proxies, gateways and meshes in front of the service.
    pub layers: LayerInputs,
}

/// A parsed policy file, shared by the descriptions it is checked against.
#[derive(Debug, Clone)]
pub struct LoadedPolicy {
    pub file: Arc<SourceFile>,
    pub policy: PolicyFile,
    /// What it says about layers (`service`, `layers`, `lint.maxAmplification`).
    pub layers: LayerSettings,
}

/// The policy is always the first file of a check, so its locations are valid in every one.
pub const POLICY_FILE_ID: usize = 0;

/// Reads and parses a policy file.
pub fn load_policy(path: &Path, options: &LoadOptions) -> Result<LoadedPolicy, InputError> {
    load_policy_from(path, path.to_path_buf(), options)
}

fn load_policy_from(
    path: &Path,
    display: PathBuf,
    options: &LoadOptions,
) -> Result<LoadedPolicy, InputError> {
    policy_of(read_source(path, display, options)?)
}

/// Parses a policy file already read.
fn policy_of(file: SourceFile) -> Result<LoadedPolicy, InputError> {
    let policy = parse_policy_file(&file, POLICY_FILE_ID, &rules::names())?;
    let layers = LayerSettings::from(&policy);
    Ok(LoadedPolicy {
        // Read once: findings and outputs need only its text, and the tree of a policy
        // naming every operation would stay alive beside each description's.
        file: Arc::new(file.without_tree()),
        policy,
        layers,
    })
}

/// What `-p` names: at most one retrylint policy, and the files of other layers.
#[derive(Debug, Clone, Default)]
pub struct GivenPolicies {
    /// retrylint's policy, with the path it was named by.
    pub policy: Option<(PathBuf, LoadedPolicy)>,
    pub layer_files: Vec<LayerFile>,
}

/// Reads every `-p` argument (files, or folders walked for YAML and JSON files) and sorts
/// them by what they hold.
pub fn load_given(paths: &[PathBuf], options: &LoadOptions) -> Result<GivenPolicies, InputError> {
    let mut given = GivenPolicies::default();
    let mut read = 0usize;
    for argument in paths {
        options.prepare(argument, true)?;
        let files =
            crate::analysis::layers::detect::expand(std::slice::from_ref(argument), options)?;
        read = read.saturating_add(files.len());
        if read > options.max_files {
            return Err(InputError::new(format!(
                "-p names more than {} files; refusing to go further",
                options.max_files
            ))
            .with_help(
                "raise the limit with --max-files N, or give -p the folders of this service only",
            ));
        }
        let mut found = 0usize;
        for (path, walked) in files {
            match crate::analysis::layers::detect::detect(&path, walked, options)? {
                Detected::Policy(parsed) => {
                    if let Some((first, _)) = &given.policy {
                        return Err(InputError::new(format!(
                            "two retry policies given: `{}` and `{}`",
                            path_text(first),
                            path_text(&path)
                        ))
                        .with_help("give one retrylint policy (`version: 1`); the other -p files may be mesh, gateway or proxy settings"));
                    }
                    let policy = match parsed {
                        Some(file) => policy_of(file)?,
                        None => load_policy(&path, options)?,
                    };
                    given.policy = Some((path.clone(), policy));
                    found += 1;
                }
                Detected::Layers(file) => {
                    given.layer_files.push(file);
                    found += 1;
                }
                // Read for the routes of other files: alone in a folder, it is not what
                // the folder was given for.
                Detected::Parents(file) => {
                    if !file.walked {
                        found += 1;
                    }
                    given.layer_files.push(file);
                }
                Detected::Nothing => {}
            }
        }
        if found == 0 {
            return Err(InputError::new(format!(
                "the folder `{}` holds no file -p reads: it takes {}",
                path_text(argument),
                crate::analysis::layers::detect::KINDS_UNDERSTOOD
            )));
        }
    }
    Ok(given)
}

/// A policy file found beside a description, inside its root folder.
#[derive(Debug, Clone)]
pub struct FoundPolicy {
    /// How it is named: beside the description.
    pub path: PathBuf,
    /// Where it is read from, after following symbolic links.
    canonical: PathBuf,
}

impl FoundPolicy {
    /// Reads and parses the policy found.
    pub fn load(&self, options: &LoadOptions) -> Result<LoadedPolicy, InputError> {
        load_policy_from(&self.canonical, self.path.clone(), options)
    }
}

/// The policy beside a description, if there is one.
///
/// It was not named by the user, so it is held to the root folder like a `$ref`: one that
/// leads outside the root (a symbolic link to a file elsewhere) is refused without being read.
pub fn discover_policy(
    description: &Path,
    options: &LoadOptions,
) -> Result<Option<FoundPolicy>, InputError> {
    // Standard input stands where `--stdin-filename` names it.
    let from_stdin = description.as_os_str() == crate::input::load::discover::STDIN;
    let description = match &options.stdin {
        Some(stdin) if from_stdin => stdin.beside(),
        _ => description,
    };
    let Some(folder) = description.parent() else {
        return Ok(None);
    };
    for name in POLICY_FILE_NAMES {
        options.prepare(&folder.join(name), false)?;
    }
    let present: Vec<PathBuf> = POLICY_FILE_NAMES
        .iter()
        .map(|name| folder.join(name))
        .filter(|path| std::fs::symlink_metadata(path).is_ok())
        .collect();
    let path = match present.as_slice() {
        [] => return Ok(None),
        [one] => one.clone(),
        [first, second, ..] => {
            return Err(InputError::new(format!(
                "two policy files beside the description: `{}` and `{}`",
                path_text(first),
                path_text(second)
            ))
            .with_help("keep one of them, or name the one to use with -p POLICY"));
        }
    };
    let shown = path_text(&path);
    let canonical = std::fs::canonicalize(&path).map_err(|e| {
        InputError::new(format!(
            "cannot read `{shown}`, found beside the description: {}",
            io_reason(&e)
        ))
    })?;
    // A description on standard input need not exist under its name.
    let resolved = std::fs::canonicalize(description).or_else(|e| {
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        match (std::fs::canonicalize(folder), description.file_name()) {
            (Ok(folder), Some(name)) => Ok(folder.join(name)),
            _ => Err(e),
        }
    });
    let Ok(description) = resolved else {
        // The description itself is reported missing when it is loaded.
        return Ok(None);
    };
    let root = if from_stdin {
        crate::input::load::root_for_stdin(options.root.as_deref())?
    } else {
        root_for(&description, options.root.as_deref())?
    };
    if !root.holds(&canonical) {
        return Err(InputError::new(format!(
            "`{shown}`, found beside the description, leads outside the root folder `{}`: it was not read",
            root.shown
        ))
        .with_help(
            "a policy found beside a description must lie inside the root folder; \
             name it with -p POLICY to read it anyway, or set the root with --root DIR",
        ));
    }
    Ok(Some(FoundPolicy { path, canonical }))
}

/// A description loaded and modelled, with each operation's effective policy.
#[derive(Debug)]
pub struct Analysis {
    pub api: model::Api,
    pub sources: Sources,
    /// Per operation, what the description alone lets any client retry safely.
    pub contracts: Vec<Contract>,
    /// Per operation, in the order of `api.operations` (empty without a policy).
    pub effective: Vec<Effective>,
    pub matches: Matches,
    /// The other layers' routes bound to the operations (empty without layers).
    pub layers: Bound,
    /// Per operation, each layer's effective policy, in the order of
    /// `layers.per_operation[op]`.
    pub layer_effective: Vec<Vec<Effective>>,
    /// Per `layers:` entry of the policy, how many layers it placed.
    pub position_hits: Vec<usize>,
}

impl Analysis {
    /// The layers that retry operation `index`, each with its route and its effective
    /// policy for the operation, in layer order.
    pub fn layer_hops(&self, index: usize) -> impl Iterator<Item = LayerHop<'_>> {
        crate::analysis::layers::chain::hops(&self.layers, &self.layer_effective, index)
    }
}

/// The retry settings a check reads besides the description and its policy.
#[derive(Debug, Clone, Default)]
pub struct LayerInputs {
    /// Files of proxies, gateways and meshes given with `-p`.
    pub files: Vec<LayerFile>,
    /// Host names the service answers to (`--host`).
    pub hosts: Vec<String>,
}

/// Loads a description and works out every operation's effective policy.
pub fn analyze(
    path: &Path,
    policy: Option<&LoadedPolicy>,
    options: &LoadOptions,
) -> Result<Analysis, InputError> {
    analyze_layers(path, policy, &LayerInputs::default(), options)
}

/// Loads a description and works out every operation's effective policy, in the client
/// and in every layer on the way to the backend.
pub fn analyze_layers(
    path: &Path,
    policy: Option<&LoadedPolicy>,
    inputs: &LayerInputs,
    options: &LoadOptions,
) -> Result<Analysis, InputError> {
    // First with a large JSON file's tree built while its text is checked on another
    // core; what that found stands only if every file's check passed. Otherwise (a file
    // that is not valid JSON, or anything that failed) the ordinary way decides, so that
    // errors are exactly the ordinary ones.
    if options.read_ahead_of_check.is_none() {
        // The root may have been read so already, while the policy was read.
        let root = options.root_ahead.as_ref().and_then(|r| r.take(path));
        let read_ahead = root.as_ref().map_or_else(
            || Arc::new(AtomicBool::new(false)),
            |root| root.checked_beside.clone(),
        );
        let reading_ahead = LoadOptions {
            read_ahead_of_check: Some(read_ahead.clone()),
            ..options.clone()
        };
        match analyze_once(path, policy, inputs, &reading_ahead, root) {
            Ok(analysis) if analysis.sources.iter().all(|file| file.confirmed()) => {
                return Ok(analysis);
            }
            // No file was read ahead: the error is the ordinary one.
            Err(error) if !read_ahead.load(Ordering::Relaxed) => return Err(error),
            _ => {}
        }
    }
    analyze_once(path, policy, inputs, options, None)
}

/// [`analyze_layers`], once, with the files read as `options` say.
fn analyze_once(
    path: &Path,
    policy: Option<&LoadedPolicy>,
    inputs: &LayerInputs,
    options: &LoadOptions,
    root_read_ahead: Option<crate::input::load::TakenRoot>,
) -> Result<Analysis, InputError> {
    let mut loader = Loader::new(options.clone());
    if let Some(policy) = policy {
        loader.add(policy.file.clone());
    }
    let mut layers = Vec::new();
    let parents =
        crate::analysis::layers::gateway::Parents::read(inputs.files.iter().map(|f| &*f.file));
    // Files a hook handed over apply only where they serve (see `LayerFile::served`).
    let mut where_served = Vec::new();
    for file in &inputs.files {
        let id = loader.add(file.file.clone());
        if let Some(served) = &file.served {
            where_served.push((id, served));
        }
        layers.extend(crate::analysis::layers::detect::import_with(
            file, id, &parents,
        )?);
    }
    if let Some(root) = root_read_ahead {
        loader.hold_root(root);
    }
    let root = loader.load_root(path)?;
    let api = model::build(&mut loader, root)?;
    let sources = loader.into_sources();
    let key_headers = policy
        .map(|p| p.policy.lint.key_headers.iter().map(|k| k.value.clone()))
        .into_iter()
        .flatten();
    let contracts = contract::derive(&api, &KeyHeaders::new(key_headers));
    layers.extend(crate::analysis::layers::speakeasy::import(&api, &sources)?);
    let settings = policy.map(|p| &p.layers);
    let hosts = settings
        .map(|s| s.hosts.iter().map(|h| h.value.clone()).collect::<Vec<_>>())
        .unwrap_or_default();
    let service = Service::of(
        &api.servers,
        hosts.into_iter().chain(inputs.hosts.iter().cloned()),
    );
    layers.retain(|layer| {
        let Some((_, served)) = where_served.iter().find(|(id, _)| *id == layer.loc.file) else {
            return true;
        };
        let serves = service.served_by(layer);
        if serves {
            served.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        serves
    });
    let position_hits = place_layers(&mut layers, settings, &sources);
    let bound = Bound::new(layers, &api, &service, &sources)?;
    // The description's own `x-retry-policy` is a layer of its own: with no policy file it
    // still decides what is retried (and is read, so a bad one is an input error).
    let described =
        api.retry_policy.is_some() || api.operations.iter().any(|op| op.retry_policy.is_some());
    let (effective, matches) = match policy {
        Some(p) => resolve(&api, Some(&p.policy), &sources)?,
        None if described => resolve(&api, None, &sources)?,
        None => (Vec::new(), Matches::default()),
    };
    let layer_effective = api
        .operations
        .iter()
        .enumerate()
        .map(|(index, op)| {
            let client = effective.get(index);
            let contract = contracts.get(index);
            bound.per_operation[index]
                .iter()
                .map(|(layer, binding)| {
                    bound.effective(*layer, binding.route, op, client, contract)
                })
                .collect()
        })
        .collect();
    Ok(Analysis {
        api,
        sources,
        contracts,
        effective,
        matches,
        layers: bound,
        layer_effective,
        position_hits,
    })
}

/// Gives layers the positions the policy's `layers:` entries set (the last entry that
/// applies wins); returns how many layers each entry placed.
fn place_layers(
    layers: &mut [Layer],
    settings: Option<&LayerSettings>,
    sources: &Sources,
) -> Vec<usize> {
    let Some(settings) = settings else {
        return Vec::new();
    };
    let mut hits = vec![0; settings.positions.len()];
    for layer in layers.iter_mut() {
        let file_name = sources[layer.loc.file].name();
        for (i, setting) in settings.positions.iter().enumerate() {
            if setting.applies_to(&file_name, layer.name.whole()) {
                layer.position = setting.position.value;
                hits[i] += 1;
            }
        }
    }
    hits
}

/// A description checked: its analysis and the findings left after suppressions.
#[derive(Debug)]
pub struct Checked {
    pub analysis: Analysis,
    pub findings: Vec<Finding>,
    pub suppressed: usize,
}

/// Runs every enabled rule on a description and applies suppressions.
pub fn check_analysis(
    path: &Path,
    policy: Option<&LoadedPolicy>,
    options: &CheckOptions,
) -> Result<Checked, InputError> {
    let analysis = analyze_layers(path, policy, &options.layers, &options.load)?;
    let policy_file = policy.map(|p| &p.policy);
    let cx = RunContext {
        api: &analysis.api,
        sources: &analysis.sources,
        contracts: &analysis.contracts,
        policy: policy_file,
        effective: &analysis.effective,
        matches: &analysis.matches,
        layers: &analysis.layers,
        layer_effective: &analysis.layer_effective,
        layer_settings: policy.map(|p| &p.layers),
        position_hits: &analysis.position_hits,
        reads: std::sync::OnceLock::default(),
        shared_bodies: std::sync::OnceLock::default(),
    };
    let levels = RuleLevels::new(policy_file, &options.select, &options.ignore);
    let suppressions = Suppressions::collect(&analysis.api, &analysis.sources, policy_file)?;
    let outcome = suppressions.apply(
        rules::check(&cx, &levels),
        &analysis.api,
        &analysis.sources,
        &levels,
    );
    // After suppressions, so that an operation's own suppression drops that operation
    // from a group; before the baseline and the sort, which see the grouped findings.
    let mut findings = crate::analysis::group::group(outcome.findings, &analysis.api);
    rules::sort(&mut findings, &analysis.sources);
    Ok(Checked {
        analysis,
        findings,
        suppressed: outcome.suppressed,
    })
}

/// Checks one description against an optional policy.
pub fn check_description(
    path: &Path,
    policy: Option<&LoadedPolicy>,
    options: &CheckOptions,
) -> Result<CheckResult, InputError> {
    let checked = check_analysis(path, policy, options)?;
    Ok(into_result(checked, policy).0)
}

/// A description checked, as its [`CheckResult`], and the analysis it was made from (an
/// editor keeps it to show an operation's plan).
pub fn into_result(checked: Checked, policy: Option<&LoadedPolicy>) -> (CheckResult, Analysis) {
    let analysis = checked.analysis;
    let mut contract = crate::analysis::contract::StateCounts::default();
    for c in &analysis.contracts {
        contract.add(c.state);
    }
    let result = CheckResult {
        description: analysis.sources[analysis.api.root_file].name(),
        root_file: analysis.api.root_file,
        operations: analysis
            .api
            .operations
            .iter()
            .map(OperationRef::of)
            .collect(),
        findings: checked.findings,
        suppressed: checked.suppressed,
        baselined: 0,
        webhooks: analysis.api.webhook_count,
        policy: policy.map(|p| p.file.name()),
        client_policy: policy.is_some()
            || !analysis.effective.is_empty()
            || analysis
                .layers
                .layers
                .iter()
                .any(|layer| layer.format == crate::analysis::layers::Format::Speakeasy),
        contract,
        sources: analysis.sources.clone(),
    };
    (result, analysis)
}

/// Which policy each description is checked against.
#[derive(Debug, Clone)]
pub enum PolicyChoice {
    /// One policy for all (`-p`).
    Given(Box<LoadedPolicy>),
    /// `retry-policy.yaml` beside each description, when it exists.
    Discover,
}

/// Checks several descriptions on all cores; results keep the order of `paths`.
/// `on_done` is called after each description (for a progress display).
pub fn check_all(
    paths: &[PathBuf],
    choice: &PolicyChoice,
    options: &CheckOptions,
    on_done: &(dyn Fn() + Sync),
) -> Vec<Result<CheckResult, InputError>> {
    let check_one = |path: &PathBuf| -> Result<CheckResult, InputError> {
        let result = match choice {
            PolicyChoice::Given(policy) => check_description(path, Some(policy), options),
            PolicyChoice::Discover => {
                let policy = match discover_policy(path, &options.load)? {
                    Some(found) => Some(found.load(&options.load)?),
                    None => None,
                };
                check_description(path, policy.as_ref(), options)
            }
        };
        on_done();
        result
    };
    crate::parallel::map_in_order(paths, check_one)
        .into_iter()
        .zip(paths)
        .map(|(slot, path)| {
            slot.unwrap_or_else(|| {
                Err(InputError::new(format!(
                    "checking `{}` stopped unexpectedly",
                    path.display()
                )))
            })
        })
        .collect()
}
