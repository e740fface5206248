//! The library's entry points: what the command line and an editor integration call.
//!
//! A check reads a description (from a file, or text an editor holds for a path that may
//! not be saved yet), the policy given or the `retry-policy.yaml` beside it, and any layer
//! files, and returns the findings left after suppressions, each with exact places:
//!
//! ```
//! use retrylint::{CheckOptions, check_str};
//! use std::path::Path;
//!
//! let text = r#"
//! openapi: 3.1.0
//! info: { title: orders, version: "1" }
//! paths:
//!   /orders:
//!     post:
//!       responses:
//!         "201": { description: created }
//! "#;
//! let checked = check_str(Path::new("unsaved/openapi.yaml"), text, None, &CheckOptions::default())?;
//! for finding in &checked.findings {
//!     let place = &finding.primary.loc;
//!     let position = checked.sources[place.file].position(place.span.start);
//!     println!("{}:{}: {} ({})", position.line, position.column, finding.message, finding.rule);
//! }
//! assert_eq!(checked.operations.len(), 1);
//! # Ok::<(), retrylint::InputError>(())
//! ```
//!
//! Everything else the crate holds is its own business and may change between versions.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analysis::check::{
    LoadedPolicy, PolicyChoice, check_all, check_description, discover_policy,
};
use crate::input::load::stdin::Stdin;

pub use crate::analysis::check::CheckOptions;
pub use crate::analysis::rules::finding::{CheckResult, Finding, Label, Severity};
pub use crate::error::InputError;

/// Checks the description at `path` against `policy`, else against the policy file found
/// beside it, if any. The description is read while the policy is.
pub fn check_file(
    path: &Path,
    policy: Option<&Path>,
    options: &CheckOptions,
) -> Result<CheckResult, InputError> {
    let root_ahead = crate::input::load::RootAhead::start(path, &options.load);
    let policy = policy_for(path, policy, options)?;
    match root_ahead {
        Some(root_ahead) => {
            let mut options = options.clone();
            options.load.root_ahead = Some(root_ahead);
            check_description(path, policy.as_ref(), &options)
        }
        None => check_description(path, policy.as_ref(), options),
    }
}

/// Checks several descriptions, on every core; the results keep the order of `paths`.
/// A description that cannot be read gives its own error and does not stop the others.
pub fn check_files(
    paths: &[PathBuf],
    policy: Option<&Path>,
    options: &CheckOptions,
) -> Result<Vec<Result<CheckResult, InputError>>, InputError> {
    let choice = match policy {
        Some(policy) => PolicyChoice::Given(Box::new(crate::analysis::check::load_policy(
            policy,
            &options.load,
        )?)),
        None => PolicyChoice::Discover,
    };
    Ok(check_all(paths, &choice, options, &|| {}))
}

/// Checks `text` as the description at `path`, which need not exist on disk (an editor's
/// unsaved buffer): its `$ref`s are read relative to `path`'s folder, and the policy is
/// `policy`, else the one beside `path`. Unless `options` set the root folder, it is the
/// one a file at `path` would have (its git work tree, else its folder); the caller
/// vouches for `path`, as it does for a file it names.
pub fn check_str(
    path: &Path,
    text: &str,
    policy: Option<&Path>,
    options: &CheckOptions,
) -> Result<CheckResult, InputError> {
    let options = buffer_options(path, Arc::new(text.to_owned()), options)?;
    let policy = policy_for(Path::new(BUFFER), policy, &options)?;
    check_description(Path::new(BUFFER), policy.as_ref(), &options)
}

/// The path a description held in memory is checked as, once [`buffer_options`] made
/// the options that hold it.
pub(crate) const BUFFER: &str = crate::input::load::discover::STDIN;

/// The options of [`check_str`]: `text` stands at `path` (read as [`BUFFER`]), and the
/// root folder is the one a file at `path` would have unless `options` set it.
pub(crate) fn buffer_options(
    path: &Path,
    text: crate::input::source::SharedText,
    options: &CheckOptions,
) -> Result<CheckOptions, InputError> {
    let mut options = options.clone();
    if options.load.root.is_none() {
        let absolute = std::path::absolute(path).map_err(|e| {
            InputError::new(format!(
                "cannot place `{}`: {e}",
                crate::input::source::path_text(path)
            ))
        })?;
        options.load.root = Some(crate::input::load::root_for(&absolute, None)?.dir);
    }
    options.load.stdin = Some(Arc::new(Stdin::with_text(path.to_path_buf(), text)));
    Ok(options)
}

/// The policy given, else the one beside the description, loaded.
pub(crate) fn policy_for(
    description: &Path,
    given: Option<&Path>,
    options: &CheckOptions,
) -> Result<Option<LoadedPolicy>, InputError> {
    if let Some(path) = given {
        return crate::analysis::check::load_policy(path, &options.load).map(Some);
    }
    discover_policy(description, &options.load)?
        .map(|found| found.load(&options.load))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDERS: &str = "openapi: 3.1.0\n\
        info: {title: orders, version: '1'}\n\
        paths:\n  /orders:\n    post:\n      responses:\n        '201': {description: created}\n";

    #[test]
    fn a_buffer_is_checked_under_the_name_it_is_given() {
        let dir = std::env::temp_dir().join(format!("retrylint-api-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let policy = dir.join("retry-policy.yaml");
        std::fs::write(
            &policy,
            "version: 1\ndefaults:\n  maxAttempts: 3\n  retryOn: [503]\n",
        )
        .expect("the policy is written");
        let checked = check_str(
            &dir.join("openapi.yaml"),
            ORDERS,
            None,
            &CheckOptions::default(),
        )
        .expect("the buffer is checked");
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(checked.operations.len(), 1);
        assert!(checked.description.ends_with("openapi.yaml"));
        assert_eq!(
            checked
                .policy
                .as_deref()
                .map(|p| p.ends_with("retry-policy.yaml")),
            Some(true)
        );
        let rules: Vec<String> = checked
            .findings
            .iter()
            .map(|f| f.rule.to_string())
            .collect();
        assert!(
            rules.iter().any(|rule| rule == "unprotected-write-retry"),
            "the policy beside the buffer's path retries the POST: {rules:?}"
        );
    }

    #[test]
    fn a_broken_buffer_is_an_input_error_with_a_place() {
        let error = check_str(
            Path::new("broken.yaml"),
            "openapi: [",
            None,
            &CheckOptions::default(),
        )
        .expect_err("a syntax error");
        assert!(error.to_string().contains("broken.yaml"), "{error}");
    }
}
