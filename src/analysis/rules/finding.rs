//! Findings: what a rule reports, with its primary place and related places, and
//! [`CheckResult`], the findings of one description as every output format reads them.

use std::fmt;

use crate::analysis::rules::RuleId;
use crate::input::load::Sources;
use crate::input::model::Operation;
use crate::location::Loc;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The label for an operation's place in the description.
pub fn declared_here(op: &Operation) -> String {
    format!("{} {} is declared here", op.method, op.path)
}

/// `POST /orders is declared here (non-idempotent)`, for a write; a gRPC rpc says where
/// its effect comes from: `(non-idempotent: no idempotency_level: unknown)`, or the
/// policy's `sideEffect` when `policy` states it.
pub fn write_declared_here(
    op: &Operation,
    policy: Option<&crate::input::policy::Effective>,
) -> String {
    let stated = policy.is_some_and(|p| {
        matches!(
            p.effect.source,
            crate::input::policy::EffectSource::Policy(_)
        )
    });
    match &op.grpc {
        Some(_) if stated => format!(
            "{} (non-idempotent: sideEffect in the policy)",
            declared_here(op)
        ),
        Some(grpc) => format!(
            "{} (non-idempotent: {})",
            declared_here(op),
            grpc.level_source()
        ),
        None => format!("{} (non-idempotent)", declared_here(op)),
    }
}

/// A place a finding points at, with what to say there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub loc: Loc,
    pub text: String,
}

impl Label {
    pub fn new(loc: &Loc, text: impl Into<String>) -> Label {
        Label {
            loc: loc.clone(),
            text: text.into(),
        }
    }
}

/// The operation a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OperationRef {
    pub method: String,
    pub path: String,
    pub operation_id: Option<String>,
}

impl OperationRef {
    pub fn of(op: &Operation) -> OperationRef {
        OperationRef {
            method: op.method.as_str().to_string(),
            path: op.path.clone(),
            operation_id: op.operation_id.clone(),
        }
    }
}

/// One reported problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: RuleId,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    /// The one operation a finding is about; `None` for a grouped finding (see
    /// `affected`) and for a finding about the policy as a whole.
    pub operation: Option<OperationRef>,
    pub primary: Label,
    pub related: Vec<Label>,
    /// Set by a rule on a per-operation finding whose fix lives in one shared place (a
    /// `$ref`'d response or parameter, a shared path item, a policy entry, a layer's
    /// route): the grouping pass ([`crate::analysis::group`]) merges the findings of one rule at
    /// one place into one finding there.
    pub shared: Option<Box<SharedPlace>>,
    /// Of a grouped finding: every operation it affects (each once), in description
    /// order, with where its per-operation finding pointed. Empty for every other finding.
    pub affected: Vec<Affected>,
    /// What `--fix` changes to resolve the finding, when the rule knows.
    pub fix: Option<Box<crate::analysis::fix::Fix>>,
}

/// Where a finding's fix lives when several operations share it, and what the one
/// finding there says. The message is `before`, the number of operations affected
/// (`1 operation`, `6 operations`), then `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedPlace {
    pub at: Label,
    pub before: String,
    pub after: String,
}

/// One operation a grouped finding affects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Affected {
    pub operation: OperationRef,
    /// Where the operation's own finding pointed (its use of the shared place, or the
    /// shared place itself).
    pub site: Loc,
}

impl Finding {
    /// A finding at `primary`. The engine sets the rule's severity; a rule may lower one
    /// finding below it (the engine keeps the lower of the two).
    pub fn new(rule: RuleId, message: impl Into<String>, primary: Label) -> Finding {
        Finding {
            rule,
            severity: Severity::Error,
            message: message.into(),
            help: None,
            operation: None,
            primary,
            related: Vec::new(),
            shared: None,
            affected: Vec::new(),
            fix: None,
        }
    }

    /// Marks a per-operation finding as one whose fix lives at `at`, shared by other
    /// operations: the grouping pass reports one finding there, saying `before`, the
    /// number of operations affected, then `after`. The finding itself keeps pointing at
    /// the operation, so that the operation's suppressions still apply to it alone.
    pub fn shared_at(
        mut self,
        at: Label,
        before: impl Into<String>,
        after: impl Into<String>,
    ) -> Finding {
        self.shared = Some(Box::new(SharedPlace {
            at,
            before: before.into(),
            after: after.into(),
        }));
        self
    }

    /// The operations the finding is about: its one operation, or every operation a
    /// grouped finding affects (each once, in description order).
    pub fn operations(&self) -> impl Iterator<Item = &OperationRef> {
        self.operation
            .iter()
            .chain(self.affected.iter().map(|a| &a.operation))
    }

    /// Whether the finding is about no operation (the policy, a layer as a whole).
    pub fn about_no_operation(&self) -> bool {
        self.operation.is_none() && self.affected.is_empty()
    }

    pub fn about(mut self, op: &Operation) -> Finding {
        self.operation = Some(OperationRef::of(op));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// The finding's fix, when there is one to offer (`None` leaves it without).
    pub fn fix(mut self, fix: Option<crate::analysis::fix::Fix>) -> Finding {
        self.fix = fix.map(Box::new);
        self
    }

    pub fn related(mut self, loc: &Loc, text: impl Into<String>) -> Finding {
        self.related.push(Label::new(loc, text));
        self
    }
}

/// The outcome of checking one description.
#[derive(Debug)]
pub struct CheckResult {
    /// The description's display name.
    pub description: String,
    /// The description's root file among `sources`.
    pub root_file: crate::input::load::FileId,
    pub sources: Sources,
    /// The operations checked, in description order.
    pub operations: Vec<OperationRef>,
    pub findings: Vec<Finding>,
    /// Findings silenced by suppressions.
    pub suppressed: usize,
    /// Findings left out because the baseline holds them.
    pub baselined: usize,
    /// Webhooks the description declares: server-to-client calls, not checked.
    pub webhooks: usize,
    /// The policy file it was checked against, as named.
    pub policy: Option<String>,
    /// Whether a client policy decided what is retried: a policy file, the description's
    /// own `x-retry-policy`, or its `x-speakeasy-retries` (the generated SDK's retries, which
    /// the policy rules judge). Without one, only the contract was checked.
    pub client_policy: bool,
    /// How many operations are at each contract state.
    pub contract: crate::analysis::contract::StateCounts,
}
