//! The commands: one module each, with its arguments and what it runs. The command line
//! (`crate::cli`) parses the arguments and dispatches here.

mod base_revision;
pub mod catalogue;
mod changed;
pub mod check;
pub mod compare;
pub mod diff;
pub mod init;
mod inputs;
pub mod plan;
pub mod report;
pub mod shell;
mod sides;
pub mod simulate;

use std::process::ExitCode;

use crate::error::InputError;
pub use crate::rendering::output::write::to_file_or_stdout as write_output;
pub use inputs::InputArgs;

/// What a command ends with: an exit code, or the input errors that stopped it (exit 2).
pub type Outcome = Result<ExitCode, Vec<InputError>>;

pub fn print(text: &str) -> Outcome {
    write_output(None, text).map_err(|e| vec![e])?;
    Ok(ExitCode::SUCCESS)
}
