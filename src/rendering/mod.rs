//! Rendering: findings and figures made into what a person or a CI system reads.
//!
//! [`output`] writes a check's findings in every format (human, JSON, SARIF, GitHub,
//! GitLab, JUnit, Markdown); [`report`] the per-endpoint readiness reports; [`diff`] what
//! a change does, for review; [`fixed`] the files as `--fix` leaves them; [`baseline`]
//! the file of findings a team has accepted; [`simulate`] runs a policy through an outage
//! and charts what it does.
//!
//! It builds on [`crate::analysis`] and [`crate::input`]; nothing below depends on it.

pub(crate) mod baseline;
pub(crate) mod diff;
pub mod fixed;
pub mod output;
pub(crate) mod report;
pub mod simulate;

/// `1 finding`, `3 findings`: a count with its noun.
pub(crate) fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
