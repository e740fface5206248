//! Nested retry loops: the client's, then each layer's in front of the backend.
//!
//! A call goes through one retry loop per position, in the order of
//! [`Bound::chain`](crate::analysis::layers::chain::Bound::chain): client → edge → gateway → mesh →
//! backend. Each attempt of a loop is one request to the next loop in, which retries it
//! on its own; the innermost loop's attempts are the requests the backend sees (the load
//! curve, `requests`, amplification and duplicate writes are counted there).
//!
//! The model, and what it leaves out:
//! - Hops between loops take no time: the backend's answer reaches every loop after the
//!   scenario's latency.
//! - A failure the backend answers is heard by the innermost loop, which decides with its
//!   own [`plan_retry`] inputs (its attempts, backoff, its deadline counted from when the
//!   loop started, its `retryOn`, `Retry-After` if it honours it). When it gives up, the
//!   next loop out hears the same failure at the same moment (the same status and
//!   `Retry-After`, a timeout stays a timeout: a proxy answering `504` for a timed-out try
//!   is not modelled) and decides in turn. A retry by a loop starts every loop inside it
//!   afresh: new attempt counts, new deadlines.
//! - A success goes straight back to the client.
//! - Each loop bounds its attempt by its `perAttemptTimeout` (from when that attempt
//!   began) and its `deadline`; a request to the backend waits until the earliest of every
//!   loop's bounds (30 s when no loop sets either), and the loop whose bound ends first
//!   hears a timeout (the outermost, on a tie); the loops inside it are abandoned. A loop
//!   waiting to retry is cut the same way when a loop around it reaches its bound first.
//! - Layers retry what their `retryOn` lists whatever the method (a route that retries
//!   only some methods makes one attempt for the others), never reconcile, and carry the
//!   client's idempotency key, so the server deduplicates their repeats as the client's.
//! - A layer's attempts are capped at [`MAX_ATTEMPTS`] per request it receives: a
//!   budget-only route (Linkerd, [`UNBOUNDED_ATTEMPTS`]) has no count of its own, and its
//!   budget is not simulated, so it retries up to the cap within its deadline and the
//!   simulation's horizon. The outputs say when a loop is capped.
//! - A layer at the client position (the SDK's retries) is an alternative to the policy,
//!   not a loop around it: the client loop is always the policy, as `--compare` changes it.

use serde::Serialize;

use super::scenario::RetryAfterHeader;
use super::variant::{Client, Mode};
use super::{DEFAULT_ATTEMPT_TIMEOUT_US, JITTER_STREAM, LAYER_JITTER_STREAM, MAX_ATTEMPTS, rng};
use crate::analysis::layers::chain::attempts_text;
use crate::analysis::layers::{Position, UNBOUNDED_ATTEMPTS};
use crate::analysis::plan::{Decision, Protections, RetryInput, StopReason, ms, plan_retry};
use crate::input::policy::{Effective, SideEffect, Signal};

/// A layer's retry loop in front of the backend, as `simulate` runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerLoop {
    /// Where the layer sits: edge, gateway or mesh.
    pub position: Position,
    /// The layer, as messages name it: `Istio VirtualService payments`.
    pub layer: String,
    /// The route of the layer that takes the operation.
    pub route: String,
    /// Attempts as the layer sets them ([`UNBOUNDED_ATTEMPTS`] for a budget-only route).
    pub attempts: i64,
    /// The loop as simulated: attempts at most [`MAX_ATTEMPTS`], retrying like a proxy.
    pub client: Client,
}

impl LayerLoop {
    /// The loop of a layer's route for operation `operation` with the layer's effective
    /// policy; `method_retried` is false when the route retries other methods only.
    pub fn new(
        position: Position,
        layer: String,
        route: String,
        operation: String,
        policy: &Effective,
        method_retried: bool,
    ) -> LayerLoop {
        let attempts = if method_retried {
            policy.max_attempts().max(1)
        } else {
            1
        };
        let mut client = Client::new(operation, policy);
        client.backoff.max_attempts = attempts.min(MAX_ATTEMPTS) as u32;
        // A proxy neither knows the status endpoint nor gives up on a write it may have
        // sent: it retries what its `retryOn` lists.
        client.mode = Mode::Naive;
        client.status_endpoint = false;
        LayerLoop {
            position,
            layer,
            route,
            attempts,
            client,
        }
    }

    /// Whether the simulation makes fewer attempts than the layer may.
    pub fn capped(&self) -> bool {
        self.attempts > MAX_ATTEMPTS
    }
}

/// The retry loops of one simulated operation, client first.
#[derive(Debug, Clone, PartialEq)]
pub struct Loops {
    /// The client's policy (what `--compare` changes).
    pub client: Client,
    /// The layers' loops, outermost first (edge, gateway, mesh).
    pub layers: Vec<Client>,
}

impl Loops {
    /// The client's loop alone.
    pub fn new(client: Client) -> Loops {
        Loops {
            client,
            layers: Vec::new(),
        }
    }

    /// How many loops a request goes through.
    pub fn depth(&self) -> usize {
        1 + self.layers.len()
    }

    /// Loop `k`, the client's at 0.
    fn at(&self, k: usize) -> &Client {
        match k.checked_sub(1) {
            Some(layer) => &self.layers[layer],
            None => &self.client,
        }
    }

    /// Whether no loop bounds an attempt: none has a `perAttemptTimeout` or a deadline.
    fn unbounded(&self) -> bool {
        std::iter::once(&self.client)
            .chain(&self.layers)
            .all(|c| c.per_attempt_timeout.is_none() && c.deadline.is_none())
    }
}

/// One loop's state within one call.
#[derive(Debug, Clone, Copy)]
pub(super) struct LoopState {
    /// When the loop sent its first attempt (since it last started afresh).
    start: i64,
    /// The absolute deadline (the horizon when the loop has none).
    pub deadline: i64,
    /// When the current attempt's `perAttemptTimeout` ends (`i64::MAX` when none).
    attempt_end: i64,
    /// The wait before the previous attempt, in milliseconds (negative when none).
    previous_delay_ms: f64,
    /// Attempts since the loop started.
    attempts: u32,
    /// Attempts over the whole call: the draw of the loop's random units.
    sent: u32,
}

impl LoopState {
    /// A loop of `policy` starting at `t`, no attempt made yet.
    pub(super) fn new(policy: &Client, t: i64, horizon: i64) -> LoopState {
        LoopState {
            start: t,
            deadline: policy
                .deadline
                .map_or(i64::MAX, |d| t.saturating_add(d.as_micros()))
                .min(horizon),
            attempt_end: i64::MAX,
            previous_delay_ms: -1.0,
            attempts: 0,
            sent: 0,
        }
    }

    /// When the loop stops waiting for its current attempt.
    fn bound(&self) -> i64 {
        self.attempt_end.min(self.deadline)
    }
}

/// The state of one call.
#[derive(Debug, Clone, Copy)]
pub(super) struct Call {
    /// The client's loop; the layers' loops are kept beside the calls.
    pub own: LoopState,
    /// The earliest time a `Retry-After` asked for (`i64::MIN` when none did).
    pub not_before: i64,
    /// The operation's loops: index into the run's [`Loops`].
    pub client: u32,
    /// Requests the backend received.
    pub requests: u32,
    /// Times the write was processed (replays of a deduplicated key not counted).
    pub writes: u32,
    /// The loop that sends the next attempt; the loops inside it start afresh.
    retry_from: u32,
    /// A reconciling client's next request is a status lookup.
    pub unknown: bool,
}

impl Call {
    /// A call of `loops` arriving at `t`.
    pub(super) fn new(loops: &Loops, client: u32, t: i64, horizon: i64) -> Call {
        Call {
            own: LoopState::new(&loops.client, t, horizon),
            not_before: i64::MIN,
            client,
            requests: 0,
            writes: 0,
            retry_from: 0,
            unknown: false,
        }
    }

    /// When the call started.
    pub(super) fn start(&self) -> i64 {
        self.own.start
    }

    fn state<'a>(&'a mut self, inner: &'a mut [LoopState], k: usize) -> &'a mut LoopState {
        match k.checked_sub(1) {
            Some(layer) => &mut inner[layer],
            None => &mut self.own,
        }
    }

    fn bound(&self, inner: &[LoopState], k: usize) -> i64 {
        match k.checked_sub(1) {
            Some(layer) => inner[layer].bound(),
            None => self.own.bound(),
        }
    }

    /// Opens the attempts of a request sent at `t`: the loop that retries makes one more,
    /// the loops inside it start afresh with their first. Returns when the request stops
    /// being waited for, and the loop that then hears a timeout.
    pub(super) fn open(
        &mut self,
        inner: &mut [LoopState],
        loops: &Loops,
        t: i64,
        horizon: i64,
    ) -> (i64, usize) {
        let depth = loops.depth();
        let from = self.retry_from as usize;
        for k in from..depth {
            let policy = loops.at(k);
            let state = self.state(inner, k);
            if k > from {
                // Afresh, but its random draws go on: each try of the call has its own.
                *state = LoopState {
                    sent: state.sent,
                    ..LoopState::new(policy, t, horizon)
                };
            }
            state.attempts += 1;
            state.sent += 1;
            state.attempt_end = policy
                .per_attempt_timeout
                .map_or(i64::MAX, |d| t.saturating_add(d.as_micros()));
        }
        if loops.unbounded() {
            self.state(inner, depth - 1).attempt_end = t.saturating_add(DEFAULT_ATTEMPT_TIMEOUT_US);
        }
        self.earliest_bound(inner, depth)
            .unwrap_or((i64::MAX, depth - 1))
    }

    /// The earliest bound of the loops `0..depth`, and its loop (the outermost on a tie).
    fn earliest_bound(&self, inner: &[LoopState], depth: usize) -> Option<(i64, usize)> {
        (0..depth).map(|k| (self.bound(inner, k), k)).min()
    }
}

/// What a loop heard: a failed answer, or its own timeout.
#[derive(Debug, Clone, Copy)]
pub(super) struct Heard {
    /// The loop that heard it first.
    pub from: usize,
    pub at: i64,
    pub signal: Signal,
    pub retry_after: Option<RetryAfterHeader>,
    /// The status endpoint said the write never happened: sending it again is safe.
    pub known_unprocessed: bool,
}

/// What the call does next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Next {
    /// Sends its next request at this time.
    Send(i64),
    /// The client gave up at this time.
    Stop(i64, StopReason),
}

/// The loop that heard a failure decides; a loop that gives up hands the failure to the
/// next loop out, and a loop that waits to retry is cut by a loop around it whose bound
/// comes first.
pub(super) fn react(
    loops: &Loops,
    call: &mut Call,
    inner: &mut [LoopState],
    heard: Heard,
    (seed, i): (u64, u32),
) -> Next {
    let Heard {
        from: mut k,
        mut at,
        mut signal,
        mut retry_after,
        known_unprocessed,
    } = heard;
    loop {
        let policy = loops.at(k);
        let write = policy.side_effect == SideEffect::NonIdempotent;
        if k == 0 && policy.mode == Mode::Reconcile && write && signal == Signal::Timeout {
            call.unknown = true;
        }
        let known_unprocessed = k == 0 && known_unprocessed;
        let stream = match k {
            0 => JITTER_STREAM,
            _ => LAYER_JITTER_STREAM + (k as u64 - 1),
        };
        let state = *call.state(inner, k);
        let random = rng::unit(seed, stream, i, state.sent);
        match decide(
            policy,
            &state,
            (signal, retry_after),
            at,
            known_unprocessed,
            random,
        ) {
            Decision::Retry { delay, .. } => {
                let next = at.saturating_add(delay.as_micros().max(0));
                let cut = call
                    .earliest_bound(inner, k)
                    .filter(|&(bound, _)| bound <= next);
                if let Some((bound, outer)) = cut {
                    (k, at, signal, retry_after) = (outer, bound, Signal::Timeout, None);
                    continue;
                }
                call.state(inner, k).previous_delay_ms = ms(delay);
                if let Some(RetryAfterHeader::After(after)) = retry_after {
                    call.not_before = at.saturating_add(after.as_micros());
                }
                call.retry_from = k as u32;
                return Next::Send(next);
            }
            Decision::Stop(reason) => match k.checked_sub(1) {
                Some(outer) => k = outer,
                None => return Next::Stop(at, reason),
            },
        }
    }
}

/// One loop's decision on a failure heard at `at`.
fn decide(
    policy: &Client,
    state: &LoopState,
    (signal, retry_after): (Signal, Option<RetryAfterHeader>),
    at: i64,
    known_unprocessed: bool,
    random: f64,
) -> Decision {
    let write = policy.side_effect == SideEffect::NonIdempotent;
    let (side_effect, protections) = match policy.mode {
        // Most clients retry what `retryOn` lists whatever the method.
        Mode::Naive if write => (SideEffect::Idempotent, Protections::default()),
        Mode::Naive => (policy.side_effect, Protections::default()),
        Mode::Fail => (policy.side_effect, Protections::default()),
        Mode::Reconcile => (
            policy.side_effect,
            Protections {
                idempotency_key: policy.key,
                status_endpoint: policy.status_endpoint,
            },
        ),
    };
    let decision = plan_retry(&RetryInput {
        side_effect,
        signal,
        attempts_made: state.attempts,
        now_ms: (at - state.start) as f64 / 1_000.0,
        deadline_ms: (state.deadline - state.start) as f64 / 1_000.0,
        backoff: policy.backoff,
        random,
        previous_delay_ms: (state.previous_delay_ms >= 0.0).then_some(state.previous_delay_ms),
        retry_after_ms: retry_after.map(|h| match h {
            RetryAfterHeader::After(after) => ms(after),
            RetryAfterHeader::Invalid => f64::NAN,
        }),
        honor_retry_after: policy.honor_retry_after,
        retry_after_max_ms: policy.retry_after_max_ms,
        on_missing_retry_after: policy.retry_after_fallbacks.0,
        on_invalid_retry_after: policy.retry_after_fallbacks.1,
        protections,
    });
    // A condition `retryOn` does not list is, for this loop, not transient: it stops
    // there, after the checks `plan_retry` makes first (attempts left, sane values).
    let unlisted = !known_unprocessed && !policy.retries(signal);
    match decision {
        Decision::Stop(
            StopReason::InvalidAttempt | StopReason::InvalidDelay | StopReason::MaxAttempts,
        ) => decision,
        _ if unlisted => Decision::Stop(StopReason::NotTransient),
        _ => decision,
    }
}

/// One loop, as the outputs list it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopSummary {
    /// `client`, `edge`, `gateway` or `mesh`.
    pub position: &'static str,
    /// The layer (none for the client).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer: Option<String>,
    /// The layer's route that takes the operation (none for the client).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    /// Attempts as set (`None`: bounded only by a budget).
    pub attempts: Option<i64>,
    /// Attempts the simulation makes at most.
    pub simulated_attempts: i64,
}

impl LoopSummary {
    /// The client's loop with the policy's attempts.
    pub fn client(attempts: i64) -> LoopSummary {
        LoopSummary {
            position: Position::Client.as_str(),
            layer: None,
            route: None,
            attempts: Some(attempts),
            simulated_attempts: attempts,
        }
    }

    /// A layer's loop.
    pub fn layer(l: &LayerLoop) -> LoopSummary {
        LoopSummary {
            position: l.position.as_str(),
            layer: Some(l.layer.clone()),
            route: Some(l.route.clone()),
            attempts: (l.attempts != UNBOUNDED_ATTEMPTS).then_some(l.attempts),
            simulated_attempts: i64::from(l.client.backoff.max_attempts),
        }
    }
}

/// `client 3 × gateway 3 × mesh unbounded (capped at 100)`.
pub fn text(loops: &[LoopSummary]) -> String {
    loops
        .iter()
        .map(|l| {
            let written = attempts_text(l.attempts.unwrap_or(UNBOUNDED_ATTEMPTS));
            if l.attempts == Some(l.simulated_attempts) {
                format!("{} {written}", l.position)
            } else {
                format!(
                    "{} {written} (capped at {})",
                    l.position, l.simulated_attempts
                )
            }
        })
        .collect::<Vec<_>>()
        .join(" × ")
}

#[cfg(test)]
pub(crate) mod tests;
