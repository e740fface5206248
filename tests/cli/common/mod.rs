//! Helpers shared by the integration tests: run the real binary from the crate root.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

pub(crate) mod docs;
pub(crate) mod live;
pub(crate) mod lsp;

/// What one run of the binary printed.
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Exit code, then stdout and stderr, as one text for a snapshot.
    pub(crate) fn transcript(&self) -> String {
        let mut out = format!("exit code: {}\n", self.code);
        if !self.stdout.is_empty() {
            out.push_str("----- stdout -----\n");
            out.push_str(&self.stdout);
        }
        if !self.stderr.is_empty() {
            out.push_str("----- stderr -----\n");
            out.push_str(&self.stderr);
        }
        out
    }
}

/// Runs `retrylint ARGS…` in the crate root, without colours.
pub(crate) fn retrylint(args: &[&str]) -> Run {
    retrylint_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// Runs `retrylint ARGS…` in `dir`.
pub(crate) fn retrylint_in(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the retrylint binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `retrylint ARGS…` in `dir` with `env` set (and nothing removed but the colour
/// variables a CI machine may set), and `stdin` as its standard input.
pub(crate) fn retrylint_with(dir: &Path, args: &[&str], env: &[(&str, &str)], stdin: &str) -> Run {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the retrylint binary runs");
    if let Some(mut input) = child.stdin.take() {
        // The command may stop reading early; a closed pipe is not this test's failure.
        let _ = input.write_all(stdin.as_bytes());
    }
    let output = child.wait_with_output().expect("the retrylint binary ends");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// An empty scratch folder for one test, under the target folder, resolved.
pub(crate) fn scratch(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    std::fs::canonicalize(dir).expect("a scratch folder")
}

/// A scratch folder `name` holding `openapi.yaml` (and `retry-policy.yaml`, when given).
pub(crate) fn description_folder(
    name: &str,
    spec: &str,
    policy: Option<&str>,
) -> std::path::PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("openapi.yaml"), spec).expect("the description written");
    if let Some(policy) = policy {
        std::fs::write(dir.join("retry-policy.yaml"), policy).expect("the policy written");
    }
    dir
}

/// The labels of a `labels.jsonl` (the format of `tests/data/effects`), each keyed by
/// its `METHOD path`.
pub(crate) fn effect_labels(path: &Path) -> Vec<(String, serde_json::Value)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let label: serde_json::Value = serde_json::from_str(line).unwrap();
            let key = format!(
                "{} {}",
                label["method"].as_str().unwrap(),
                label["path"].as_str().unwrap()
            );
            (key, label)
        })
        .collect()
}

/// The `contract` of `POST path` in `report --format json` of `spec`, in the scratch
/// folder `name`.
pub(crate) fn post_contract(name: &str, spec: &str, path: &str) -> serde_json::Value {
    let dir = description_folder(name, spec, None);
    report_contracts(&dir)
        .remove(&format!("POST {path}"))
        .unwrap_or_else(|| panic!("no POST {path} in the report"))
}

/// Writes the layer files `files` (name, text) into `dir`, then checks `openapi.yaml`
/// there against them, each given with `-p`, for the service host `p`, infos shown (the
/// rules that fire are what is tested).
pub(crate) fn check_layers(dir: &Path, files: &[(&str, &str)]) -> Run {
    check_layers_as(dir, files, "human")
}

/// [`check_layers`] with the output format `format`.
pub(crate) fn check_layers_as(dir: &Path, files: &[(&str, &str)], format: &str) -> Run {
    let mut args = vec!["check".to_string(), "openapi.yaml".to_string()];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("written");
        args.extend(["-p".to_string(), (*name).to_string()]);
    }
    args.extend(
        ["--host", "p", "--show-infos", "--format", format]
            .iter()
            .map(|a| (*a).to_string()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    retrylint_in(dir, &args)
}

/// Copies a file of the crate (a path from its root) into `dir` as `name`.
pub(crate) fn copy_fixture(fixture: &str, dir: &Path, name: &str) {
    let to = dir.join(name);
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).expect("a folder for the copy");
    }
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture), &to)
        .unwrap_or_else(|e| panic!("{fixture} copied: {e}"));
}

/// The retry-layers demo of `docs/src/layers.md`: a payments API behind a gateway and a mesh.
pub(crate) mod layers_demo {
    pub(crate) const DEMO: &str = "fixtures/layers/payments/openapi.yaml";
    pub(crate) const DEMO_POLICY: &str = "fixtures/layers/payments/retry-policy.yaml";
    pub(crate) const DEMO_DEPLOY: &str = "fixtures/layers/payments/deploy";

    /// The demo's description, alone in `dir` (no policy beside it to discover).
    pub(crate) fn copy_demo(dir: &std::path::Path) {
        super::copy_fixture(DEMO, dir, "openapi.yaml");
    }
}

/// A parsed YAML or JSON tree as a JSON value.
pub(crate) fn to_json(node: &retrylint::input::source::Node) -> serde_json::Value {
    use retrylint::input::source::Value;
    use serde_json::json;
    match &node.value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => json!(b),
        Value::Number(n) => n
            .parse::<i64>()
            .map(|i| json!(i))
            .or_else(|_| n.parse::<f64>().map(|f| json!(f)))
            .unwrap_or(json!(n.to_string())),
        Value::String(s) => json!(s.to_string()),
        Value::Seq(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Map(map) => serde_json::Value::Object(
            map.entries()
                .iter()
                .map(|e| (e.key.to_string(), to_json(&e.value)))
                .collect(),
        ),
        Value::Deferred(_) => to_json(node.resolved()),
    }
}

/// A YAML file of the repository as a JSON value.
pub(crate) fn yaml_file(path: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let (node, _) =
        retrylint::input::source::parse(&text, retrylint::input::source::ParseLimits::default())
            .unwrap_or_else(|e| panic!("{path}: {e:?}"));
    to_json(&node)
}

/// Validates `instance` against a JSON Schema under `tests/data`; returns the errors.
pub(crate) fn schema_errors(schema_file: &str, instance: &serde_json::Value) -> Vec<String> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(schema_file),
    )
    .unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// The findings of a run's JSON output.
pub(crate) fn json_findings(stdout: &str) -> Vec<serde_json::Value> {
    let json: serde_json::Value = serde_json::from_str(stdout).expect("JSON output");
    json["findings"].as_array().cloned().unwrap_or_default()
}

/// The rule names that appear as `severity[rule]` headers in human output.
pub(crate) fn fired_rules(stdout: &str) -> Vec<String> {
    let mut rules: Vec<String> = stdout
        .lines()
        .filter_map(|line| {
            let start = line
                .find("error[")
                .or_else(|| line.find("warning["))
                .or_else(|| line.find("info["))?;
            let rest = &line[start..];
            let open = rest.find('[')?;
            let close = rest.find(']')?;
            Some(rest[open + 1..close].to_string())
        })
        .collect();
    rules.sort();
    rules.dedup();
    rules
}

/// Errors of a SARIF log against the official SARIF 2.1.0 schema (empty when valid).
pub(crate) fn sarif_errors(text: &str) -> Vec<String> {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../data/sarif-schema-2.1.0.json")).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let log: serde_json::Value = serde_json::from_str(text).expect("SARIF output is JSON");
    validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Undoes the HTML escaping retrylint writes (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`,
/// `&#10;`, `&#13;`).
pub(crate) fn html_unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#10;", "\n")
        .replace("&#13;", "\r")
        .replace("&amp;", "&")
}

/// The arguments a POSIX shell makes of `command` (which is never run, only split).
#[cfg(unix)]
pub(crate) fn shell_words(command: &str) -> Vec<String> {
    let script = format!("set -- {command}\nprintf '%s\\0' \"$@\"");
    let output = Command::new("sh")
        .arg("-c")
        .arg(script)
        .output()
        .expect("sh runs");
    assert!(output.status.success(), "sh splits {command:?}");
    String::from_utf8_lossy(&output.stdout)
        .split_terminator('\0')
        .map(str::to_string)
        .collect()
}

/// The files of a JSON finding's primary and related locations, in that order.
pub(crate) fn finding_files(finding: &serde_json::Value) -> Vec<&str> {
    std::iter::once(&finding["location"])
        .chain(
            finding["related"]
                .as_array()
                .map(std::vec::Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(|r| &r["location"]),
        )
        .filter_map(|l| l["file"].as_str())
        .collect()
}

/// Runs `retrylint simulate ARGS… --format json` and parses the document.
pub(crate) fn simulate_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["simulate"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let run = retrylint(&all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("simulate prints JSON")
}

/// The variant named `name` of a `simulate` JSON document.
pub(crate) fn simulate_variant<'a>(
    document: &'a serde_json::Value,
    name: &str,
) -> &'a serde_json::Value {
    document["variants"]
        .as_array()
        .and_then(|v| v.iter().find(|v| v["name"] == name))
        .unwrap_or_else(|| panic!("no variant {name}"))
}

/// Runs git in `dir`, as a committer named t.
pub(crate) fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A git repository of two commits: `api/openapi.yaml` takes a shared parameter from
/// `api/parts/key.yaml`, which is `Idempotency-Key` in the first commit and a tracing
/// header in the second.
pub(crate) fn repository_losing_its_key(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    git(&dir, &["init", "-q"]);
    std::fs::create_dir_all(dir.join("api/parts")).unwrap();
    std::fs::write(
        dir.join("api/openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /orders:\n    post:\n      operationId: createOrder\n      parameters:\n        - $ref: 'parts/key.yaml'\n      responses: {'201': {description: ok}, '409': {description: in flight}}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("api/parts/key.yaml"),
        "name: Idempotency-Key\nin: header\nrequired: true\nschema: {type: string}\n",
    )
    .unwrap();
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "base"]);
    std::fs::write(
        dir.join("api/parts/key.yaml"),
        "name: X-Trace\nin: header\nrequired: false\nschema: {type: string}\n",
    )
    .unwrap();
    git(&dir, &["commit", "-q", "-am", "head"]);
    dir
}

/// `(rule, "file:line")` of each JSON finding: the rule and where it points.
pub(crate) fn rule_places(findings: &[serde_json::Value]) -> Vec<(String, String)> {
    findings
        .iter()
        .map(|f| {
            let at = &f["location"];
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                format!("{}:{}", at["file"].as_str().unwrap_or_default(), at["line"]),
            )
        })
        .collect()
}

/// An orders service behind an Istio mesh: `POST /orders`, and a client policy that sends
/// `Idempotency-Key` and retries on 503 and timeouts.
pub(crate) mod orders {
    pub(crate) const POLICY: &str = "version: 1
defaults:
  maxAttempts: 3
  deadline: 10s
  perAttemptTimeout: 2s
  backoff: {base: 100ms, cap: 2s, jitter: full}
  retryOn: [503, connect-failure, timeout]
  retryAfter: {honor: true, max: 2s}
operations:
  createOrder:
    idempotency: {keyHeader: Idempotency-Key, keyRetention: 24h}
    onUnknownOutcome: retry-same-key
";

    /// The idempotency key as a required header parameter, in flow style.
    pub(crate) const HEADER_KEY: &str =
        "{name: Idempotency-Key, in: header, required: true, schema: {type: string}}";

    /// `POST /orders` of the service `service` (`orders`), taking the parameter `key` when
    /// there is one.
    pub(crate) fn description(service: &str, key: Option<&str>) -> String {
        let parameters = key.map_or(String::new(), |k| format!("      parameters: [{k}]\n"));
        let operation = if service == "orders" {
            "createOrder".to_string()
        } else {
            format!("create-{service}")
        };
        format!(
            "openapi: 3.0.3
info: {{title: {service}, version: '1'}}
servers: [{{url: 'http://{service}.prod.svc.cluster.local'}}]
paths:
  /{service}:
    post:
      operationId: {operation}
{parameters}      responses:
        '201': {{description: created}}
        '409': {{description: key reused}}
        '503': {{description: unavailable, headers: {{Retry-After: {{schema: {{type: integer}}}}}}}}
"
        )
    }

    /// An Istio route that retries every request to `service` on 5xx (the retries at line 9).
    pub(crate) fn mesh(service: &str) -> String {
        format!(
            "apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {{name: {service}, namespace: prod}}
spec:
  hosts: [{service}.prod.svc.cluster.local]
  http:
  - name: all
    timeout: 10s
    retries: {{attempts: 2, perTryTimeout: 3s, retryOn: 5xx}}
    route: [{{destination: {{host: {service}.prod.svc.cluster.local}}}}]
"
        )
    }
}

/// `(rule, "METHOD /path")` of every finding of a JSON document.
pub(crate) fn rule_operations(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let op = &f["operation"];
            (
                f["rule"].as_str().unwrap().to_string(),
                format!(
                    "{} {}",
                    op["method"].as_str().unwrap_or_default(),
                    op["path"].as_str().unwrap_or_default()
                ),
            )
        })
        .collect()
}

/// `report --format json` of `openapi.yaml` in `dir`: each operation's `contract` by
/// `METHOD /path`.
pub(crate) fn report_contracts(
    dir: &Path,
) -> std::collections::BTreeMap<String, serde_json::Value> {
    let run = retrylint_in(dir, &["report", "openapi.yaml", "--format", "json"]);
    report_operations(&run)
        .into_iter()
        .map(|(key, op)| (key, op["contract"].clone()))
        .collect()
}

/// The operations of a `report --format json` run, by `METHOD /path`.
pub(crate) fn report_operations(
    run: &Run,
) -> std::collections::BTreeMap<String, serde_json::Value> {
    assert_eq!(run.code, 0, "{}", run.transcript());
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    doc["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|op| {
            let key = format!(
                "{} {}",
                op["method"].as_str().unwrap(),
                op["path"].as_str().unwrap()
            );
            (key, op.clone())
        })
        .collect()
}

/// Markdown text with its code spans taken out: what a reader's Markdown would read as
/// more than literal text.
pub(crate) fn outside_code_spans(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        // A backslash-escaped backtick is literal text and opens nothing.
        let backslashes = rest[..start]
            .chars()
            .rev()
            .take_while(|&c| c == '\\')
            .count();
        if backslashes % 2 == 1 {
            out.push('`');
            rest = &rest[start + 1..];
            continue;
        }
        let run = rest[start..].chars().take_while(|&c| c == '`').count();
        let fence = "`".repeat(run);
        let after = &rest[start + run..];
        // The span ends at the next run of exactly as many backticks.
        let mut end = None;
        let mut from = 0;
        while let Some(i) = after[from..].find(&fence) {
            let at = from + i;
            let longer =
                after[at + run..].starts_with('`') || (at > 0 && after[..at].ends_with('`'));
            if !longer {
                end = Some(at);
                break;
            }
            from = at + run;
        }
        if let Some(end) = end {
            rest = &after[end + run..];
        } else {
            out.push_str(&fence);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// An Istio `VirtualService` for host `shop` whose one route is retried `attempts` times
/// on 5xx.
pub(crate) fn virtual_service(attempts: u32) -> String {
    format!(
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {{name: shop}}\nspec:\n  hosts: [shop]\n  http:\n  - route: [{{destination: {{host: shop}}}}]\n    retries: {{attempts: {attempts}, retryOn: 5xx}}\n"
    )
}

/// Whether git is here; without it the tests that need it say so and pass.
pub(crate) fn have_git() -> bool {
    let here = Command::new("git").arg("--version").output().is_ok();
    if !here {
        eprintln!("note: no git here; check --base was not run");
    }
    here
}

/// `check` and `plan` of a layer format's fixture folder: its description, policy and
/// layer file.
pub(crate) fn check_and_plan(folder: &str, layer: &str) -> (Run, Run) {
    let spec = format!("{folder}/openapi.yaml");
    let policy = format!("{folder}/retry-policy.yaml");
    let layer = format!("{folder}/{layer}");
    let check = retrylint(&["check", &spec, "-p", &policy, "-p", &layer]);
    let plan = retrylint(&["plan", &spec, "-p", &policy, "-p", &layer]);
    (check, plan)
}

/// Writes a description of service `p` with one unprotected write, `POST /payments`.
pub(crate) fn payments(dir: &Path) {
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: { title: t, version: '1' }\nservers: [{ url: http://p }]\npaths:\n  /payments:\n    post:\n      operationId: pay\n      responses:\n        '201': { description: done }\n        '503': { description: busy }\n",
    )
    .expect("written");
}
