//! The contract of small descriptions: each kind of evidence, and what it is not.

use super::{ContractState, KeyHeaders, KeySource, StatusKind, WaitHint, derive};
use crate::analysis::layers::test_support::api;
use crate::input::model::{HeaderFormat, LinkTarget};

/// The contract of the one operation of a description whose `paths` is `paths`, with
/// `root` added at the top level.
fn contract_with(root: &str, paths: &str, keys: &KeyHeaders) -> Vec<super::Contract> {
    let text = format!("openapi: 3.0.3\ninfo: {{ title: t, version: '1' }}\n{root}paths:\n{paths}");
    match api(&text) {
        Ok((api, _)) => derive(&api, keys),
        Err(e) => panic!("{e}\n{text}"),
    }
}

fn only(root: &str, paths: &str) -> super::Contract {
    let mut all = contract_with(root, paths, &KeyHeaders::default());
    assert!(!all.is_empty(), "no operation in {paths}");
    all.remove(0)
}

const ORDER_READ: &str = "  /orders/{id}:\n    get:\n      operationId: getOrder\n      responses: { '200': { description: ok } }\n";

#[test]
fn a_post_with_nothing_is_unprotected_and_a_put_is_retry_safe() {
    let post = only(
        "",
        "  /orders:\n    post:\n      responses: { '201': { description: ok } }\n",
    );
    assert_eq!(post.state, ContractState::Unprotected);
    assert!(post.key.is_none() && post.status.is_none());
    let put = only(
        "",
        "  /orders:\n    put:\n      responses: { '200': { description: ok } }\n",
    );
    assert_eq!(put.state, ContractState::RetrySafe);
    assert_eq!(put.reason(), "idempotent (PUT method)");
}

#[test]
fn x_idempotent_decides_the_effect_either_way() {
    let post = only(
        "",
        "  /search:\n    post:\n      x-idempotent: true\n      responses: { '200': { description: ok } }\n",
    );
    assert_eq!(post.state, ContractState::RetrySafe);
    assert_eq!(post.reason(), "idempotent (x-idempotent: true)");
    let put = only(
        "",
        "  /counter:\n    put:\n      x-idempotent: false\n      responses: { '200': { description: ok } }\n",
    );
    assert_eq!(put.state, ContractState::Unprotected);
}

fn keyed(name: &str, required: bool, responses: &str) -> super::Contract {
    only(
        "",
        &format!(
            "  /payments:\n    post:\n      parameters:\n        - {{ name: {name}, in: header, required: {required}, schema: {{ type: string }} }}\n      responses: {{ '201': {{ description: ok }}{responses} }}\n"
        ),
    )
}

#[test]
fn a_required_key_with_its_conflict_response_is_retry_safe() {
    let c = keyed(
        "Idempotency-Key",
        true,
        ", '409': { description: in flight }",
    );
    assert_eq!(c.state, ContractState::RetrySafe);
    assert_eq!(c.conflicts, ["409"]);
    assert_eq!(
        c.reason(),
        "required `Idempotency-Key`, with 409 for a reused or in-flight key"
    );
}

#[test]
fn an_optional_key_or_one_without_conflict_response_is_incomplete() {
    let optional = keyed("Idempotency-Key", false, ", '422': { description: reused }");
    assert_eq!(optional.state, ContractState::KeyIncomplete);
    assert!(
        optional.reason().contains("`Idempotency-Key` is optional"),
        "{}",
        optional.reason()
    );
    let silent = keyed("Idempotency-Key", true, "");
    assert_eq!(silent.state, ContractState::KeyIncomplete);
    assert!(
        silent.reason().contains("no 409, 422 or 400"),
        "{}",
        silent.reason()
    );
}

#[test]
fn vendor_key_names_are_known_and_tracing_ids_are_not() {
    for name in [
        "PayPal-Request-Id",
        "Repeatability-Request-ID",
        "I-Twilio-Idempotency-Token",
        "x-idempotency-key",
        "Client-Idempotency-Token",
    ] {
        let c = keyed(name, true, ", '409': { description: in flight }");
        assert_eq!(c.state, ContractState::RetrySafe, "{name}");
        assert_eq!(
            c.key.map(|k| k.source),
            Some(KeySource::KnownName),
            "{name}"
        );
    }
    for name in ["X-Request-Id", "x-ms-client-request-id", "traceparent"] {
        let c = keyed(name, true, ", '409': { description: in flight }");
        assert_eq!(c.state, ContractState::Unprotected, "{name}");
    }
}

#[test]
fn lint_key_headers_name_more_keys() {
    let paths = "  /payments:\n    post:\n      parameters:\n        - { name: X-Once, in: header, required: true }\n      responses: { '201': { description: ok }, '409': { description: in flight } }\n";
    assert_eq!(only("", paths).state, ContractState::Unprotected);
    let keys = KeyHeaders::new(["x-once".to_string()]);
    let c = contract_with("", paths, &keys).remove(0);
    assert_eq!(c.state, ContractState::RetrySafe);
    assert_eq!(
        c.key_text().as_deref(),
        Some("required `X-Once` (lint.keyHeaders)")
    );
}

#[test]
fn fern_headers_make_a_key_of_marked_operations_only() {
    let root =
        "x-fern-idempotency-headers:\n  - { header: Idempotency-Key, name: idempotency_key }\n";
    let marked = only(
        root,
        "  /payments:\n    post:\n      x-fern-idempotent: true\n      responses: { '201': { description: ok } }\n",
    );
    let key = marked
        .key
        .as_ref()
        .map(|k| (k.name.as_str(), k.required, k.source));
    assert_eq!(key, Some(("Idempotency-Key", false, KeySource::Fern)));
    assert_eq!(marked.state, ContractState::KeyIncomplete);
    let unmarked = only(
        root,
        "  /payments:\n    post:\n      responses: { '201': { description: ok } }\n",
    );
    assert_eq!(unmarked.state, ContractState::Unprotected);
    // Without headers, the mark says the operation itself is idempotent.
    let bare = only(
        "",
        "  /payments:\n    post:\n      x-fern-idempotent: true\n      responses: { '201': { description: ok } }\n",
    );
    assert_eq!(bare.state, ContractState::RetrySafe);
    assert_eq!(bare.reason(), "idempotent (x-fern-idempotent: true)");
}

#[test]
fn a_link_to_a_read_is_a_status_endpoint() {
    let by_id = format!(
        "  /orders:\n    post:\n      responses:\n        '201':\n          description: ok\n          links:\n            GetOrder: {{ operationId: getOrder, parameters: {{ id: '$response.body#/id' }} }}\n{ORDER_READ}"
    );
    let c = only("", &by_id);
    assert_eq!(c.state, ContractState::RetrySafeWithReconcile);
    assert_eq!(
        c.status.map(|s| s.kind),
        Some(StatusKind::Link {
            name: "GetOrder".into(),
            target: "GET /orders/{id}".into()
        })
    );
    let by_ref = format!(
        "  /orders:\n    post:\n      responses:\n        '201':\n          description: ok\n          links:\n            GetOrder: {{ operationRef: '#/paths/~1orders~1{{id}}/get' }}\n{ORDER_READ}"
    );
    assert_eq!(
        only("", &by_ref).state,
        ContractState::RetrySafeWithReconcile
    );
    // A link to a write, or to nothing, is no status endpoint; only the one to nothing
    // is broken.
    let to_write = "  /orders:\n    post:\n      operationId: create\n      responses:\n        '201':\n          description: ok\n          links:\n            Again: { operationId: create }\n            Lost: { operationId: nowhere }\n";
    let c = only("", to_write);
    assert_eq!(c.state, ContractState::Unprotected);
    let broken: Vec<_> = c
        .broken_links
        .iter()
        .map(|l| (&*l.name, &l.target))
        .collect();
    assert_eq!(
        broken,
        [("Lost", &LinkTarget::OperationId("nowhere".into()))]
    );
}

#[test]
fn a_broken_link_is_one_that_leads_to_no_operation_of_this_document() {
    let links = |entries: &str| {
        format!(
            "  /orders:\n    post:\n      responses:\n        '201':\n          description: ok\n          links:\n{entries}{ORDER_READ}"
        )
    };
    let names = |c: &super::Contract| -> Vec<String> {
        c.broken_links.iter().map(|l| l.name.clone()).collect()
    };
    // operationIds compare exactly; a reference is by path and method.
    let c = only(
        "",
        &links(
            "            Case: { operationId: getorder }\n            NoPath: { operationRef: '#/paths/~1order~1{id}/get' }\n            NoMethod: { operationRef: '#/paths/~1orders~1{id}/delete' }\n            NotAnOperation: { operationRef: '#/components/schemas/Order' }\n",
        ),
    );
    assert_eq!(names(&c), ["Case", "NoPath", "NoMethod", "NotAnOperation"]);
    assert_eq!(
        c.reason(),
        "a write with no idempotency key, and its link `Case` leads to no operation: a retry can repeat it"
    );
    // Another document's operations are not known here.
    let c = only(
        "",
        &links(
            "            Billing: { operationRef: 'https://billing.example.com/openapi.yaml#/paths/~1x/get' }\n            Local: { operationRef: 'orders.yaml#/paths/~1y/get' }\n",
        ),
    );
    assert!(c.broken_links.is_empty(), "{:?}", c.broken_links);
    // A read's links are not a status endpoint, so they are not judged.
    let read = only(
        "",
        "  /orders/{id}:\n    get:\n      responses:\n        '200':\n          description: ok\n          links:\n            Lost: { operationId: nowhere }\n",
    );
    assert!(read.broken_links.is_empty());
}

#[test]
fn a_shared_operation_id_leads_to_the_read() {
    // Two operations named alike (a description error): the link still finds the read.
    let paths = "  /orders:\n    post:\n      operationId: getOrder\n      responses:\n        '201':\n          description: ok\n          links:\n            Order: { operationId: getOrder }\n  /orders/{id}:\n    get:\n      operationId: getOrder\n      responses: { '200': { description: ok } }\n";
    let c = only("", paths);
    assert_eq!(c.state, ContractState::RetrySafeWithReconcile);
    assert!(c.broken_links.is_empty());
}

#[test]
fn accepted_with_location_and_long_running_are_status_endpoints() {
    let accepted = only(
        "",
        "  /exports:\n    post:\n      responses:\n        '202':\n          description: accepted\n          headers: { Location: { schema: { type: string } } }\n",
    );
    assert_eq!(accepted.state, ContractState::RetrySafeWithReconcile);
    assert_eq!(
        accepted.status_text().as_deref(),
        Some("a 202 response with Location")
    );
    let bare_202 = only(
        "",
        "  /exports:\n    post:\n      responses: { '202': { description: accepted } }\n",
    );
    assert_eq!(bare_202.state, ContractState::Unprotected);
    let long_running = only(
        "",
        "  /vms:\n    post:\n      x-ms-long-running-operation: true\n      responses: { '201': { description: ok } }\n",
    );
    assert_eq!(long_running.state, ContractState::RetrySafeWithReconcile);
}

#[test]
fn throttling_reads_429_and_503_with_what_says_when() {
    let c = only(
        "",
        "  /items:\n    get:\n      responses:\n        '200': { description: ok }\n        '429':\n          description: slow down\n          headers: { Retry-After: { schema: { type: integer } } }\n        5XX:\n          description: failed\n          headers: { RateLimit-Reset: { schema: { type: integer } } }\n",
    );
    let seen: Vec<(u16, &str, &WaitHint)> = c
        .throttling
        .iter()
        .map(|t| (t.status, t.declared_as.as_str(), &t.wait))
        .collect();
    assert_eq!(
        seen,
        [
            (429, "429", &WaitHint::RetryAfter(HeaderFormat::Seconds)),
            (503, "5XX", &WaitHint::RateLimit("RateLimit-Reset".into())),
        ]
    );
    assert_eq!(
        c.throttling_text(),
        "429 with Retry-After (seconds); 503 (as 5XX) with RateLimit-Reset"
    );
    let none = only(
        "",
        "  /items:\n    get:\n      responses: { '200': { description: ok }, default: { description: error } }\n",
    );
    assert!(none.throttling.is_empty(), "`default` declares no status");
}

#[test]
fn retry_after_formats_follow_the_schema() {
    let format = |schema: &str| {
        let c = only(
            "",
            &format!(
                "  /items:\n    get:\n      responses:\n        '503':\n          description: down\n          headers: {{ Retry-After: {{ schema: {schema} }} }}\n"
            ),
        );
        match c.throttling.first().map(|t| &t.wait) {
            Some(WaitHint::RetryAfter(f)) => *f,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(format("{ type: integer }"), HeaderFormat::Seconds);
    assert_eq!(
        format("{ type: string, format: date-time }"),
        HeaderFormat::Date
    );
    assert_eq!(
        format("{ oneOf: [{ type: integer }, { type: string, format: http-date }] }"),
        HeaderFormat::SecondsOrDate
    );
    assert_eq!(format("{ type: string }"), HeaderFormat::Text);
    assert_eq!(format("{ description: when }"), HeaderFormat::Unstated);
}
