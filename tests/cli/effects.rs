//! What repeats, read from the contract and not the verb, through the binary: POSTs that
//! read, POSTs and PATCHes that are idempotent, PUTs that create or send, words that
//! disagree, a declaration, gRPC bindings, and the labelled descriptions kept in
//! `tests/data/effects`. Each effect comes with the words that decided it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common;

use common::retrylint_in;

/// The examples' description, each operation from a public description's words.
fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/effect-examples/openapi.yaml")
}

/// `report --format json` of `spec`, by `METHOD path`.
fn operations(spec: &Path) -> BTreeMap<String, serde_json::Value> {
    common::report_operations(&common::retrylint(&[
        "report",
        spec.to_str().unwrap(),
        "--format",
        "json",
    ]))
}

/// The rules of the operation's findings.
fn rules(op: &serde_json::Value) -> Vec<&str> {
    op["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect()
}

/// Each example: the operation, the effect, and the words its contract view shows.
const EXPECTED: &[(&str, &str, &str)] = &[
    (
        "POST /1/indexes/{indexName}/query",
        "read",
        "none (summary \"Search an index\"; operationId `searchSingleIndex`; path `query`)",
    ),
    (
        "POST /v1/permissions/check",
        "read",
        "none (operationId `PermissionsService_CheckPermission`; path `check`)",
    ),
    (
        "POST /v2/customers/search",
        "read",
        "none (operationId `SearchCustomers`; path `search`; description \"Searches the customer profiles associated with a Square account using one or…\")",
    ),
    (
        "POST /v1/customers:search",
        "read",
        "none (summary \"Search customers\"; operationId `searchCustomers`; path `search`)",
    ),
    (
        "POST /v1/{resource}:getIamPolicy",
        "read",
        "none (path `getIamPolicy`)",
    ),
    (
        "POST /v1/{resource}:setIamPolicy",
        "idempotent-write",
        "idempotent (path `setIamPolicy`)",
    ),
    (
        "POST /catalog/graphql",
        "read",
        "none (GraphQL queries only; description \"Run GraphQL queries against the product catalog.\")",
    ),
    (
        // "Run … queries and mutations": the mutations beside the queries keep `run` a
        // write, and the description stands beside the schema's mutations.
        "POST /admin/graphql",
        "non-idempotent-write",
        "non-idempotent (GraphQL mutations; description \"Run GraphQL queries and mutations against the store.\")",
    ),
    (
        "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel",
        "idempotent-write",
        "idempotent (summary \"Cancel a workflow run\"; operationId `actions/cancel-workflow-run`; path `cancel`)",
    ),
    (
        "POST /projects/{id}/archive",
        "idempotent-write",
        "idempotent (summary \"Archive a project\"; operationId `archiveProject`; path `archive`)",
    ),
    (
        "POST /webhooks/{id}/disable",
        "idempotent-write",
        "idempotent (summary \"Disable a webhook\"; operationId `disableWebhook`; path `disable`)",
    ),
    (
        "POST /things",
        "idempotent-write",
        "idempotent (description \"This operation is idempotent.\")",
    ),
    (
        "POST /contacts/upsert",
        "idempotent-write",
        "idempotent (summary \"Create or update a contact\"; operationId `upsertContact`; path `upsert`)",
    ),
    (
        "PATCH /users/{id}",
        "idempotent-write",
        "idempotent (request media type \"application/merge-patch+json\")",
    ),
    (
        "PUT /Invoices",
        "non-idempotent-write",
        "non-idempotent (summary \"Creates one or more sales invoices or purchase bills\"; operationId `createInvoices`)",
    ),
    (
        "PUT /{realm}/users/{id}/execute-actions-email",
        "non-idempotent-write",
        "non-idempotent (summary \"Send an email to the user with a link they can click to execute particular…\"; path `execute-actions-email`)",
    ),
    (
        "POST /reports/{id}/preview",
        "non-idempotent-write",
        "non-idempotent (summary \"Preview the report and send it to its subscribers\"; operationId `previewAndSendReport`)",
    ),
    (
        "POST /orders/searches",
        "unknown",
        "unknown (operationId `createOrderSearch` says non-idempotent-write; summary \"Search orders\" says read)",
    ),
    (
        "POST /reports/{id}/render",
        "read",
        "none (x-side-effect: none)",
    ),
    (
        "POST /reactions.add",
        "idempotent-write",
        "idempotent (response \"already_reacted\")",
    ),
    (
        "POST /repos/{owner}/{repo}/merges",
        "idempotent-write",
        "idempotent (response \"Response when already merged\")",
    ),
    (
        "POST /files/{id}/metadata",
        "idempotent-write",
        "idempotent (response \"* `tuple_already_exists` - An instance of the metadata template…\")",
    ),
    (
        "PUT /files/{file_id}#add_shared_link",
        "idempotent-write",
        "idempotent (summary \"Add shared link to file\")",
    ),
    (
        "POST /repos/{owner}/{repo}/tasks",
        "non-idempotent-write",
        "non-idempotent (response \"201\")",
    ),
    (
        "POST /projects/{project_gid}/addFollowers",
        "idempotent-write",
        "idempotent (description \"Therefore, if the users are not already members of the project, they will also…\"; summary \"Add followers to a project\"; operationId `addFollowersForProject`)",
    ),
    (
        "POST /v2/apps",
        "idempotent-write",
        "idempotent (request field \"Must be unique across all apps in the same account.\")",
    ),
    (
        "POST /v2/registries",
        "idempotent-write",
        "idempotent (request field \"A globally unique name for the container registry.\")",
    ),
    (
        "POST /transfer/get",
        "read",
        "none (summary \"Retrieve a transfer\"; operationId `transferGet`; path `get`)",
    ),
    (
        "POST /categories/get",
        "read",
        "none (summary \"Get legacy categories\"; path `get`)",
    ),
];

#[test]
fn each_example_repeats_as_its_words_say_and_shows_them() {
    let ops = operations(&examples());
    assert_eq!(ops.len(), EXPECTED.len(), "{:?}", ops.keys());
    for (key, effect, words) in EXPECTED {
        let op = &ops[*key];
        assert_eq!(
            op["contract"]["repeat"]["effect"], *effect,
            "{key}: {}",
            op["contract"]
        );
        assert_eq!(op["contract"]["effect"], *words, "{key}");
        // Every piece of evidence points at the place that holds its words.
        for cue in op["contract"]["repeat"]["evidence"].as_array().unwrap() {
            assert!(
                cue["pointer"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("/paths/")),
                "{key}: {cue}"
            );
        }
        // A write finding exactly where a repeat may repeat: the reads and the idempotent
        // writes carry none, whatever their method.
        let write = matches!(*effect, "non-idempotent-write" | "unknown");
        assert_eq!(
            rules(op).contains(&"write-without-retry-protection"),
            write,
            "{key}: {:?}",
            rules(op)
        );
    }
}

#[test]
fn an_error_code_that_answers_a_repeat_is_shown_where_it_is_written() {
    let ops = operations(&examples());
    let evidence = &ops["POST /reactions.add"]["contract"]["repeat"]["evidence"][0];
    assert_eq!(
        evidence["pointer"],
        "/paths/~1reactions.add/post/responses/default/content/application~1json/schema/properties/error/enum/1",
        "{evidence}"
    );
}

#[test]
fn an_unknown_effect_is_a_write_whose_finding_names_the_line_that_settles_it() {
    let run = common::retrylint(&["check", examples().to_str().unwrap(), "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let finding = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["rule"] == "write-without-retry-protection"
                && f["operation"]["path"] == "/orders/searches"
        })
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .starts_with("POST /orders/searches is unknown (operationId `createOrderSearch` says non-idempotent-write; summary \"Search orders\" says read)"),
        "{finding}"
    );
    assert!(
        finding["help"]
            .as_str()
            .unwrap()
            .starts_with("its words disagree on what a repeat does, so it is taken for a write that may repeat: settle it with one line on the operation, `x-side-effect: none | idempotent | non-idempotent`"),
        "{finding}"
    );
    // The line it names settles it.
    let dir = common::scratch("effects-settled");
    let text = std::fs::read_to_string(examples()).unwrap().replace(
        "      operationId: createOrderSearch\n",
        "      operationId: createOrderSearch\n      x-side-effect: none\n",
    );
    std::fs::write(dir.join("openapi.yaml"), text).unwrap();
    let ops = operations(&dir.join("openapi.yaml"));
    let op = &ops["POST /orders/searches"];
    assert_eq!(op["contract"]["repeat"]["effect"], "read");
    assert_eq!(op["contract"]["repeat"]["confidence"], "declared");
    assert!(!rules(op).contains(&"write-without-retry-protection"));
}

#[test]
fn a_bad_declaration_is_an_input_error_at_its_place() {
    let dir = common::scratch("effects-bad-declaration");
    let text = std::fs::read_to_string(examples())
        .unwrap()
        .replace("x-side-effect: none", "x-side-effect: sometimes");
    std::fs::write(dir.join("openapi.yaml"), text).unwrap();
    let run = retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains("sometimes"), "{}", run.stderr);
    assert!(run.stderr.contains("openapi.yaml:"), "{}", run.stderr);
}

#[test]
fn init_retries_what_reads_and_never_what_creates_or_sends() {
    let dir = common::scratch("effects-init");
    std::fs::copy(examples(), dir.join("openapi.yaml")).unwrap();
    let run = retrylint_in(&dir, &["init", "openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let never = |selector: &str| {
        run.stdout
            .lines()
            .any(|l| l.contains(selector) && l.contains("maxAttempts: 1, onUnknownOutcome: fail"))
    };
    for create in [
        "\"createInvoices\"",
        "PUT /{realm}/users/{id}/execute-actions-email",
        "\"previewAndSendReport\"",
        "\"createOrderSearch\"",
        "\"adminGraphql\"",
    ] {
        assert!(never(create), "{create}:\n{}", run.stdout);
    }
    // The POST reads and the idempotent POSTs are retried by the defaults: no entry
    // keeps them from it.
    for read in [
        "searchSingleIndex",
        "SearchCustomers",
        "searchCustomers\"",
        "catalogGraphql",
        "archiveProject",
        "upsertContact",
    ] {
        assert!(!never(read), "{read}:\n{}", run.stdout);
    }
    // The policy it writes checks clean against the description.
    std::fs::write(dir.join("retry-policy.yaml"), &run.stdout).unwrap();
    let check = retrylint_in(&dir, &["check", "openapi.yaml"]);
    assert_eq!(check.code, 0, "{}", check.transcript());
}

#[test]
fn a_grpc_rpc_bound_to_a_get_reads() {
    // googleapis/googleapis, google/api/http.proto: `get` maps to HTTP GET, which the
    // gRPC transcoding gateway sends for a read.
    let proto = "syntax = \"proto3\";
package shelf.v1;
import \"google/api/annotations.proto\";
service Library {
  rpc GetShelf(GetShelfRequest) returns (Shelf) {
    option (google.api.http) = { get: \"/v1/{name=shelves/*}\" };
  }
  rpc CreateShelf(CreateShelfRequest) returns (Shelf) {
    option (google.api.http) = { post: \"/v1/shelves\" body: \"shelf\" };
  }
}
message GetShelfRequest { string name = 1; }
message CreateShelfRequest { Shelf shelf = 1; }
message Shelf { string name = 1; }
";
    let dir = common::scratch("effects-grpc");
    std::fs::write(dir.join("library.proto"), proto).unwrap();
    // The repository's copy of googleapis' annotations, as services vendor it
    // (googleapis/googleapis, google/api/annotations.proto, cut to the extension).
    std::fs::create_dir_all(dir.join("google/api")).unwrap();
    std::fs::write(
        dir.join("google/api/annotations.proto"),
        "syntax = \"proto3\";\npackage google.api;\nimport \"google/protobuf/descriptor.proto\";\nextend google.protobuf.MethodOptions {\n  HttpRule http = 72295728;\n}\nmessage HttpRule {\n  string get = 2;\n  string put = 3;\n  string post = 4;\n  string delete = 5;\n  string patch = 6;\n  string body = 7;\n}\n",
    )
    .unwrap();
    let ops = operations(&dir.join("library.proto"));
    let get = &ops["POST /shelf.v1.Library/GetShelf"];
    assert_eq!(get["contract"]["repeat"]["effect"], "read", "{get}");
    assert!(
        get["contract"]["effect"]
            .as_str()
            .unwrap()
            .contains("google.api.http `get"),
        "{}",
        get["contract"]["effect"]
    );
    assert!(!rules(get).contains(&"write-without-retry-protection"));
    let create = &ops["POST /shelf.v1.Library/CreateShelf"];
    assert_eq!(
        create["contract"]["repeat"]["effect"], "non-idempotent-write",
        "{create}"
    );
    assert!(rules(create).contains(&"write-without-retry-protection"));
}

/// The labelled descriptions stored in the repository, with their POST reads.
const STORED: &[(&str, usize)] = &[
    ("qdrant/openapi.json", 9),
    ("typesense/openapi.yml", 1),
    ("openfga/apidocs.swagger.json", 12),
    ("weaviate/schema.json", 9),
];

/// Qdrant's, Typesense's, OpenFGA's and Weaviate's search, query and check POSTs carry no
/// write finding; every write their labels call non-idempotent is acted on as one.
#[test]
fn the_labelled_descriptions_reads_carry_no_write_finding_and_their_writes_do() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/effects");
    for (spec, post_reads) in STORED {
        let path = root.join(spec);
        let ops = operations(&path);
        let mut reads = 0;
        for (key, label) in common::effect_labels(&path.parent().unwrap().join("labels.jsonl")) {
            let op = &ops[&key];
            let effect = op["contract"]["repeat"]["effect"].as_str().unwrap();
            match label["effect"].as_str().unwrap() {
                "read" if label["method"] != "GET" => {
                    reads += 1;
                    assert!(
                        !rules(op).contains(&"write-without-retry-protection"),
                        "{spec}: {key}: {effect}"
                    );
                }
                "non-idempotent-write" => {
                    assert!(
                        matches!(effect, "non-idempotent-write" | "unknown"),
                        "{spec}: {key}: {effect}"
                    );
                }
                _ => {}
            }
        }
        assert_eq!(reads, *post_reads, "{spec}");
    }
}

/// Box tells two operations of one path apart with a fragment (`/files/{file_id}#copy`):
/// a route to the file's URL serves it, as the fragment is never sent.
#[test]
fn a_route_to_the_url_serves_the_operation_its_fragment_names() {
    let dir = common::scratch("effects-fragment-route");
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: files, version: '1'}\nservers: [{url: 'http://p'}]\npaths:\n  /files/{file_id}#copy:\n    post:\n      summary: Copy file\n      parameters: [{name: file_id, in: path, required: true, schema: {type: string}}]\n      responses: {'201': {description: the copy}}\n",
    )
    .unwrap();
    // ingress-nginx resends a write only with `non_idempotent` (see `k8s_edge`).
    let ingress = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: files\n  annotations:\n    kubernetes.io/ingress.class: nginx\n    nginx.ingress.kubernetes.io/proxy-next-upstream: \"error timeout non_idempotent\"\nspec:\n  rules:\n  - host: p\n    http:\n      paths:\n      - path: /files/7\n        pathType: Exact\n        backend: {service: {name: p, port: {number: 80}}}\n";
    let run = common::check_layers(&dir, &[("ingress.yaml", ingress)]);
    assert!(
        common::fired_rules(&run.stdout).contains(&"unprotected-write-retry".to_string()),
        "{}",
        run.transcript()
    );
}
