//! `retrylint rules`, `retrylint explain RULE` and `retrylint schema`: what the tool knows.

use super::{Outcome, print};
use crate::error::InputError;

/// The JSON Schema of the retry policy file.
pub(crate) const POLICY_SCHEMA: &str = include_str!("../../schema/retry-policy.schema.json");

/// `retrylint rules`: name, default severity, what it judges (`policy`, `description`,
/// `contract`, `layers`), whether `check --fix` can fix it (`fix`, or `unsafe fix` with
/// `--unsafe-fixes`) and summary of every rule.
pub(crate) fn rules_table() -> String {
    let width = crate::analysis::rules::ALL
        .iter()
        .map(|r| r.meta().name.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for rule in crate::analysis::rules::ALL {
        let meta = rule.meta();
        out.push_str(&format!(
            "{:<width$}  {:<7}  {:<11}  {:<10}  {}\n",
            meta.name,
            meta.severity.as_str(),
            meta.scope.as_str(),
            match meta.fix {
                Some(crate::analysis::fix::Safety::Safe) => "fix",
                Some(crate::analysis::fix::Safety::Unsafe) => "unsafe fix",
                None => "",
            },
            meta.summary
        ));
    }
    out
}

pub(crate) fn explain(name: &str) -> Outcome {
    if let Some(meta) = crate::analysis::rules::meta(name) {
        print(meta.doc)
    } else {
        let mut error = InputError::new(format!("there is no rule `{name}`"));
        error = match crate::error::did_you_mean(name, crate::analysis::rules::names()) {
            Some(near) => error.with_help(format!("did you mean `{near}`?")),
            None => error.with_help("`retrylint rules` lists every rule"),
        };
        Err(vec![error])
    }
}
