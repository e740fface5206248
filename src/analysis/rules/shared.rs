//! Where a rule's fix lives when operations share it: the helpers with which a rule marks
//! its per-operation finding as one of a shared place (see [`crate::analysis::group`]).

use super::{OperationContext, RunContext, within};
use crate::analysis::rules::finding::Finding;
use crate::input::load::Sources;
use crate::input::model::Operation;
use crate::location::Loc;

impl RunContext<'_> {
    /// Whether `op`'s object (its `$ref`'d definition, or its entry) is shared by several
    /// operations: a path item or an operation `$ref`'d from several paths.
    pub(super) fn shares_body(&self, op: &Operation) -> bool {
        self.shared_bodies
            .get_or_init(|| {
                let mut seen = foldhash::HashSet::default();
                let mut shared = foldhash::HashSet::default();
                for body in self.api.operations.iter().map(body_of) {
                    let key = (body.file, body.pointer.clone());
                    if !seen.insert(key.clone()) {
                        shared.insert(key);
                    }
                }
                shared
            })
            .contains(&(body_of(op).file, body_of(op).pointer.clone()))
    }
}

impl OperationContext<'_> {
    /// Where a fix at `place` lives when other operations share it: `place` when it lies
    /// outside this operation's own object (a `$ref`'d definition, a path-level
    /// parameter, a policy entry, a layer's route), or inside it when the object itself
    /// is shared by several paths (a `$ref`'d path item). `None` when the fix is this
    /// operation's alone (its own response, its own `x-retry-policy`).
    pub fn shared_place(&self, place: &Loc) -> Option<Loc> {
        let op = self.op;
        let inside = |base: &Loc| place.file == base.file && within(&place.pointer, &base.pointer);
        let own = inside(&op.loc) || op.definition.as_ref().is_some_and(inside);
        (!own || self.run.shares_body(op)).then(|| place.clone())
    }

    /// Marks a finding whose primary place is where the fix lives (a policy entry, a
    /// layer's route) as that place's, when other operations may share it (see
    /// [`OperationContext::shared_place`]): one finding there says `before`, the number
    /// of operations it affects, then `after`.
    pub fn grouped_at_primary(
        &self,
        finding: Finding,
        before: impl Into<String>,
        after: impl Into<String>,
    ) -> Finding {
        match self.shared_place(&finding.primary.loc) {
            Some(_) => {
                let at = finding.primary.clone();
                finding.shared_at(at, before, after)
            }
            None => finding,
        }
    }

    /// Marks a finding about a policy value, which names no operation, as the value's
    /// when other operations may share it: the one finding there lists the operations
    /// and ends with how many. A value of the operation's own is left as it is.
    pub fn grouped_value(&self, finding: Finding) -> Finding {
        if self.shared_place(&finding.primary.loc).is_none() {
            return finding;
        }
        let before = format!("{} (", finding.message);
        let at = finding.primary.clone();
        finding.about(self.op).shared_at(at, before, ")")
    }

    /// Where a fix to the operation object itself lives (a response to add) when other
    /// operations share the object: see [`OperationContext::shared_place`].
    pub fn shared_body(&self) -> Option<Loc> {
        self.run
            .shares_body(self.op)
            .then(|| body_of(self.op).clone())
    }
}

/// Where an operation's object is written: its `$ref`'d definition, or its entry.
fn body_of(op: &Operation) -> &Loc {
    op.definition.as_ref().unwrap_or(&op.loc)
}

/// The name a shared definition goes by: the last part of its JSON Pointer
/// (`ServiceUnavailable`), or its file's name for a whole file.
pub fn definition_name(definition: &Loc, sources: &Sources) -> String {
    match definition
        .pointer
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
    {
        Some(last) => last.replace("~1", "/").replace("~0", "~"),
        None => sources[definition.file].name(),
    }
}
