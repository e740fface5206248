//! Idempotency keys outside the headers: a request-body property or a query parameter
//! named like a key is a key of the contract view, reported with its place; a request id
//! is one only where its description says the server de-duplicates on it.

use crate::common;

use std::path::PathBuf;

use common::retrylint_in;

/// A scratch folder holding `openapi.yaml` (and a policy, when given).
fn folder(name: &str, spec: &str, policy: Option<&str>) -> PathBuf {
    common::description_folder(&format!("body-keys-{name}"), spec, policy)
}

/// The `contract` of `POST path` in `report --format json`.
fn contract(name: &str, spec: &str, path: &str) -> serde_json::Value {
    common::post_contract(&format!("body-keys-{name}"), spec, path)
}

/// Modelled on Square's Payments API: `CreatePaymentRequest` takes a required
/// `idempotency_key` in its JSON body
/// (https://developer.squareup.com/docs/build-basics/common-api-patterns/idempotency),
/// through `$ref`s to components/requestBodies and components/schemas.
const SQUARE: &str = "openapi: 3.0.3
info: { title: Square, version: '2024-01-01' }
paths:
  /v2/payments:
    post:
      operationId: CreatePayment
      requestBody: { $ref: '#/components/requestBodies/CreatePayment' }
      responses:
        '200': { description: the payment }
        '409': { description: the key is in use by another request }
components:
  requestBodies:
    CreatePayment:
      required: true
      content:
        application/json:
          schema: { $ref: '#/components/schemas/CreatePaymentRequest' }
  schemas:
    CreatePaymentRequest:
      type: object
      required: [source_id, idempotency_key]
      properties:
        source_id: { type: string }
        idempotency_key:
          type: string
          description: A unique string that identifies this CreatePayment request.
";

#[test]
fn a_required_body_key_with_a_conflict_response_is_retry_safe() {
    // Source: https://developer.squareup.com/docs/build-basics/common-api-patterns/idempotency
    let c = contract("square", SQUARE, "/v2/payments");
    assert_eq!(c["state"], "retry-safe", "{c}");
    assert_eq!(
        c["key"], "the body property `idempotency_key`, required",
        "{c}"
    );
    assert_eq!(
        c["reason"],
        "the body property `idempotency_key` is required, with 409 for a reused or in-flight key"
    );
}

/// Modelled on Temporal's `SignalWithStartWorkflowExecutionRequest`, whose `request_id` is
/// "Used to de-dupe signal w/ start requests"
/// (https://github.com/temporalio/api, temporal/api/workflowservice/v1/request_response.proto).
const TEMPORAL: &str = "openapi: 3.0.3
info: { title: Temporal, version: v1 }
paths:
  /namespaces/{namespace}/workflows/{workflowId}/signal-with-start/{signalName}:
    post:
      operationId: SignalWithStartWorkflowExecution
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [request_id]
              properties:
                workflow_type: { type: string }
                request_id:
                  type: string
                  description: Used to de-dupe signal w/ start requests
      responses:
        '200': { description: started or signalled }
";

#[test]
fn a_request_id_described_as_deduplicating_is_a_key() {
    // Source: https://github.com/temporalio/api (request_response.proto, `request_id`)
    let c = contract(
        "temporal",
        TEMPORAL,
        "/namespaces/{namespace}/workflows/{workflowId}/signal-with-start/{signalName}",
    );
    assert_eq!(c["state"], "key-incomplete", "{c}");
    assert_eq!(
        c["key"],
        "the body property `request_id`, required (its description: \"Used to de-dupe signal w/ start requests\")"
    );
}

#[test]
fn a_request_id_without_such_a_description_is_not_a_key() {
    // The Temporal case (https://github.com/temporalio/api) beside the same write whose
    // `request_id` is described as a tracing id would be: only the first is keyed.
    let traced = TEMPORAL
        .replace(
            "Used to de-dupe signal w/ start requests",
            "Logged with the call",
        )
        .replace("/signal-with-start/", "/traced/")
        .replace("SignalWithStartWorkflowExecution", "Traced");
    let paths = traced.split_once("paths:\n").unwrap().1;
    let spec = format!("{TEMPORAL}{paths}");
    let dedup = contract(
        "request-id-dedup",
        &spec,
        "/namespaces/{namespace}/workflows/{workflowId}/signal-with-start/{signalName}",
    );
    assert_eq!(dedup["state"], "key-incomplete", "{dedup}");
    let traced = contract(
        "request-id",
        &spec,
        "/namespaces/{namespace}/workflows/{workflowId}/traced/{signalName}",
    );
    assert_eq!(traced["state"], "unprotected", "{traced}");
    assert!(
        traced.get("key").is_none_or(serde_json::Value::is_null),
        "{traced}"
    );
}

/// Modelled on Nomad's job dispatch, which takes an idempotency token so that one job is
/// dispatched once (https://developer.hashicorp.com/nomad/commands/job/dispatch), here as
/// the query parameter `idempotency_token`.
const NOMAD: &str = "swagger: '2.0'
info: { title: Nomad, version: '1' }
paths:
  /job/{jobName}/dispatch:
    post:
      operationId: PostJobDispatch
      parameters:
        - { name: jobName, in: path, required: true, type: string }
        - { name: idempotency_token, in: query, required: true, type: string }
        - { name: body, in: body, schema: { type: object, properties: { Payload: { type: string } } } }
      responses:
        '200': { description: dispatched }
";

#[test]
fn a_query_key_is_a_key_with_its_place() {
    // Source: https://developer.hashicorp.com/nomad/commands/job/dispatch
    let c = contract("nomad", NOMAD, "/job/{jobName}/dispatch");
    assert_eq!(c["state"], "key-incomplete", "{c}");
    assert_eq!(
        c["key"],
        "the query parameter `idempotency_token`, required"
    );
    assert_eq!(
        c["reason"],
        "the query parameter `idempotency_token` is required, but no 409, 422 or 400 response says what a reused or in-flight key gets"
    );
}

#[test]
fn a_swagger_body_parameter_key_is_a_body_key() {
    // Square's body key (https://developer.squareup.com/docs/build-basics/common-api-patterns/idempotency)
    // in a Swagger 2.0 `in: body` parameter.
    let spec = NOMAD
        .replace(
            "        - { name: idempotency_token, in: query, required: true, type: string }\n",
            "",
        )
        .replace(
            "properties: { Payload: { type: string } }",
            "required: [idempotency_key], properties: { idempotency_key: { type: string } }",
        );
    let c = contract("swagger-body", &spec, "/job/{jobName}/dispatch");
    assert_eq!(
        c["key"], "the body property `idempotency_key`, required",
        "{c}"
    );
}

#[test]
fn init_retries_a_write_with_its_required_body_key_and_not_one_whose_key_is_optional() {
    // Source: https://developer.squareup.com/docs/build-basics/common-api-patterns/idempotency
    // A required body key is in every request: each attempt re-sends it, so the policy
    // names it (`keyHeader` reads it in the body) and retries with it.
    let dir = folder("init", SQUARE, None);
    let run = retrylint_in(&dir, &["init", "openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout.contains(
            "  \"CreatePayment\":  # POST /v2/payments\n    idempotency: { keyHeader: \"idempotency_key\", keyRetention: 24h }\n    onUnknownOutcome: retry-same-key\n"
        ),
        "{}",
        run.stdout
    );
    std::fs::write(dir.join("retry-policy.yaml"), &run.stdout).unwrap();
    let check = retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert_eq!(check.code, 0, "{}", check.transcript());
    // Optional, the key is the application's choice: the write is never retried.
    let optional = SQUARE.replace(
        "required: [source_id, idempotency_key]",
        "required: [source_id]",
    );
    let dir = folder("init-optional", &optional, None);
    let run = retrylint_in(&dir, &["init", "openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(!run.stdout.contains("keyHeader:"), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "\"CreatePayment\": { maxAttempts: 1, onUnknownOutcome: fail }  # POST /v2/payments, optional body property idempotency_key"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("# request body or the query string: never retried."),
        "{}",
        run.stdout
    );
    std::fs::write(dir.join("retry-policy.yaml"), &run.stdout).unwrap();
    let check = retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert_eq!(check.code, 0, "{}", check.transcript());
}

#[test]
fn a_policy_naming_the_body_key_is_not_told_the_header_is_undeclared() {
    // Source: https://developer.squareup.com/docs/build-basics/common-api-patterns/idempotency
    let policy = "version: 1
defaults:
  maxAttempts: 3
  deadline: 10s
  backoff: { base: 100ms, cap: 2s, jitter: full }
  retryOn: [503, timeout]
operations:
  CreatePayment:
    idempotency: { keyHeader: idempotency_key, keyRetention: 24h }
    onUnknownOutcome: retry-same-key
";
    let dir = folder("policy", SQUARE, Some(policy));
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let rules: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(!rules.contains(&"idempotency-key-undeclared"), "{rules:?}");
    assert!(!rules.contains(&"unprotected-write-retry"), "{rules:?}");
    let unnamed = policy.replace(
        "    idempotency: { keyHeader: idempotency_key, keyRetention: 24h }\n    onUnknownOutcome: retry-same-key\n",
        "    onUnknownOutcome: fail\n",
    );
    // Required, the key is in every attempt the policy makes, named or not.
    let dir = folder("policy-required", SQUARE, Some(&unnamed));
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "--format", "json"]);
    assert!(
        !run.stdout.contains("unprotected-write-retry"),
        "{}",
        run.stdout
    );
    // Optional and not named by the policy, it protects nothing, and the help names it.
    let optional = SQUARE.replace(
        "required: [source_id, idempotency_key]",
        "required: [source_id]",
    );
    let dir = folder("policy-unnamed", &optional, Some(&unnamed));
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let finding = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "unprotected-write-retry")
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert_eq!(
        finding["help"],
        "the description declares the body property `idempotency_key`; name it in idempotency.keyHeader so the client sends it and reuses it on every retry"
    );
}
