//! `retrylint simulate`: a deterministic discrete-event simulation of a retry storm.
//!
//! Many clients call one or more operations, each with its effective retry policy, against
//! one server that has a capacity and fails for a while ([`scenario`]). Nothing sleeps and
//! nothing runs in parallel: time is an integer count of microseconds, and a binary heap
//! holds one pending event per call — its next request. The server's answer to a request
//! depends only on the time it is sent (fault windows, the capacity left), so it is decided
//! when the request is sent; the client's reaction to the answer depends only on the call,
//! so the next request is scheduled at the same moment. One heap entry per request, no
//! allocation per event.
//!
//! The model, in the order a request meets it:
//! - A request is *sent* at time `t`; the load curve counts requests by the second they are
//!   sent in. The server sees it at `t`; its answer reaches the client at `t + latency`.
//! - A fault window covering `t` decides first (the first one given, where several
//!   overlap): `connect-failure` (refused, nothing processed), a status such as `503` or
//!   `429` (with its `Retry-After`, nothing processed), `timeout-before-processing` (no
//!   answer, nothing processed), `timeout-after-processing` (processed, the answer lost).
//! - Otherwise the server processes the request if it has capacity: a token bucket filled
//!   at `capacity` per second that holds a tenth of a second's worth; with no token left it
//!   answers `503` (overload) without processing anything.
//! - Each attempt waits at most `min(perAttemptTimeout, what is left of the deadline)` for
//!   its answer (30 s when the policy bounds it with neither); later, the client sees a
//!   `timeout`.
//! - The client then retries what its `retryOn` lists (a signal it does not list ends the
//!   call as `not-transient`), and [`plan_retry`](crate::plan_retry) decides the wait or
//!   the stop, with a random unit that depends only on the seed, the call and the
//!   attempt — the same in every compared variant. A request earlier than the last
//!   answer's `Retry-After` asked for is counted. Like most HTTP clients, the simulated one retries whatever
//!   the method: for a non-idempotent operation it ignores `unknown-result`, unless its
//!   policy says `onUnknownOutcome: fail` (then it follows `plan_retry` to the letter) or
//!   `onUnknownOutcome: reconcile` with a `statusEndpoint` (then, after a timed-out write,
//!   its next request asks the status endpoint whether the write happened, and sends the
//!   write again only if it did not).
//! - A non-idempotent operation processed more than once for one call is a duplicate
//!   write — unless the policy names a `keyHeader`: the server deduplicates on the key and
//!   answers a repeat with the first result.
//! - A call with no deadline gets one: the simulation ends an hour after the last arrival
//!   or fault, and a call still retrying then ends as `deadline-exhausted`.
//!
//! - Proxies, gateways and meshes in front of the backend retry on their own: each client
//!   attempt goes through every layer's retry loop in turn, and the backend (its load,
//!   requests, duplicates) sees what the innermost loop sends. [`loops`] describes the
//!   nesting and what it leaves out; with no layer, the client's loop is the only one.
//!
//! Every variant runs on the same arrivals and the same random units, one after the
//! other; a variant changes the client's loop only. `engine` holds the event loop.

mod engine;
pub mod html;
pub mod loops;
pub mod output;
pub mod rng;
pub mod scenario;
pub mod scenario_file;
pub mod timeline;
pub mod variant;

use crate::analysis::plan::StopReason;
use crate::input::policy::{Duration, Effective};
pub use engine::{run, run_loops, run_on};
use loops::{LayerLoop, LoopSummary, Loops};
use rng::SplitMix64;
use scenario::{Arrival, Scenario};
use variant::{Client, Variant};

/// The most attempts per call a simulated policy may make.
pub const MAX_ATTEMPTS: i64 = 100;

/// How long an attempt waits for an answer when the policy bounds it with neither a
/// `perAttemptTimeout` nor a `deadline`.
pub const DEFAULT_ATTEMPT_TIMEOUT_US: i64 = 30_000_000;

/// How long the simulation runs after the last arrival or fault.
pub const HORIZON_US: i64 = 3_600_000_000;

/// The width of a load-curve bucket.
pub const BUCKET_US: i64 = 1_000_000;

/// Every stop reason, in the order outputs list them.
pub const STOP_REASONS: [StopReason; 7] = [
    StopReason::MaxAttempts,
    StopReason::DeadlineExhausted,
    StopReason::NotTransient,
    StopReason::UnknownResult,
    StopReason::InvalidRetryAfter,
    StopReason::InvalidDelay,
    StopReason::InvalidAttempt,
];

fn reason_index(reason: StopReason) -> usize {
    match reason {
        StopReason::MaxAttempts => 0,
        StopReason::DeadlineExhausted => 1,
        StopReason::NotTransient => 2,
        StopReason::UnknownResult => 3,
        StopReason::InvalidRetryAfter => 4,
        StopReason::InvalidDelay => 5,
        StopReason::InvalidAttempt => 6,
    }
}

/// Random streams of one seed.
const ARRIVAL_STREAM: u64 = 1;
const JITTER_STREAM: u64 = 2;
/// The first layer's jitter; the next layers take the next streams.
const LAYER_JITTER_STREAM: u64 = 3;

/// What one variant did in the scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// `policy`, or the `--compare` text.
    pub name: String,
    /// The operations simulated, `POST /orders`, joined by `, `.
    pub operation: String,
    pub calls: u64,
    /// Every request sent: attempts, and status lookups of reconciling clients.
    pub requests: u64,
    pub succeeded: u64,
    /// Calls that ended without success, by reason, in the order of [`STOP_REASONS`].
    pub stopped: [u64; 7],
    /// Writes of a non-idempotent operation processed beyond the first, for one call.
    pub duplicates: u64,
    /// Requests sent before the time a `Retry-After` of the previous answer asked for.
    pub earlier_than_retry_after: u64,
    /// Requests sent in each second, from time zero to the last request.
    pub load: Vec<u32>,
    /// The longest call, from its first request to its end.
    pub longest_call: Duration,
    /// The most requests one call sent.
    pub most_requests_per_call: u32,
    /// Calls that ended after their deadline: none, by construction; counted so that
    /// tests can check it.
    pub past_deadline: u64,
}

impl Outcome {
    /// Requests per call.
    pub fn amplification(&self) -> f64 {
        if self.calls == 0 {
            0.0
        } else {
            self.requests as f64 / self.calls as f64
        }
    }

    /// The most requests sent in one second.
    pub fn peak(&self) -> u32 {
        self.load.iter().copied().max().unwrap_or(0)
    }

    /// The most requests sent in one second from the end of the last fault on.
    pub fn peak_after(&self, recovery: Duration) -> u32 {
        let from = (recovery.as_micros() / BUCKET_US).max(0) as usize;
        self.load.iter().skip(from).copied().max().unwrap_or(0)
    }

    /// How many one-second buckets from `from_second` on had more than `capacity`
    /// requests.
    pub fn seconds_above(&self, capacity: u64, from_second: usize) -> usize {
        self.load
            .iter()
            .skip(from_second)
            .filter(|&&requests| u64::from(requests) > capacity)
            .count()
    }

    /// The calls that ended with `reason`.
    pub fn stopped_by(&self, reason: StopReason) -> u64 {
        self.stopped[reason_index(reason)]
    }
}

/// One simulated operation: its `METHOD /path`, effective policy, and the layers that
/// retry it in front of the backend.
#[derive(Debug, Clone)]
pub struct Target {
    pub operation: String,
    pub policy: Effective,
    /// The layers' loops, outermost first (none: the client's loop alone).
    pub layers: Vec<LayerLoop>,
}

impl Target {
    /// The loops the policy as written goes through, client first.
    pub fn loops(&self) -> Vec<LoopSummary> {
        std::iter::once(LoopSummary::client(self.policy.max_attempts()))
            .chain(self.layers.iter().map(LoopSummary::layer))
            .collect()
    }
}

/// Runs the scenario once per variant: the policy as written first, then each variant.
pub fn simulate(scenario: &Scenario, targets: &[Target], variants: &[Variant]) -> Vec<Outcome> {
    // What does not depend on the variant is computed once.
    let arrivals = arrivals(scenario);
    let timeline = timeline::Timeline::new(&scenario.faults);
    std::iter::once(Variant::policy())
        .chain(variants.iter().cloned())
        .map(|variant| {
            // A variant changes the client's loop only.
            let loops: Vec<Loops> = targets
                .iter()
                .map(|t| Loops {
                    client: Client::new(t.operation.clone(), &variant.apply(&t.policy)),
                    layers: t.layers.iter().map(|l| l.client.clone()).collect(),
                })
                .collect();
            let mut outcome = run_loops(scenario, &timeline, &loops, &arrivals);
            outcome.name.clone_from(&variant.name);
            outcome
        })
        .collect()
}

/// When each call starts, sorted by time (ties by call number).
pub fn arrivals(scenario: &Scenario) -> Vec<(i64, u32)> {
    let mut rng = SplitMix64::stream(scenario.seed, ARRIVAL_STREAM);
    let n = scenario.clients;
    match scenario.arrival {
        Arrival::Uniform { window } => {
            let span = window.as_micros() as f64;
            let mut times: Vec<(i64, u32)> = (0..n)
                .map(|i| ((rng.next_unit() * span) as i64, i))
                .collect();
            times.sort_unstable();
            times
        }
        Arrival::Poisson { per_second } => {
            let mean_gap_us = 1e6 / per_second;
            let mut t = 0.0f64;
            (0..n)
                .map(|i| {
                    // Exponential gaps; 1 - u is in (0, 1], so the logarithm is finite.
                    t += -(1.0 - rng.next_unit()).ln() * mean_gap_us;
                    (t.min(i64::MAX as f64 / 4.0) as i64, i)
                })
                .collect()
        }
    }
}
