//! `side-effect-on-safe-method`: a GET (or HEAD, OPTIONS, TRACE) said to change state.

use super::{OperationContext, Rule, declared_here};
use crate::analysis::rules::finding::{Finding, Label};
use crate::input::model::Repeat;
use crate::input::policy::{EffectSource, SideEffect};

declare_rule!(
    /// A safe method declared `non-idempotent` by the policy, by `x-idempotent: false` or
    /// by `x-side-effect: non-idempotent`.
    SideEffectOnSafeMethod,
    "side-effect-on-safe-method",
    Warning,
    Description,
    "a safe method is declared non-idempotent"
);

impl Rule for SideEffectOnSafeMethod {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let op = cx.op;
        // An rpc is safe when its `idempotency_level` is NO_SIDE_EFFECTS (every rpc is a POST).
        let safe = match &op.grpc {
            Some(grpc) => grpc.level() == crate::input::model::IdempotencyLevel::NoSideEffects,
            None => op.method.is_safe(),
        };
        if !safe {
            return;
        }
        // The description's own declaration (`x-idempotent: false`, `x-side-effect:
        // non-idempotent`) says it with or without a policy.
        let in_description = || {
            op.effect
                .declaration()
                .filter(|cue| cue.says == Repeat::NonIdempotent)
                .and_then(|cue| cue.loc.as_ref())
        };
        let declared = match cx.policy {
            Some(policy) => match &policy.effect.source {
                EffectSource::Policy(loc)
                    if policy.effect.side_effect == SideEffect::NonIdempotent =>
                {
                    Some(loc)
                }
                EffectSource::Policy(_) => None,
                EffectSource::Description => in_description(),
            },
            None => in_description(),
        };
        let Some(loc) = declared else { return };
        out.push(
            cx.finding(
                &Self::META,
                match &op.grpc {
                    Some(_) => "is declared non-idempotent, but the rpc says `idempotency_level = NO_SIDE_EFFECTS`: clients and proxies repeat it freely".to_string(),
                    None => format!("is declared non-idempotent, but {} is a safe method: caches, crawlers and proxies repeat it freely", op.method),
                },
                Label::new(loc, "declared non-idempotent here"),
            )
            .help("make the operation a POST if it changes state; otherwise drop the non-idempotent declaration")
            .related(&op.loc, declared_here(op)),
        );
    }
}
