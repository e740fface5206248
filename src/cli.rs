//! The command line: the subcommands, dispatch to [`crate::commands`], and input errors
//! on standard error with exit code 2.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands;
use crate::rendering::output::color::{self, ColorChoice};
use crate::rendering::output::human;

/// Lint the retry contracts of HTTP APIs: an OpenAPI description plus a retry policy.
#[derive(Debug, Parser)]
#[command(name = "retrylint", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to colour the output: `auto` follows NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE
    /// and whether the output is a terminal.
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check descriptions against a retry policy and report findings.
    Check(commands::check::CheckArgs),
    /// Compare two versions of a description: what the change does to retry safety.
    Diff(commands::diff::DiffArgs),
    /// Show each operation's worst-case retry schedule.
    Plan(commands::plan::PlanArgs),
    /// Write a per-operation readiness report (Markdown, HTML or JSON).
    Report(commands::report::ReportArgs),
    /// Write a starting retry policy for a description.
    Init(commands::init::InitArgs),
    /// Simulate a retry storm: the load, duplicates and stop reasons of a policy in an outage.
    Simulate(commands::simulate::SimulateArgs),
    /// List every rule with its default severity.
    Rules,
    /// Print the JSON Schema of the retry policy file (for editors).
    Schema,
    /// Print a rule's documentation.
    Explain {
        /// The rule's name, as `retrylint rules` lists it.
        rule: String,
    },
    /// Print a shell completion script (e.g. `retrylint completions bash > retrylint.bash`).
    Completions(commands::shell::CompletionsArgs),
    /// Print the manual page (roff), or write one page per command into a folder.
    Man(commands::shell::ManArgs),
    /// Run a language server over standard input and output (for editors).
    Server,
}

/// The command line's definition, for completions and manual pages.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Runs the command line; the exit code is 0 (clean), 1 (findings) or 2 (input error).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    color::set(cli.color);
    let color = color::stderr();
    let result = match cli.command {
        Command::Check(args) => commands::check::run(args),
        Command::Diff(args) => commands::diff::run(args),
        Command::Plan(args) => commands::plan::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Init(args) => commands::init::run(args),
        Command::Simulate(args) => commands::simulate::run(args),
        Command::Rules => commands::print(&commands::catalogue::rules_table()),
        Command::Schema => commands::print(commands::catalogue::POLICY_SCHEMA),
        Command::Explain { rule } => commands::catalogue::explain(&rule),
        Command::Completions(args) => commands::shell::completions(&args, command()),
        Command::Man(args) => commands::shell::man(&args, command()),
        Command::Server => crate::server::run(),
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
