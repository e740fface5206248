//! retrylint: a linter for the retry contracts of HTTP APIs.
//!
//! The pipeline reads left to right:
//! [`source`] (files parsed once into spanned trees) →
//! [`load`] (a description's files, `$ref`s followed) →
//! [`model`] (the operations and the facts retrying depends on) →
//! [`contract`] (what the description alone lets any client retry safely) →
//! [`policy`] (the retry policy file and each operation's effective policy) →
//! [`rules`] (checks that produce [`rules::finding`]s) →
//! [`output`] (how findings are shown).

#![forbid(unsafe_code)]

mod api;
pub use api::{
    CheckOptions, CheckResult, Finding, InputError, Label, Severity, check_file, check_files,
    check_str,
};

pub mod baseline;
pub mod check;
pub mod cli;
pub mod commands;
pub mod contract;
pub mod diff;
pub mod error;
pub mod escape;
pub mod group;
pub mod init;
pub mod layers;
pub mod load;
pub mod location;
pub mod model;
pub mod output;
pub mod plan;

pub use plan::plan_retry;
pub mod policy;
pub mod read;
pub mod report;
pub mod rules;
pub mod simulate;
pub mod source;
pub mod suppress;

/// The README's Rust examples run as doc tests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of the manual's library page run as doc tests too.
#[cfg(doctest)]
#[doc = include_str!("../docs/src/library.md")]
pub struct LibraryPageDoctests;
