//! The event loop of one simulated run: calls, the server's capacity, and what each
//! request meets (see the module documentation of [`crate::simulate`] for the model).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::rng;
use super::scenario::{Capacity, FaultKind, RetryAfterHeader, Scenario};
use super::timeline::Timeline;
use super::variant::{Client, Mode};
use super::{
    BUCKET_US, DEFAULT_ATTEMPT_TIMEOUT_US, HORIZON_US, JITTER_STREAM, Outcome, reason_index,
};
use crate::plan::{Decision, Protections, RetryInput, StopReason, ms, plan_retry};
use crate::policy::{Duration, SideEffect, Signal};

/// The state of one call.
#[derive(Debug, Clone, Copy)]
struct Call {
    start: i64,
    /// The absolute deadline (the horizon when the policy has none).
    deadline: i64,
    /// The earliest time a `Retry-After` asked for (`i64::MIN` when none did).
    not_before: i64,
    /// The wait before the previous attempt, in milliseconds (negative when none).
    previous_delay_ms: f64,
    client: u32,
    /// Requests sent.
    requests: u32,
    /// Times the write was processed (replays of a deduplicated key not counted).
    writes: u32,
    /// A reconciling client's next request is a status lookup.
    unknown: bool,
}

/// The server's capacity: a token bucket, in millionths of a request.
struct Bucket {
    per_second: u64,
    level: i64,
    burst: i64,
    last: i64,
}

const TOKEN: i64 = 1_000_000;

impl Bucket {
    fn new(capacity: Capacity) -> Option<Bucket> {
        match capacity {
            Capacity::Unlimited => None,
            Capacity::PerSecond(n) => {
                // A tenth of a second's worth, at least one request.
                let burst = (n as i64).saturating_mul(TOKEN / 10).max(TOKEN);
                Some(Bucket {
                    per_second: n,
                    level: burst,
                    burst,
                    last: 0,
                })
            }
        }
    }

    fn take(&mut self, now: i64) -> bool {
        let elapsed = (now - self.last).max(0);
        self.last = now;
        // `per_second` tokens per second are `per_second` millionths per microsecond.
        let refill = elapsed.saturating_mul(self.per_second as i64);
        self.level = self.level.saturating_add(refill).min(self.burst);
        if self.level >= TOKEN {
            self.level -= TOKEN;
            true
        } else {
            false
        }
    }
}

/// What the client learns about a request, and when.
enum Heard {
    Success,
    Signal(Signal, Option<RetryAfterHeader>),
}

/// Runs one variant: `clients[i % clients.len()]` is the policy of call `i`.
pub fn run(scenario: &Scenario, clients: &[Client], arrivals: &[(i64, u32)]) -> Outcome {
    run_on(
        scenario,
        &Timeline::new(&scenario.faults),
        clients,
        arrivals,
    )
}

/// [`run`] with the scenario's fault timeline built once for every variant.
pub fn run_on(
    scenario: &Scenario,
    faults: &Timeline,
    clients: &[Client],
    arrivals: &[(i64, u32)],
) -> Outcome {
    let operation = clients
        .iter()
        .map(|c| c.operation.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = Outcome {
        name: String::new(),
        operation,
        calls: arrivals.len() as u64,
        requests: 0,
        succeeded: 0,
        stopped: [0; 7],
        duplicates: 0,
        earlier_than_retry_after: 0,
        load: Vec::new(),
        longest_call: Duration::ZERO,
        most_requests_per_call: 0,
        past_deadline: 0,
    };
    if clients.is_empty() {
        out.calls = 0;
        return out;
    }
    let last_arrival = arrivals.last().map_or(0, |a| a.0);
    let horizon = last_arrival
        .max(scenario.recovery().as_micros())
        .saturating_add(HORIZON_US);
    let mut calls: Vec<Call> = vec![
        Call {
            start: 0,
            deadline: 0,
            not_before: i64::MIN,
            previous_delay_ms: -1.0,
            client: 0,
            requests: 0,
            writes: 0,
            unknown: false,
        };
        arrivals.len()
    ];
    for &(t, i) in arrivals {
        let client = i % clients.len() as u32;
        let policy_deadline = clients[client as usize]
            .deadline
            .map_or(i64::MAX, |d| t.saturating_add(d.as_micros()));
        let call = &mut calls[i as usize];
        call.start = t;
        call.client = client;
        call.deadline = policy_deadline.min(horizon);
    }
    let mut bucket = Bucket::new(scenario.capacity);
    let mut heap: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::with_capacity(1_024);
    let mut next_arrival = 0usize;
    loop {
        // The earlier of the next arrival and the next retry.
        let from_arrivals = arrivals.get(next_arrival).copied();
        let from_heap = heap.peek().map(|r| r.0);
        let (t, i) = match (from_arrivals, from_heap) {
            (Some(a), Some(h)) if a <= h => {
                next_arrival += 1;
                a
            }
            (Some(a), None) => {
                next_arrival += 1;
                a
            }
            (_, Some(_)) => match heap.pop() {
                Some(Reverse(h)) => h,
                None => break,
            },
            (None, None) => break,
        };
        let call = &mut calls[i as usize];
        let client = &clients[call.client as usize];
        if let Some(next) = send(
            scenario,
            faults,
            client,
            call,
            (t, i),
            bucket.as_mut(),
            &mut out,
        ) {
            heap.push(Reverse((next, i)));
        }
    }
    for (call, client) in calls.iter().map(|c| (c, &clients[c.client as usize])) {
        if client.side_effect == SideEffect::NonIdempotent {
            out.duplicates += u64::from(call.writes.saturating_sub(1));
        }
        out.most_requests_per_call = out.most_requests_per_call.max(call.requests);
    }
    out
}

/// Sends call `i`'s next request at `t`; returns when it sends the one after, if it does.
fn send(
    scenario: &Scenario,
    faults: &Timeline,
    client: &Client,
    call: &mut Call,
    (t, i): (i64, u32),
    bucket: Option<&mut Bucket>,
    out: &mut Outcome,
) -> Option<i64> {
    out.requests += 1;
    call.requests += 1;
    let second = (t / BUCKET_US).max(0) as usize;
    if out.load.len() <= second {
        out.load.resize(second + 1, 0);
    }
    out.load[second] += 1;
    if t < call.not_before {
        out.earlier_than_retry_after += 1;
    }
    call.not_before = i64::MIN;
    let lookup = call.unknown;

    // The server.
    let fault = faults.at(t);
    let mut processed = false;
    // What the server answers (`None`: it never answers).
    let answer: Option<Heard> = match fault {
        Some(FaultKind::ConnectFailure) => Some(Heard::Signal(Signal::ConnectFailure, None)),
        Some(FaultKind::Status { code, retry_after }) => {
            Some(Heard::Signal(Signal::Status(code), retry_after))
        }
        Some(FaultKind::TimeoutBeforeProcessing) => None,
        Some(FaultKind::TimeoutAfterProcessing) | None => {
            if bucket.is_none_or(|b| b.take(t)) {
                processed = true;
                match fault {
                    Some(_) => None,
                    None => Some(Heard::Success),
                }
            } else {
                Some(Heard::Signal(Signal::Status(503), None))
            }
        }
    };
    if processed && !lookup && !(client.key && call.writes > 0) {
        call.writes += 1;
    }

    // The client.
    let timeout = match (client.per_attempt_timeout, client.deadline) {
        (Some(limit), _) => limit.as_micros(),
        (None, Some(_)) => i64::MAX,
        (None, None) => DEFAULT_ATTEMPT_TIMEOUT_US,
    }
    .min(call.deadline - t)
    .max(0);
    let latency = scenario.latency.as_micros();
    let (heard, at) = match answer {
        Some(heard) if latency < timeout => (heard, t + latency),
        _ => (Heard::Signal(Signal::Timeout, None), t + timeout),
    };
    let finish = |out: &mut Outcome, call: &Call| {
        let took = at - call.start;
        if took > out.longest_call.as_micros() {
            out.longest_call = Duration::from_micros(took);
        }
        if at > call.deadline.max(call.start) {
            out.past_deadline += 1;
        }
    };
    let (signal, retry_after) = match heard {
        Heard::Success if !lookup || call.writes > 0 => {
            out.succeeded += 1;
            finish(out, call);
            return None;
        }
        // The status endpoint says the write never happened: sending it again is safe.
        Heard::Success => {
            call.unknown = false;
            (Signal::RefusedStream, None)
        }
        Heard::Signal(signal, retry_after) => (signal, retry_after),
    };
    let known_unprocessed = lookup && !call.unknown;
    let write = client.side_effect == SideEffect::NonIdempotent;
    if client.mode == Mode::Reconcile && write && !lookup && signal == Signal::Timeout {
        call.unknown = true;
    }
    let (side_effect, protections) = match client.mode {
        // Most clients retry what `retryOn` lists whatever the method.
        Mode::Naive if write => (SideEffect::Idempotent, Protections::default()),
        Mode::Naive => (client.side_effect, Protections::default()),
        Mode::Fail => (client.side_effect, Protections::default()),
        Mode::Reconcile => (
            client.side_effect,
            Protections {
                idempotency_key: client.key,
                status_endpoint: client.status_endpoint,
            },
        ),
    };
    let decision = plan_retry(&RetryInput {
        side_effect,
        signal,
        attempts_made: call.requests,
        now_ms: (at - call.start) as f64 / 1_000.0,
        deadline_ms: (call.deadline - call.start) as f64 / 1_000.0,
        backoff: client.backoff,
        random: rng::unit(scenario.seed, JITTER_STREAM, i, call.requests),
        previous_delay_ms: (call.previous_delay_ms >= 0.0).then_some(call.previous_delay_ms),
        retry_after_ms: retry_after.map(|h| match h {
            RetryAfterHeader::After(after) => ms(after),
            RetryAfterHeader::Invalid => f64::NAN,
        }),
        honor_retry_after: client.honor_retry_after,
        retry_after_max_ms: client.retry_after_max_ms,
        on_missing_retry_after: client.retry_after_fallbacks.0,
        on_invalid_retry_after: client.retry_after_fallbacks.1,
        protections,
    });
    // A condition `retryOn` does not list is, for this client, not transient: it stops
    // there, after the checks `plan_retry` makes first (attempts left, sane values).
    let unlisted = !known_unprocessed && !client.retries(signal);
    let decision = match decision {
        Decision::Stop(
            StopReason::InvalidAttempt | StopReason::InvalidDelay | StopReason::MaxAttempts,
        ) => decision,
        _ if unlisted => Decision::Stop(StopReason::NotTransient),
        _ => decision,
    };
    match decision {
        Decision::Retry { delay, .. } => {
            call.previous_delay_ms = ms(delay);
            if let Some(RetryAfterHeader::After(after)) = retry_after {
                call.not_before = at.saturating_add(after.as_micros());
            }
            Some(at.saturating_add(delay.as_micros().max(0)))
        }
        Decision::Stop(reason) => {
            out.stopped[reason_index(reason)] += 1;
            finish(out, call);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Backoff;
    use crate::policy::Jitter;
    use crate::simulate::arrivals;
    use crate::simulate::scenario::{Arrival, Fault};

    fn client(side_effect: SideEffect, key: bool, mode: Mode) -> Client {
        Client {
            operation: "POST /charges".into(),
            backoff: Backoff {
                base_ms: 100.0,
                cap_ms: 1_000.0,
                multiplier: 2.0,
                jitter: Jitter::Full,
                max_attempts: 3,
            },
            retry_on: vec![Signal::Status(503), Signal::Timeout],
            per_attempt_timeout: Some(Duration::from_millis(1_000)),
            deadline: Some(Duration::from_millis(10_000)),
            honor_retry_after: true,
            retry_after_max_ms: None,
            retry_after_fallbacks: Default::default(),
            side_effect,
            key,
            status_endpoint: mode == Mode::Reconcile,
            mode,
        }
    }

    fn lost_responses() -> Scenario {
        Scenario {
            clients: 100,
            faults: vec![Fault::parse("timeout-after-processing@0s..1h").unwrap()],
            capacity: Capacity::Unlimited,
            ..Scenario::default()
        }
    }

    #[test]
    fn the_bucket_refills_at_the_capacity() {
        let mut bucket = Bucket::new(Capacity::PerSecond(10)).unwrap();
        assert!(bucket.take(0));
        assert!(!bucket.take(0));
        assert!(!bucket.take(50_000));
        assert!(bucket.take(100_000));
        // It holds a tenth of a second's worth: after a long pause, 2 of 200/s.
        let mut bucket = Bucket::new(Capacity::PerSecond(200)).unwrap();
        let served = (0..100).filter(|_| bucket.take(10_000_000)).count();
        assert_eq!(served, 20);
    }

    #[test]
    fn arrivals_are_sorted_and_within_the_window() {
        let s = Scenario::default();
        let a = arrivals(&s);
        assert_eq!(a.len(), 1_000);
        assert!(a.windows(2).all(|w| w[0] <= w[1]));
        assert!(a.iter().all(|&(t, _)| (0..60_000_000).contains(&t)));
        let poisson = Scenario {
            arrival: Arrival::Poisson { per_second: 50.0 },
            ..Scenario::default()
        };
        let last = arrivals(&poisson).last().map_or(0, |a| a.0);
        // 1,000 calls at 50 per second: about 20 s.
        assert!((17_000_000..23_000_000).contains(&last), "{last}");
    }

    #[test]
    fn a_lost_response_repeats_an_unprotected_write() {
        let s = lost_responses();
        let a = arrivals(&s);
        let naive = run(
            &s,
            &[client(SideEffect::NonIdempotent, false, Mode::Naive)],
            &a,
        );
        assert_eq!(naive.requests, 300);
        assert_eq!(naive.duplicates, 200);
        assert_eq!(naive.stopped_by(StopReason::MaxAttempts), 100);
        let keyed = run(
            &s,
            &[client(SideEffect::NonIdempotent, true, Mode::Naive)],
            &a,
        );
        assert_eq!((keyed.requests, keyed.duplicates), (300, 0));
        let idempotent = run(
            &s,
            &[client(SideEffect::Idempotent, false, Mode::Naive)],
            &a,
        );
        assert_eq!(idempotent.duplicates, 0);
        let careful = run(
            &s,
            &[client(SideEffect::NonIdempotent, false, Mode::Fail)],
            &a,
        );
        assert_eq!(careful.requests, 100);
        assert_eq!(careful.stopped_by(StopReason::UnknownResult), 100);
        // Reconciling clients ask the status endpoint instead of writing again.
        let reconciling = run(
            &s,
            &[client(SideEffect::NonIdempotent, false, Mode::Reconcile)],
            &a,
        );
        assert_eq!((reconciling.requests, reconciling.duplicates), (300, 0));
    }

    #[test]
    fn a_reconciling_client_learns_the_write_happened() {
        // Responses are lost in the first second only: each lookup, later, finds the write.
        let s = Scenario {
            clients: 50,
            arrival: Arrival::Uniform {
                window: Duration::from_millis(1_000),
            },
            faults: vec![Fault::parse("timeout-after-processing@0s..1s").unwrap()],
            ..lost_responses()
        };
        let a = arrivals(&s);
        let outcome = run(
            &s,
            &[client(SideEffect::NonIdempotent, false, Mode::Reconcile)],
            &a,
        );
        assert_eq!(outcome.succeeded, 50);
        assert_eq!(outcome.duplicates, 0);
        assert_eq!(outcome.requests, 100);
    }
}
