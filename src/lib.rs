//! retrylint: a linter for the retry contracts of HTTP APIs.
//!
//! As a library, it checks descriptions ([`check_file`], [`check_files`], [`check_str`]) and
//! returns findings with their places ([`location`]), and it makes the retry decision a
//! client makes after each attempt ([`plan_retry`]) from a policy's values ([`policy`]).
//!
//! Inside, the pipeline reads left to right (`ARCHITECTURE.md` walks through it):
//! `source` (files parsed once into spanned trees) → `load` (a description's files,
//! `$ref`s followed) → `model` (the operations and the facts retrying depends on) →
//! `contract` (what the description alone lets any client retry safely) → `policy` (the
//! retry policy file and each operation's effective policy) → `layers` (the retries of
//! proxies, gateways, meshes and SDKs) → `rules` (checks that produce findings) →
//! suppressions and grouping → `output` and `report` (how findings are shown). A test
//! keeps the modules' graph free of cycles.

#![forbid(unsafe_code)]

mod api;
pub use api::{
    CheckOptions, CheckResult, Finding, InputError, Label, Severity, check_file, check_files,
    check_str,
};
pub use plan::plan_retry;
pub use rules::RuleId;

// The library's documented parts besides the entry points above: where a finding points,
// the retry decision, and the policy's values.
pub mod location;
pub mod plan;
pub mod policy;

// The stages the binary, the tests and the benches reach into: public so that they can,
// but no part of the library's interface, and free to change between versions.
#[doc(hidden)]
pub mod check;
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod layers;
#[doc(hidden)]
pub mod load;
#[doc(hidden)]
pub mod model;
#[doc(hidden)]
pub mod output;
#[doc(hidden)]
pub mod rules;
#[doc(hidden)]
pub mod simulate;
#[doc(hidden)]
pub mod source;

mod baseline;
mod commands;
mod contract;
mod diff;
mod error;
mod escape;
mod group;
mod init;
mod read;
mod report;
mod suppress;

/// The README's Rust examples run as doc tests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of the manual's library page run as doc tests too.
#[cfg(doctest)]
#[doc = include_str!("../docs/src/library.md")]
pub struct LibraryPageDoctests;
