//! The event loop of one simulated run: calls, the server's capacity, and what each
//! request meets (see the module documentation of [`crate::rendering::simulate`] for the model).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::loops::{Call, Heard, LoopState, Loops, Next, react};
use super::scenario::{Capacity, FaultKind, RetryAfterHeader, Scenario};
use super::timeline::Timeline;
use super::variant::Client;
use super::{BUCKET_US, HORIZON_US, Outcome, reason_index};
use crate::input::policy::{Duration, SideEffect, Signal};

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

/// What the backend answers.
enum Answer {
    Success,
    Failure(Signal, Option<RetryAfterHeader>),
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
    let loops: Vec<Loops> = clients.iter().cloned().map(Loops::new).collect();
    run_loops(scenario, faults, &loops, arrivals)
}

/// Runs one variant through nested retry loops: `loops[i % loops.len()]` are the loops of
/// call `i` (see [`super::loops`]).
pub fn run_loops(
    scenario: &Scenario,
    faults: &Timeline,
    loops: &[Loops],
    arrivals: &[(i64, u32)],
) -> Outcome {
    let operation = loops
        .iter()
        .map(|l| l.client.operation.as_str())
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
    let Some(first) = loops.first() else {
        out.calls = 0;
        return out;
    };
    let last_arrival = arrivals.last().map_or(0, |a| a.0);
    let horizon = last_arrival
        .max(scenario.recovery().as_micros())
        .saturating_add(HORIZON_US);
    let mut calls: Vec<Call> = vec![Call::new(first, 0, 0, horizon); arrivals.len()];
    for &(t, i) in arrivals {
        let client = i % loops.len() as u32;
        calls[i as usize] = Call::new(&loops[client as usize], client, t, horizon);
    }
    // The layers' loops of call `i` are `inner[i * stride..][..depth - 1]`.
    let stride = loops.iter().map(|l| l.layers.len()).max().unwrap_or(0);
    let mut inner: Vec<LoopState> =
        vec![LoopState::new(&first.client, 0, horizon); calls.len() * stride];
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
        let stack = &loops[call.client as usize];
        let from = i as usize * stride;
        let mine = &mut inner[from..from + stack.layers.len()];
        let server = Server {
            scenario,
            faults,
            bucket: bucket.as_mut(),
            horizon,
        };
        if let Some(next) = send(server, stack, call, mine, (t, i), &mut out) {
            heap.push(Reverse((next, i)));
        }
    }
    for (call, stack) in calls.iter().map(|c| (c, &loops[c.client as usize])) {
        if stack.client.side_effect == SideEffect::NonIdempotent {
            out.duplicates += u64::from(call.writes.saturating_sub(1));
        }
        out.most_requests_per_call = out.most_requests_per_call.max(call.requests);
    }
    out
}

/// What a request meets at the backend.
struct Server<'a> {
    scenario: &'a Scenario,
    faults: &'a Timeline,
    bucket: Option<&'a mut Bucket>,
    /// When the simulation ends.
    horizon: i64,
}

/// Sends call `i`'s next request at `t`; returns when it sends the one after, if it does.
fn send(
    server: Server<'_>,
    loops: &Loops,
    call: &mut Call,
    inner: &mut [LoopState],
    (t, i): (i64, u32),
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
    let (bound, bounded_by) = call.open(inner, loops, t, server.horizon);

    // The server.
    let scenario = server.scenario;
    let fault = server.faults.at(t);
    let mut processed = false;
    // What the server answers (`None`: it never answers).
    let answer: Option<Answer> = match fault {
        Some(FaultKind::ConnectFailure) => Some(Answer::Failure(Signal::ConnectFailure, None)),
        Some(FaultKind::Status { code, retry_after }) => {
            Some(Answer::Failure(Signal::Status(code), retry_after))
        }
        Some(FaultKind::TimeoutBeforeProcessing) => None,
        Some(FaultKind::TimeoutAfterProcessing) | None => {
            if server.bucket.is_none_or(|b| b.take(t)) {
                processed = true;
                match fault {
                    Some(_) => None,
                    None => Some(Answer::Success),
                }
            } else {
                Some(Answer::Failure(Signal::Status(503), None))
            }
        }
    };
    if processed && !lookup && !(loops.client.key && call.writes > 0) {
        call.writes += 1;
    }

    // The loops.
    let timeout = (bound - t).max(0);
    let latency = scenario.latency.as_micros();
    let (answer, at, from) = match answer {
        Some(answer) if latency < timeout => (answer, t + latency, loops.depth() - 1),
        _ => (
            Answer::Failure(Signal::Timeout, None),
            t + timeout,
            bounded_by,
        ),
    };
    let heard = match answer {
        Answer::Success if !lookup || call.writes > 0 => {
            out.succeeded += 1;
            finish(out, call, at);
            return None;
        }
        // The status endpoint says the write never happened: sending it again is safe.
        Answer::Success => {
            call.unknown = false;
            Heard {
                from: 0,
                at,
                signal: Signal::RefusedStream,
                retry_after: None,
                known_unprocessed: true,
            }
        }
        Answer::Failure(signal, retry_after) => Heard {
            from,
            at,
            signal,
            retry_after,
            known_unprocessed: false,
        },
    };
    match react(loops, call, inner, heard, (scenario.seed, i)) {
        Next::Send(next) => Some(next),
        Next::Stop(at, reason) => {
            out.stopped[reason_index(reason)] += 1;
            finish(out, call, at);
            None
        }
    }
}

/// Records a call that ended at `at`.
fn finish(out: &mut Outcome, call: &Call, at: i64) {
    let took = at - call.start();
    if took > out.longest_call.as_micros() {
        out.longest_call = Duration::from_micros(took);
    }
    if at > call.own.deadline.max(call.start()) {
        out.past_deadline += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::plan::Backoff;
    use crate::analysis::plan::StopReason;
    use crate::input::policy::Jitter;
    use crate::rendering::simulate::arrivals;
    use crate::rendering::simulate::scenario::{Arrival, Fault};
    use crate::rendering::simulate::variant::Mode;

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
