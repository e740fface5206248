//! Whether to write colour: `--color auto|always|never`, once for the whole run.
//!
//! `auto` follows the conventions users set in their shells and CI: `NO_COLOR` turns
//! colour off; `FORCE_COLOR` and `CLICOLOR_FORCE` turn it on where there is no terminal
//! (CI logs that render ANSI colour); otherwise colour goes only to a terminal that
//! supports it (anstream's rules: `CLICOLOR=0` and `TERM=dumb` turn it off).

use std::sync::OnceLock;

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless the environment says otherwise.
    #[default]
    Auto,
    Always,
    Never,
}

static CHOICE: OnceLock<ColorChoice> = OnceLock::new();

/// Sets the run's choice (the first call wins).
pub fn set(choice: ColorChoice) {
    let _ = CHOICE.set(choice);
}

/// Whether standard output gets colour.
pub fn stdout() -> bool {
    decide(|| anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never)
}

/// Whether standard error gets colour.
pub fn stderr() -> bool {
    decide(|| anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never)
}

fn decide(terminal: impl FnOnce() -> bool) -> bool {
    match CHOICE.get().copied().unwrap_or_default() {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
            let forced =
                |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
            if set("NO_COLOR") {
                false
            } else if forced("FORCE_COLOR") || forced("CLICOLOR_FORCE") {
                true
            } else {
                terminal()
            }
        }
    }
}
