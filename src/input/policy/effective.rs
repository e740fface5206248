//! Effective policies: which layers apply to an operation, merged field by field.
//!
//! Precedence, lowest first (a higher layer overrides the fields it sets): the built-in
//! `maxAttempts: 1`, the description's root `x-retry-policy`, the operation's
//! `x-retry-policy`, `defaults`, `tag:` selectors, globs (fewer literal segments first),
//! then operationIds and exact `METHOD /path`. Entries of equal rank apply in file order,
//! so the later one wins; `ambiguous-policy-match` reports them.

use super::selector_index::SelectorIndex;
use super::{PolicyFile, PolicyObject, SideEffect, Signal, Spanned, parse_policy_object};
use crate::error::InputError;
use crate::input::load::Sources;
use crate::input::model::{Api, IdempotencyLevel, Operation, Repeat};
use crate::location::Loc;

/// Where an operation's side effect comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum EffectSource {
    /// `sideEffect` in a policy (file or `x-retry-policy`).
    Policy(Loc),
    /// The description, as the operation's `Inferred` effect reads it: a declaration
    /// (`x-side-effect`, `x-idempotent`, `idempotency_level`), its words and structure,
    /// or its method.
    Description,
}

impl SideEffect {
    /// The side effect a gRPC `idempotency_level` states: none for `NO_SIDE_EFFECTS` (safe,
    /// like GET), idempotent for `IDEMPOTENT` (like PUT), and non-idempotent for
    /// `IDEMPOTENCY_UNKNOWN` (a write that promises nothing, like POST).
    pub fn of_level(level: IdempotencyLevel) -> SideEffect {
        match level {
            IdempotencyLevel::NoSideEffects => SideEffect::None,
            IdempotencyLevel::Idempotent => SideEffect::Idempotent,
            IdempotencyLevel::Unknown => SideEffect::NonIdempotent,
        }
    }

    /// The side effect of a repeat as the model reads it.
    pub fn of_repeat(repeat: Repeat) -> SideEffect {
        match repeat {
            Repeat::Read => SideEffect::None,
            Repeat::Idempotent => SideEffect::Idempotent,
            Repeat::NonIdempotent => SideEffect::NonIdempotent,
        }
    }

    /// What the operation's description alone says it repeats (an unknown effect acts
    /// as a write that may repeat).
    pub fn of_operation(op: &Operation) -> SideEffect {
        SideEffect::of_repeat(op.effect.acts_as())
    }
}

/// What repeating the operation repeats, and why we think so.
#[derive(Debug, Clone, PartialEq)]
pub struct Effect {
    pub side_effect: SideEffect,
    pub source: EffectSource,
}

/// The policy that applies to one operation.
#[derive(Debug, Clone)]
pub struct Effective {
    pub policy: PolicyObject,
    pub effect: Effect,
    /// What the description's own `x-retry-policy` layers say (document, then operation),
    /// when it has any: most operations do not, and a policy object is large.
    pub description: Option<Box<PolicyObject>>,
}

impl Effective {
    /// Total attempts; 1 (never retried) unless a layer says otherwise.
    pub fn max_attempts(&self) -> i64 {
        self.policy.max_attempts.as_ref().map_or(1, |m| m.value)
    }

    pub fn is_retried(&self) -> bool {
        self.max_attempts() > 1
    }

    /// The conditions retried on (none when `retryOn` is not set).
    pub fn retry_on(&self) -> &[Spanned<Signal>] {
        self.policy
            .retry_on
            .as_ref()
            .map_or(&[], |r| r.value.as_slice())
    }

    /// Whether the client honours `Retry-After`.
    pub fn honors_retry_after(&self) -> bool {
        self.policy
            .retry_after_honor
            .as_ref()
            .is_some_and(|h| h.value)
    }

    /// `retryAfter.onMissing` and `retryAfter.onInvalid`, `backoff` when not set.
    pub fn retry_after_fallbacks(&self) -> (super::RetryAfterFallback, super::RetryAfterFallback) {
        let p = &self.policy;
        (
            p.retry_after_on_missing
                .as_ref()
                .map_or_else(Default::default, |f| f.value),
            p.retry_after_on_invalid
                .as_ref()
                .map_or_else(Default::default, |f| f.value),
        )
    }
}

/// Which policy entries matched which operations.
#[derive(Debug, Clone, Default)]
pub struct Matches {
    /// For each operation, the indices of the entries that apply to it, in the order applied.
    pub per_operation: Vec<Vec<usize>>,
    /// For each entry, how many operations it applies to.
    pub per_entry: Vec<usize>,
}

/// Computes every operation's effective policy.
pub fn resolve(
    api: &Api,
    policy: Option<&PolicyFile>,
    sources: &Sources,
) -> Result<(Vec<Effective>, Matches), InputError> {
    let root_layer = match &api.retry_policy {
        Some(ext) => Some(parse_policy_object(
            &sources[ext.loc.file],
            &ext.node,
            &ext.loc,
        )?),
        None => None,
    };
    let index = policy.map(SelectorIndex::new);
    let mut matches = Matches {
        per_operation: Vec::with_capacity(api.operations.len()),
        per_entry: vec![0; policy.map_or(0, |p| p.operations.len())],
    };
    let mut out = Vec::with_capacity(api.operations.len());
    for op in &api.operations {
        let mut merged = root_layer.clone().unwrap_or_default();
        if let Some(ext) = &op.retry_policy {
            merged.overlay(&parse_policy_object(
                &sources[ext.loc.file],
                &ext.node,
                &ext.loc,
            )?);
        }
        let description =
            (root_layer.is_some() || op.retry_policy.is_some()).then(|| Box::new(merged.clone()));
        let mut applied = Vec::new();
        if let (Some(policy), Some(index)) = (policy, &index) {
            if let Some(defaults) = &policy.defaults {
                merged.overlay(defaults);
            }
            applied = index.matching(policy, op);
            for &i in &applied {
                merged.overlay(&policy.operations[i].policy);
                matches.per_entry[i] += 1;
            }
        }
        let effect = effect_of(op, &merged);
        matches.per_operation.push(applied);
        out.push(Effective {
            policy: merged,
            effect,
            description,
        });
    }
    Ok((out, matches))
}

/// The operation's side effect: the policy's `sideEffect` when it states one, else what
/// the description says (see [`crate::input::model::effect`]).
pub fn effect_of(op: &Operation, policy: &PolicyObject) -> Effect {
    if let Some(stated) = &policy.side_effect {
        return Effect {
            side_effect: stated.value,
            source: EffectSource::Policy(stated.loc.clone()),
        };
    }
    Effect {
        side_effect: SideEffect::of_operation(op),
        source: EffectSource::Description,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::input::load::{LoadOptions, Loader};
    use crate::input::model::build;
    use crate::input::policy::parse_policy_file;
    use crate::input::source::{ParseLimits, SourceFile};

    fn parse(name: &str, text: &str) -> SourceFile {
        SourceFile::parse(name.into(), text.into(), ParseLimits::default())
            .unwrap_or_else(|(_, e)| panic!("{}", e.message))
    }

    #[test]
    fn effective_policies_share_the_fields_they_inherit() {
        let description = parse(
            "openapi.yaml",
            "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /a:\n    get: {operationId: one, responses: {\"200\": {description: ok}}}\n    put: {operationId: two, responses: {\"200\": {description: ok}}}\n",
        );
        let policy = parse(
            "retry-policy.yaml",
            "version: 1\ndefaults: {maxAttempts: 3, retryOn: [503]}\noperations:\n  one: {deadline: 5s}\n  two: {maxAttempts: 2}\n",
        );
        let policy = parse_policy_file(&policy, 0, &[]).unwrap();
        let mut loader = Loader::new(LoadOptions::default());
        let root = loader.add(Arc::new(description));
        let api = build(&mut loader, root).unwrap();
        let (effective, _) = super::resolve(&api, Some(&policy), &loader.into_sources()).unwrap();
        let defaults = policy.defaults.as_ref().unwrap();
        let (one, two) = (&effective[0].policy, &effective[1].policy);
        // Both inherit the one `retryOn` the defaults wrote; each keeps its entry's fields.
        for inherited in [one, two] {
            assert!(Arc::ptr_eq(
                inherited.retry_on.as_ref().unwrap(),
                defaults.retry_on.as_ref().unwrap()
            ));
        }
        assert!(Arc::ptr_eq(
            one.max_attempts.as_ref().unwrap(),
            defaults.max_attempts.as_ref().unwrap()
        ));
        assert!(Arc::ptr_eq(
            one.deadline.as_ref().unwrap(),
            policy.operations[0].policy.deadline.as_ref().unwrap()
        ));
        assert_eq!(two.max_attempts.as_ref().map(|m| m.value), Some(2));
        assert_eq!(
            &*two.max_attempts.as_ref().unwrap().loc.pointer,
            "/operations/two/maxAttempts"
        );
    }
}
