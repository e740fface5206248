//! Rendering: findings and figures made into what a person or a CI system reads.
//!
//! [`output`] writes a check's findings in every format (human, JSON, SARIF, GitHub,
//! GitLab, JUnit, Markdown); [`report`] the per-endpoint readiness reports; [`diff`] what
//! a change does, for review; [`baseline`] the file of findings a team has accepted;
//! [`simulate`] runs a policy through an outage and charts what it does.
//!
//! It builds on [`crate::analysis`] and [`crate::input`]; nothing below depends on it.

pub(crate) mod baseline;
pub(crate) mod diff;
pub mod output;
pub(crate) mod report;
pub mod simulate;
