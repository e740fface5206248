//! The nested loops through the engine, with loops built by hand.

use super::*;
use crate::analysis::plan::Backoff;
use crate::input::policy::{Duration, Jitter, Spanned};
use crate::rendering::simulate::scenario::{Capacity, Fault, Scenario};
use crate::rendering::simulate::timeline::Timeline;
use crate::rendering::simulate::{Outcome, arrivals, run, run_loops};

/// A loop of `attempts` retrying `retry_on` after 10 ms, 20 ms, … with no timeout of its
/// own; the operation is a write without a key.
fn retrying(attempts: u32, retry_on: &[Signal]) -> Client {
    Client {
        operation: "POST /charges".into(),
        backoff: Backoff {
            base_ms: 10.0,
            cap_ms: 1_000.0,
            multiplier: 2.0,
            jitter: Jitter::None,
            max_attempts: attempts,
        },
        retry_on: retry_on.to_vec(),
        per_attempt_timeout: None,
        deadline: Some(Duration::from_millis(600_000)),
        honor_retry_after: false,
        retry_after_max_ms: None,
        retry_after_fallbacks: Default::default(),
        side_effect: SideEffect::NonIdempotent,
        key: false,
        status_endpoint: false,
        mode: Mode::Naive,
    }
}

fn timeout_after(mut client: Client, millis: i64) -> Client {
    client.per_attempt_timeout = Some(Duration::from_millis(millis));
    client
}

/// `calls` calls over a second against a server that always fails with `fault`.
fn always(fault: &str, calls: u32) -> Scenario {
    Scenario {
        clients: calls,
        arrival: crate::rendering::simulate::scenario::Arrival::Uniform {
            window: Duration::from_millis(1_000),
        },
        faults: vec![Fault::parse(&format!("{fault}@0s..1h")).unwrap()],
        capacity: Capacity::Unlimited,
        ..Scenario::default()
    }
}

fn nested(scenario: &Scenario, client: Client, layers: Vec<Client>) -> Outcome {
    let loops = Loops { client, layers };
    run_loops(
        scenario,
        &Timeline::new(&scenario.faults),
        std::slice::from_ref(&loops),
        &arrivals(scenario),
    )
}

const S503: Signal = Signal::Status(503);

/// A layer's route policy: `attempts`, retrying 503.
pub(crate) fn retrying_503(attempts: i64) -> crate::input::policy::PolicyObject {
    let here = || crate::location::Loc::new(0, "", crate::input::source::Span::default());
    crate::input::policy::PolicyObject {
        max_attempts: Some(Spanned::new(attempts, here()).into()),
        retry_on: Some(Spanned::new(vec![Spanned::new(S503, here())], here()).into()),
        ..Default::default()
    }
}

#[test]
fn three_loops_of_three_send_27_requests_to_a_failing_backend() {
    let s = always("503", 1);
    let each = retrying(3, &[S503]);
    let outcome = nested(&s, each.clone(), vec![each.clone(), each]);
    assert_eq!(outcome.requests, 27);
    assert_eq!(outcome.most_requests_per_call, 27);
    assert_eq!(outcome.stopped_by(StopReason::MaxAttempts), 1);
    assert_eq!(outcome.past_deadline, 0);
    // Many calls: exactly 27 each.
    let s = always("503", 100);
    let each = retrying(3, &[S503]);
    let outcome = nested(&s, each.clone(), vec![each.clone(), each]);
    assert_eq!(outcome.requests, 2_700);
}

#[test]
fn a_mesh_that_does_not_retry_503_does_not_multiply_503s() {
    let client = retrying(3, &[S503, Signal::ConnectFailure]);
    let mesh = retrying(3, &[Signal::ConnectFailure]);
    let outcome = nested(&always("503", 1), client.clone(), vec![mesh.clone()]);
    assert_eq!(outcome.requests, 3);
    // The mesh gives up at once, the client decides: max-attempts, not not-transient.
    assert_eq!(outcome.stopped_by(StopReason::MaxAttempts), 1);
    // What the mesh retries, it multiplies.
    let outcome = nested(&always("connect-failure", 1), client, vec![mesh]);
    assert_eq!(outcome.requests, 9);
}

#[test]
fn a_failure_no_loop_retries_ends_the_call_as_not_transient() {
    let client = retrying(3, &[Signal::ConnectFailure]);
    let mesh = retrying(3, &[Signal::ConnectFailure]);
    let outcome = nested(&always("503", 1), client, vec![mesh]);
    assert_eq!(outcome.requests, 1);
    assert_eq!(outcome.stopped_by(StopReason::NotTransient), 1);
}

#[test]
fn each_retrying_layer_multiplies_the_duplicates_of_a_write_without_a_key() {
    let s = always("timeout-after-processing", 10);
    // The client waits for its deadline; the gateway tries for 10 s, the mesh for 1 s.
    let client = retrying(3, &[Signal::Timeout]);
    let gateway = timeout_after(retrying(3, &[Signal::Timeout]), 10_000);
    let mesh = timeout_after(retrying(3, &[Signal::Timeout]), 1_000);
    let alone = nested(&s, timeout_after(client.clone(), 1_000), vec![]);
    let one = nested(&s, client.clone(), vec![mesh.clone()]);
    let two = nested(&s, client.clone(), vec![gateway, mesh]);
    assert_eq!(alone.duplicates, 10 * 2);
    assert_eq!(one.duplicates, 10 * 8);
    assert_eq!(two.duplicates, 10 * 26);
    assert!(alone.duplicates < one.duplicates && one.duplicates < two.duplicates);
    // The key the client sends travels with every layer's retry.
    let keyed = Client {
        key: true,
        ..client
    };
    let two = nested(&s, keyed, vec![retrying(3, &[Signal::Timeout])]);
    assert_eq!(two.duplicates, 0);
}

#[test]
fn the_loop_whose_bound_ends_first_hears_the_timeout() {
    let s = always("timeout-before-processing", 1);
    // The mesh's tries end after 1 s; the client's attempt after 1.5 s: the mesh's second
    // try is cut, and the client hears the timeout.
    let client = timeout_after(retrying(3, &[Signal::Timeout]), 1_500);
    let mesh = timeout_after(retrying(3, &[Signal::Timeout]), 1_000);
    let outcome = nested(&s, client, vec![mesh]);
    assert_eq!(outcome.requests, 6);
    assert_eq!(outcome.stopped_by(StopReason::MaxAttempts), 1);
    // Three client attempts of 1.5 s, 20 ms and 40 ms apart.
    assert_eq!(outcome.longest_call, Duration::from_millis(4_560));
}

#[test]
fn a_layer_waiting_to_retry_is_cut_by_the_client_s_timeout() {
    let s = always("503", 1);
    let client = timeout_after(retrying(3, &[S503, Signal::Timeout]), 2_000);
    // The mesh would wait 5 s before its retry: the client's attempt ends first.
    let mut mesh = retrying(3, &[S503]);
    mesh.backoff.base_ms = 5_000.0;
    mesh.backoff.cap_ms = 5_000.0;
    let outcome = nested(&s, client, vec![mesh]);
    assert_eq!(outcome.requests, 3);
    assert_eq!(outcome.past_deadline, 0);
    assert_eq!(outcome.longest_call, Duration::from_millis(6_060));
}

#[test]
fn a_layer_s_deadline_ends_its_retries_and_the_client_decides() {
    let s = always("503", 1);
    // The mesh retries 10 ms after each 503 within 1 s: 17 tries started 60 ms apart, the
    // last cut by the deadline, which the client hears as a timeout.
    let mut mesh = retrying(MAX_ATTEMPTS as u32, &[S503]);
    mesh.backoff.multiplier = 1.0;
    mesh.deadline = Some(Duration::from_millis(1_000));
    let client = retrying(2, &[S503, Signal::Timeout]);
    let outcome = nested(&s, client, vec![mesh.clone()]);
    assert_eq!(outcome.requests, 2 * 17);
    assert_eq!(outcome.stopped_by(StopReason::MaxAttempts), 1);
    // A client that does not retry timeouts stops there.
    let outcome = nested(&s, retrying(2, &[S503]), vec![mesh]);
    assert_eq!(outcome.requests, 17);
    assert_eq!(outcome.stopped_by(StopReason::NotTransient), 1);
}

#[test]
fn a_budget_only_layer_is_capped_and_says_so() {
    let policy = Effective {
        policy: retrying_503(UNBOUNDED_ATTEMPTS),
        effect: crate::input::policy::Effect {
            side_effect: SideEffect::NonIdempotent,
            source: crate::input::policy::EffectSource::Description,
        },
        description: None,
    };
    let mesh = LayerLoop::new(
        Position::Mesh,
        "Linkerd ServiceProfile payments".into(),
        "routes[0]".into(),
        "POST /charges".into(),
        &policy,
        true,
    );
    assert!(mesh.capped());
    assert_eq!(mesh.client.backoff.max_attempts, MAX_ATTEMPTS as u32);
    assert_eq!(mesh.client.mode, Mode::Naive);
    let summary = [LoopSummary::client(3), LoopSummary::layer(&mesh)];
    assert_eq!(text(&summary), "client 3 × mesh unbounded (capped at 100)");
    // With no deadline anywhere, the cap ends it: 100 tries per client attempt.
    let client = Client {
        deadline: None,
        ..retrying(3, &[S503])
    };
    let outcome = nested(&always("503", 1), client, vec![mesh.client.clone()]);
    assert_eq!(outcome.requests, 300);
    // A route that retries other methods only makes one attempt.
    let get_only = LayerLoop::new(
        Position::Mesh,
        "Envoy".into(),
        "r".into(),
        "POST /charges".into(),
        &policy,
        false,
    );
    assert_eq!(text(&[LoopSummary::layer(&get_only)]), "mesh 1");
}

#[test]
fn a_layer_that_passes_requests_through_changes_nothing() {
    // One attempt, no timeout of its own: the client's run, byte for byte.
    let pass = Client {
        per_attempt_timeout: None,
        deadline: None,
        ..retrying(1, &[])
    };
    let scenarios = [
        Scenario::default(),
        Scenario {
            faults: vec![
                Fault::parse("503@5s..30s").unwrap(),
                Fault::parse("429 retry-after=2s@30s..40s").unwrap(),
                Fault::parse("timeout-after-processing@40s..45s").unwrap(),
            ],
            capacity: Capacity::PerSecond(20),
            ..Scenario::default()
        },
    ];
    for s in &scenarios {
        let mut client = timeout_after(
            retrying(4, &[S503, Signal::Status(429), Signal::Timeout]),
            500,
        );
        client.backoff.jitter = Jitter::Full;
        client.honor_retry_after = true;
        let alone = run(s, std::slice::from_ref(&client), &arrivals(s));
        assert_eq!(nested(s, client, vec![pass.clone()]), alone);
    }
}

#[test]
fn a_layer_started_afresh_keeps_drawing_new_random_units() {
    let loops = Loops {
        client: retrying(3, &[S503]),
        layers: vec![retrying(3, &[S503])],
    };
    let horizon = 3_600_000_000;
    let mut call = Call::new(&loops, 0, 0, horizon);
    let mut inner = [LoopState::new(&loops.layers[0], 0, horizon)];
    // Two client attempts: the mesh starts afresh for the second.
    call.open(&mut inner, &loops, 0, horizon);
    call.open(&mut inner, &loops, 1_000, horizon);
    assert_eq!((call.own.attempts, call.own.sent), (2, 2));
    assert_eq!((inner[0].attempts, inner[0].sent), (1, 2));
    assert_eq!(inner[0].start, 1_000);
}
