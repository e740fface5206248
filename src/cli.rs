//! The command line: the subcommands, dispatch to [`crate::commands`], and input errors
//! on standard error with exit code 2.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands;
use crate::output::human;

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
    Check(commands::check::CheckArgs),
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
}

/// Runs the command line; the exit code is 0 (clean), 1 (findings) or 2 (input error).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let result = match cli.command {
        Command::Check(args) => commands::check::run(args),
        Command::Plan(args) => commands::plan::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Init(args) => commands::init::run(args),
        Command::Simulate(args) => commands::simulate::run(args),
        Command::Rules => commands::print(&commands::catalogue::rules_table()),
        Command::Schema => commands::print(commands::catalogue::POLICY_SCHEMA),
        Command::Explain { rule } => commands::catalogue::explain(&rule),
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
