//! `ambiguous-policy-match`: two equally specific selectors claim one operation.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// Two selectors of equal rank match one operation; the later one in the file wins.
    AmbiguousPolicyMatch,
    "ambiguous-policy-match",
    Warning,
    Policy,
    "two selectors of equal rank match one operation"
);

impl Rule for AmbiguousPolicyMatch {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.run.policy else { return };
        let Some(applied) = cx.run.matches.per_operation.get(cx.op_index) else {
            return;
        };
        // `applied` is sorted by rank, then file order: equal neighbours tie.
        for pair in applied.windows(2) {
            let (earlier, later) = (&policy.operations[pair[0]], &policy.operations[pair[1]]);
            if earlier.selector.rank() != later.selector.rank() {
                continue;
            }
            out.push(
                cx.finding(
                &Self::META,
                format!("is matched by `{}` and `{}`, equally specific: the later one wins field by field", earlier.selector, later.selector),
                Label::new(&later.loc, "wins"),
            )
                .help("merge the two entries, or make one selector more specific")
                .related(&earlier.loc, "also matches"),
            );
        }
    }
}
