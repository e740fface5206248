//! `retrylint completions SHELL` and `retrylint man`: shell integration generated from the
//! command line's own definition.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use clap_complete::Shell;

use super::{Outcome, print};
use crate::error::InputError;

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell: bash, elvish, fish, powershell or zsh.
    #[arg(value_enum)]
    shell: Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write `retrylint.1` and one `retrylint-COMMAND.1` per command into this folder,
    /// instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints the completion script for a shell, from the command line's definition.
pub(crate) fn completions(args: &CompletionsArgs, mut command: clap::Command) -> Outcome {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "retrylint", &mut script);
    print(&String::from_utf8_lossy(&script))
}

/// Prints the manual page, or writes every page into a folder, from the command line's
/// definition.
pub(crate) fn man(args: &ManArgs, command: clap::Command) -> Outcome {
    let Some(dir) = &args.dir else {
        return print(&render(command)?);
    };
    let cannot = |e: std::io::Error| {
        vec![InputError::new(format!(
            "cannot write manual pages into `{}`: {e}",
            crate::escape::terminal(&crate::input::source::path_text(dir))
        ))]
    };
    std::fs::create_dir_all(dir).map_err(cannot)?;
    let mut pages = vec![("retrylint.1".to_string(), command.clone())];
    for sub in command.get_subcommands() {
        let name = format!("retrylint-{}", sub.get_name());
        pages.push((format!("{name}.1"), sub.clone().name(name)));
    }
    for (file, page) in pages {
        crate::rendering::output::write::to_file(&dir.join(file), &render(page)?)
            .map_err(|e| vec![e])?;
    }
    Ok(ExitCode::SUCCESS)
}

fn render(command: clap::Command) -> Result<String, Vec<InputError>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut page)
        .map_err(|e| {
            vec![InputError::new(format!(
                "cannot render the manual page: {e}"
            ))]
        })?;
    Ok(String::from_utf8_lossy(&page).into_owned())
}
