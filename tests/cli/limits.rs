//! Bounded time and memory under the default limits, through the real binary: one
//! expansion budget in bytes for YAML aliases, merges and `$ref` reuse; anchors shared
//! rather than copied; merges and parameter merging that stay linear; and nesting of any
//! depth that `--max-depth` allows without overflowing a stack.
//!
//! Memory is bounded by running the binary under `ulimit -v`: before these fixes each of
//! these inputs needed gigabytes and aborted there.

use crate::common;
use crate::hostile;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::Run;

/// Address space given to the binary: enough for any of these inputs handled well.
const MEMORY_KIB: u64 = 1_500_000;

fn write(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("limits");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `retrylint ARGS…` with at most [`MEMORY_KIB`] of address space and a time limit;
/// a run killed by a signal (an abort on a failed allocation, a stack overflow) has code -1.
fn bounded(args: &[&str], limit: Duration) -> Run {
    let mut command = String::from("ulimit -v ");
    command.push_str(&MEMORY_KIB.to_string());
    command.push_str("; exec \"$0\" \"$@\"");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .arg(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("retrylint {args:?} still runs after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `check SPEC -p GIVEN… --format json`.
fn check_json<'a>(spec: &'a Path, given: &[&'a Path]) -> Vec<&'a str> {
    let mut args = vec!["check", path_str(spec)];
    for file in given {
        args.extend(["-p", path_str(file)]);
    }
    args.extend(["--format", "json"]);
    args
}

#[test]
fn a_long_string_aliased_thousands_of_times_is_refused_by_bytes() {
    let spec = write(
        "long-alias.yaml",
        &hostile::long_string_aliased(1 << 20, 3000),
    );
    let run = bounded(&["check", path_str(&spec)], Duration::from_secs(60));
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("--max-expansion-bytes"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("bytes"), "{}", run.stderr);
    // A few aliases fit the budget.
    let few = write(
        "few-aliases.yaml",
        &hostile::long_string_aliased(1 << 20, 3),
    );
    let run = bounded(&["check", path_str(&few)], Duration::from_secs(60));
    assert_eq!(run.code, 0, "{}", run.transcript());
    // With the budget raised, the aliases share the string instead of copying it: 3 GiB
    // of expansion runs in 1.5 GB of address space.
    let run = bounded(
        &[
            "check",
            path_str(&spec),
            "--max-expansion-bytes",
            "10000000000",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
}

#[test]
fn nested_anchors_are_shared_not_copied() {
    // 400 anchored mappings, each inside the previous one, each with 20 kB of text and no
    // alias at all: copying each anchored subtree costs 400 × 400 × 20 kB / 2 = 1.6 GB.
    let spec = write("nested-anchors.yaml", &hostile::nested_anchors(400, 20_000));
    let run = bounded(&["check", path_str(&spec)], Duration::from_secs(60));
    assert_eq!(run.code, 0, "{}", run.transcript());
}

#[test]
fn an_operation_reused_from_many_paths_counts_against_the_budget() {
    // One path item of ~200 kB reached through `$ref` from 2,000 paths: 400 MB of copies.
    let spec = write("reused.yaml", &hostile::reused_path_item(2000, 200_000));
    let run = bounded(&["check", path_str(&spec)], Duration::from_secs(60));
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("reused through `$ref`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("--max-expansion-bytes"),
        "{}",
        run.stderr
    );
    // A few reuses are fine.
    let spec = write("reused-few.yaml", &hostile::reused_path_item(3, 200_000));
    let run = bounded(&["check", path_str(&spec)], Duration::from_secs(60));
    assert_eq!(run.code, 0, "{}", run.transcript());
}

#[test]
fn a_large_merge_stays_linear() {
    // `<<` of a 60,000-key mapping into a mapping of 60,000 other keys: a key-by-key scan
    // of the entries is 3.6 × 10⁹ comparisons.
    let spec = write("merge.yaml", &hostile::large_merge(60_000));
    let run = bounded(&["check", path_str(&spec)], Duration::from_secs(30));
    assert_eq!(run.code, 0, "{}", run.transcript());
}

#[test]
fn many_header_parameters_on_both_levels_merge_linearly() {
    // 20,000 path-level and 20,000 operation-level header parameters.
    let spec = write("params.yaml", &hostile::many_header_parameters(20_000));
    let run = bounded(&["check", path_str(&spec)], Duration::from_secs(30));
    assert_eq!(run.code, 0, "{}", run.transcript());
}

#[test]
fn nesting_of_any_allowed_depth_does_not_overflow_the_stack() {
    let depth = 400_000;
    let json = write("deep.json", &hostile::deep_list(depth, true));
    let yaml = write("deep.yaml", &hostile::deep_list(depth, false));
    for spec in [json, yaml] {
        let run = bounded(
            &["check", "--max-depth", "10000000", path_str(&spec)],
            Duration::from_secs(120),
        );
        assert!(
            run.code == 0 || run.code == 2,
            "exits normally, not by a signal: {}",
            run.transcript()
        );
        assert!(!run.stderr.contains("overflow"), "{}", run.stderr);
    }
}

#[test]
fn many_glob_selectors_against_many_operations_stay_near_linear() {
    // 10,000 globs against 20,000 operations: trying each glob on each operation is
    // 2 × 10⁸ matches.
    let n = 10_000;
    let spec = write("globs.yaml", &hostile::many_operations(n, false));
    let policy = write("globs-policy.yaml", &hostile::glob_policy(n));
    let run = bounded(&check_json(&spec, &[&policy]), Duration::from_secs(60));
    assert_eq!(run.code, 0, "{}", run.transcript());
    // Every glob matched its two operations: none is reported as matching nothing.
    assert!(
        !run.stdout.contains("policy-matches-nothing"),
        "{}",
        run.stdout
    );
}

#[test]
fn many_broken_links_get_few_suggestions() {
    // 10,000 broken links, each compared with 10,000 operationIds for a "did you mean",
    // would be 10⁸ string comparisons.
    let n = 10_000;
    let spec = write("broken-links.yaml", &hostile::broken_links(n));
    // Megabytes of findings go to a file: a pipe nobody reads until the end would fill.
    let out = spec.with_extension("json");
    let run = bounded(
        &[
            "check",
            path_str(&spec),
            "--format",
            "json",
            "-o",
            path_str(&out),
        ],
        Duration::from_secs(60),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let broken: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "link-target-missing")
        .collect();
    assert_eq!(broken.len(), n);
    let suggested = broken
        .iter()
        .filter(|f| f["help"].as_str().unwrap_or("").starts_with("did you mean"))
        .count();
    assert_eq!(suggested, 10);
}

#[test]
fn many_suppressions_are_looked_up_not_scanned() {
    // 20,000 comments, each silencing the finding of its own operation: scanning the list
    // for each finding is 4 × 10⁸ checks.
    let n = 20_000;
    let spec = write("suppressions.yaml", &hostile::many_operations(n, true));
    let policy = write("suppressions-policy.yaml", hostile::RETRY_POLICY);
    let run = bounded(
        &[
            "check",
            path_str(&spec),
            "-p",
            path_str(&policy),
            "--select",
            "unprotected-write-retry",
            "--format",
            "json",
        ],
        Duration::from_secs(90),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["summary"]["suppressed"], n, "{}", report["summary"]);
}

#[test]
fn a_revision_of_nested_trees_is_read_only_where_it_is_needed() {
    // 10 trees each holding 10 copies of the one below, 6 deep: a million files in a few
    // kilobytes of objects. Copying the revision wrote them all out.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("limits-nested-trees");
    let commit = hostile::nested_trees_repository(&dir, 10, 6);
    let spec = dir.join("openapi.yaml");
    let root = path_str(&dir);
    let run = bounded(
        &["check", path_str(&spec), "--base", &commit, "--root", root],
        Duration::from_secs(20),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    // A folder of the revision given with -p is read within --max-files: refused, named.
    let mesh = dir.join("mesh");
    let run = bounded(
        &[
            "check",
            path_str(&spec),
            "--base",
            &commit,
            "--root",
            root,
            "-p",
            path_str(&mesh),
        ],
        Duration::from_secs(20),
    );
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("entries; refusing to read more of the revision"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--max-files"), "{}", run.stderr);
}

/// Whether `text` shows more than 300 characters in a row of a name made of `letter`:
/// more than a message's excerpt of a name, or a diagnostic's excerpt of a long line.
fn shows_whole_name(text: &str, letter: char) -> bool {
    text.contains(&letter.to_string().repeat(300))
}

#[test]
fn a_long_layer_name_costs_its_excerpt_in_each_finding() {
    // A mesh and its route named with 100 kB each, in front of 100 writes and 100 reads:
    // every finding about the mesh named both in full, 100 MB of JSON in all.
    let spec = write("names.yaml", &hostile::many_operations(100, false));
    let mesh = write("names-mesh.yaml", &hostile::long_layer_names(100_000));
    let policy = write("names-policy.yaml", hostile::RETRY_POLICY);
    let out = spec.with_extension("json");
    let mut args = check_json(&spec, &[&policy, &mesh]);
    args.extend(["-o", path_str(&out)]);
    let run = bounded(&args, Duration::from_secs(60));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = std::fs::read_to_string(&out).unwrap();
    assert!(json.len() < 2_000_000, "{} bytes of findings", json.len());
    assert!(
        json.contains("Istio VirtualService nnnn"),
        "the mesh is named"
    );
    assert!(!shows_whole_name(&json, 'n') && !shows_whole_name(&json, 'r'));
}

#[test]
fn a_long_route_condition_costs_its_excerpt_in_each_finding() {
    // A route taking only requests with a header of 20 kB (a hundred times over), then
    // the mesh's default route, in front of 100 writes and 100 reads: every finding about
    // the conditional route names what selects it.
    let spec = write("condition.yaml", &hostile::many_operations(100, false));
    let header = "h".repeat(20_000);
    let matches: String = (0..100)
        .map(|_| format!("    - headers: {{{header}: {{exact: x}}}}\n"))
        .collect::<String>();
    let mesh = write(
        "condition-mesh.yaml",
        &format!(
            "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {{name: m}}\nspec:\n  http:\n  - match:\n{matches}    route: [{{destination: {{host: backend}}}}]\n  - route: [{{destination: {{host: backend}}}}]\n"
        ),
    );
    let policy = write("condition-policy.yaml", hostile::RETRY_POLICY);
    let out = spec.with_extension("json");
    let mut args = check_json(&spec, &[&policy, &mesh]);
    args.extend(["-o", path_str(&out)]);
    let run = bounded(&args, Duration::from_secs(60));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = std::fs::read_to_string(&out).unwrap();
    assert!(
        json.contains("for requests with header hhhh"),
        "the condition is named"
    );
    assert!(json.len() < 2_000_000, "{} bytes of findings", json.len());
    assert!(!shows_whole_name(&json, 'h'));
}

#[test]
fn long_layer_names_and_hosts_are_cut_in_every_output() {
    let spec = write("names-few.yaml", &hostile::many_operations(2, false));
    let head = write("names-few-head.yaml", &hostile::many_operations(3, false));
    let mesh = write("names-few-mesh.yaml", &hostile::long_layer_names(2_000));
    // Hosts of another service: the finding that nothing in the file serves this one lists them.
    let other = write("names-few-hosts.yaml", &hostile::many_layer_hosts(50, 500));
    let policy = write(
        "names-few-policy.yaml",
        &format!("{}service: {{hosts: [backend]}}\n", hostile::RETRY_POLICY),
    );
    let (spec, head) = (path_str(&spec), path_str(&head));
    let layers = [
        "-p",
        path_str(&policy),
        "-p",
        path_str(&mesh),
        "-p",
        path_str(&other),
    ];
    let mut commands: Vec<Vec<&str>> = Vec::new();
    for format in [
        "human", "concise", "json", "sarif", "github", "gitlab", "junit", "markdown",
    ] {
        commands.push(vec!["check", spec, "--format", format]);
    }
    for format in ["markdown", "html", "json"] {
        commands.push(vec!["report", spec, "--format", format]);
    }
    commands.push(vec!["plan", spec]);
    for format in ["text", "json", "html"] {
        commands.push(vec![
            "simulate",
            spec,
            "--operation",
            "POST /r0/x",
            "--format",
            format,
        ]);
    }
    for format in ["text", "json", "markdown", "github", "sarif"] {
        commands.push(vec!["diff", spec, head, "--format", format]);
    }
    // Written to a file: a pipe nobody reads until the end would fill.
    let out = write("names-few.out", "");
    for mut args in commands {
        args.extend(layers);
        if args[0] != "plan" {
            args.extend(["-o", path_str(&out)]);
        }
        let run = bounded(&args, Duration::from_secs(30));
        assert!(run.code == 0 || run.code == 1, "{args:?}: {}", run.stderr);
        let written = std::fs::read_to_string(&out).unwrap();
        let shown = format!("{}{}{written}", run.stdout, run.stderr);
        for letter in ['n', 'r', 'p'] {
            assert!(
                !shows_whole_name(&shown, letter),
                "{args:?} shows a whole name: {shown}"
            );
        }
    }
}

#[test]
fn many_layer_hosts_against_many_service_hosts_are_looked_up() {
    // 15,000 hosts of a mesh (half of them wildcards) against 15,000 names of the service:
    // trying every pair is 2.25 × 10⁸ comparisons, each lower-casing the host.
    let n = 15_000;
    let spec = write("hosts.yaml", &hostile::many_operations(1, false));
    let mesh = write("hosts-mesh.yaml", &hostile::many_layer_hosts(n, 40));
    let policy = write("hosts-policy.yaml", &hostile::many_service_hosts(n));
    let run = bounded(
        &check_json(&spec, &[&policy, &mesh]),
        Duration::from_secs(15),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    // None of them names the service: the mesh is left out, and said to be.
    assert!(
        run.stdout.contains("route-matches-nothing"),
        "{}",
        run.stdout
    );
}

#[test]
fn binding_counts_each_match_alternative_after_each_base_path() {
    // One route of 5,000 regular expressions, 300 base paths and 20 operations: one route
    // for 20 operations, but 3 × 10⁷ expressions to run on 3 sample values each.
    let spec = write("bind.yaml", &hostile::operations_under_bases(10, 300));
    let mesh = write(
        "bind-mesh.yaml",
        &hostile::many_match_alternatives(5_000, true),
    );
    let run = bounded(&check_json(&spec, &[&mesh]), Duration::from_secs(20));
    assert_eq!(run.code, 2, "{}", run.transcript());
    for wanted in [
        "bind-mesh.yaml",
        "5000 route match alternatives",
        "301 base paths",
        "merge match alternatives",
    ] {
        assert!(run.stderr.contains(wanted), "{wanted}: {}", run.stderr);
    }
    // Prefixes cost a comparison each: 200 of them fit the budget, and so do 20 expressions.
    for (count, regex) in [(200, false), (20, true)] {
        let mesh = write(
            "bind-few.yaml",
            &hostile::many_match_alternatives(count, regex),
        );
        let run = bounded(&check_json(&spec, &[&mesh]), Duration::from_secs(20));
        assert_eq!(run.code, 0, "{}", run.transcript());
    }
}

#[test]
fn the_files_one_description_reaches_count_against_one_byte_budget() {
    // Each file fits --max-file-size; together they do not fit --max-total-bytes.
    let spec = "fixtures/tricky/multi-file/openapi.yaml";
    let whole = bounded(&["check", spec], Duration::from_secs(30));
    assert_ne!(whole.code, 2, "{}", whole.transcript());
    let run = bounded(
        &["check", spec, "--max-total-bytes", "1000"],
        Duration::from_secs(30),
    );
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("hold more than 1000 bytes in all")
            && run.stderr.contains("--max-total-bytes"),
        "{}",
        run.stderr
    );
}

#[test]
fn phrases_in_one_endless_sentence_are_read_in_linear_time() {
    // Each phrase's sentence is read to weigh it (a key, a condition, a requirement): in one
    // sentence of 4 MB that repeats a phrase which every reading turns down, reading the
    // whole sentence again for each of 200,000 phrases is 10^11 steps.
    let key = "the key already exists ".repeat(200_000);
    let bare = "x not already ".repeat(300_000);
    let spec = write(
        "endless-sentence.json",
        &serde_json::json!({
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/a": {"post": {"description": key, "responses": {"200": {"description": "ok"}}}},
                "/b": {"post": {"description": bare, "responses": {"200": {"description": "ok"}}}},
            },
        })
        .to_string(),
    );
    let run = bounded(
        &["report", path_str(&spec), "--format", "json"],
        Duration::from_secs(120),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    // Neither phrase says anything of a repeat there: both POSTs stay writes that repeat.
    let ops = common::report_operations(&run);
    for key in ["POST /a", "POST /b"] {
        assert_eq!(
            ops[key]["contract"]["repeat"]["effect"], "non-idempotent-write",
            "{key}"
        );
    }
}
