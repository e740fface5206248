//! The rule registry: [`rules!`] turns one list of rules into their `mod` declarations,
//! the registry of checks ([`super::ALL`]) and [`RuleId`], the typed name every finding,
//! severity table, suppression and rule list carries.
//!
//! A rule's printed name is the kebab-case name of its `declare_rule!`
//! metadata (its file name with `-` for `_`). Rule ids order by that name, so that sorting
//! findings by rule is the same as sorting them by the name they print.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use super::RuleId;

/// Generates, from one line per rule (`module => Type`, in the order of the rule
/// catalogue) and one line per warning about suppressions (`Variant => metadata`):
/// the rules' `mod` declarations, `ALL` (the checks), the [`RuleId`] enum with
/// `RuleId::ALL` (the catalogue's ids), `RuleId::SUPPRESSION_WARNINGS`,
/// `RuleId::meta` and `RuleId::rule`, and `RULE_MODULES` (the listed files' names).
macro_rules! rules {
    (
        rules { $($module:ident => $rule:ident,)+ }
        suppression_warnings { $($warning:ident => $warning_meta:expr,)+ }
    ) => {
        $(mod $module;)+

        /// Every rule, in the order of the rule catalogue.
        pub static ALL: &[&dyn Rule] = &[$(&$module::$rule,)+];

        /// The modules of the rules, as listed (each is `src/analysis/rules/<module>.rs`).
        pub const RULE_MODULES: &[&str] = &[$(stringify!($module),)+];

        /// What a finding is of: a rule of the catalogue, or one of the warnings about
        /// suppressions. It prints, parses and serializes as the rule's kebab-case name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum RuleId {
            $($rule,)+
            $($warning,)+
        }

        impl RuleId {
            /// The rules of the catalogue, in its order.
            pub const ALL: &'static [RuleId] = &[$(RuleId::$rule,)+];

            /// The warnings about suppressions themselves: findings, but no rules that
            /// run, and no suppression can silence them.
            pub const SUPPRESSION_WARNINGS: &'static [RuleId] = &[$(RuleId::$warning,)+];

            /// What the rule (or warning) says about itself.
            pub fn meta(self) -> &'static RuleMeta {
                match self {
                    $(RuleId::$rule => &$module::$rule::META,)+
                    $(RuleId::$warning => &$warning_meta,)+
                }
            }

            /// The check, for a rule of the catalogue.
            pub fn rule(self) -> Option<&'static dyn Rule> {
                match self {
                    $(RuleId::$rule => Some(&$module::$rule),)+
                    $(RuleId::$warning => None,)+
                }
            }
        }
    };
}
pub(super) use rules;

impl RuleId {
    /// The kebab-case name, as every output prints it.
    pub fn as_str(self) -> &'static str {
        self.meta().name
    }

    /// Every id findings may carry: the catalogue's rules, then the suppression warnings.
    pub fn every() -> impl Iterator<Item = RuleId> {
        RuleId::ALL
            .iter()
            .chain(RuleId::SUPPRESSION_WARNINGS)
            .copied()
    }

    /// The catalogue rule with this name (not a suppression warning).
    pub fn rule_named(name: &str) -> Option<RuleId> {
        RuleId::ALL.iter().copied().find(|id| id.as_str() == name)
    }

    /// Whether this is a rule of the catalogue rather than a suppression warning.
    pub fn is_rule(self) -> bool {
        self.rule().is_some()
    }
}

/// A name that is no rule's nor suppression warning's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRule(pub String);

impl fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown rule `{}`", self.0)
    }
}

impl std::error::Error for UnknownRule {}

impl FromStr for RuleId {
    type Err = UnknownRule;

    /// Any id a finding may carry, by its printed name.
    fn from_str(name: &str) -> Result<RuleId, UnknownRule> {
        RuleId::every()
            .find(|id| id.as_str() == name)
            .ok_or_else(|| UnknownRule(name.to_string()))
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Ord for RuleId {
    fn cmp(&self, other: &RuleId) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for RuleId {
    fn partial_cmp(&self, other: &RuleId) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_file_is_listed_once() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/analysis/rules");
        // Modules of the engine itself, not rules.
        let engine = [
            "mod",
            "docs",
            "finding",
            "registry",
            "shared",
            "layered",
            "suppression_warnings",
            "tester",
        ];
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_suffix(".rs").map(str::to_string)
            })
            .filter(|name| !engine.contains(&name.as_str()))
            .collect();
        files.sort();
        let mut listed: Vec<String> = super::super::RULE_MODULES
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        listed.sort();
        assert_eq!(files, listed, "every rule file is one line of `rules!`");
    }

    #[test]
    fn each_layer_fix_is_asked_for_by_one_rule() {
        use crate::analysis::layers::format::Fix;
        for fix in Fix::ALL {
            let rules: Vec<RuleId> = RuleId::every()
                .filter(|id| id.meta().layer_fix == Some(fix))
                .collect();
            assert_eq!(rules.len(), 1, "{fix:?} is asked for by {rules:?}");
        }
    }

    #[test]
    fn ids_name_their_rules_and_parse_back() {
        for id in RuleId::every() {
            assert_eq!(id.meta().id, id, "{id}");
            assert_eq!(id.as_str().parse::<RuleId>(), Ok(id));
            assert_eq!(id.as_str().replace('-', "_").parse::<RuleId>().ok(), None);
        }
        for (id, module) in RuleId::ALL.iter().zip(super::super::RULE_MODULES) {
            assert_eq!(
                id.as_str().replace('-', "_"),
                *module,
                "a rule's file is its name"
            );
        }
        for (id, rule) in RuleId::ALL.iter().zip(super::super::ALL) {
            assert_eq!(rule.meta().id, *id);
            assert!(id.is_rule());
            assert_eq!(RuleId::rule_named(id.as_str()), Some(*id));
        }
        for id in RuleId::SUPPRESSION_WARNINGS {
            assert!(!id.is_rule());
            assert_eq!(RuleId::rule_named(id.as_str()), None);
        }
        assert_eq!(
            "retry-after-ignord".parse::<RuleId>(),
            Err(UnknownRule("retry-after-ignord".into()))
        );
    }

    #[test]
    fn ids_order_by_name() {
        let mut ids: Vec<RuleId> = RuleId::every().collect();
        ids.sort();
        let names: Vec<&str> = ids.iter().map(|id| id.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }

    #[test]
    fn ids_serialize_as_their_names() {
        let json = serde_json::to_string(&RuleId::ALL[0]).unwrap_or_default();
        assert_eq!(json, format!("\"{}\"", RuleId::ALL[0].as_str()));
    }
}
