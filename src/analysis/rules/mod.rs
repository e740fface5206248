//! The rule engine: one file per rule, a registry, and the contexts rules read.
//!
//! A rule declares its metadata with [`declare_rule!`] (name, default severity, summary,
//! and its doc page from `rules/<name>.md`), then implements [`Rule`] with a per-operation
//! hook, a per-run hook, or both. Adding a rule is one file plus one line in the
//! [`registry::rules!`] list below, which generates [`ALL`] and [`RuleId`]. A rule's
//! passing and failing cases sit in its own file, run by `tester::Tester` in process.

pub mod docs;
pub mod finding;
mod layered;
mod registry;
mod shared;
mod suppression_warnings;
#[cfg(test)]
mod tester;

use std::sync::Arc;

use foldhash::HashMap;

use crate::analysis::contract::Contract;
use crate::analysis::layers::chain::{Bound, LayerHop};
use crate::analysis::layers::settings::LayerSettings;
use crate::analysis::layers::{Layer, Route};
use crate::analysis::rules::finding::{Finding, Label, Severity};
use crate::input::load::Sources;
use crate::input::model::{Api, Operation};
use crate::input::policy::{Effective, Level, Matches, PolicyFile, Signal, Spanned};

/// What every rule says about itself.
#[derive(Debug)]
pub struct RuleMeta {
    /// The id findings of the rule carry.
    pub id: RuleId,
    /// The kebab-case name: the problem, not the fix.
    pub name: &'static str,
    pub severity: Severity,
    /// What the rule judges, and so when it runs.
    pub scope: Scope,
    /// One line for `retrylint rules`.
    pub summary: &'static str,
    /// The rule's doc page (Markdown).
    pub doc: &'static str,
    /// The change to a layer's settings its finding asks for, when the finding is about a
    /// layer: each format says how to make it in its own terms.
    pub layer_fix: Option<crate::analysis::layers::format::Fix>,
    /// Whether `check --fix` can resolve its findings, and how safely.
    pub fix: Option<crate::analysis::fix::Safety>,
}

/// Declares a rule's unit struct and its [`RuleMeta`]: `layer_fix: X` names the change
/// to a layer's settings its finding asks for, `fix: Safe|Unsafe` that `--fix` can make it.
macro_rules! declare_rule {
    (@layer_fix) => { None };
    (@layer_fix $fix:ident) => { Some($crate::analysis::layers::format::Fix::$fix) };
    (@fix) => { None };
    (@fix $safety:ident) => { Some($crate::analysis::fix::Safety::$safety) };
    ($(#[$doc:meta])* $ty:ident, $name:literal, $severity:ident, $scope:ident, $summary:literal
        $(, layer_fix: $layer_fix:ident)? $(, fix: $safety:ident)? $(,)?) => {
        $(#[$doc])*
        pub(crate) struct $ty;

        impl $ty {
            pub(crate) const META: $crate::analysis::rules::RuleMeta = $crate::analysis::rules::RuleMeta {
                id: $crate::analysis::rules::RuleId::$ty,
                name: $name,
                severity: $crate::analysis::rules::finding::Severity::$severity,
                scope: $crate::analysis::rules::Scope::$scope,
                summary: $summary,
                doc: include_str!(concat!("../../../rules/", $name, ".md")),
                layer_fix: declare_rule!(@layer_fix $($layer_fix)?),
                fix: declare_rule!(@fix $($safety)?),
            };
        }

        impl $crate::analysis::rules::Describe for $ty {
            fn meta(&self) -> &'static $crate::analysis::rules::RuleMeta {
                &Self::META
            }
        }
    };
}

/// What a rule judges, which decides when it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// What a client's policy does (the policy file, or the description's
    /// `x-retry-policy`): says nothing without one.
    Policy,
    /// What the description states, with or without a policy.
    Description,
    /// What the contract lets any client do. These rules answer the question asked
    /// without a client policy; with one, the policy rules ask it of what that client
    /// really retries, so a contract rule runs only when `lint.rules` or `--select`
    /// names it.
    Contract,
    /// The mesh, gateway, proxy and SDK layers in front of the service.
    Layers,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Policy => "policy",
            Scope::Description => "description",
            Scope::Contract => "contract",
            Scope::Layers => "layers",
        }
    }
}

/// What [`declare_rule!`] implements: access to a rule's metadata.
pub trait Describe {
    fn meta(&self) -> &'static RuleMeta;
}

/// A check. Hooks that a rule does not need keep their empty default.
pub trait Rule: Describe + Sync {
    /// Called once per operation.
    fn check_operation(&self, _cx: &OperationContext<'_>, _out: &mut Vec<Finding>) {}

    /// Called once per description (for findings about the policy as a whole).
    fn check_run(&self, _cx: &RunContext<'_>, _out: &mut Vec<Finding>) {}

    /// Whether [`Rule::check_operation`] also judges a layer's route: a mesh, gateway,
    /// proxy or SDK that retries the operation on its own. Rules about how a request is
    /// retried opt in; rules about the description or the client's own behaviour (keys,
    /// logs, selectors) would only repeat themselves. A route that retries by a format's
    /// implicit default is never judged here: `implicit-mesh-retry` reports it.
    fn judges_layer(&self, _layer: &Layer, _route: &Route) -> bool {
        false
    }
}

registry::rules! {
    rules {
        unprotected_write_retry => UnprotectedWriteRetry,
        idempotency_key_undeclared => IdempotencyKeyUndeclared,
        idempotency_key_optional => IdempotencyKeyOptional,
        request_id_as_idempotency_key => RequestIdAsIdempotencyKey,
        status_endpoint_missing => StatusEndpointMissing,
        write_without_retry_protection => WriteWithoutRetryProtection,
        link_target_missing => LinkTargetMissing,
        key_retention_too_short => KeyRetentionTooShort,
        key_retention_undeclared => KeyRetentionUndeclared,
        key_conflict_response_undeclared => KeyConflictResponseUndeclared,
        side_effect_on_safe_method => SideEffectOnSafeMethod,
        retry_on_non_transient => RetryOnNonTransient,
        retry_after_ignored => RetryAfterIgnored,
        retry_after_unbounded => RetryAfterUnbounded,
        retry_after_header_undeclared => RetryAfterHeaderUndeclared,
        retry_status_undeclared => RetryStatusUndeclared,
        throttle_status_undeclared => ThrottleStatusUndeclared,
        missing_deadline => MissingDeadline,
        unbounded_attempts => UnboundedAttempts,
        invalid_backoff => InvalidBackoff,
        immediate_retry => ImmediateRetry,
        backoff_without_jitter => BackoffWithoutJitter,
        attempts_exceed_deadline => AttemptsExceedDeadline,
        unknown_outcome_unhandled => UnknownOutcomeUnhandled,
        unknown_outcome_unsupported => UnknownOutcomeUnsupported,
        policy_matches_nothing => PolicyMatchesNothing,
        ambiguous_policy_match => AmbiguousPolicyMatch,
        policy_contradicts_spec => PolicyContradictsSpec,
        log_leaks_secret => LogLeaksSecret,
        log_missing_retry_context => LogMissingRetryContext,
        implicit_mesh_retry => ImplicitMeshRetry,
        multi_layer_write_retry => MultiLayerWriteRetry,
        retry_amplification => RetryAmplification,
        layer_ignores_retry_after => LayerIgnoresRetryAfter,
        retry_budget_missing => RetryBudgetMissing,
        route_matches_nothing => RouteMatchesNothing,
        operation_not_routed => OperationNotRouted,
    }
    suppression_warnings {
        SuppressionWithoutReason => suppression_warnings::WITHOUT_REASON,
        UnusedSuppression => suppression_warnings::UNUSED,
    }
}

pub use retry_amplification::DEFAULT_MAX_AMPLIFICATION;
pub use shared::definition_name;

pub use registry::UnknownRule;

/// The names of all rules.
pub fn names() -> Vec<&'static str> {
    RuleId::ALL.iter().map(|id| id.as_str()).collect()
}

/// The rule with this name.
pub fn by_name(name: &str) -> Option<&'static dyn Rule> {
    RuleId::rule_named(name).and_then(RuleId::rule)
}

/// What is known about a name findings carry: a catalogue rule, or one of the two
/// warnings about suppressions.
pub fn meta(name: &str) -> Option<&'static RuleMeta> {
    name.parse::<RuleId>().ok().map(RuleId::meta)
}

/// Everything known about one description's check.
pub struct RunContext<'a> {
    pub api: &'a Api,
    pub sources: &'a Sources,
    /// Per operation, what the description alone promises (see [`crate::analysis::contract`]).
    pub contracts: &'a [Contract],
    pub policy: Option<&'a PolicyFile>,
    /// Effective policy per operation (empty without a policy).
    pub effective: &'a [Effective],
    pub matches: &'a Matches,
    /// Other layers' routes bound to the operations.
    pub layers: &'a Bound,
    /// Per operation, each bound layer's effective policy (see [`Bound::per_operation`]).
    pub layer_effective: &'a [Vec<Effective>],
    /// What the policy says about layers.
    pub layer_settings: Option<&'a LayerSettings>,
    /// Per `layers:` entry, how many layers it placed.
    pub position_hits: &'a [usize],
    /// `GET /path`, `HEAD /path` and the operationIds of the reads, built on first use.
    pub reads: std::sync::OnceLock<foldhash::HashSet<String>>,
    /// The operation objects several operations share (a path item or an operation
    /// `$ref`'d from several paths), by file and pointer, built on first use.
    pub shared_bodies: std::sync::OnceLock<foldhash::HashSet<(usize, Arc<str>)>>,
}

impl RunContext<'_> {
    /// Whether an exact selector (`GET /path` or an operationId) names a GET or HEAD
    /// operation, without a scan per question.
    pub fn is_read(&self, selector: &str) -> bool {
        self.reads
            .get_or_init(|| {
                let reads = self.api.operations.iter().filter(|o| o.is_read());
                reads
                    .flat_map(|o| std::iter::once(o.key()).chain(o.operation_id.clone()))
                    .collect()
            })
            .contains(selector)
    }
}

/// One operation and its effective policy (when there is a policy).
pub struct OperationContext<'a> {
    pub run: &'a RunContext<'a>,
    pub op: &'a Operation,
    /// The operation's index in `run.api.operations`.
    pub op_index: usize,
    pub policy: Option<&'a Effective>,
    /// The layer and route whose retrying `policy` is, when it is not the client's.
    pub layer: Option<(&'a Layer, &'a Route)>,
}

impl OperationContext<'_> {
    /// A finding about this operation; the message is prefixed with `METHOD /path`.
    pub fn finding(
        &self,
        rule: &RuleMeta,
        message: impl std::fmt::Display,
        primary: Label,
    ) -> Finding {
        let op = self.op;
        Finding::new(
            rule.id,
            format!("{} {} {message}", op.method, op.path),
            primary,
        )
        .about(op)
    }

    /// Adds where a `$ref`'d operation is defined to a finding that points at the
    /// operation's `$ref` entry and nowhere inside the definition: a missing header
    /// parameter or response is added there, not at the `$ref`.
    fn with_definition(&self, mut finding: Finding) -> Finding {
        let op = self.op;
        let Some(definition) = &op.definition else {
            return finding;
        };
        let at_site = |l: &Label| l.loc.file == op.loc.file && l.loc.pointer == op.loc.pointer;
        let inside = |l: &Label| {
            l.loc.file == definition.file && within(&l.loc.pointer, &definition.pointer)
        };
        let labels = || std::iter::once(&finding.primary).chain(&finding.related);
        if labels().any(at_site) && !labels().any(inside) {
            finding.related.push(Label::new(
                definition,
                format!("{} {} is defined here", op.method, op.path),
            ));
        }
        finding
    }
}

/// A finding of a client-policy rule about a layer's route: the message names the layer,
/// and the operation is a related location when no label points into the description.
///
/// A finding about a value rather than an operation names no route when the route is a
/// setting other routes share (the document's `x-speakeasy-retries`, which every
/// operation without its own inherits): there the route's name is an operation's, and
/// the finding is one, at the setting, however many operations inherit it.
fn in_layer(mut finding: Finding, hop: &LayerHop<'_>, op: &Operation) -> Finding {
    let layer = hop.layer;
    let route = hop.route;
    let shared = layer
        .routes
        .iter()
        .filter(|other| other.loc == route.loc)
        .nth(1)
        .is_some();
    let about_value = finding.operation.is_none() || finding.shared.is_some();
    let suffix = if about_value && shared {
        format!(" ({}: {})", layer.position, layer.name)
    } else {
        format!(
            " ({}: {}, route {})",
            layer.position,
            layer.name,
            hop.route_text()
        )
    };
    finding.message.push_str(&suffix);
    if let Some(group) = finding.shared.as_deref_mut() {
        group.after.push_str(&suffix);
    }
    if let Some(help) = finding
        .rule
        .meta()
        .layer_fix
        .and_then(|fix| layer.format.help(fix))
    {
        finding.help = Some(help.to_string());
    }
    let in_description = std::iter::once(&finding.primary)
        .chain(&finding.related)
        .any(|l| l.loc.file == op.loc.file);
    if !in_description {
        finding.related.push(Label::new(&op.loc, declared_here(op)));
    }
    finding
}

/// Says where a value really comes from on every label whose place stands for a default.
fn show_notes(finding: &mut Finding) {
    let shared = finding.shared.as_deref_mut().map(|s| &mut s.at);
    for label in std::iter::once(&mut finding.primary)
        .chain(&mut finding.related)
        .chain(shared)
    {
        if let Some(note) = &label.loc.note
            && !label.text.contains(&**note)
        {
            label.text = format!("{} ({note})", label.text);
        }
    }
}

/// Whether the JSON Pointer `pointer` is `base` or below it.
fn within(pointer: &str, base: &str) -> bool {
    pointer
        .strip_prefix(base)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Which rules run, at which severity.
#[derive(Debug, Clone, Default)]
pub struct RuleLevels {
    levels: HashMap<RuleId, Level>,
}

impl RuleLevels {
    /// Default severities (contract rules off when there is a policy), then `lint.rules`,
    /// then `--select` (only these) and `--ignore`.
    pub fn new(policy: Option<&PolicyFile>, select: &[RuleId], ignore: &[RuleId]) -> RuleLevels {
        // With a client policy, contract rules wait for `lint.rules` or `--select`.
        let mut levels: HashMap<RuleId, Level> = RuleId::ALL
            .iter()
            .map(|&id| {
                let meta = id.meta();
                let level = if policy.is_some() && meta.scope == Scope::Contract {
                    Level::Off
                } else {
                    level_of(meta.severity)
                };
                (id, level)
            })
            .collect();
        // The policy reader checked the names; one it let through unknown sets nothing.
        for (rule, level) in policy.map(|p| p.lint.rules.as_slice()).unwrap_or_default() {
            if let Some(slot) = RuleId::rule_named(&rule.value).and_then(|id| levels.get_mut(&id)) {
                *slot = level.value;
            }
        }
        if !select.is_empty() {
            for (id, level) in &mut levels {
                if !select.contains(id) {
                    *level = Level::Off;
                } else if *level == Level::Off {
                    *level = level_of(id.meta().severity);
                }
            }
        }
        for id in ignore {
            if let Some(slot) = levels.get_mut(id) {
                *slot = Level::Off;
            }
        }
        RuleLevels { levels }
    }

    pub fn severity(&self, rule: RuleId) -> Option<Severity> {
        match self.levels.get(&rule).copied().unwrap_or(Level::Off) {
            Level::Off => None,
            Level::Info => Some(Severity::Info),
            Level::Warning => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

fn level_of(severity: Severity) -> Level {
    match severity {
        Severity::Info => Level::Info,
        Severity::Warning => Level::Warning,
        Severity::Error => Level::Error,
    }
}

/// Runs every enabled rule and returns the findings in a stable order.
pub fn check(cx: &RunContext<'_>, levels: &RuleLevels) -> Vec<Finding> {
    let enabled: Vec<(&dyn Rule, Severity)> = ALL
        .iter()
        .filter_map(|r| levels.severity(r.meta().id).map(|s| (*r, s)))
        .collect();
    // The operations in blocks, each block on a core of its own; the findings come in
    // the operations' order whatever block finishes first.
    const BLOCK: usize = 64;
    let blocks: Vec<std::ops::Range<usize>> = (0..cx.api.operations.len())
        .step_by(BLOCK)
        .map(|from| from..(from + BLOCK).min(cx.api.operations.len()))
        .collect();
    let block = |ops: &std::ops::Range<usize>| check_operations(cx, &enabled, ops.clone());
    let mut findings: Vec<Finding> = crate::parallel::map_in_order_here(&blocks, block)
        .into_iter()
        .zip(&blocks)
        .flat_map(|(found, ops)| found.unwrap_or_else(|| block(ops)))
        .collect();
    let mut out = Vec::new();
    for (rule, severity) in &enabled {
        rule.check_run(cx, &mut out);
        findings.extend(out.drain(..).map(|f| Finding {
            severity: f.severity.min(*severity),
            ..f
        }));
    }
    for finding in &mut findings {
        show_notes(finding);
    }
    sort(&mut findings, cx.sources);
    // Findings about a policy value (not about one operation) arrive once per operation
    // that inherits the value; they are one finding.
    findings.dedup();
    findings
}

/// The findings of the enabled rules on the operations `ops`, in their order: on each
/// operation, then on each layer that retries it on its own.
fn check_operations(
    cx: &RunContext<'_>,
    enabled: &[(&dyn Rule, Severity)],
    ops: std::ops::Range<usize>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut out = Vec::new();
    for index in ops {
        let op = &cx.api.operations[index];
        let op_cx = OperationContext {
            run: cx,
            op,
            op_index: index,
            policy: cx.effective.get(index),
            layer: None,
        };
        for (rule, severity) in enabled {
            rule.check_operation(&op_cx, &mut out);
            findings.extend(out.drain(..).map(|f| Finding {
                severity: f.severity.min(*severity),
                ..op_cx.with_definition(f)
            }));
        }
        // The same checks, for each layer that retries the operation on its own.
        for hop in crate::analysis::layers::chain::hops(cx.layers, cx.layer_effective, index) {
            let (layer, route) = (hop.layer, hop.route);
            let layer_cx = OperationContext {
                policy: Some(hop.policy),
                layer: Some((layer, route)),
                ..op_cx
            };
            for (rule, severity) in enabled {
                if route.implicit || !rule.judges_layer(layer, route) {
                    continue;
                }
                rule.check_operation(&layer_cx, &mut out);
                findings.extend(out.drain(..).map(|f| Finding {
                    severity: f.severity.min(*severity),
                    ..in_layer(f, &hop, op)
                }));
            }
        }
    }
    findings
}

/// Sorts findings by file, place, rule and message: the order of every output.
pub fn sort(findings: &mut [Finding], sources: &Sources) {
    findings.sort_by_cached_key(|f| {
        (
            sources[f.primary.loc.file].name(),
            f.primary.loc.span,
            f.rule,
            f.message.clone(),
        )
    });
}

/// `timeout and 503`, `429, 503 and timeout`: conditions for a message.
pub fn describe_signals(signals: &[&Spanned<Signal>]) -> String {
    let names: Vec<String> = signals.iter().map(|s| s.value.to_string()).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

pub use crate::analysis::rules::finding::declared_here;
