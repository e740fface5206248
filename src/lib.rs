//! retrylint: a linter for the retry contracts of HTTP APIs.
//!
//! As a library, it checks descriptions ([`check_file`], [`check_files`], [`check_str`]) and
//! returns findings with their places ([`location`]), and it makes the retry decision a
//! client makes after each attempt ([`plan_retry`]) from a policy's values ([`policy`]).
//!
//! Inside, the folders read left to right (`ARCHITECTURE.md` walks through them): `input`
//! (files parsed once into spanned trees, a description's files with their `$ref`s, the
//! operations' model, the policy) → `analysis` (contracts, layers, rules, findings,
//! suppressions and grouping) → `rendering` (outputs, reports, diffs, simulations) →
//! `commands` and `cli`. A test keeps the modules' graph free of cycles and every edge
//! pointing that way.

#![forbid(unsafe_code)]

mod api;
pub use analysis::plan::plan_retry;
pub use analysis::rules::RuleId;
pub use api::{
    CheckOptions, CheckResult, Finding, InputError, Label, Severity, check_file, check_files,
    check_str,
};

// The library's documented parts besides the entry points above: where a finding points,
// the retry decision, and the policy's values.
pub use analysis::plan;
pub use input::policy;
pub mod location;

// The stages, in the order they run: public so that the binary, the tests and the benches
// can reach into them, but no part of the library's interface, and free to change.
#[doc(hidden)]
pub mod analysis;
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod rendering;

mod commands;
mod error;
mod escape;
mod parallel;
mod server;

/// The README's Rust examples run as doc tests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of the manual's library page run as doc tests too.
#[cfg(doctest)]
#[doc = include_str!("../docs/src/library.md")]
pub struct LibraryPageDoctests;
