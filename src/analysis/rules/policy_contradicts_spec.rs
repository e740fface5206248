//! `policy-contradicts-spec`: the client's policy against the description's own word.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::policy::SideEffect;

declare_rule!(
    /// The policy file retries an operation whose `x-retry-policy` says `maxAttempts: 1`,
    /// or states a side effect that contradicts `x-idempotent`.
    PolicyContradictsSpec,
    "policy-contradicts-spec",
    Warning,
    Policy,
    "the policy contradicts the description's x-retry-policy or x-idempotent"
);

impl Rule for PolicyContradictsSpec {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let (Some(policy), Some(file)) = (cx.policy, cx.run.policy) else {
            return;
        };
        let op = cx.op;
        let p = &policy.policy;
        if let (Some(said), Some(done)) = (
            policy
                .description
                .as_ref()
                .and_then(|d| d.max_attempts.as_ref()),
            &p.max_attempts,
        ) && said.value == 1
            && done.value > 1
            && done.loc.file == file.file
        {
            out.push(
                cx.finding(
                &Self::META,
                format!("is retried up to {} attempts, but its description says it must not be retried (maxAttempts: 1)", done.value),
                Label::new(&done.loc, format!("{} attempts", done.value)),
            )
                .help("follow the description, or ask its owners why the operation must not be retried")
                .related(&said.loc, "the description says maxAttempts: 1"),
            );
        }
        if let (Some(stated), Some(declared)) = (&p.side_effect, op.effect.declaration())
            && let Some(ext) = &declared.loc
            && stated.loc.file == file.file
        {
            // One says a repeat repeats the write and the other does not.
            let said_not = declared.says == crate::input::model::Repeat::NonIdempotent;
            let contradicts = match stated.value {
                SideEffect::NonIdempotent => !said_not,
                SideEffect::Idempotent | SideEffect::None => said_not,
            };
            let said = format!("{}: {}", declared.source.as_str(), declared.words);
            if contradicts {
                out.push(
                    Finding::new(
                        Self::META.id,
                        format!(
                            "{} {} is declared {} by the policy, but the description says {said}",
                            op.method,
                            op.path,
                            stated.value.as_str()
                        ),
                        Label::new(&stated.loc, format!("sideEffect: {}", stated.value.as_str())),
                    )
                    .about(op)
                    .help("make the policy and the description agree; the server's contract is the one to trust")
                    .related(ext, said),
                );
            }
        }
    }
}
