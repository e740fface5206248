//! Bounded time and memory under the default limits, through the real binary: one
//! expansion budget in bytes for YAML aliases, merges and `$ref` reuse; anchors shared
//! rather than copied; merges and parameter merging that stay linear; and nesting of any
//! depth that `--max-depth` allows without overflowing a stack.
//!
//! Memory is bounded by running the binary under `ulimit -v`: before these fixes each of
//! these inputs needed gigabytes and aborted there.

mod common;
#[path = "../benches/support/hostile.rs"]
mod hostile;

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
    let run = bounded(
        &[
            "check",
            path_str(&spec),
            "-p",
            path_str(&policy),
            "--format",
            "json",
        ],
        Duration::from_secs(60),
    );
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
