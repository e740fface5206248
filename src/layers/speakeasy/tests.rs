//! The SDK layer's tests: root and operation settings, attempts within maxElapsedTime.

use super::{attempts_within, import};
use crate::error::InputError;
use crate::layers::bind::{Budget, Service};
use crate::layers::test_support::{api, api_at, operation};
use crate::layers::{Format, Layer, Position, Route, UNBOUNDED_ATTEMPTS};
use crate::load::Sources;
use crate::location::Loc;
use crate::policy::{Duration, Signal, Spanned};

/// The SDK layer of a description, or the error reading it.
fn layer_of(text: &str) -> Result<Option<Layer>, InputError> {
    let (api, sources) = api(text)?;
    import(&api, &sources)
}

fn layer(text: &str) -> Layer {
    match layer_of(text) {
        Ok(Some(layer)) => layer,
        Ok(None) => panic!("no layer"),
        Err(e) => panic!("{e}"),
    }
}

/// A description with `root` at the document root (if not empty) and operations
/// `GET /payments` (with `own`, if not empty), `POST /payments`.
fn described(root: &str, own: &str) -> String {
    let root = if root.is_empty() {
        String::new()
    } else {
        format!("x-speakeasy-retries: {root}\n")
    };
    let own = if own.is_empty() {
        String::new()
    } else {
        format!("      x-speakeasy-retries: {own}\n")
    };
    format!(
        "openapi: 3.0.3\ninfo: {{ title: t, version: '1' }}\n{root}paths:\n  /payments:\n    get:\n{own}      responses: {{ '200': {{ description: ok }} }}\n    post:\n      responses: {{ '201': {{ description: ok }} }}\n"
    )
}

fn route<'a>(layer: &'a Layer, name: &str) -> &'a Route {
    layer
        .routes
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no route {name}"))
}

fn value<T: Clone>(field: &Option<Spanned<T>>) -> T {
    field
        .as_ref()
        .map(|f| f.value.clone())
        .unwrap_or_else(|| panic!("unset"))
}

fn loc<T>(field: &Option<Spanned<T>>) -> Loc {
    field
        .as_ref()
        .map(|f| f.loc.clone())
        .unwrap_or_else(|| panic!("unset"))
}

/// What a location underlines in the description.
fn written(sources: &Sources, loc: &Loc) -> String {
    sources[loc.file].text[loc.span.range()].to_string()
}

fn ms(n: i64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn no_setting_no_layer() {
    assert!(matches!(layer_of(&described("", "")), Ok(None)));
}

#[test]
fn the_root_setting_applies_to_every_operation_and_an_operation_replaces_it() {
    let root = "{ strategy: backoff, backoff: { initialInterval: 100, maxInterval: 1000, maxElapsedTime: 5000, exponent: 2 }, statusCodes: [503] }";
    let l = layer(&described(
        root,
        "{ strategy: backoff, statusCodes: [5XX], retryConnectionErrors: true }",
    ));
    assert_eq!(l.format, Format::Speakeasy);
    assert_eq!(l.position, Position::Client);
    assert_eq!(l.name, "x-speakeasy-retries");
    assert!(l.hosts.is_empty() && l.budget.is_none());
    let post = route(&l, "POST /payments");
    assert_eq!(value(&post.policy.backoff_base), ms(50));
    assert_eq!(value(&post.policy.deadline), ms(5_000));
    let on: Vec<Signal> = value(&post.policy.retry_on)
        .into_iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(on, [Signal::Status(503)]);
    // The operation's own setting replaces the root's whole: Speakeasy's defaults fill it.
    let get = route(&l, "GET /payments");
    // 500ms first wait with the default exponent 1.5: base × 1.5 = 500ms.
    assert_eq!(
        value(&get.policy.backoff_base),
        crate::policy::Duration::from_micros(333_333)
    );
    assert_eq!(
        get.policy
            .backoff_base
            .as_ref()
            .and_then(|b| b.loc.note_text()),
        Some("Speakeasy's default initialInterval")
    );
    assert_eq!(value(&get.policy.deadline), ms(3_600_000));
    let on: Vec<Signal> = value(&get.policy.retry_on)
        .into_iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(
        on,
        [
            Signal::Class(5),
            Signal::ConnectFailure,
            Signal::Reset,
            Signal::Timeout
        ]
    );
    assert_eq!(
        get.unsupported,
        ["Retry-After (depends on the SDK's language)"]
    );
    assert!(get.policy.jitter.is_none());
}

#[test]
fn attempts_are_those_whose_waits_fit_in_max_elapsed_time() {
    // Waits 0.5, 1, 2, 4, 8 s, then 10 s each: nine fit in a minute.
    assert_eq!(attempts_within(500.0, 10_000.0, 2.0, 60_000.0), 10);
    // Speakeasy's defaults: twelve growing waits (128.7 s), then 57 of a minute.
    assert_eq!(attempts_within(500.0, 60_000.0, 1.5, 3_600_000.0), 70);
    // Constant waits, and waits that start at the cap.
    assert_eq!(attempts_within(1_000.0, 5_000.0, 1.0, 3_500.0), 4);
    assert_eq!(attempts_within(2_000.0, 1_000.0, 2.0, 3_500.0), 4);
    // A window shorter than the first wait: one attempt.
    assert_eq!(attempts_within(500.0, 1_000.0, 2.0, 100.0), 1);
    // Shrinking waits: 1 + 0.5 fit in 1.5 s; in 10 s they never add up.
    assert_eq!(attempts_within(1_000.0, 5_000.0, 0.5, 1_500.0), 3);
    assert_eq!(
        attempts_within(1_000.0, 5_000.0, 0.5, 10_000.0),
        UNBOUNDED_ATTEMPTS
    );
    // No wait at all: nothing but time bounds the attempts.
    assert_eq!(
        attempts_within(0.0, 5_000.0, 2.0, 10_000.0),
        UNBOUNDED_ATTEMPTS
    );
    assert_eq!(
        attempts_within(500.0, 0.0, 2.0, 10_000.0),
        UNBOUNDED_ATTEMPTS
    );
    // Extreme values stay finite or unbounded, never wrong by overflow.
    assert_eq!(attempts_within(1.0, 1e18, 1e300, 1e17), 2);
    assert_eq!(attempts_within(1e-3, 1e-3, 1.0, 1e300), UNBOUNDED_ATTEMPTS);
    // An exponent whose first total overflows an intermediate product: 0.5 s, then the
    // 10 s cap, six of which fit in the rest of the minute.
    for exponent in [1e306, 1e308, f64::MAX] {
        assert_eq!(attempts_within(500.0, 10_000.0, exponent, 60_000.0), 7);
    }
}

#[test]
fn strategy_none_makes_one_attempt() {
    let (api, sources) = api(&described(
        "{ strategy: backoff, statusCodes: [5XX] }",
        "{ strategy: none }",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let Ok(Some(l)) = import(&api, &sources) else {
        panic!("no layer")
    };
    let get = route(&l, "GET /payments");
    assert_eq!(value(&get.policy.max_attempts), 1);
    assert_eq!(
        written(&sources, &loc(&get.policy.max_attempts)),
        "strategy: none"
    );
    assert!(get.policy.retry_on.is_none() && get.unsupported.is_empty());
}

#[test]
fn every_route_binds_exactly_its_operation() {
    // `/payments/search` is listed first: its exact path would take `/payments/{id}` too.
    let text = "openapi: 3.0.3\ninfo: { title: t, version: '1' }\nx-speakeasy-retries: { strategy: backoff, statusCodes: [503] }\npaths:\n  /payments/search:\n    get: { responses: { '200': { description: ok } } }\n  /payments/{id}:\n    get: { responses: { '200': { description: ok } } }\n    delete: { responses: { '204': { description: ok } } }\n  /payments/{id}/refunds/{refund}:\n    get: { responses: { '200': { description: ok } } }\n  /payments:\n    post: { responses: { '201': { description: ok } } }\n";
    let (api, sources) = api(text).unwrap_or_else(|e| panic!("{e}"));
    let Ok(Some(l)) = import(&api, &sources) else {
        panic!("no layer")
    };
    assert_eq!(l.routes.len(), api.operations.len());
    let service = Service::new([], ["/v1".to_string()]);
    for op in &api.operations {
        let bound = service
            .route_for(&l, op, &mut Budget::new(usize::MAX))
            .unwrap()
            .map(|r| l.routes[r].name.as_str());
        assert_eq!(bound, Some(op.key().as_str()));
        let takers: Vec<&str> = l
            .routes
            .iter()
            .filter(|r| {
                r.matches
                    .iter()
                    .any(|m| service.takes(m, op, &mut Budget::new(usize::MAX)) == Ok(true))
            })
            .map(|r| r.name.as_str())
            .collect();
        // Only a route of more literal path may also take it, and it comes later.
        assert_eq!(takers[0], op.key(), "{takers:?}");
    }
}

#[test]
fn bad_values_are_errors_at_the_value() {
    let error = |setting: &str| {
        let (api, sources) = api(&format!(
            "openapi: 3.0.3\ninfo: {{ title: t, version: '1' }}\npaths:\n  /p:\n    get:\n      x-speakeasy-retries:\n        {}\n      responses: {{ '200': {{ description: ok }} }}\n",
            setting.replace('\n', "\n        ")
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let Err(e) = import(&api, &sources) else {
            panic!("no error for {setting}")
        };
        let site = e.site.as_ref().unwrap_or_else(|| panic!("no site: {e}"));
        (e.message.clone(), site.text[site.span.range()].to_string())
    };
    let (message, at) = error("strategy: linear\nstatusCodes: [503]");
    assert!(
        message.contains("`linear` is not a Speakeasy retry strategy"),
        "{message}"
    );
    assert_eq!(at, "strategy: linear");
    assert!(error("statusCodes: [503]").0.contains("needs a `strategy`"));
    assert!(error("strategy: backoff").0.contains("needs `statusCodes`"));
    assert_eq!(error("strategy: backoff\nstatusCodes: [5YY]").1, "5YY");
    assert_eq!(
        error("strategy: backoff\nstatusCodes: [timeout]").1,
        "timeout"
    );
    assert_eq!(
        error("strategy: backoff\nstatusCodes: 503").1,
        "statusCodes: 503"
    );
    assert_eq!(
        error("strategy: backoff\nstatusCodes: [503]\nbackoff:\n  initialInterval: -5").1,
        "initialInterval: -5"
    );
    assert_eq!(
        error("strategy: backoff\nstatusCodes: [503]\nbackoff:\n  exponent: fast").1,
        "exponent: fast"
    );
    assert_eq!(
        error("strategy: backoff\nstatusCodes: [503]\nretryConnectionErrors: 'true'").1,
        "retryConnectionErrors: 'true'"
    );
}

#[test]
fn payments_fixture() {
    let (api, sources) =
        api_at("fixtures/layers/sdk/payments-speakeasy.yaml").unwrap_or_else(|e| panic!("{e}"));
    let Ok(Some(l)) = import(&api, &sources) else {
        panic!("no layer")
    };
    assert_eq!(written(&sources, &l.loc), "x-speakeasy-retries");
    assert_eq!(l.routes.len(), 4);
    let get = route(&l, "GET /payments/{paymentId}");
    assert_eq!(value(&get.policy.max_attempts), 10);
    let attempts = loc(&get.policy.max_attempts);
    assert_eq!(written(&sources, &attempts), "maxElapsedTime: 60000");
    assert_eq!(
        attempts.note_text(),
        Some("attempts whose waits fit in maxElapsedTime: x-speakeasy-retries sets no count")
    );
    assert_eq!(value(&get.policy.deadline), ms(60_000));
    assert_eq!(value(&get.policy.backoff_cap), ms(10_000));
    assert_eq!(value(&get.policy.backoff_multiplier), 2.0);
    let on: Vec<Signal> = value(&get.policy.retry_on)
        .into_iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(
        on,
        [
            Signal::Class(5),
            Signal::Status(429),
            Signal::ConnectFailure,
            Signal::Reset,
            Signal::Timeout
        ]
    );
    // The refund retries like every operation; creating a payment never does.
    assert_eq!(
        value(
            &route(&l, "POST /payments/{paymentId}/refunds")
                .policy
                .max_attempts
        ),
        10
    );
    let create = route(&l, "POST /payments");
    assert_eq!(value(&create.policy.max_attempts), 1);
    assert_eq!(written(&sources, &create.loc), "x-speakeasy-retries");
    assert_eq!(
        &*create.loc.pointer,
        "/paths/~1payments/post/x-speakeasy-retries"
    );
    let service = Service::new(
        ["api.payments.example.com".to_string()],
        ["/v1".to_string()],
    );
    let list = operation(&api, "GET /payments");
    let bound = service
        .route_for(&l, list, &mut Budget::new(usize::MAX))
        .unwrap()
        .map(|r| l.routes[r].name.as_str());
    assert_eq!(bound, Some("GET /payments"));
}
