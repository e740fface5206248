//! The commands: one module each, with its arguments and what it runs. The command line
//! (`crate::cli`) parses the arguments and dispatches here.

mod base_revision;
pub(crate) mod catalogue;
mod changed;
pub(crate) mod check;
pub(crate) mod compare;
pub(crate) mod diff;
mod fix;
pub(crate) mod init;
mod inputs;
pub(crate) mod plan;
pub(crate) mod report;
pub(crate) mod shell;
mod sides;
pub(crate) mod simulate;

use std::process::ExitCode;

use crate::error::InputError;
pub(crate) use crate::rendering::output::write::to_file_or_stdout as write_output;
pub(crate) use inputs::InputArgs;

/// What a command ends with: an exit code, or the input errors that stopped it (exit 2).
pub(crate) type Outcome = Result<ExitCode, Vec<InputError>>;

pub(crate) fn print(text: &str) -> Outcome {
    write_output(None, text).map_err(|e| vec![e])?;
    Ok(ExitCode::SUCCESS)
}
