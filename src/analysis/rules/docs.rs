//! The parts of the documentation that the registry's metadata decides, generated so
//! that they cannot drift from the code: the table of rules, each rule page's line about
//! its default severity, and what a page says of the rule's fix. A test compares them
//! with the committed text.

use super::{RuleId, Scope};

/// The table of rules (a header and one row per rule, in catalogue order), each row
/// linking the rule's page (`pages` is the path from the table's file to `rules/`, with
/// its trailing `/`) and giving its default severity and summary.
pub fn rules_table(pages: &str) -> String {
    let mut out =
        String::from("| rule | severity | `--fix` | what it finds |\n|---|---|---|---|\n");
    for id in RuleId::ALL {
        let meta = id.meta();
        out.push_str(&format!(
            "| [`{0}`]({pages}{0}.md) | {1} | {2} | {3} |\n",
            meta.name,
            meta.severity,
            meta.fix.map_or("", crate::analysis::fix::Safety::as_str),
            meta.summary
        ));
    }
    out
}

/// What a rule page's `## Fix` section says of `check --fix`, for a rule that has a fix.
pub fn fix_statement(id: RuleId) -> Option<&'static str> {
    Some(match id.meta().fix? {
        crate::analysis::fix::Safety::Safe => {
            "`retrylint check --fix` makes this change (a safe fix: it changes only the policy)."
        }
        crate::analysis::fix::Safety::Unsafe => {
            "`retrylint check --fix --unsafe-fixes` makes this change (an unsafe fix: it changes what the description promises or what a layer does)."
        }
    })
}

/// How a rule page's first paragraph starts: the rule's default severity.
/// A rule that lowers some findings may say so after it (`**error** for …, **warning**
/// otherwise`).
pub fn severity_statement(id: RuleId) -> String {
    format!("Default severity: **{}**", id.meta().severity)
}

/// How a rule page's first paragraph ends: for a contract or description rule, when it
/// runs (empty for the others).
pub fn scope_clause(id: RuleId) -> &'static str {
    match id.meta().scope {
        Scope::Contract => {
            " · a contract rule: it runs without a client policy, and with one only when \
             `lint.rules` (or `--select`) names it."
        }
        Scope::Description => " · a description rule: it runs with or without a client policy.",
        Scope::Policy | Scope::Layers => "",
    }
}

/// The paragraph of `page` that follows its title, with its lines joined by spaces.
pub fn page_severity_paragraph(page: &str) -> String {
    page.lines()
        .skip_while(|line| line.starts_with('#') || line.trim().is_empty())
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_states_its_rules_default_severity() {
        for &id in RuleId::ALL {
            let (start, end) = (severity_statement(id), scope_clause(id));
            let found = page_severity_paragraph(id.meta().doc);
            let qualified = found.strip_prefix(&start).is_some_and(|rest| {
                rest.strip_suffix(end)
                    .is_some_and(|between| between.is_empty() || between.starts_with(' '))
            });
            assert!(
                qualified,
                "rules/{id}.md: the paragraph under the title should read:\n{start}{end}\n\
                 (it reads: {found})"
            );
        }
    }

    #[test]
    fn a_page_says_whether_its_rule_has_a_fix() {
        for &id in RuleId::ALL {
            let page = id.meta().doc;
            match fix_statement(id) {
                Some(statement) => assert!(
                    page.contains(statement),
                    "rules/{id}.md: its Fix section should say:\n{statement}"
                ),
                None => assert!(
                    !page.contains("check --fix"),
                    "rules/{id}.md speaks of --fix, but the rule has no fix"
                ),
            }
        }
    }

    #[test]
    fn the_table_has_a_row_per_rule() {
        let table = rules_table("rules/");
        assert_eq!(table.lines().count(), RuleId::ALL.len() + 2);
        assert!(table.contains("| [`missing-deadline`](rules/missing-deadline.md) | error |"));
    }
}
