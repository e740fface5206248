//! An in-process tester for one rule, with its cases written beside the rule: each case
//! is a description (its `paths:` alone, or a whole document) and a policy, checked by the
//! library as a user's files would be, and the rule must fire on every failing case and
//! stay silent on every passing one.
//!
//! ```ignore
//! Tester::new(RuleId::MissingDeadline)
//!     .policy("version: 1\ndefaults: {maxAttempts: 3}\n")
//!     .fail(GET_ORDERS)
//!     .pass_with(GET_ORDERS, "version: 1\ndefaults: {maxAttempts: 3, deadline: 5s}\n")
//!     .test();
//! ```
//!
//! The fixtures under `fixtures/rules/` hold the larger cases and the snapshots of the
//! binary's output; these cases hold the edges a rule's logic turns on.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::RuleId;
use crate::api::{CheckOptions, check_file};

/// One case: a description and the policy it is checked against (none: no policy file).
struct Case {
    description: String,
    policy: Option<String>,
    fires: bool,
}

/// The cases of one rule.
pub(crate) struct Tester {
    rule: RuleId,
    policy: Option<String>,
    cases: Vec<Case>,
}

impl Tester {
    /// Cases of `rule`.
    pub(crate) fn new(rule: RuleId) -> Tester {
        Tester {
            rule,
            policy: None,
            cases: Vec::new(),
        }
    }

    /// The policy of the cases that do not give their own.
    pub(crate) fn policy(mut self, policy: &str) -> Tester {
        self.policy = Some(policy.to_owned());
        self
    }

    /// A description the rule must not fire on, under the common policy.
    pub(crate) fn pass(self, description: &str) -> Tester {
        let policy = self.policy.clone();
        self.case(description, policy, false)
    }

    /// A description the rule must fire on, under the common policy.
    pub(crate) fn fail(self, description: &str) -> Tester {
        let policy = self.policy.clone();
        self.case(description, policy, true)
    }

    /// A description and its own policy, which the rule must not fire on.
    pub(crate) fn pass_with(self, description: &str, policy: &str) -> Tester {
        self.case(description, Some(policy.to_owned()), false)
    }

    /// A description and its own policy, which the rule must fire on.
    pub(crate) fn fail_with(self, description: &str, policy: &str) -> Tester {
        self.case(description, Some(policy.to_owned()), true)
    }

    fn case(mut self, description: &str, policy: Option<String>, fires: bool) -> Tester {
        self.cases.push(Case {
            description: description.to_owned(),
            policy,
            fires,
        });
        self
    }

    /// Checks every case; fails with each case the rule judged wrongly, and what it said.
    pub(crate) fn test(self) {
        assert!(
            self.cases.iter().any(|c| c.fires) && self.cases.iter().any(|c| !c.fires),
            "`{}` needs a passing and a failing case at least",
            self.rule
        );
        let mut wrong = Vec::new();
        for (number, case) in self.cases.iter().enumerate() {
            let said = self.run(case);
            if said.is_empty() == case.fires {
                let expected = if case.fires { "fire" } else { "stay silent" };
                wrong.push(format!(
                    "case {number} should {expected}; the rule said {said:?}\n{}",
                    case.description
                ));
            }
        }
        assert!(
            wrong.is_empty(),
            "`{}` judged {} of {} cases wrongly:\n\n{}",
            self.rule,
            wrong.len(),
            self.cases.len(),
            wrong.join("\n\n")
        );
    }

    /// The messages of this rule's findings on one case.
    fn run(&self, case: &Case) -> Vec<String> {
        let dir = scratch();
        let description = if case.description.trim_start().starts_with("openapi:") {
            case.description.clone()
        } else {
            format!(
                "openapi: 3.1.0\ninfo: {{title: cases, version: '1'}}\n{}",
                case.description
            )
        };
        write(&dir, "openapi.yaml", &description);
        if let Some(policy) = &case.policy {
            write(&dir, "retry-policy.yaml", policy);
        }
        let options = CheckOptions {
            load: crate::input::load::LoadOptions {
                root: Some(dir.clone()),
                ..Default::default()
            },
            ..Default::default()
        };
        let checked = check_file(&dir.join("openapi.yaml"), None, &options);
        let _ = std::fs::remove_dir_all(&dir);
        match checked {
            Ok(checked) => checked
                .findings
                .iter()
                .filter(|f| f.rule == self.rule)
                .map(|f| f.message.clone())
                .collect(),
            Err(e) => panic!("a case of `{}` does not load: {e}", self.rule),
        }
    }
}

/// A new empty folder for one case.
fn scratch() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "retrylint-rule-case-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("a scratch folder for a rule case: {e}");
    }
    dir
}

fn write(dir: &std::path::Path, name: &str, text: &str) {
    if let Err(e) = std::fs::write(dir.join(name), text) {
        panic!("writing a rule case's {name}: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GET: &str = "paths:\n  /orders:\n    get:\n      operationId: listOrders\n      responses:\n        '200': {description: ok}\n";

    #[test]
    #[should_panic(expected = "judged 1 of 2 cases wrongly")]
    fn a_case_judged_wrongly_fails_the_test() {
        // No deadline in either policy: the "passing" case is wrong, and must be caught.
        Tester::new(RuleId::MissingDeadline)
            .policy("version: 1\ndefaults: {maxAttempts: 3, retryOn: [503]}\n")
            .fail(GET)
            .pass(GET)
            .test();
    }
}
