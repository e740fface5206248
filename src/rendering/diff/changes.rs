//! The changes of one operation between two versions, each classified.
//!
//! A change that takes away what makes a retry safe (an idempotency key, a status
//! endpoint, a throttling answer, a conflict response, idempotency itself) or that makes
//! the client retry more, longer or less carefully is a **regression**; its opposite is
//! an **improvement**; a change that moves neither way is **neutral**.

use crate::analysis::check::Analysis;
use crate::analysis::contract::{Contract, ContractState, WaitHint};
use crate::input::model::Operation;
use crate::input::policy::{Effective, Jitter, SideEffect};
use crate::location::Loc;

use super::matching::Pair;
use super::{Change, ChangeKind, Class, OperationDiff, Presence};

/// The changes of one pair of operations.
pub(crate) fn of(pair: &Pair, base: &Analysis, head: &Analysis) -> OperationDiff {
    let base_op = pair.base.map(|i| &base.api.operations[i]);
    let head_op = pair.head.map(|i| &head.api.operations[i]);
    let shown = head_op.or(base_op);
    let mut diff = OperationDiff {
        method: shown
            .map(|o| o.method.as_str().to_string())
            .unwrap_or_default(),
        path: shown.map(|o| o.path.clone()).unwrap_or_default(),
        operation_id: shown.and_then(|o| o.operation_id.clone()),
        title: shown.map(Operation::title).unwrap_or_default(),
        presence: match (pair.base, pair.head) {
            (Some(_), Some(_)) => Presence::Both,
            (None, _) => Presence::Added,
            (_, None) => Presence::Removed,
        },
        base_index: pair.base,
        head_index: pair.head,
        base_state: pair.base.map(|i| base.contracts[i].state),
        head_state: pair.head.map(|i| head.contracts[i].state),
        changes: Vec::new(),
    };
    match (pair.base, pair.head) {
        (Some(b), Some(h)) => {
            let mut out = Changes {
                list: Vec::new(),
                head_op: head.api.operations[h].loc.clone(),
            };
            contract(&mut out, &base.contracts[b], &head.contracts[h]);
            policy(&mut out, base, head, b, h);
            diff.changes = out.list;
        }
        (None, Some(h)) => {
            let op = &head.api.operations[h];
            let contract = &head.contracts[h];
            diff.changes.push(if contract.state == ContractState::Unprotected {
                Change {
                    kind: ChangeKind::NewUnprotectedWrite,
                    class: Class::Regression,
                    message: "a new write with no idempotency key and no status endpoint: no client can retry it safely".into(),
                    base: None,
                    head: Some(op.loc.clone()),
                }
            } else {
                Change {
                    kind: ChangeKind::OperationAdded,
                    class: Class::Neutral,
                    message: format!("a new operation ({})", contract.state.as_str()),
                    base: None,
                    head: Some(op.loc.clone()),
                }
            });
        }
        (Some(b), None) => diff.changes.push(Change {
            kind: ChangeKind::OperationRemoved,
            class: Class::Neutral,
            message: "the operation is no longer described".into(),
            base: Some(base.api.operations[b].loc.clone()),
            head: None,
        }),
        (None, None) => {}
    }
    diff
}

/// Changes being collected for one operation.
struct Changes {
    list: Vec<Change>,
    /// The head's operation: where a change about something removed is shown.
    head_op: Loc,
}

impl Changes {
    fn add(
        &mut self,
        kind: ChangeKind,
        class: Class,
        message: String,
        base: Option<&Loc>,
        head: Option<&Loc>,
    ) {
        self.list.push(Change {
            kind,
            class,
            message,
            base: base.cloned(),
            head: Some(head.unwrap_or(&self.head_op).clone()),
        });
    }
}

fn contract(out: &mut Changes, b: &Contract, h: &Contract) {
    // Idempotency, as the contract states it.
    if b.effect != h.effect {
        let (class, what) = match (b.effect, h.effect) {
            (_, SideEffect::NonIdempotent) => (
                Class::Regression,
                "a repeated request now repeats its effect",
            ),
            (SideEffect::NonIdempotent, _) => (Class::Improvement, "repeating it is now harmless"),
            _ => (Class::Neutral, "its effect changed"),
        };
        out.add(
            ChangeKind::IdempotencyChanged,
            class,
            format!("{} → {}: {what}", b.effect.as_str(), h.effect.as_str()),
            b.effect_loc(),
            h.effect_loc(),
        );
    }
    // The idempotency key.
    match (&b.key, &h.key) {
        (Some(bk), None) => out.add(
            ChangeKind::KeyRemoved,
            Class::Regression,
            format!(
                "the idempotency key {} is no longer declared: a retry can repeat the write",
                bk.quoted()
            ),
            Some(&bk.loc),
            None,
        ),
        (None, Some(hk)) => out.add(
            ChangeKind::KeyAdded,
            Class::Improvement,
            format!(
                "declares the idempotency key {}{}",
                hk.quoted(),
                if hk.required {
                    " (required)"
                } else {
                    " (optional)"
                }
            ),
            None,
            Some(&hk.loc),
        ),
        (Some(bk), Some(hk)) => {
            if !bk.name.eq_ignore_ascii_case(&hk.name) || bk.place != hk.place {
                out.add(
                    ChangeKind::KeyRenamed,
                    Class::Regression,
                    format!(
                        "the idempotency key is renamed from {} to {}: clients that send {} lose their protection",
                        bk.quoted(), hk.quoted(), bk.quoted()
                    ),
                    Some(&bk.loc),
                    Some(&hk.loc),
                );
            }
            if bk.required && !hk.required {
                out.add(
                    ChangeKind::KeyMadeOptional,
                    Class::Regression,
                    format!("the idempotency key {} is no longer required: the server may accept a write without it", hk.quoted()),
                    Some(&bk.loc),
                    Some(&hk.loc),
                );
            } else if !bk.required && hk.required {
                out.add(
                    ChangeKind::KeyMadeRequired,
                    Class::Improvement,
                    format!("the idempotency key {} is now required", hk.quoted()),
                    Some(&bk.loc),
                    Some(&hk.loc),
                );
            }
        }
        (None, None) => {}
    }
    // The status endpoint.
    match (&b.status, &h.status) {
        (Some(bs), None) => out.add(
            ChangeKind::StatusEndpointRemoved,
            Class::Regression,
            "the status endpoint (link or 202 with Location) is gone: a client cannot learn whether a timed-out write happened".into(),
            Some(&bs.loc),
            None,
        ),
        (None, Some(hs)) => out.add(
            ChangeKind::StatusEndpointAdded,
            Class::Improvement,
            "offers a status endpoint: a client can learn whether a timed-out write happened".into(),
            None,
            Some(&hs.loc),
        ),
        _ => {}
    }
    // Throttling answers.
    for status in [429u16, 503] {
        let bt = b.throttling.iter().find(|t| t.status == status);
        let ht = h.throttling.iter().find(|t| t.status == status);
        match (bt, ht) {
            (Some(bt), None) => out.add(
                ChangeKind::ThrottleStatusRemoved,
                Class::Regression,
                format!("no longer declares {status}: clients cannot tell how the server asks them to slow down"),
                Some(&bt.loc),
                None,
            ),
            (None, Some(ht)) => out.add(
                ChangeKind::ThrottleStatusAdded,
                Class::Improvement,
                format!("declares {status}"),
                None,
                Some(&ht.loc),
            ),
            (Some(bt), Some(ht)) => match (&bt.wait, &ht.wait) {
                (WaitHint::None, WaitHint::None) => {}
                (_, WaitHint::None) => out.add(
                    ChangeKind::WaitHintRemoved,
                    Class::Regression,
                    format!("its {status} no longer says when to come back (Retry-After or RateLimit removed)"),
                    Some(&bt.loc),
                    Some(&ht.loc),
                ),
                (WaitHint::None, _) => out.add(
                    ChangeKind::WaitHintAdded,
                    Class::Improvement,
                    format!("its {status} now says when to come back"),
                    Some(&bt.loc),
                    Some(&ht.loc),
                ),
                _ => {}
            },
            (None, None) => {}
        }
    }
    // Conflict responses matter with a key: they answer a reused one.
    if b.key.is_some() || h.key.is_some() {
        for code in &b.conflicts {
            if !h.conflicts.contains(code) {
                out.add(
                    ChangeKind::ConflictResponseRemoved,
                    Class::Regression,
                    format!("no longer declares {code}, the answer to a reused or in-flight key"),
                    None,
                    None,
                );
            }
        }
        for code in &h.conflicts {
            if !b.conflicts.contains(code) {
                out.add(
                    ChangeKind::ConflictResponseAdded,
                    Class::Improvement,
                    format!("declares {code}, the answer to a reused or in-flight key"),
                    None,
                    None,
                );
            }
        }
    }
}

/// The client policy's changes, when either version retries the operation.
fn policy(out: &mut Changes, base: &Analysis, head: &Analysis, b: usize, h: usize) {
    let (be, he) = (base.effective.get(b), head.effective.get(h));
    let retried = |e: Option<&Effective>| e.is_some_and(Effective::is_retried);
    let safe = head.contracts[h].state.is_retry_safe();
    let risky = if safe {
        Class::Neutral
    } else {
        Class::Regression
    };
    /// Where a version's `maxAttempts` is written.
    fn attempts_at(e: Option<&Effective>) -> Option<&Loc> {
        e.and_then(|e| e.policy.max_attempts.as_ref())
            .map(|m| &m.loc)
    }
    match (retried(be), retried(he)) {
        (false, true) => {
            out.add(
                ChangeKind::NewlyRetried,
                risky,
                format!(
                    "now retried ({} attempts){}",
                    he.map_or(1, Effective::max_attempts),
                    if safe {
                        ""
                    } else {
                        " though the contract does not make a retry safe"
                    }
                ),
                None,
                attempts_at(he),
            );
            return;
        }
        (true, false) => {
            out.add(
                ChangeKind::NoLongerRetried,
                Class::Neutral,
                "no longer retried".into(),
                attempts_at(be),
                None,
            );
            return;
        }
        (false, false) => return,
        (true, true) => {}
    }
    let (Some(be), Some(he)) = (be, he) else {
        return;
    };
    // New signals.
    let before: Vec<_> = be.retry_on().iter().map(|s| s.value).collect();
    for signal in he.retry_on() {
        if !before.contains(&signal.value) {
            out.add(
                ChangeKind::RetriedOnNewSignal,
                risky,
                format!("now also retried on {}", signal.value),
                None,
                Some(&signal.loc),
            );
        }
    }
    // Attempts, in the client and through every layer.
    let (ba, ha) = (be.max_attempts(), he.max_attempts());
    if ha > ba {
        out.add(
            ChangeKind::MaxAttemptsUp,
            Class::Regression,
            format!("maxAttempts {ba} → {ha}"),
            attempts_at(Some(be)),
            attempts_at(Some(he)),
        );
    } else if ha < ba {
        out.add(
            ChangeKind::MaxAttemptsDown,
            Class::Improvement,
            format!("maxAttempts {ba} → {ha}"),
            attempts_at(Some(be)),
            attempts_at(Some(he)),
        );
    }
    let product = |a: &Analysis, i: usize, e: &Effective| a.layers.chain(i, Some(e)).product();
    let (bp, hp) = (product(base, b, be), product(head, h, he));
    let by_layers = |p: Option<u64>, attempts: i64| p != u64::try_from(attempts).ok();
    if (by_layers(bp, ba) || by_layers(hp, ha)) && bp != hp {
        let text = |p: Option<u64>| p.map_or("unbounded".to_string(), |p| p.to_string());
        let up = match (bp, hp) {
            (Some(bp), Some(hp)) => hp > bp,
            (Some(_), None) => true,
            _ => false,
        };
        out.add(
            if up {
                ChangeKind::AmplificationUp
            } else {
                ChangeKind::AmplificationDown
            },
            if up {
                Class::Regression
            } else {
                Class::Improvement
            },
            format!(
                "requests at the backend per call, through every layer: {} → {}",
                text(bp),
                text(hp)
            ),
            None,
            None,
        );
    }
    // The deadline.
    let (bd, hd) = (&be.policy.deadline, &he.policy.deadline);
    match (bd, hd) {
        (Some(bd), None) => out.add(
            ChangeKind::DeadlineRemoved,
            Class::Regression,
            format!(
                "the deadline of {} is gone: the call may now take as long as its attempts do",
                bd.value
            ),
            Some(&bd.loc),
            None,
        ),
        (None, Some(hd)) => out.add(
            ChangeKind::DeadlineAdded,
            Class::Improvement,
            format!("a deadline of {}", hd.value),
            None,
            Some(&hd.loc),
        ),
        (Some(bd), Some(hd)) if hd.value < bd.value => {
            let needed = crate::analysis::plan::schedule::worst_case(he).and_then(|s| s.needed);
            let cut = needed.is_some_and(|n| hd.value < n);
            out.add(
                if cut { ChangeKind::DeadlineBelowWorstCase } else { ChangeKind::DeadlineShortened },
                if cut { Class::Regression } else { Class::Neutral },
                match needed {
                    Some(n) if cut => format!("deadline {} → {}, below the {} its attempts need: later attempts are cut off", bd.value, hd.value, n),
                    _ => format!("deadline {} → {}", bd.value, hd.value),
                },
                Some(&bd.loc),
                Some(&hd.loc),
            );
        }
        _ => {}
    }
    // Jitter.
    let jitter = |e: &Effective| {
        e.policy
            .jitter
            .as_ref()
            .map(|j| j.value)
            .filter(|j| *j != Jitter::None)
    };
    match (jitter(be), jitter(he)) {
        (Some(_), None) => out.add(
            ChangeKind::JitterRemoved,
            Class::Regression,
            "retries no longer use jitter: after a shared failure every client retries at the same moments".into(),
            be.policy.jitter.as_ref().map(|j| &j.loc),
            he.policy.jitter.as_ref().map(|j| &j.loc),
        ),
        (None, Some(_)) => out.add(
            ChangeKind::JitterAdded,
            Class::Improvement,
            "retries now use jitter".into(),
            be.policy.jitter.as_ref().map(|j| &j.loc),
            he.policy.jitter.as_ref().map(|j| &j.loc),
        ),
        _ => {}
    }
    // Retry-After.
    fn honour_at(e: &Effective) -> Option<&Loc> {
        e.policy.retry_after_honor.as_ref().map(|h| &h.loc)
    }
    match (be.honors_retry_after(), he.honors_retry_after()) {
        (true, false) => out.add(
            ChangeKind::RetryAfterIgnored,
            Class::Regression,
            "Retry-After is no longer honoured: a throttled client comes back before the server asked".into(),
            honour_at(be),
            honour_at(he),
        ),
        (false, true) => out.add(ChangeKind::RetryAfterHonoured, Class::Improvement, "Retry-After is now honoured".into(), honour_at(be), honour_at(he)),
        _ => {}
    }
}
