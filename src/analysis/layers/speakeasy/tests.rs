//! The SDK layer's tests: root and operation settings, the SDK language assumed and what
//! it does with attempts and Retry-After.

use super::import;
use crate::analysis::layers::bind::{Budget, Service};
use crate::analysis::layers::test_support::{api, api_at, loc, operation, value};
use crate::analysis::layers::{Format, Layer, Position, Route};
use crate::error::InputError;
use crate::input::load::Sources;
use crate::input::policy::{Duration, Signal};
use crate::location::Loc;

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
    // Speakeasy's defaults allow Go's SDK at most 79 attempts, TypeScript's 77, Python's
    // 71: the layer assumes Go, and says so.
    assert_eq!(l.name, "Speakeasy Go SDK with x-speakeasy-retries");
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
        crate::input::policy::Duration::from_micros(333_333)
    );
    assert_eq!(
        get.policy
            .backoff_base
            .as_ref()
            .and_then(|b| b.loc.note_text()),
        Some(
            "Speakeasy's default initialInterval; the Speakeasy Go SDK waits initialInterval × (n + 1)^exponent (n = 0, 1, 2 …) ± 25 %, at most maxInterval"
        )
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
    assert_eq!(value(&get.policy.max_attempts), 79);
    assert!(
        loc(&get.policy.max_attempts)
            .note_text()
            .is_some_and(|n| n.contains("Go's retries the most (TypeScript 77, Python 71, Go 79)")),
        "{:?}",
        loc(&get.policy.max_attempts).note_text()
    );
    // Go waits whatever Retry-After asks.
    assert!(value(&get.policy.retry_after_honor));
    assert!(get.policy.retry_after_max.is_none());
    assert!(get.unsupported.is_empty());
    assert!(get.policy.jitter.is_none());
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
    // TypeScript and Python make 11 attempts at most, Go 10: the tie goes to TypeScript.
    assert_eq!(l.name, "Speakeasy TypeScript SDK with x-speakeasy-retries");
    let get = route(&l, "GET /payments/{paymentId}");
    assert_eq!(value(&get.policy.max_attempts), 11);
    let attempts = loc(&get.policy.max_attempts);
    assert_eq!(written(&sources, &attempts), "maxElapsedTime: 60000");
    assert_eq!(
        attempts.note_text(),
        Some(
            "the Speakeasy TypeScript SDK's attempts: each one that starts before maxElapsedTime has passed, x-speakeasy-retries sets no count; the description does not say the SDK's language, and TypeScript's retries the most (TypeScript 11, Python 11, Go 10)"
        )
    );
    // The TypeScript SDK waits what Retry-After asks, at most maxInterval.
    assert!(value(&get.policy.retry_after_honor));
    assert_eq!(value(&get.policy.retry_after_max), ms(10_000));
    assert_eq!(
        written(&sources, &loc(&get.policy.retry_after_max)),
        "maxInterval: 10000"
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
        11
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
