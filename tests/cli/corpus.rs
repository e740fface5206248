//! Real public descriptions (set `RETRYLINT_CORPUS` to the corpus folder): each loads,
//! with every `$ref` followed, to the expected number of operations, and checks cleanly
//! against a policy that retries everything.
//!
//! Every test here is `#[ignore]`d, so that a plain `cargo test` reports them as ignored
//! instead of passing them unrun; `.ci/run` runs them with `--include-ignored` and the
//! corpus. Run without `RETRYLINT_CORPUS`, each fails and says why.

use crate::common;

mod effects;

use std::path::{Path, PathBuf};

use retrylint::input::load::{LoadOptions, Loader};

/// Description (relative to the corpus), operations, files reached through `$ref`s.
const CORPUS: &[(&str, usize, usize)] = &[
    ("github/api.github.com.json", 1223, 1),
    ("stripe/spec3.yaml", 468, 1),
    ("stripe/spec3.json", 417, 1),
    ("box/openapi.json", 296, 1),
    ("twilio/twilio_api_v2010.json", 197, 1),
    ("adyen/CheckoutService-v71.json", 28, 1),
    ("asana/asana_oas.yaml", 247, 1),
    // 999 files, the four `links` files of the SSH-key responses, and the 184 schema
    // files that JSON request bodies reach, nested objects (two levels below the body's
    // own) and compositions included (read for a key in the body).
    (
        "digitalocean/specification/DigitalOcean-public.v2.yaml",
        659,
        1187,
    ),
];

/// The policy of the catalogue issue: retries everything, no plan for unknown outcomes.
/// (Its Retry-After ceiling is 4s: two waits of 5s would leave no time for the third attempt.)
const ISSUE_POLICY: &str = "version: 1\ndefaults: {maxAttempts: 3, deadline: 10s, retryOn: [503, timeout], backoff: {base: 100ms, cap: 2s, jitter: full}, retryAfter: {honor: true, max: 4s}}\n";

/// Retries everything, with a plan for unknown outcomes.
const RETRYING_POLICY: &str = "version: 1\ndefaults: {maxAttempts: 3, deadline: 10s, retryOn: [503, timeout], backoff: {base: 100ms, cap: 2s, jitter: full}, retryAfter: {honor: true, max: 4s}, onUnknownOutcome: fail}\n";

/// Writes a policy into the scratch folder and returns its path.
fn policy_file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("corpus-policy");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `retrylint check SPEC -p POLICY --format FORMAT --show-infos` (every finding counted).
fn check(spec: &Path, policy: &Path, format: &str) -> common::Run {
    common::retrylint(&[
        "check",
        spec.to_str().unwrap(),
        "-p",
        policy.to_str().unwrap(),
        "--format",
        format,
        "--show-infos",
    ])
}

/// The corpus folder `RETRYLINT_CORPUS` names. A corpus test that runs without it fails
/// (a test that reads nothing must not pass), so a new one left without `#[ignore]` fails
/// a plain `cargo test` at once.
fn corpus() -> PathBuf {
    let Some(dir) = std::env::var_os("RETRYLINT_CORPUS").map(PathBuf::from) else {
        panic!(
            "RETRYLINT_CORPUS is not set: the corpus tests read the public descriptions in that folder; \
             run them with RETRYLINT_CORPUS=DIR cargo test --test cli corpus:: -- --include-ignored"
        );
    };
    assert!(
        dir.is_dir(),
        "RETRYLINT_CORPUS names `{}`, which is not a folder",
        dir.display()
    );
    dir
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn every_corpus_description_loads_with_its_operation_count() {
    let dir = corpus();
    for &(path, operations, files) in CORPUS {
        let mut loader = Loader::new(LoadOptions::default());
        let root = loader
            .load_root(&dir.join(path))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let api = retrylint::input::model::build(&mut loader, root)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(api.operations.len(), operations, "{path}: operations");
        assert_eq!(loader.file_count(), files, "{path}: files reached");
    }
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn every_corpus_description_checks_against_a_retrying_policy() {
    let dir = corpus();
    let policy = policy_file("retry-policy.yaml", ISSUE_POLICY);
    let specs: Vec<String> = CORPUS
        .iter()
        .map(|(p, _, _)| dir.join(p).to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["check", "-p", policy.to_str().unwrap()];
    args.extend(specs.iter().map(String::as_str));
    let run = common::retrylint(&args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let summary = run.stdout.lines().last().unwrap_or_default();
    let total: usize = CORPUS.iter().map(|(_, n, _)| n).sum();
    assert!(
        // GitHub declares 270 x-webhooks: reported as not checked.
        summary.contains(&format!("in {total} operations (270 webhooks not checked)")),
        "{summary}"
    );
    // Stripe's POSTs carry no idempotency key in the policy: every one is reported.
    assert!(run.stdout.contains(
        "error[unprotected-write-retry]: POST /v1/charges is retried on 503 and timeout"
    ));
}

/// The human output of GitHub's description against `policy`.
fn human_text_of(dir: &Path, policy: &Path) -> String {
    check(&dir.join("github/api.github.com.json"), policy, "human").stdout
}

/// How often each rule fires, from human output.
fn counts(stdout: &str) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for line in stdout.lines() {
        let Some(start) = line.find('[') else {
            continue;
        };
        let Some(end) = line.find("]:") else { continue };
        if line.trim_start().starts_with(['×', '⚠', '☞']) {
            *out.entry(line[start + 1..end].to_string()).or_default() += 1;
        }
    }
    out
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn github_and_stripe_findings_match_what_their_descriptions_say() {
    let dir = corpus();
    let policy = policy_file("counts.yaml", ISSUE_POLICY);
    let run = |spec: &str| {
        let path = dir.join(spec);
        let run = check(&path, &policy, "human");
        assert_eq!(run.code, 1, "{}", run.stderr);
        counts(&run.stdout)
    };
    let github = run("github/api.github.com.json");
    // The 143 writes whose repeat may compound, none with a key in the policy: see
    // GITHUB_WRITES.
    assert_eq!(github["unprotected-write-retry"], 143);
    assert_eq!(github["unknown-outcome-unhandled"], 143);
    // Every operation but the 77 that declare 503 is retried on an undeclared 503: one
    // finding, at the defaults' `retryOn` that every one of them inherits.
    assert_eq!(github["retry-status-undeclared"], 1);
    assert!(human_text_of(&dir, &policy).contains(&format!(
        "503 is retried, but it is not among the declared responses of {} operations",
        1223 - 77
    )));
    // The description's 429s and 503s with no Retry-After are its own gaps, reported
    // with a policy as without (the contract test below counts them too): 79 uses, of
    // two shared responses and four written in their operations.
    assert_eq!(github["retry-after-header-undeclared"], 6);
    assert_eq!(github.len(), 4, "{github:?}");
    let stripe = run("stripe/spec3.yaml");
    // Its 222 POSTs but the 97 that update, cancel, attach, set or capture what is not
    // yet captured (idempotent) and the 2 that read (see `CONTRACT_COUNTS`).
    assert_eq!(stripe["unprotected-write-retry"], 123);
    assert_eq!(stripe["unknown-outcome-unhandled"], 123);
    // Stripe declares `default` responses and no 429 or 503.
    assert_eq!(stripe.len(), 2, "{stripe:?}");
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn sarif_of_every_corpus_description_validates() {
    let dir = corpus();
    let policy = policy_file("sarif.yaml", RETRYING_POLICY);
    for (spec, _, _) in CORPUS {
        let path = dir.join(spec);
        let run = check(&path, &policy, "sarif");
        assert_eq!(run.code, 1, "{spec}: {}", run.stderr);
        let errors = common::sarif_errors(&run.stdout);
        assert!(
            errors.is_empty(),
            "{spec}: {:?}",
            &errors[..errors.len().min(5)]
        );
    }
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn a_baseline_of_github_leaves_only_a_new_unprotected_post() {
    let dir = corpus();
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("corpus-baseline");
    std::fs::create_dir_all(&work).unwrap();
    let original = std::fs::read_to_string(dir.join("github/api.github.com.json")).unwrap();
    std::fs::write(work.join("api.github.com.json"), &original).unwrap();
    std::fs::write(work.join("retry-policy.yaml"), RETRYING_POLICY).unwrap();
    let written = common::retrylint_in(
        &work,
        &[
            "check",
            "api.github.com.json",
            "--write-baseline",
            "baseline.json",
        ],
    );
    assert_eq!(written.code, 0, "{}", written.stderr);
    let clean = common::retrylint_in(
        &work,
        &[
            "check",
            "api.github.com.json",
            "--baseline",
            "baseline.json",
        ],
    );
    assert_eq!(
        clean.code,
        0,
        "{}",
        clean.stdout.lines().last().unwrap_or_default()
    );
    // One more POST, retried by the defaults, with no key.
    let grown = original.replacen(
        "\"paths\": {",
        "\"paths\": {\n    \"/retrylint/new\": {\"post\": {\"operationId\": \"createNew\", \"responses\": {\"default\": {\"description\": \"error\"}}}},",
        1,
    );
    assert_ne!(grown, original);
    std::fs::write(work.join("api.github.com.json"), grown).unwrap();
    let new = common::retrylint_in(
        &work,
        &[
            "check",
            "api.github.com.json",
            "--baseline",
            "baseline.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(new.code, 1);
    let doc: serde_json::Value = serde_json::from_str(&new.stdout).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["rule"], "unprotected-write-retry");
    assert_eq!(findings[0]["operation"]["path"], "/retrylint/new");
}

/// The small descriptions of the corpus, besides those of [`CORPUS`].
const EXAMPLES: &[&str] = &[
    "oai-examples/v3.0/petstore.yaml",
    "oai-examples/v3.0/petstore-expanded.yaml",
    "oai-examples/v3.0/callback-example.yaml",
    "oai-examples/v3.0/link-example.yaml",
    "oai-examples/v3.0/api-with-examples.yaml",
    "oai-examples/v3.0/uspto.yaml",
    "oai-examples/v3.1/webhook-example.yaml",
];

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn init_then_check_is_quiet_on_every_corpus_description() {
    let dir = corpus();
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("corpus-init");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let specs = CORPUS
        .iter()
        .map(|(p, _, _)| *p)
        .chain(EXAMPLES.iter().copied());
    for (i, spec) in specs.enumerate() {
        let path = dir.join(spec);
        let policy = work.join(format!("policy-{i}.yaml"));
        let init = common::retrylint(&[
            "init",
            path.to_str().unwrap(),
            "-o",
            policy.to_str().unwrap(),
        ]);
        assert_eq!(init.code, 0, "{spec}: {}", init.stderr);
        let check = check(&path, &policy, "json");
        assert_eq!(check.code, 0, "{spec}: {}", check.transcript());
        // The policy is the client's: no note about checking the contract only.
        assert!(check.stderr.is_empty(), "{spec}: {}", check.stderr);
        let doc: serde_json::Value = serde_json::from_str(&check.stdout).unwrap();
        let summary = &doc["summary"];
        eprintln!(
            "{spec}: {} errors, {} warnings, {} infos",
            summary["errors"], summary["warnings"], summary["infos"]
        );
        // Nothing about the choices init made: no error, no info, and no warning but the
        // description's own gaps, which no policy fills.
        assert_eq!(summary["errors"], 0, "{spec}: {}", check.stdout);
        assert_eq!(summary["infos"], 0, "{spec}: {}", check.stdout);
        let warnings: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "warning")
            .filter_map(|f| f["rule"].as_str())
            .collect();
        assert!(
            warnings
                .iter()
                .all(|r| *r == "retry-after-header-undeclared"),
            "{spec}: {warnings:?}"
        );
    }
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn init_keys_adyen_payments_only_once_the_key_is_required() {
    let dir = corpus();
    let path = dir.join("adyen/CheckoutService-v71.json");
    let run = common::retrylint(&["init", path.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // 22 operations take an optional Idempotency-Key; the 12 of them whose repeat may
    // compound (`CONTRACT_COUNTS`: the other 10 read, cancel or update) are never retried,
    // each saying why.
    assert_eq!(run.stdout.matches(", optional Idempotency-Key").count(), 12);
    assert!(!run.stdout.contains("keyHeader: \"Idempotency-Key\""));
    // With the key required, the same operations would be retried with it.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let key = &mut doc["components"]["parameters"]["Idempotency-Key"]["required"];
    assert_eq!(*key, false, "the shared key parameter is optional");
    *key = serde_json::Value::Bool(true);
    let required = serde_json::to_string(&doc).unwrap();
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("corpus-adyen-required");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("openapi.json"), required).unwrap();
    let run = common::retrylint_in(&work, &["init", "openapi.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.matches("keyHeader: \"Idempotency-Key\"").count() >= 12,
        "{}",
        run.stdout
    );
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn the_markdown_report_of_github_fits_a_pull_request_comment() {
    let dir = corpus();
    let policy = policy_file("report.yaml", RETRYING_POLICY);
    let path = dir.join("github/api.github.com.json");
    let run = common::retrylint(&[
        "report",
        path.to_str().unwrap(),
        "-p",
        policy.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // GitHub refuses comments over 65,536 characters.
    assert!(
        run.stdout.chars().count() < 65_536,
        "{} characters",
        run.stdout.chars().count()
    );
    assert!(run.stdout.contains("### Operations by rule"));
    assert!(
        run.stdout
            .contains("`retrylint report --format html` shows them all")
    );
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn findings_on_digitalocean_referenced_operations_point_into_resources() {
    let dir = corpus();
    let policy = policy_file("digitalocean.yaml", ISSUE_POLICY);
    let spec = dir.join("digitalocean/specification/DigitalOcean-public.v2.yaml");
    let run = check(&spec, &policy, "json");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // Every DigitalOcean operation is a `$ref` from the root file into `resources/`: a
    // finding that points at the `$ref` also points where the operation is written.
    let mut about_operations = 0;
    for f in doc["findings"].as_array().unwrap() {
        let places = common::finding_files(f);
        if !places
            .iter()
            .any(|p| p.ends_with("DigitalOcean-public.v2.yaml"))
        {
            continue;
        }
        about_operations += 1;
        assert!(
            f["related"].as_array().unwrap().iter().any(|r| {
                r["location"]["file"]
                    .as_str()
                    .is_some_and(|p| p.contains("/specification/resources/"))
            }),
            "{f}"
        );
    }
    // `unprotected-write-retry` on each of the 105 unprotected writes,
    // `unknown-outcome-unhandled` on each of the 106 writes (`CONTRACT_COUNTS`), and the
    // one `retry-status-undeclared` that names them all.
    assert_eq!(about_operations, 105 + 106 + 1);
}

/// A description's contract counts, as `report` gives them without a policy:
/// retry-safe, retry-safe-with-reconcile, key-incomplete, unprotected, writes, operations
/// declaring neither 429 nor 503, operations whose 429/503 say nothing of when to come back.
///
/// A write is what the description says it is, not its method: every operation whose
/// effect differs from its method's is labelled in `tests/data/effects` from the
/// description's own words, and `corpus::effects` checks the labels agree (the numbers
/// below are the moves by method; "right" is how many agree with their label).
const CONTRACT_COUNTS: &[(&str, [usize; 7])] = &[
    // GITHUB_WRITES: the 193 POST + 70 PATCH that the method alone calls writes, less
    // 69 PATCH and 55 POST that update, set, add members to a set ("Add labels to an
    // issue", "Add a collaborator to …"), cancel, approve or submit what is pending,
    // create under a name that must be unique or "will only create one record" for the
    // same names, answer a repeat with what exists ("Response when already merged",
    // "If an autofix already exists … 200 OK"), or publish "an unpublished codespace",
    // and 6 POST that read (render Markdown, check a token, list attestations in bulk,
    // generate release notes that "are not saved anywhere"); plus 5 PUT, 3 DELETE and
    // 1 GET that send notifications or start a job, and 2 POST and 1 DELETE that are
    // unknown. 133 of these 142 moves agree with their label (the two Copilot
    // Space resource creates are idempotent for one resource type only). None has a key or a status endpoint; 77 operations declare
    // 503 and 2 declare 429, none with Retry-After.
    (
        "github/api.github.com.json",
        [1080, 0, 0, 143, 143, 1145, 78],
    ),
    // Stripe documents Idempotency-Key in prose only; every response but 200 is `default`.
    // Of its 222 POSTs, 97 update to given values, cancel, attach, set or capture "an
    // existing uncaptured PaymentIntent", and 2 read (96 of the 99 moves agree with their
    // label; the 2022 file: 81 of 83). Its test helpers that "simulate" a ReceivedCredit or
    // ReceivedDebit create one each time; "It replaces the Plans API" in the create of a
    // plan tells of the API's versions, not of what the request replaces; two updates take
    // `price_data`, "Data used to generate a new Price object inline", one more each time.
    ("stripe/spec3.yaml", [345, 0, 0, 123, 123, 468, 0]),
    ("stripe/spec3.json", [316, 0, 0, 101, 101, 417, 0]),
    // Box declares 429 with Retry-After on a few operations. 30 POST and 3 PATCH are
    // idempotent (10 of these POSTs answer a repeat with a 409 such as
    // "`tuple_already_exists`"; `levels:trim` "Deletes the last level", another at each
    // repeat, and is not), 2 PUT are not, and "Add user to group" is unknown, as is
    // `execute_read`, whose description says "Create a search" (30 of 37 moves agree with
    // their label).
    // Its `PUT /files/{file_id}#add_shared_link` and the like name their item: the
    // fragment is no part of the URL.
    ("box/openapi.json", [251, 0, 0, 45, 45, 291, 5]),
    // 22 of Adyen's 28 operations take an optional Idempotency-Key; 6 of them read (card
    // details, payment methods, balance, an Apple Pay session, donation campaigns, a
    // shopper id check), 6 cancel or update (12 of 13 moves agree with their label).
    ("adyen/CheckoutService-v71.json", [16, 0, 12, 0, 12, 28, 0]),
    // 33 Asana POSTs add members to or remove them from sets ("Add a tag to a task",
    // `addUserForTeam`), or set (32 of 34 moves agree): one adds followers "if the users
    // are not already members".
    ("asana/asana_oas.yaml", [199, 0, 0, 48, 48, 245, 2]),
    // 27 of Twilio's `Update…` POSTs to a `{Sid}.json`, and the create of a SIP domain
    // whose required name is "The unique address you reserve" (27 of 28 moves agree). Three
    // writes take an `IdempotencyKey` in their form body (required for a payment,
    // optional for user-defined messages) with no response for a reused one.
    ("twilio/twilio_api_v2010.json", [163, 0, 3, 31, 34, 197, 0]),
    // Every DigitalOcean operation declares 429 with `ratelimit-reset`. `POST /v1/batches`
    // takes a required body `request_id` described as "Client-supplied idempotency key",
    // with 409 for a reused one: retry-safe. 15 PATCH and 34 POST are idempotent (13 of
    // them by a required field that must be unique or is "a unique name", two of these
    // nested: an app's `spec.name`; one resizes to a tier; one adds tags to a firewall),
    // 5 POST read, 3 PUT regenerate keys or upload (54 of 59 moves agree with their label).
    (
        "digitalocean/specification/DigitalOcean-public.v2.yaml",
        [554, 0, 0, 105, 106, 0, 0],
    ),
];

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn the_contract_of_every_corpus_description_is_what_it_declares() {
    let dir = corpus();
    for (spec, expected) in CONTRACT_COUNTS {
        let path = dir.join(spec);
        let run = common::retrylint(&["report", path.to_str().unwrap(), "--format", "json"]);
        assert_eq!(run.code, 0, "{spec}: {}", run.stderr);
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let c = &doc["summary"]["contract"];
        let got = [
            &c["states"]["retrySafe"],
            &c["states"]["retrySafeWithReconcile"],
            &c["states"]["keyIncomplete"],
            &c["states"]["unprotected"],
            &c["writes"],
            &c["withoutThrottleStatus"],
            &c["withoutWaitHint"],
        ]
        .map(|v| v.as_u64().unwrap_or(u64::MAX) as usize);
        assert_eq!(&got, expected, "{spec}");
        // Without a policy nothing is called ready: readiness judges a client's policy.
        assert!(doc["summary"]["readiness"].is_null(), "{spec}");
        let operations = doc["operations"].as_array().unwrap();
        assert!(
            operations.iter().all(|o| o["readiness"].is_null()),
            "{spec}"
        );
        if spec.starts_with("adyen") {
            let optional = operations
                .iter()
                .filter(|o| o["contract"]["key"] == "optional `Idempotency-Key`")
                .count();
            assert_eq!(optional, 22, "{spec}");
        }
    }
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn check_without_a_policy_checks_the_contract_of_every_corpus_description() {
    let dir = corpus();
    for (spec, expected) in CONTRACT_COUNTS {
        let path = dir.join(spec);
        let run = common::retrylint(&["check", path.to_str().unwrap(), "--format", "json"]);
        assert_eq!(run.code, 0, "{spec}: {}", run.transcript());
        assert!(
            run.stderr.contains(
                "no retry policy: checked the description's contract only; 25 policy rules did not run"
            ),
            "{spec}: {}",
            run.stderr
        );
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert!(doc["policy"].is_null(), "{spec}");
        let mut fired = std::collections::BTreeMap::<String, usize>::new();
        for f in doc["findings"].as_array().unwrap() {
            *fired
                .entry(f["rule"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
        let count = |rule: &str| fired.get(rule).copied().unwrap_or(0);
        // One finding per unprotected write, one per operation without 429 or 503.
        assert_eq!(
            count("write-without-retry-protection"),
            expected[3],
            "{spec}"
        );
        assert_eq!(count("throttle-status-undeclared"), expected[5], "{spec}");
        assert_eq!(
            doc["summary"]["contract"]["unprotected"].as_u64(),
            Some(expected[3] as u64),
            "{spec}"
        );
        if spec.starts_with("github") {
            // 77 operations declare 503 and 2 declare 429, none with Retry-After: 67 and 8
            // of the 503s are two shared responses, one finding each; four are written
            // in their operations.
            assert_eq!(count("retry-after-header-undeclared"), 6, "{spec}");
            let uses: usize = doc["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["rule"] == "retry-after-header-undeclared")
                .map(|f| f["operations"].as_array().map_or(1, Vec::len))
                .sum();
            assert_eq!(uses, 79, "{spec}");
        }
        // DigitalOcean's new SSH key links to four operationIds the description lacks
        // (`sshKeys_get_by_id` …: its reads are `sshKeys_get` and `sshKeys_list`).
        let broken = if spec.starts_with("digitalocean") {
            4
        } else {
            0
        };
        assert_eq!(count("link-target-missing"), broken, "{spec}");
    }
}

/// The corpus folder searched as a folder: its 15 descriptions are found, and none of the
/// hundreds of files DigitalOcean's description references (they have no `openapi` key).
#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn the_corpus_folder_is_searched_for_its_descriptions() {
    let dir = corpus();
    let run = common::retrylint(&["check", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let found: Vec<String> = doc["summary"]["descriptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let d = d.as_str().unwrap();
            d[d.find("corpus/").map_or(0, |i| i + "corpus/".len())..].to_string()
        })
        .collect();
    assert_eq!(found.len(), 15, "{found:?}");
    for expected in [
        "adyen/CheckoutService-v71.json",
        "digitalocean/specification/DigitalOcean-public.v2.yaml",
        "github/api.github.com.json",
        "stripe/spec3.json",
        "stripe/spec3.yaml",
        "oai-examples/v3.1/webhook-example.yaml",
    ] {
        assert!(found.iter().any(|f| f == expected), "{expected}: {found:?}");
    }
    assert!(
        !found.iter().any(|f| f.contains("/resources/")),
        "{found:?}"
    );
}

/// Stripe's description against a copy that declares `Idempotency-Key` on every POST:
/// one improvement per POST, and nothing else; the write finding is fixed on each of
/// the 122 whose repeat may compound (`CONTRACT_COUNTS`), the others having none.
#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn stripe_with_a_key_on_every_post_is_222_improvements() {
    let dir = corpus();
    // The YAML description (468 operations, 222 POSTs); the copy is written as JSON.
    let base = dir.join("stripe/spec3.yaml");
    let text = std::fs::read_to_string(&base).unwrap();
    let (node, _) =
        retrylint::input::source::parse(&text, retrylint::input::source::ParseLimits::default())
            .expect("Stripe's description parses");
    let mut doc = common::to_json(&node);
    let mut posts = 0;
    for (_, item) in doc["paths"].as_object_mut().unwrap() {
        if let Some(post) = item.get_mut("post").and_then(|p| p.as_object_mut()) {
            let parameters = post
                .entry("parameters")
                .or_insert_with(|| serde_json::json!([]));
            parameters.as_array_mut().unwrap().push(serde_json::json!({
                "name": "Idempotency-Key",
                "in": "header",
                "required": false,
                "schema": {"type": "string", "maxLength": 255}
            }));
            posts += 1;
        }
    }
    assert_eq!(posts, 222);
    let work = common::scratch("corpus-stripe-keyed");
    let head = work.join("spec3.json");
    std::fs::write(&head, serde_json::to_string(&doc).unwrap()).unwrap();
    let run = common::retrylint(&[
        "diff",
        base.to_str().unwrap(),
        head.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let diff: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(diff["summary"]["improvements"], 222, "{}", diff["summary"]);
    assert_eq!(diff["summary"]["regressions"], 0);
    assert_eq!(diff["summary"]["neutral"], 0);
    let kinds: std::collections::BTreeSet<&str> = diff["operations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|o| o["changes"].as_array().unwrap())
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["key-added"]);
    // Each write is now keyed, if optionally: no longer unprotected.
    assert_eq!(
        diff["findings"]["fixed"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "write-without-retry-protection")
            .count(),
        123
    );
}

#[test]
#[ignore = "needs RETRYLINT_CORPUS"]
fn github_reports_each_shared_response_once() {
    let dir = corpus();
    let path = dir.join("github/api.github.com.json");
    let run = common::retrylint(&["check", path.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "the shared 503 response `service_unavailable` declares no Retry-After header: clients of 67 operations cannot tell when to try again"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("… and 62 more places (67 operations in all")
    );
    assert_eq!(
        counts(&run.stdout)["retry-after-header-undeclared"],
        6,
        "79 uses of a 503 or 429 with no Retry-After, in six places"
    );
    // 16,883 lines when each operation's use was a finding of its own.
    let lines = run.stdout.lines().count();
    assert!(lines < 16_000, "{lines} lines");
}
