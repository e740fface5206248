//! The four answers of a retry contract, in plain words, for one operation.

use super::Answers;
use crate::analysis::contract::Contract;
use crate::analysis::plan::schedule::Schedule;
use crate::input::model::Operation;
use crate::input::policy::{EffectSource, Effective, SideEffect, UnknownOutcome};

/// What repeating the operation repeats.
pub(super) fn side_effect(op: &Operation, policy: Option<&Effective>) -> SideEffect {
    match policy {
        Some(p) => p.effect.side_effect,
        None => SideEffect::of_operation(op),
    }
}

pub(super) fn answer(
    op: &Operation,
    policy: Option<&Effective>,
    plan: Option<&Schedule>,
    contract: Option<&Contract>,
) -> Answers {
    let effect = side_effect(op, policy);
    // The client's key protects only when the operation declares it.
    let declared = |key: &str| contract.is_some_and(|c| c.declares_key(op, key));
    Answers {
        effect: effect_text(op, policy, effect),
        safety: safety(policy, effect, &declared),
        budget: budget(policy, plan),
        unknown_outcome: unknown_outcome(policy, effect),
        layers: None,
    }
}

fn effect_text(op: &Operation, policy: Option<&Effective>, effect: SideEffect) -> String {
    match policy.map(|p| &p.effect.source) {
        Some(EffectSource::Policy(_)) => format!("{} (sideEffect in the policy)", effect.as_str()),
        _ => op.effect.text(op.method),
    }
}

fn safety(
    policy: Option<&Effective>,
    effect: SideEffect,
    declared: &dyn Fn(&str) -> bool,
) -> String {
    let Some(p) = policy.filter(|p| p.is_retried()) else {
        return "not retried".into();
    };
    match effect {
        SideEffect::None => "safe to repeat: it changes nothing".into(),
        SideEffect::Idempotent => "safe to repeat: idempotent".into(),
        SideEffect::NonIdempotent => {
            let mut reasons = Vec::new();
            let mut undeclared = None;
            if let Some(key) = &p.policy.key_header {
                if declared(&key.value) {
                    reasons.push(match &p.policy.key_retention {
                        Some(kept) => format!("{} kept {}", key.value, kept.value),
                        None => format!("{} (retention not stated)", key.value),
                    });
                } else {
                    undeclared = Some(&key.value);
                }
            }
            if let Some(endpoint) = &p.policy.status_endpoint {
                reasons.push(format!("status endpoint {}", endpoint.value));
            }
            if !reasons.is_empty() {
                format!("safe to repeat: {}", reasons.join(", "))
            } else if let Some(key) = undeclared {
                format!(
                    "not safe: the client sends {key}, which the operation does not declare, so the server is not known to deduplicate on it"
                )
            } else if p.retry_on().iter().all(|s| s.value.is_unprocessed()) {
                "retried only when the request never reached the server".into()
            } else {
                "not safe: nothing stops a retry from repeating the write".into()
            }
        }
    }
}

fn budget(policy: Option<&Effective>, plan: Option<&Schedule>) -> String {
    let Some(p) = policy else {
        return "1 attempt (no policy)".into();
    };
    let attempts = p.max_attempts();
    let mut text = if attempts == 1 {
        "1 attempt".to_string()
    } else {
        format!("{attempts} attempts")
    };
    if let Some(deadline) = &p.policy.deadline {
        text.push_str(&format!(" within {}", deadline.value));
    } else if p.is_retried() {
        text.push_str(", no deadline");
    }
    if p.is_retried() {
        match plan {
            Some(plan) => text.push_str(&worst_case_text(plan)),
            None => text.push_str(", no bound on how long it takes"),
        }
        // Only where a 429 or 503 is retried does a Retry-After have anything to say.
        match crate::analysis::plan::schedule::retry_after_bound(p).0 {
            crate::analysis::plan::schedule::RetryAfterBound::UpTo(max) => {
                text.push_str(&format!("; Retry-After honoured up to {max}"));
            }
            crate::analysis::plan::schedule::RetryAfterBound::Unbounded => {
                text.push_str("; Retry-After honoured, unbounded");
            }
            crate::analysis::plan::schedule::RetryAfterBound::None => {}
        }
    }
    text
}

/// The worst case, with the Retry-After ceiling it includes and the attempts it cuts.
fn worst_case_text(plan: &Schedule) -> String {
    use crate::analysis::plan::schedule::RetryAfterBound;
    let mut text = format!(
        ", worst case {}",
        crate::analysis::plan::schedule::shown(plan.worst_case)
    );
    if let RetryAfterBound::UpTo(max) = plan.retry_after {
        let backoff = plan.rows.iter().map(|r| r.backoff_max).max();
        match backoff {
            Some(b) if plan.rows.len() > 1 => text.push_str(&format!(
                " (waits: backoff up to {b}, Retry-After up to {max})"
            )),
            _ => text.push_str(&format!(" (waits: Retry-After up to {max})")),
        }
    }
    if plan.unreachable_attempts() > 0 {
        text.push_str(&format!(
            " ({} of {} attempts run)",
            plan.attempts, plan.max_attempts
        ));
    }
    text
}

fn unknown_outcome(policy: Option<&Effective>, effect: SideEffect) -> String {
    if effect != SideEffect::NonIdempotent {
        return "nothing to reconcile: repeating it is harmless".into();
    }
    let plan = policy.and_then(|p| p.policy.on_unknown_outcome.as_ref());
    match (plan.map(|p| p.value), policy) {
        (Some(UnknownOutcome::Fail), _) => "fail and report it".into(),
        (Some(UnknownOutcome::Reconcile), Some(p)) => match &p.policy.status_endpoint {
            Some(endpoint) => format!("reconcile through {}", endpoint.value),
            None => "reconcile, but there is no status endpoint".into(),
        },
        (Some(UnknownOutcome::RetrySameKey), Some(p)) => match &p.policy.key_header {
            Some(key) => format!("retry with the same {}", key.value),
            None => "retry with the same key, but there is no key".into(),
        },
        (None, Some(p)) if p.is_retried() => "not said".into(),
        _ => "fail (never retried)".into(),
    }
}
