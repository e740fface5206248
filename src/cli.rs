//! The command line: argument parsing and the commands.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::baseline::{self, Baseline};
use crate::check::{
    CheckOptions, LayerInputs, LoadedPolicy, PolicyChoice, analyze_layers, check_all,
    check_analysis, discover_policy, load_given,
};
use crate::error::InputError;
use crate::finding::Severity;
use crate::load::LoadOptions;
use crate::output::write::to_file_or_stdout as write_output;
use crate::output::{CheckResult, github, human, json, junit, plan, sarif};
use crate::policy::Selector;
use crate::report;
use crate::source::ParseLimits;

/// Lint the retry contracts of HTTP APIs: an OpenAPI description plus a retry policy.
#[derive(Debug, Parser)]
#[command(name = "retrylint", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check descriptions against a retry policy and report findings.
    Check(CheckArgs),
    /// Show each operation's worst-case retry schedule.
    Plan(PlanArgs),
    /// Write a per-operation readiness report (Markdown, HTML or JSON).
    Report(ReportArgs),
    /// Write a starting retry policy for a description.
    Init(InitArgs),
    /// Simulate a retry storm: the load, duplicates and stop reasons of a policy in an outage.
    Simulate(crate::simulate::cli::SimulateArgs),
    /// List every rule with its default severity.
    Rules,
    /// Print the JSON Schema of the retry policy file (for editors).
    Schema,
    /// Print a rule's documentation.
    Explain {
        /// The rule's name, as `retrylint rules` lists it.
        rule: String,
    },
}

/// Where the policy comes from and how files are read.
#[derive(Debug, Args)]
pub(crate) struct InputArgs {
    /// The retry policy, and the retry settings of proxies, gateways and meshes in front of
    /// the service (Istio, Gateway API, Linkerd, Envoy); repeatable; a folder is read
    /// whole. Without a retrylint policy among them, retry-policy.yaml beside each
    /// description is used.
    #[arg(short = 'p', long = "policy", value_name = "POLICY")]
    policy: Vec<PathBuf>,
    /// A host name the service answers to in the mesh or gateway (repeatable), besides
    /// the description's servers and the policy's `service.hosts`.
    #[arg(long = "host", value_name = "NAME")]
    hosts: Vec<String>,
    /// Follow `$ref`s to files outside the root folder.
    #[arg(long)]
    allow_outside_refs: bool,
    /// The folder `$ref`s and discovered files may not leave [default: the enclosing git
    /// work tree, else the current folder].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Largest file read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = LoadOptions::default().max_file_size)]
    max_file_size: u64,
    /// Most files one description may reach through `$ref`s.
    #[arg(long, value_name = "N", default_value_t = LoadOptions::default().max_files)]
    max_files: usize,
    /// Most operations one description may have.
    #[arg(long, value_name = "N", default_value_t = LoadOptions::default().max_operations)]
    max_operations: usize,
    /// Deepest nesting of lists and mappings in a file.
    #[arg(long, value_name = "N", default_value_t = ParseLimits::default().max_depth)]
    max_depth: usize,
    /// Most bytes that YAML aliases, merges and definitions reused through `$ref` may add
    /// to one description.
    #[arg(long, value_name = "BYTES", default_value_t = ParseLimits::default().max_expansion_bytes)]
    max_expansion_bytes: usize,
    /// Deprecated: the expansion budget is now counted in bytes (--max-expansion-bytes);
    /// N nodes are taken as N × 64 bytes.
    #[arg(long, value_name = "N", hide = true)]
    max_alias_nodes: Option<usize>,
}

impl InputArgs {
    /// The policy named by `-p`, or the one beside the description, loaded, and the
    /// other layers `-p` names.
    pub(crate) fn policy_for(
        &self,
        spec: &std::path::Path,
    ) -> Result<(Option<PathBuf>, Option<LoadedPolicy>, LayerInputs), InputError> {
        let options = self.load_options();
        let given = load_given(&self.policy, &options)?;
        let layers = LayerInputs {
            files: given.layer_files,
            hosts: self.hosts.clone(),
        };
        Ok(match given.policy {
            Some((path, policy)) => (Some(path), Some(policy), layers),
            None => match discover_policy(spec, &options)? {
                Some(found) => (
                    Some(found.path.clone()),
                    Some(found.load(&options)?),
                    layers,
                ),
                None => (None, None, layers),
            },
        })
    }

    pub(crate) fn load_options(&self) -> LoadOptions {
        LoadOptions {
            allow_outside_refs: self.allow_outside_refs,
            root: self.root.clone(),
            max_file_size: self.max_file_size,
            max_files: self.max_files,
            max_operations: self.max_operations,
            parse: ParseLimits {
                max_depth: self.max_depth,
                max_expansion_bytes: self
                    .max_alias_nodes
                    .map_or(self.max_expansion_bytes, |nodes| nodes.saturating_mul(64)),
            },
        }
    }
}

#[derive(Debug, Args)]
struct InitArgs {
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
}

#[derive(Debug, Args)]
struct ReportArgs {
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

#[derive(Debug, Args)]
struct PlanArgs {
    /// The description.
    #[arg(value_name = "SPEC")]
    spec: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    /// Only operations this selector matches (`POST /orders`, an operationId, `tag:NAME`, a glob).
    #[arg(long, value_name = "SELECTOR")]
    operation: Option<String>,
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// OpenAPI 3.0/3.1 or Swagger 2.0 descriptions (YAML or JSON).
    #[arg(required = true, value_name = "SPEC")]
    specs: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write the output to a file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Exit with 1 when a finding at or above this severity is reported.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    fail_on: FailOn,
    /// Run only these rules (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE,..")]
    select: Vec<String>,
    /// Do not run these rules (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE,..")]
    ignore: Vec<String>,
    /// Report only findings that this baseline file does not hold.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Record every current finding in a baseline file, and exit 0.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// Diagnostics with source snippets.
    Human,
    /// A versioned JSON document.
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow commands (pull-request annotations).
    Github,
    /// JUnit XML: a test case per operation, a failure per finding.
    Junit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

impl FailOn {
    fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Never => false,
            FailOn::Info => true,
            FailOn::Warning => severity >= Severity::Warning,
            FailOn::Error => severity == Severity::Error,
        }
    }
}

/// The JSON Schema of the retry policy file.
pub const POLICY_SCHEMA: &str = include_str!("../schema/retry-policy.schema.json");

/// Runs the command line; the exit code is 0 (clean), 1 (findings) or 2 (input error).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let result = match cli.command {
        Command::Check(args) => run_check(args),
        Command::Plan(args) => run_plan(args),
        Command::Report(args) => run_report(args),
        Command::Init(args) => run_init(args),
        Command::Simulate(args) => crate::simulate::cli::run(args),
        Command::Rules => print(&rules_table()),
        Command::Schema => print(POLICY_SCHEMA),
        Command::Explain { rule } => explain(&rule),
    };
    match result {
        Ok(code) => code,
        Err(errors) => {
            let mut stderr = std::io::stderr().lock();
            for error in &errors {
                let _ = write!(stderr, "{}", human::render_error(error, color));
            }
            ExitCode::from(2)
        }
    }
}

fn run_check(args: CheckArgs) -> Result<ExitCode, Vec<InputError>> {
    for name in args.select.iter().chain(&args.ignore) {
        if crate::rules::by_name(name).is_none() {
            let mut error =
                InputError::new(format!("unknown rule `{name}` in --select or --ignore"));
            if let Some(near) = crate::error::did_you_mean(name, crate::rules::names()) {
                error = error.with_help(format!("did you mean `{near}`?"));
            }
            return Err(vec![error]);
        }
    }
    let load = args.input.load_options();
    let given = load_given(&args.input.policy, &load).map_err(|e| vec![e])?;
    let options = CheckOptions {
        load,
        select: args.select,
        ignore: args.ignore,
        layers: LayerInputs {
            files: given.layer_files,
            hosts: args.input.hosts.clone(),
        },
    };
    let choice = match given.policy {
        Some((_, policy)) => PolicyChoice::Given(Box::new(policy)),
        None => PolicyChoice::Discover,
    };
    let mut results: Vec<CheckResult> = Vec::new();
    let mut errors = Vec::new();
    let progress = Progress::new(args.specs.len());
    let outcomes = check_all(&args.specs, &choice, &options, &|| progress.tick());
    progress.finish();
    for outcome in outcomes {
        match outcome {
            Ok(result) => results.push(result),
            Err(error) => errors.push(error),
        }
    }
    // A partial report is never passed off as complete.
    if !errors.is_empty() {
        return Err(errors);
    }
    if let Some(path) = &args.write_baseline {
        let count = baseline::write(path, &results).map_err(|e| vec![e])?;
        eprintln!(
            "wrote {count} findings to the baseline {}",
            crate::output::escape::terminal(&crate::source::path_text(path))
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &args.baseline {
        Baseline::load(path, options.load.max_file_size)
            .map_err(|e| vec![e])?
            .apply(&mut results);
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let color = to_terminal && std::env::var_os("NO_COLOR").is_none();
    let text = match args.format {
        Format::Human => human::render(&results, color),
        Format::Json => json::render(&results),
        Format::Sarif => sarif::render(&results),
        Format::Github => github::render(&results),
        Format::Junit => junit::render(&results),
    };
    write_output(args.output.as_deref(), &text).map_err(|e| vec![e])?;
    let failed = results
        .iter()
        .flat_map(|r| &r.findings)
        .any(|f| args.fail_on.fails(f.severity));
    // The process ends now: freeing every tree node of a large description one by one
    // would only delay the exit.
    std::mem::forget(results);
    Ok(ExitCode::from(u8::from(failed)))
}

fn print(text: &str) -> Result<ExitCode, Vec<InputError>> {
    write_output(None, text).map_err(|e| vec![e])?;
    Ok(ExitCode::SUCCESS)
}

fn run_plan(args: PlanArgs) -> Result<ExitCode, Vec<InputError>> {
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

fn run_init(args: InitArgs) -> Result<ExitCode, Vec<InputError>> {
    if let Some(path) = &args.output
        && path.exists()
        && !args.force
    {
        return Err(vec![
            InputError::new(format!(
                "`{}` already exists",
                crate::source::path_text(path)
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
                crate::source::path_text(path)
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
    let seen = crate::init::LayersSeen {
        bound: &analysis.layers,
        hosts: &args.hosts,
    };
    let layered = !analysis.layers.is_empty() || !args.hosts.is_empty();
    let text = crate::init::starting_policy_with(&analysis.api, &name, layered.then_some(&seen));
    write_output(args.output.as_deref(), &text).map_err(|e| vec![e])?;
    Ok(ExitCode::SUCCESS)
}

fn run_report(args: ReportArgs) -> Result<ExitCode, Vec<InputError>> {
    let (policy_path, policy, layers) = args.input.policy_for(&args.spec).map_err(|e| vec![e])?;
    let options = CheckOptions {
        load: args.input.load_options(),
        layers,
        ..CheckOptions::default()
    };
    let checked = check_analysis(&args.spec, policy.as_ref(), &options).map_err(|e| vec![e])?;
    let report = report::build(
        &checked,
        policy_path.as_deref().map(crate::source::path_text),
    );
    let text = match args.format {
        ReportFormat::Markdown => report::markdown::render(&report),
        ReportFormat::Html => report::html::render(&report),
        ReportFormat::Json => report::json(&report),
    };
    write_output(args.output.as_deref(), &text).map_err(|e| vec![e])?;
    Ok(ExitCode::SUCCESS)
}

/// `retrylint rules`: name, default severity and summary of every rule.
fn rules_table() -> String {
    let width = crate::rules::ALL
        .iter()
        .map(|r| r.meta().name.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for rule in crate::rules::ALL {
        let meta = rule.meta();
        out.push_str(&format!(
            "{:<width$}  {:<7}  {}\n",
            meta.name,
            meta.severity.as_str(),
            meta.summary
        ));
    }
    out
}

fn explain(name: &str) -> Result<ExitCode, Vec<InputError>> {
    match crate::rules::by_name(name) {
        Some(rule) => print(rule.meta().doc),
        None => {
            let mut error = InputError::new(format!("there is no rule `{name}`"));
            error = match crate::error::did_you_mean(name, crate::rules::names()) {
                Some(near) => error.with_help(format!("did you mean `{near}`?")),
                None => error.with_help("`retrylint rules` lists every rule"),
            };
            Err(vec![error])
        }
    }
}

/// A one-line count of checked descriptions on standard error: only on a terminal, only
/// for several descriptions, and only once the run has taken a moment.
struct Progress {
    total: usize,
    done: std::sync::atomic::AtomicUsize,
    start: std::time::Instant,
    shown: std::sync::atomic::AtomicBool,
    enabled: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            done: std::sync::atomic::AtomicUsize::new(0),
            start: std::time::Instant::now(),
            shown: std::sync::atomic::AtomicBool::new(false),
            enabled: total > 1 && std::io::stderr().is_terminal(),
        }
    }

    fn tick(&self) {
        use std::sync::atomic::Ordering;
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if self.enabled && self.start.elapsed() > std::time::Duration::from_millis(500) {
            self.shown.store(true, Ordering::Relaxed);
            eprint!("\r  checked {done}/{} descriptions", self.total);
        }
    }

    fn finish(&self) {
        if self.shown.load(std::sync::atomic::Ordering::Relaxed) {
            eprint!("\r\x1b[2K");
        }
    }
}
