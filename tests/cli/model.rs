//! The operation model and effective policies, through the library on small files, and
//! what the model reads from real descriptions, through the binary.

use crate::common;

use std::path::{Path, PathBuf};

use retrylint::analysis::check::{CheckOptions, check_description, load_policy};
use retrylint::input::load::{LoadOptions, Loader};
use retrylint::input::policy::{Duration, EffectSource, SideEffect, resolve};

/// Writes `files` into a fresh folder named `name` and returns it.
fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("model")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const SHOP: &str = r#"openapi: 3.0.3
info: { title: t, version: "1" }
x-retry-policy: { maxAttempts: 2, deadline: 1s }
paths:
  /orders:
    parameters:
      - { name: X-Tenant, in: header, required: true, schema: { type: string } }
      - { name: idempotency-key, in: header, schema: { type: string } }
    get:
      operationId: listOrders
      tags: [orders]
      responses: { '200': { description: ok } }
    post:
      operationId: createOrder
      tags: [orders, payments]
      x-retry-policy: { deadline: 2s }
      parameters:
        - { name: Idempotency-Key, in: header, required: true, schema: { type: string } }
      responses: { '201': { description: ok } }
  /orders/{id}:
    put:
      x-idempotent: false
      responses: { '200': { description: ok } }
    delete:
      responses: { '204': { description: ok } }
"#;

struct Setup {
    api: retrylint::input::model::Api,
    effective: Vec<retrylint::input::policy::Effective>,
    per_entry: Vec<usize>,
}

fn setup(name: &str, policy: &str) -> Setup {
    let dir = folder(
        name,
        &[("openapi.yaml", SHOP), ("retry-policy.yaml", policy)],
    );
    let loaded = load_policy(&dir.join("retry-policy.yaml"), &LoadOptions::default()).unwrap();
    let mut loader = Loader::new(LoadOptions::default());
    loader.add(loaded.file.clone());
    let root = loader.load_root(&dir.join("openapi.yaml")).unwrap();
    let api = retrylint::input::model::build(&mut loader, root).unwrap();
    let sources = loader.into_sources();
    let (effective, matches) = resolve(&api, Some(&loaded.policy), &sources).unwrap();
    Setup {
        api,
        effective,
        per_entry: matches.per_entry,
    }
}

impl Setup {
    fn index(&self, key: &str) -> usize {
        self.api
            .operations
            .iter()
            .position(|o| o.key() == key)
            .unwrap()
    }
    fn attempts(&self, key: &str) -> i64 {
        self.effective[self.index(key)].max_attempts()
    }
    fn deadline(&self, key: &str) -> Option<Duration> {
        let e = &self.effective[self.index(key)];
        e.policy.deadline.as_ref().map(|d| d.value)
    }
}

#[test]
fn path_level_parameters_merge_and_operation_wins_by_name_ignoring_case() {
    let s = setup("params", "version: 1\n");
    let post = &s.api.operations[s.index("POST /orders")];
    let names: Vec<(&str, bool)> = post
        .headers
        .iter()
        .map(|h| (h.name.as_str(), h.required))
        .collect();
    assert_eq!(names, [("Idempotency-Key", true), ("X-Tenant", true)]);
    assert!(post.header("x-tenant").is_some());
    let get = &s.api.operations[s.index("GET /orders")];
    assert!(get.header("Idempotency-Key").is_some_and(|h| !h.required));
}

#[test]
fn layers_apply_from_builtin_up_to_exact_selectors() {
    let s = setup(
        "precedence",
        r#"version: 1
defaults: { maxAttempts: 3 }
operations:
  "tag:orders": { maxAttempts: 4 }
  "* /orders/*": { maxAttempts: 5 }
  "GET /**": { maxAttempts: 6 }
  "GET /orders": { maxAttempts: 7 }
  "tag:payments": { deadline: 9s }
"#,
    );
    // Exact beats the glob and the tag; the description's deadline comes through.
    assert_eq!(s.attempts("GET /orders"), 7);
    assert_eq!(
        s.deadline("GET /orders"),
        Some(Duration::from_millis(1_000))
    );
    // A glob beats the tag; the operation's own x-retry-policy beats the document's.
    assert_eq!(s.attempts("POST /orders"), 4);
    assert_eq!(
        s.deadline("POST /orders"),
        Some(Duration::from_millis(9_000))
    );
    // Of two globs the one with more literal segments wins.
    assert_eq!(s.attempts("PUT /orders/{id}"), 5);
    assert_eq!(s.per_entry, [2, 2, 1, 1, 1]);
}

#[test]
fn speakeasy_retries_are_kept_at_the_root_and_per_operation() {
    let dir = folder(
        "speakeasy",
        &[
            (
                "openapi.yaml",
                r#"openapi: 3.0.3
info: { title: t, version: "1" }
x-speakeasy-retries: { strategy: backoff, statusCodes: [5XX] }
paths:
  /orders:
    get:
      responses: { '200': { description: ok } }
    post:
      x-speakeasy-retries: { strategy: none }
      responses: { '201': { description: ok } }
  /orders/{id}:
    put: { $ref: "put.yaml" }
"#,
            ),
            (
                "put.yaml",
                "x-speakeasy-retries: { strategy: backoff, statusCodes: [503] }
responses: { '200': { description: ok } }
",
            ),
        ],
    );
    let mut loader = Loader::new(LoadOptions::default());
    let root = loader.load_root(&dir.join("openapi.yaml")).unwrap();
    let api = retrylint::input::model::build(&mut loader, root).unwrap();
    let sources = loader.into_sources();
    let written = |ext: &retrylint::input::model::Extension| {
        let file = &sources[ext.loc.file];
        (file.name(), file.text[ext.loc.span.range()].to_string())
    };
    let root_ext = api.speakeasy_retries.as_ref().unwrap();
    assert_eq!(&*root_ext.loc.pointer, "/x-speakeasy-retries");
    assert_eq!(
        root_ext.node.get("strategy").and_then(|n| n.as_str()),
        Some("backoff")
    );
    let op = |key: &str| {
        api.operations
            .iter()
            .find(|o| o.key() == key)
            .unwrap()
            .speakeasy_retries
            .as_ref()
    };
    assert!(
        op("GET /orders").is_none(),
        "the root's is not copied into operations"
    );
    let post = op("POST /orders").unwrap();
    assert_eq!(written(post).1, "x-speakeasy-retries");
    assert_eq!(
        &*post.loc.pointer,
        "/paths/~1orders/post/x-speakeasy-retries"
    );
    // A referenced operation's extension is located in the file that writes it.
    let put = op("PUT /orders/{id}").unwrap();
    assert!(written(put).0.ends_with("put.yaml"), "{:?}", written(put));
    assert_eq!(&*put.loc.pointer, "/x-speakeasy-retries");
}

#[test]
fn equal_rank_entries_apply_in_file_order() {
    let s = setup(
        "equal-rank",
        "version: 1\noperations:\n  listOrders: { maxAttempts: 2 }\n  \"GET /orders\": { maxAttempts: 5 }\n",
    );
    assert_eq!(s.attempts("GET /orders"), 5);
}

#[test]
fn the_description_alone_sets_policies_below_the_file() {
    let s = setup("extensions", "version: 1\ndefaults: { deadline: 5s }\n");
    assert_eq!(s.attempts("DELETE /orders/{id}"), 2);
    // defaults outrank every x-retry-policy.
    assert_eq!(
        s.deadline("POST /orders"),
        Some(Duration::from_millis(5_000))
    );
}

#[test]
fn side_effects_come_from_policy_extension_or_method() {
    let s = setup(
        "effects",
        "version: 1\noperations:\n  listOrders: { sideEffect: idempotent }\n",
    );
    let effect = |key: &str| s.effective[s.index(key)].effect.clone();
    assert_eq!(effect("GET /orders").side_effect, SideEffect::Idempotent);
    assert!(matches!(
        effect("GET /orders").source,
        EffectSource::Policy(_)
    ));
    assert_eq!(
        effect("POST /orders").side_effect,
        SideEffect::NonIdempotent
    );
    assert_eq!(effect("POST /orders").source, EffectSource::Description);
    assert_eq!(
        effect("PUT /orders/{id}").side_effect,
        SideEffect::NonIdempotent
    );
    assert_eq!(effect("PUT /orders/{id}").source, EffectSource::Description);
    let put = &s.api.operations[s.index("PUT /orders/{id}")];
    let declared = put.effect.declaration().expect("x-idempotent declares it");
    assert_eq!(declared.source.as_str(), "x-idempotent");
    assert_eq!(
        effect("DELETE /orders/{id}").side_effect,
        SideEffect::Idempotent
    );
}

fn rules_fired(name: &str, policy: &str) -> Vec<(String, String)> {
    findings_of(name, policy)
        .iter()
        .map(|f| (f.rule.to_string(), f.severity.to_string()))
        .collect()
}

fn findings_of(name: &str, policy: &str) -> Vec<retrylint::Finding> {
    let dir = folder(
        name,
        &[("openapi.yaml", SHOP), ("retry-policy.yaml", policy)],
    );
    let loaded = load_policy(&dir.join("retry-policy.yaml"), &LoadOptions::default()).unwrap();
    let result = check_description(
        &dir.join("openapi.yaml"),
        Some(&loaded),
        &CheckOptions::default(),
    )
    .unwrap();
    result.findings
}

/// The operations a grouped finding of `rule` affects, as `METHOD /path`.
fn grouped_operations(findings: &[retrylint::Finding], rule: &str) -> Vec<String> {
    let grouped: Vec<_> = findings
        .iter()
        .filter(|f| f.rule.as_str() == rule)
        .collect();
    assert_eq!(grouped.len(), 1, "{grouped:#?}");
    grouped[0]
        .operations()
        .map(|o| format!("{} {}", o.method, o.path))
        .collect()
}

#[test]
fn key_headers_compare_without_case() {
    let policy =
        "version: 1\noperations:\n  createOrder: { idempotency: { keyHeader: IDEMPOTENCY-KEY } }\n";
    let undeclared = |fired: Vec<(String, String)>| {
        fired
            .iter()
            .filter(|(r, _)| r == "idempotency-key-undeclared")
            .count()
    };
    assert_eq!(undeclared(rules_fired("key-case", policy)), 0);
    let policy = "version: 1\noperations:\n  createOrder: { idempotency: { keyHeader: Idempotency-Token } }\n";
    assert_eq!(undeclared(rules_fired("key-other", policy)), 1);
}

#[test]
fn lint_settings_change_severities_and_ignore_operations() {
    let base = "version: 1\ndefaults: { maxAttempts: 3, deadline: 5s, backoff: { base: 1s } }\n";
    // The defaults retry four operations without jitter: one finding, at the defaults.
    let all = findings_of("lint-none", base);
    assert_eq!(
        grouped_operations(&all, "backoff-without-jitter").len(),
        4,
        "{all:#?}"
    );
    let warn = format!("{base}lint: {{ rules: {{ backoff-without-jitter: warning }} }}\n");
    assert!(
        rules_fired("lint-warn", &warn)
            .iter()
            .all(|(_, s)| s == "warning")
    );
    let off = format!("{base}lint: {{ rules: {{ backoff-without-jitter: off }} }}\n");
    assert!(
        rules_fired("lint-off", &off)
            .iter()
            .all(|(r, _)| r != "backoff-without-jitter")
    );
    let ignore = format!(
        "{base}lint:\n  ignore:\n    - {{ rule: backoff-without-jitter, operations: [\"tag:orders\"], reason: polled }}\n"
    );
    // Ignoring the tag drops its operations from the group, not the finding.
    let left = findings_of("lint-ignore", &ignore);
    assert_eq!(
        grouped_operations(&left, "backoff-without-jitter").len(),
        2,
        "{left:#?}"
    );
}

/// `retrylint ARGS…` as JSON, with its exit code checked.
fn json_run(args: &[&str], code: i32) -> serde_json::Value {
    let run = common::retrylint(args);
    assert_eq!(run.code, code, "{}", run.transcript());
    serde_json::from_str(&run.stdout).expect("JSON output")
}

const OPENAPI32: &str = "fixtures/tricky/openapi32/openapi.yaml";

#[test]
fn openapi_3_2_reads_query_and_additional_operations() {
    let doc = json_run(&["check", OPENAPI32, "--format", "json"], 1);
    assert_eq!(doc["summary"]["operations"], 4);
    let fired = common::rule_operations(&doc);
    // A custom method is a write unless marked: retrying it with no key is reported.
    assert!(
        fired.contains(&("unprotected-write-retry".into(), "PURGE /cache".into())),
        "{fired:?}"
    );
    // QUERY is safe like GET; PURGE /cache/{key} is marked x-idempotent: true.
    assert!(
        fired
            .iter()
            .all(|(_, op)| op != "QUERY /search" && op != "PURGE /cache/{key}"),
        "{fired:?}"
    );
    // Every selector matched its operation.
    assert!(
        fired
            .iter()
            .all(|(rule, _)| rule != "policy-matches-nothing"),
        "{fired:?}"
    );
    let plan = common::retrylint(&["plan", OPENAPI32]);
    assert_eq!(plan.code, 0, "{}", plan.transcript());
    let query = plan
        .stdout
        .split("\n\n")
        .find(|b| b.starts_with("QUERY /search"));
    assert!(
        query.is_some_and(|b| b.contains("stops after attempt 4: maxAttempts is 4")),
        "{}",
        plan.stdout
    );
    let sarif = common::retrylint(&["check", OPENAPI32, "--format", "sarif"]);
    assert!(sarif.stdout.contains("\"operation\": \"PURGE /cache\""));
}

#[test]
fn openapi_3_2_methods_are_checked_for_syntax_and_duplicates() {
    let head = "openapi: 3.2.0\ninfo: { title: t, version: '1' }\npaths:\n  /cache:\n";
    let ok = "{ responses: { '204': { description: ok } } }";
    let dir = folder(
        "methods-3-2",
        &[
            (
                "twice.yaml",
                &format!("{head}    delete: {ok}\n    additionalOperations:\n      DELETE: {ok}\n"),
            ),
            (
                "not-a-token.yaml",
                &format!("{head}    additionalOperations:\n      \"PUR GE\": {ok}\n"),
            ),
        ],
    );
    let run = |file: &str| common::retrylint(&["check", dir.join(file).to_str().unwrap()]);
    let twice = run("twice.yaml");
    assert_eq!(twice.code, 2, "{}", twice.transcript());
    assert!(twice.stderr.contains("`DELETE /cache` is described twice"));
    let token = run("not-a-token.yaml");
    assert_eq!(token.code, 2, "{}", token.transcript());
    assert!(
        token.stderr.contains("`PUR GE` is not an HTTP method name"),
        "{}",
        token.stderr
    );
}

#[test]
fn azure_x_ms_paths_are_operations_with_their_query_string() {
    let doc = json_run(
        &[
            "check",
            "fixtures/tricky/x-ms-paths/openapi.yaml",
            "--format",
            "json",
        ],
        1,
    );
    assert_eq!(doc["summary"]["operations"], 3);
    let fired = common::rule_operations(&doc);
    assert!(
        fired.contains(&(
            "unprotected-write-retry".into(),
            "POST /containers/{name}?comp=undelete".into()
        )),
        "{fired:?}"
    );
    assert!(
        fired
            .iter()
            .all(|(rule, _)| rule != "policy-matches-nothing"),
        "{fired:?}"
    );
}

#[test]
fn yaml_1_1_booleans_are_read_as_booleans() {
    // `required: yes` makes the key required; `x-idempotent: On` marks the refund.
    let run = common::retrylint(&["check", "fixtures/tricky/yaml11-booleans/openapi.yaml"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        common::fired_rules(&run.stdout).is_empty(),
        "{}",
        run.stdout
    );
    // A value that is no boolean in any spelling, or a quoted one, is an input error.
    let spec = |required: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{ title: t, version: '1' }}\npaths:\n  /p:\n    post:\n      parameters:\n        - {{ name: Idempotency-Key, in: header, required: {required} }}\n      responses: {{ '201': {{ description: ok }} }}\n"
        )
    };
    let dir = folder(
        "booleans",
        &[
            ("maybe.yaml", &spec("maybe")),
            ("quoted.yaml", &spec("'yes'")),
        ],
    );
    for file in ["maybe.yaml", "quoted.yaml"] {
        let run = common::retrylint(&["check", dir.join(file).to_str().unwrap()]);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(
            run.stderr
                .contains("`required` must be true or false, found a string"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn an_unindented_quoted_continuation_line_says_how_to_indent_it() {
    let run = common::retrylint(&["check", "fixtures/errors/yaml-quoted-indent/openapi.yaml"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains(
            "indent every continuation line of a multi-line quoted string further than its key"
        ),
        "{}",
        run.stderr
    );
}

const MULTI: &str = "fixtures/tricky/multi-file/openapi.yaml";
const MULTI_POLICY: &str = "fixtures/tricky/multi-file/retry-policy-token.yaml";
const DEFINED: &str = "fixtures/tricky/multi-file/operations/create-order.yaml";

#[test]
fn findings_on_a_referenced_operation_point_into_its_definition() {
    let check = |format: &str| {
        let run = common::retrylint(&["check", MULTI, "-p", MULTI_POLICY, "--format", format]);
        assert_eq!(run.code, 1, "{}", run.transcript());
        run.stdout
    };
    // The key header is missing from POST /orders, whose operation is a `$ref` into
    // operations/create-order.yaml: the header is added there.
    let doc: serde_json::Value = serde_json::from_str(&check("json")).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    let undeclared = findings
        .iter()
        .find(|f| f["rule"] == "idempotency-key-undeclared")
        .expect("idempotency-key-undeclared");
    let related: Vec<(&str, u64, &str)> = undeclared["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["location"]["file"].as_str().unwrap(),
                r["location"]["line"].as_u64().unwrap(),
                r["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        related.contains(&(DEFINED, 2, "POST /orders is defined here")),
        "{related:?}"
    );
    // Every finding about POST /orders (alone, or among the operations of a shared
    // place) reaches its file; the others do not.
    for f in findings {
        let files = common::finding_files(f);
        let is_post = |o: &serde_json::Value| o["method"] == "POST" && o["path"] == "/orders";
        let about_post = is_post(&f["operation"])
            || f["operations"]
                .as_array()
                .is_some_and(|ops| ops.iter().any(is_post));
        assert_eq!(files.contains(&DEFINED), about_post, "{f}");
    }
    let sarif: serde_json::Value = serde_json::from_str(&check("sarif")).unwrap();
    let result = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "idempotency-key-undeclared")
        .unwrap();
    assert!(
        result["relatedLocations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| {
                l["physicalLocation"]["artifactLocation"]["uri"] == DEFINED
                    && l["physicalLocation"]["region"]["startLine"] == 2
                    && l["message"]["text"] == "POST /orders is defined here"
            }),
        "{result}"
    );
    let place = format!("see {DEFINED}:2:1: POST /orders is defined here");
    let github = check("github");
    assert!(
        github
            .lines()
            .any(|l| l.contains("idempotency-key-undeclared") && l.contains(&place)),
        "{github}"
    );
    assert!(check("junit").contains(&place));
    let human = check("human");
    assert!(
        human.contains(&format!("see {DEFINED}")) && human.contains("POST /orders is defined here")
    );
}
