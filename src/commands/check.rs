//! `retrylint check`: descriptions against their policies and layers, findings in the
//! chosen format, and the exit code CI reads.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::InputArgs;
use super::{Outcome, write_output};
use crate::analysis::check::{CheckOptions, LayerInputs, PolicyChoice, check_all, load_given};
use crate::error::InputError;
use crate::input::load::RootAhead;
use crate::rendering::baseline::{self, Baseline};
use crate::rendering::output::source_links::SourceLinks;
use crate::rendering::output::{
    CheckResult, FailOn, Shown, concise, github, gitlab, human, json, junit, markdown, sarif,
    statistics,
};
use crate::rendering::plural;

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// OpenAPI 3.0, 3.1 or 3.2, or Swagger 2.0 descriptions (YAML or JSON); a folder is searched
    /// for descriptions (honouring .gitignore), a quoted glob is expanded, `-` reads
    /// standard input.
    #[arg(required = true, value_name = "SPEC")]
    specs: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = Format::Human)]
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
    /// Show only errors and the summary line (and no notes on standard error).
    #[arg(short, long)]
    quiet: bool,
    /// Show info findings in human and concise output, and annotate them in github
    /// output; without it (or --fail-on info) only the summary line counts them. The
    /// other formats hold every finding.
    #[arg(long)]
    show_infos: bool,
    /// Show how many findings each rule reported instead of the findings (human,
    /// concise or json).
    #[arg(long)]
    statistics: bool,
    /// Show at most N findings, the most severe first, and say how many were left out
    /// (human, concise, github and markdown; the other formats hold every finding).
    #[arg(long, value_name = "N")]
    max_findings: Option<usize>,
    /// The folder SARIF artifact URIs are relative to [default: the current folder].
    #[arg(long, value_name = "DIR")]
    sarif_root: Option<PathBuf>,
    /// For hooks that pass every changed YAML and JSON file: a named retry policy checks
    /// the descriptions beside it that read it, a named proxy, gateway or mesh file checks
    /// every description of the repository with it, and other files that are not OpenAPI
    /// or Swagger descriptions are skipped instead of refused; notes say what was checked.
    #[arg(long)]
    skip_non_descriptions: bool,
    /// Report what the change since this git revision does to the retry contract (as
    /// `retrylint diff` does), the base read with git without touching the work tree.
    /// Each side reads its own `-p` files: the base reads each path as it was at the
    /// revision, and a path only one side has is absent on the other (a note says so).
    /// It takes the inputs, --format, -o, --fail-on, --quiet, --source-links and
    /// --base-policy; not the options that choose or count findings of one version.
    #[arg(
        long,
        value_name = "REF",
        conflicts_with_all = [
            "select",
            "ignore",
            "baseline",
            "write_baseline",
            "statistics",
            "max_findings",
            "show_infos",
            "sarif_root",
            "skip_non_descriptions",
        ]
    )]
    base: Option<String>,
    /// In markdown output, link each place to its file and line under this URL
    /// (`URL/<path>#L<line>`), such as https://github.com/OWNER/REPO/blob/SHA; paths are
    /// as shown, relative to the current folder (with --base, the head's places only).
    #[arg(long, value_name = "URL", value_parser = SourceLinks::parse)]
    source_links: Option<SourceLinks>,
    /// With --base: the base's policy and layer files (repeatable, read from the work
    /// tree), instead of the `-p` paths as they were at the revision.
    #[arg(long, value_name = "POLICY", requires = "base")]
    base_policy: Vec<PathBuf>,
    /// Apply the safe fixes (policy values) to the files, then report what is left.
    #[arg(long, conflicts_with_all = ["base", "write_baseline"])]
    fix: bool,
    /// With --fix or --diff: the unsafe fixes too (they change the description's contract
    /// or a layer's settings).
    #[arg(long)]
    unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of writing them (exit 1 when there are).
    #[arg(long, conflicts_with_all = ["base", "write_baseline", "fix"])]
    diff: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Diagnostics with source snippets.
    Human,
    /// One line per finding: `file:line:column: severity[rule] message`.
    Concise,
    /// A versioned JSON document.
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow commands (pull-request annotations).
    Github,
    /// GitLab Code Quality report (merge-request widget).
    Gitlab,
    /// JUnit XML: a test case per operation; findings at `--fail-on` are failures.
    Junit,
    /// A Markdown summary for a CI job page or a merge-request comment.
    Markdown,
}

pub(crate) fn run(mut args: CheckArgs) -> Outcome {
    super::compare::source_links_unused(
        args.source_links.is_some(),
        args.format == Format::Markdown,
        args.quiet,
    );
    if let Some(revision) = &args.base {
        use super::compare::{DiffFormat, DiffOutput};
        let format = match args.format {
            Format::Human | Format::Concise => DiffFormat::Text,
            Format::Json => DiffFormat::Json,
            Format::Markdown => DiffFormat::Markdown,
            Format::Github => DiffFormat::Github,
            Format::Sarif => DiffFormat::Sarif,
            Format::Gitlab | Format::Junit => {
                return Err(vec![InputError::new(
                    "--base shows a change in human, json, markdown, github or sarif output",
                )]);
            }
        };
        let output = DiffOutput {
            format,
            output: args.output.clone(),
            fail_on: args.fail_on,
            quiet: args.quiet,
            source_links: args.source_links.clone(),
        };
        return super::base_revision::against_revision(
            &args.specs,
            revision,
            &args.base_policy,
            &args.input,
            &output,
        );
    }
    if args.fix
        && args
            .specs
            .iter()
            .any(|s| s.as_os_str() == crate::input::load::discover::STDIN)
    {
        return Err(vec![
            InputError::new(
                "--fix writes the files it fixes: a description read from standard input has none",
            )
            .with_help("use --diff to see the fixes, or name the file"),
        ]);
    }
    let select = rule_list(&args.select)?;
    let ignore = rule_list(&args.ignore)?;
    let mut load = args.input.load_options();
    // One description named: it is read while the policy and layer files are.
    let root_ahead = match args.specs.as_slice() {
        [one] if !args.skip_non_descriptions && one.is_file() => RootAhead::start(one, &load),
        _ => None,
    };
    let given = load_given(&args.input.policy, &load).map_err(|e| vec![e])?;
    // A hook's changed files: descriptions, and the policies and layers they read.
    let handed_over = if args.skip_non_descriptions {
        let plan = super::changed::plan(&args.specs, &given, &load).map_err(|e| vec![e])?;
        if !args.quiet {
            for note in &plan.notes {
                eprintln!("note: {note}");
            }
        }
        Some(plan)
    } else {
        None
    };
    let mut layer_files = given.layer_files;
    // Whether a note already said why nothing may be left to check.
    let explained = handed_over.as_ref().is_some_and(|p| !p.notes.is_empty());
    let mut handed_over_layers = Vec::new();
    let specs = match handed_over {
        Some(plan) => {
            handed_over_layers.clone_from(&plan.layer_files);
            layer_files.extend(plan.layer_files);
            plan.descriptions
        }
        None => crate::input::load::discover::descriptions(&args.specs, false, &load)
            .map_err(|e| vec![e])?,
    };
    if let Some(root_ahead) = root_ahead
        && specs == args.specs
    {
        load.root_ahead = Some(root_ahead);
    }
    let options = CheckOptions {
        load,
        select,
        ignore,
        layers: LayerInputs {
            files: layer_files,
            hosts: args.input.hosts.clone(),
        },
    };
    let choice = match given.policy {
        Some((_, policy)) => PolicyChoice::Given(Box::new(policy)),
        None => PolicyChoice::Discover,
    };
    if args.statistics && !matches!(args.format, Format::Human | Format::Concise | Format::Json) {
        return Err(vec![
            InputError::new(
                "--statistics counts findings by rule in human, concise or json output",
            )
            .with_help("drop --statistics, or use --format human, concise or json"),
        ]);
    }
    if specs.is_empty() {
        // Only files that are not descriptions were named (a hook's changed files).
        if !args.quiet && !explained {
            eprintln!(
                "note: none of the named files is an OpenAPI or Swagger description, or a policy or layer file one reads"
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut results: Vec<CheckResult> = Vec::new();
    let mut errors = Vec::new();
    let progress = Progress::new(specs.len());
    let outcomes = check_all(&specs, &choice, &options, &|| progress.tick());
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
    if args.fix || args.diff {
        // A diff shows every fix; a write makes only those whose files may all be written.
        let given_root = options.load.root.clone();
        let writable = |file: &crate::rendering::fixed::FileFix| {
            super::fix::writable(file, given_root.as_deref()).map(|_| ())
        };
        let anything = |_: &crate::rendering::fixed::FileFix| Ok(());
        let may_change: crate::rendering::fixed::MayChange<'_> =
            if args.diff { &anything } else { &writable };
        let plan = crate::rendering::fixed::plan(
            &results,
            args.unsafe_fixes,
            options.load.parse,
            may_change,
        );
        if !args.quiet {
            for note in &plan.notes {
                eprintln!("note: {}", crate::escape::terminal(note));
            }
            if plan.unsafe_left > 0 {
                eprintln!(
                    "note: {} with an unsafe fix (it changes the description or a layer) left as they are: add --unsafe-fixes",
                    plural(plan.unsafe_left, "finding")
                );
            }
        }
        if args.diff {
            print!("{}", super::fix::diff(&plan));
            return Ok(if plan.files.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            });
        }
        let written = super::fix::write(
            &plan,
            options.load.root.as_deref(),
            options.load.max_file_size,
        );
        for note in &written.notes {
            eprintln!("note: {}", crate::escape::terminal(note));
        }
        if !args.quiet {
            if written.files == plan.files.len() {
                eprintln!(
                    "applied the fixes of {} to {}",
                    plural(plan.fixed, "finding"),
                    plural(written.files, "file")
                );
            } else {
                eprintln!(
                    "applied fixes to {} of the {} files they change",
                    written.files,
                    plan.files.len()
                );
            }
        }
        // What is left, read again from the files as they are now.
        args.fix = false;
        args.unsafe_fixes = false;
        return run(args);
    }
    if args.unsafe_fixes {
        return Err(vec![InputError::new(
            "--unsafe-fixes applies with --fix or --diff",
        )]);
    }
    if !args.quiet {
        contract_only_notice(&results);
        for note in super::changed::unserved_notes(&handed_over_layers) {
            eprintln!("note: {note}");
        }
    }
    if let Some(path) = &args.write_baseline {
        let count = baseline::write(path, &results).map_err(|e| vec![e])?;
        eprintln!(
            "wrote {count} findings to the baseline {}",
            crate::escape::terminal(&crate::input::source::path_text(path))
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &args.baseline {
        Baseline::load(path, options.load.max_file_size)
            .map_err(|e| vec![e])?
            .apply(&mut results);
    }
    let color = args.output.is_none() && crate::rendering::output::color::stdout();
    let shown = Shown {
        errors_only: args.quiet,
        infos: args.show_infos
            || args
                .fail_on
                .fails(crate::analysis::rules::finding::Severity::Info),
        max: args.max_findings,
    };
    if args.max_findings.is_some()
        && !args.quiet
        && !matches!(
            args.format,
            Format::Human | Format::Concise | Format::Github | Format::Markdown
        )
    {
        eprintln!(
            "note: --max-findings applies to human, concise, github and markdown output; this format holds every finding"
        );
    }
    let text = match args.format {
        Format::Human | Format::Concise if args.statistics => statistics::render_text(&results),
        Format::Json if args.statistics => statistics::render_json(&results),
        Format::Human => human::render(&results, color, shown),
        Format::Concise => concise::render(&results, color, shown),
        Format::Json => json::render(&results),
        Format::Sarif => {
            let sarif = sarif::render(&results, args.sarif_root.as_deref());
            if sarif.results > sarif::GITHUB_RESULTS_PER_RUN && !args.quiet {
                eprintln!(
                    "warning: {} SARIF results: GitHub code scanning accepts at most {} per run and shows the first 5,000 by severity; narrow the run with --select, or use a baseline",
                    sarif.results,
                    sarif::GITHUB_RESULTS_PER_RUN
                );
            }
            sarif.text
        }
        Format::Github => {
            github::render(&results, args.fail_on, args.max_findings, args.show_infos)
        }
        Format::Gitlab => gitlab::render(&results),
        Format::Junit => junit::render(&results, args.fail_on),
        Format::Markdown => {
            markdown::render(&results, args.max_findings, args.source_links.as_ref())
        }
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

/// Says once, on standard error, when descriptions were checked without a client policy:
/// only their contract was, and the rules about a client's retries did not run.
fn contract_only_notice(results: &[CheckResult]) {
    let without: Vec<&CheckResult> = results.iter().filter(|r| !r.client_policy).collect();
    if without.is_empty() {
        return;
    }
    let skipped = crate::analysis::rules::ALL
        .iter()
        .filter(|r| r.meta().scope == crate::analysis::rules::Scope::Policy)
        .count();
    let which = if without.len() == results.len() {
        String::new()
    } else {
        let names: Vec<String> = without
            .iter()
            .take(3)
            .map(|r| crate::escape::terminal(&r.description).into_owned())
            .collect();
        let more = if without.len() > names.len() {
            format!(" and {} more", without.len() - names.len())
        } else {
            String::new()
        };
        format!(" for {}{more}", names.join(", "))
    };
    eprintln!(
        "note: no retry policy{which}: checked the description's contract only; \
         {skipped} policy rules did not run (give one with -p, or put {} beside the description)",
        crate::analysis::check::POLICY_FILE_NAME
    );
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

/// The rules `--select` or `--ignore` names; a name that is no rule's is an input error.
fn rule_list(names: &[String]) -> Result<Vec<crate::analysis::rules::RuleId>, Vec<InputError>> {
    names
        .iter()
        .map(|name| {
            crate::analysis::rules::RuleId::rule_named(name).ok_or_else(|| {
                let mut error =
                    InputError::new(format!("unknown rule `{name}` in --select or --ignore"));
                if let Some(near) =
                    crate::error::did_you_mean(name, crate::analysis::rules::names())
                {
                    error = error.with_help(format!("did you mean `{near}`?"));
                }
                vec![error]
            })
        })
        .collect()
}
