//! `cargo bench --bench diff`: `retrylint diff` of GitHub's description against itself,
//! beside one `retrylint check` of it (both whole processes, both with a policy that
//! retries every operation). A diff checks two versions and compares them, so it costs
//! about two checks; the target is at most 2.5 times one.
//!
//! The corpus is read from `RETRYLINT_CORPUS` (default `../shared/corpus`); the bench is
//! skipped with a notice when it is missing.

#[path = "support/measure.rs"]
mod measure;

use std::path::PathBuf;

fn main() {
    let runs = if std::env::args().any(|a| a == "--quick") {
        3
    } else {
        7
    };
    let corpus = PathBuf::from(
        std::env::var_os("RETRYLINT_CORPUS").unwrap_or_else(|| "../shared/corpus".into()),
    );
    let spec = corpus.join("github/api.github.com.json");
    if !spec.is_file() {
        eprintln!(
            "notice: no corpus at {}; the diff bench is skipped",
            corpus.display()
        );
        return;
    }
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-diff");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("a scratch folder");
    let policy = work.join("retry-policy.yaml");
    std::fs::write(
        &policy,
        "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 10s\n  perAttemptTimeout: 2s\n  backoff: {base: 100ms, cap: 2s, jitter: full}\n  retryOn: [503, timeout, connect-failure]\n  retryAfter: {honor: true, max: 500ms}\n",
    )
    .expect("writable");
    let (spec, policy) = (spec.to_str().unwrap(), policy.to_str().unwrap());
    let (check, check_peak) = measure::process(
        runs,
        &[
            "check",
            spec,
            "-p",
            policy,
            "--format",
            "json",
            "--fail-on",
            "never",
        ],
    );
    let (diff, diff_peak) = measure::process(
        runs,
        &[
            "diff",
            spec,
            spec,
            "-p",
            policy,
            "--base-policy",
            policy,
            "--format",
            "json",
        ],
    );
    let mib = |kib: Option<u64>| kib.map_or("?".to_string(), |k| format!("{} MiB", k / 1024));
    println!("GitHub (13 MB), whole process, median of {runs}:");
    println!(
        "  check          {:>8.1} ms  peak {}",
        check.as_secs_f64() * 1e3,
        mib(check_peak)
    );
    println!(
        "  diff (itself)  {:>8.1} ms  peak {}",
        diff.as_secs_f64() * 1e3,
        mib(diff_peak)
    );
    println!(
        "  diff / check   {:>8.2}×  (target ≤ 2.5×)",
        diff.as_secs_f64() / check.as_secs_f64()
    );
}
