//! Idempotency keys as a description means them: named by their purpose (`dedup_key`),
//! made keys by their description or title (`incident_key`, a `requestId` whose title
//! says it de-duplicates), nested in the body or composed with `allOf`; and what a key
//! protects: a required key in the body travels with every retry, whoever retries,
//! while an optional one protects only the calls that send it.

use crate::common;

use std::path::PathBuf;

use common::retrylint_in;

/// A scratch folder holding `openapi.yaml` (and a policy, when given).
fn folder(name: &str, spec: &str, policy: Option<&str>) -> PathBuf {
    common::description_folder(&format!("domain-keys-{name}"), spec, policy)
}

/// The `contract` of `POST path` in `report --format json`.
fn contract(name: &str, spec: &str, path: &str) -> serde_json::Value {
    common::post_contract(&format!("domain-keys-{name}"), spec, path)
}

/// The rules of `check --format json`'s findings.
fn rules(dir: &std::path::Path) -> Vec<String> {
    let run = retrylint_in(dir, &["check", "openapi.yaml", "--format", "json"]);
    assert!(run.code < 2, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

/// PagerDuty's Events API v2, as PagerDuty/api-schema writes it
/// (reference/events-v2/openapiv3.json), cut to the fields that matter here.
const PAGERDUTY_V2: &str = "openapi: 3.0.0
info: { title: PagerDuty Events API v2, version: '2' }
paths:
  /enqueue:
    post:
      summary: Send an event to PagerDuty
      operationId: createV2Event
      description: Your monitoring tools should send PagerDuty a trigger event to report a new problem, or update an ongoing problem, depending on the event type.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [routing_key, event_action]
              properties:
                routing_key: { type: string, description: The GUID of one of your Events API V2 integrations. }
                event_action: { type: string, enum: [trigger, acknowledge, resolve] }
                dedup_key:
                  type: string
                  description: Identifies the alert to `trigger`, `acknowledge`, or `resolve`. Required unless the `event_type` is `trigger`.
      responses:
        '202': { description: The event has been accepted by PagerDuty. }
        '400': { description: Invalid event format }
";

#[test]
fn pagerduty_dedup_key_is_a_key_by_its_name_and_its_routing_key_is_not() {
    let c = contract("pagerduty-v2", PAGERDUTY_V2, "/enqueue");
    assert_eq!(c["key"], "the body property `dedup_key`, optional", "{c}");
    assert_eq!(c["state"], "key-incomplete", "{c}");
    assert_eq!(c["repeat"]["effect"], "non-idempotent-write", "{c}");
    // Optional, it protects only the calls that send it: a policy that retries the
    // write without naming it is told to, and one that names it is not.
    let policy = "version: 1\ndefaults: {maxAttempts: 3, deadline: 10s, retryOn: [503, timeout], backoff: {base: 100ms, cap: 2s, jitter: full}}\n";
    let dir = folder("pagerduty-v2-retried", PAGERDUTY_V2, Some(policy));
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
        "the description declares the body property `dedup_key`; name it in idempotency.keyHeader so the client sends it and reuses it on every retry"
    );
    // Its fix names the key in the policy, and the rewritten policy is quiet about it.
    let fixed = retrylint_in(&dir, &["check", "openapi.yaml", "--fix"]);
    assert!(fixed.code < 2, "{}", fixed.transcript());
    let policy = std::fs::read_to_string(dir.join("retry-policy.yaml")).unwrap();
    assert!(policy.contains("keyHeader: dedup_key"), "{policy}");
    assert!(!rules(&dir).contains(&"unprotected-write-retry".to_string()));
}

#[test]
fn pagerduty_incident_key_is_a_key_by_what_its_description_says() {
    // PagerDuty/api-schema, reference/events-v1/openapiv3.json.
    let v1 = PAGERDUTY_V2
        .replace("/enqueue", "/create_event.json")
        .replace("createV2Event", "createV1Event")
        .replace("dedup_key:", "incident_key:")
        .replace("routing_key", "service_key")
        .replace("Identifies the alert", "Identifies the incident");
    let c = contract("pagerduty-v1", &v1, "/create_event.json");
    assert_eq!(
        c["key"],
        "the body property `incident_key`, optional (its description: \"Identifies the incident to `trigger`, `acknowledge`, or `resolve`.\")",
        "{c}"
    );
}

/// A create whose body is `$ref`ed, with `body_key` standing for the key's property.
fn create(body: &str) -> String {
    format!(
        "openapi: 3.0.3
info: {{ title: t, version: '1' }}
paths:
  /transfers:
    post:
      operationId: createTransfer
      requestBody:
        required: true
        content:
          application/json:
            schema: {{ $ref: '#/components/schemas/CreateTransfer' }}
      responses:
        '201': {{ description: created }}
        '409': {{ description: a transfer with this key is in progress }}
components:
  schemas:
{body}"
    )
}

#[test]
fn a_request_id_described_only_in_its_title_is_a_key() {
    let spec = create(
        "    CreateTransfer:
      type: object
      required: [amount, requestId]
      properties:
        amount: { type: integer }
        requestId: { type: string, title: A client-chosen id the server uses to deduplicate retried transfers }
",
    );
    let c = contract("title", &spec, "/transfers");
    assert_eq!(
        c["key"],
        "the body property `requestId`, required (its description: \"A client-chosen id the server uses to deduplicate retried transfers\")",
        "{c}"
    );
    assert_eq!(c["state"], "retry-safe", "{c}");
    // Without the title it is an ordinary id.
    let plain = spec.replace(
        ", title: A client-chosen id the server uses to deduplicate retried transfers",
        "",
    );
    assert_eq!(
        contract("title-plain", &plain, "/transfers")["key"],
        serde_json::Value::Null
    );
}

#[test]
fn a_key_nested_in_the_body_is_found_by_its_path() {
    // JSON:API puts a resource's fields under data.attributes (https://jsonapi.org/format/#crud-creating).
    let spec = create(
        "    CreateTransfer:
      type: object
      required: [data]
      properties:
        data:
          type: object
          required: [type, attributes]
          properties:
            type: { type: string }
            attributes: { $ref: '#/components/schemas/Attributes' }
    Attributes:
      type: object
      required: [amount, idempotencyKey]
      properties:
        amount: { type: integer }
        idempotencyKey: { type: string }
",
    );
    let c = contract("nested", &spec, "/transfers");
    assert_eq!(
        c["key"], "the body property `data.attributes.idempotencyKey`, required",
        "{c}"
    );
    assert_eq!(c["state"], "retry-safe", "{c}");
    // Below an optional object, the key is optional.
    let optional = spec.replace("required: [type, attributes]", "required: [type]");
    let c = contract("nested-optional", &optional, "/transfers");
    assert_eq!(
        c["key"], "the body property `data.attributes.idempotencyKey`, optional",
        "{c}"
    );
}

#[test]
fn a_key_of_a_composed_schema_is_required_through_all_of_and_optional_through_one_of() {
    let spec = create(
        "    CreateTransfer:
      allOf:
        - $ref: '#/components/schemas/Keyed'
        - type: object
          properties: { amount: { type: integer } }
    Keyed:
      type: object
      required: [idempotency_key]
      properties:
        idempotency_key: { type: string }
",
    );
    let c = contract("all-of", &spec, "/transfers");
    assert_eq!(
        c["key"], "the body property `idempotency_key`, required",
        "{c}"
    );
    let one_of = spec.replace("allOf:", "oneOf:");
    let c = contract("one-of", &one_of, "/transfers");
    assert_eq!(
        c["key"], "the body property `idempotency_key`, optional",
        "{c}"
    );
    // The composing schema's `required` names a member's property, as DigitalOcean's
    // `vpcs_create` does (digitalocean/openapi, specification/resources/vpcs/vpcs_create.yml).
    let outer = spec
        .replace("      required: [idempotency_key]\n", "")
        .replace(
            "    CreateTransfer:\n      allOf:",
            "    CreateTransfer:\n      required: [idempotency_key]\n      allOf:",
        );
    let c = contract("all-of-outer", &outer, "/transfers");
    assert_eq!(
        c["key"], "the body property `idempotency_key`, required",
        "{c}"
    );
}

#[test]
fn a_recursive_body_schema_is_read_to_a_bound() {
    let spec = create(
        "    CreateTransfer:
      type: object
      allOf: [{ $ref: '#/components/schemas/CreateTransfer' }]
      properties:
        child: { $ref: '#/components/schemas/CreateTransfer' }
        sibling: { $ref: '#/components/schemas/CreateTransfer' }
",
    );
    let c = contract("recursive", &spec, "/transfers");
    assert_eq!(c["key"], serde_json::Value::Null, "{c}");
    assert_eq!(c["state"], "unprotected", "{c}");
}

/// Speakeasy's SDKs retry what `x-speakeasy-retries` says
/// (https://www.speakeasy.com/docs/customize-sdks/retries) and re-send the same request,
/// body and all.
#[test]
fn a_required_body_key_protects_the_retries_of_a_speakeasy_sdk() {
    let spec = create(
        "    CreateTransfer:
      type: object
      required: [amount, idempotency_key]
      properties:
        amount: { type: integer }
        idempotency_key: { type: string }
",
    )
    .replace(
        "      operationId: createTransfer\n",
        "      operationId: createTransfer\n      x-speakeasy-retries:\n        strategy: backoff\n        backoff: { initialInterval: 500, maxInterval: 5000, maxElapsedTime: 20000, exponent: 1.5 }\n        statusCodes: [503]\n        retryConnectionErrors: true\n",
    );
    let dir = folder("speakeasy", &spec, None);
    assert_eq!(
        common::report_contracts(&dir)["POST /transfers"]["state"],
        "retry-safe"
    );
    let fired = rules(&dir);
    assert!(
        !fired.contains(&"unprotected-write-retry".to_string()),
        "{fired:?}"
    );
    // Without the key, the SDK's retries repeat the create.
    let unkeyed = spec
        .replace("required: [amount, idempotency_key]", "required: [amount]")
        .replace("        idempotency_key: { type: string }\n", "");
    let dir = folder("speakeasy-unkeyed", &unkeyed, None);
    let fired = rules(&dir);
    assert!(
        fired.contains(&"unprotected-write-retry".to_string()),
        "{fired:?}"
    );
}

#[test]
fn a_key_in_a_form_body_is_a_key() {
    // Twilio's `CreatePayments` (twilio/twilio-oai, spec/json/twilio_api_v2010.json) takes
    // its `IdempotencyKey` in an `application/x-www-form-urlencoded` body.
    let spec = "openapi: 3.0.1
info: { title: Twilio, version: '1' }
paths:
  /Calls/{CallSid}/Payments.json:
    post:
      operationId: CreatePayments
      parameters: [{ name: CallSid, in: path, required: true, schema: { type: string } }]
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [IdempotencyKey, StatusCallback]
              properties:
                IdempotencyKey: { type: string, description: A unique token that will be used to ensure that multiple API calls with the same information do not result in multiple transactions. }
                StatusCallback: { type: string, format: uri }
      responses: { '201': { description: Created } }
";
    let c = contract("form", spec, "/Calls/{CallSid}/Payments.json");
    assert_eq!(
        c["key"], "the body property `IdempotencyKey`, required",
        "{c}"
    );
    assert_eq!(c["state"], "key-incomplete", "{c}");
}
