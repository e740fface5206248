//! `cargo bench`: the figures of the product specification, side by side with their
//! baselines.
//!
//! 1. The largest corpus descriptions: `check` end to end (in process: read, parse,
//!    model, rules, human output) against the bare parse of the same file
//!    (`serde_json::Value` for JSON; `saphyr-parser` events, the fastest YAML parser
//!    measured, for YAML), and the whole process with its peak memory.
//! 2. Scale: generated descriptions of 1k, 10k and 100k operations, time per operation.
//! 3. Many files: 200 generated descriptions in one `check`, CPU time over wall time.
//!
//! The corpus is read from `RETRYLINT_CORPUS` (default `../shared/corpus`); its part is
//! skipped with a notice when it is missing. Medians of several runs are printed, and at
//! the end one line per target of the specification: the measured figure, the target,
//! and whether it is met. Ratios are taken within one run, the check and its baseline
//! timed in turn and the ratio of each pair kept (the machine may be noisy; both sides of
//! a ratio see the same noise).
//!
//! "The parse" of a description is the bare parse of every file its check reads, from
//! text already in memory: `serde_json::Value` for a JSON file, `saphyr-parser` events for
//! a YAML one (a multi-file description such as DigitalOcean's is the events of all of
//! its files, one after the other).

#[path = "support/generate.rs"]
mod generate;
#[path = "support/measure.rs"]
mod measure;

use measure::{paired, process};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use retrylint::analysis::check::{CheckOptions, check_description, load_policy};
use retrylint::rendering::output::human;

/// The binary's allocator (see `src/main.rs`), so that the check runs here as it runs
/// there; the bare parse it is compared with runs on the same allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // `cargo bench -- --quick` (or any filter argument cargo passes) still runs everything.
    let runs = if std::env::args().any(|a| a == "--quick") {
        3
    } else {
        7
    };
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("a scratch folder");
    let mut targets = Targets::default();
    corpus(&work, runs, &mut targets);
    scale(&work, runs, &mut targets);
    many_files(&work);
    targets.print();
}

/// The specification's targets, measured.
#[derive(Default)]
struct Targets {
    lines: Vec<String>,
}

impl Targets {
    /// Records a figure that must be at most `target`.
    fn at_most(&mut self, what: &str, measured: f64, target: f64, unit: &str) {
        let verdict = if measured <= target { "met" } else { "not met" };
        self.lines.push(format!(
            "| {what} | {measured:.2}{unit} | ≤ {target:.2}{unit} | {verdict} |"
        ));
    }

    /// Records a figure that has no bound, only a reading.
    fn info(&mut self, what: &str) {
        self.lines.push(format!("| {what} | | | (measured) |"));
    }

    fn print(&self) {
        println!("## Targets\n");
        println!("| target | measured | target | verdict |");
        println!("|---|---:|---:|---|");
        for line in &self.lines {
            println!("{line}");
        }
        println!();
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `check` in process: policy, description, rules and the human report (the description
/// read while the policy is, as the command line does).
fn check_in_process(spec: &Path, policy: &Path) -> usize {
    let options = CheckOptions::default();
    let result =
        retrylint::check_file(spec, Some(policy), &options).expect("the description checks");
    human::render(
        std::slice::from_ref(&result),
        false,
        retrylint::rendering::output::Shown::default(),
    )
    .len()
}

/// A policy with an entry for every operation of a JSON description.
fn policy_for_every_operation(spec: &Path, out: &Path) {
    let text = std::fs::read_to_string(spec).expect("readable");
    let mut policy = String::from(
        "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 10s\n  perAttemptTimeout: 2s\n  backoff: {base: 100ms, cap: 2s, jitter: full}\n  retryOn: [503, timeout, connect-failure]\n  retryAfter: {honor: true, max: 500ms}\noperations:\n",
    );
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text)
        && let Some(paths) = value["paths"].as_object()
    {
        for (path, item) in paths {
            for method in [
                "get", "put", "post", "delete", "patch", "head", "options", "trace",
            ] {
                if item.get(method).is_some() {
                    policy.push_str(&format!(
                        "  \"{} {}\": {{maxAttempts: 2}}\n",
                        method.to_uppercase(),
                        path.replace('\\', "\\\\").replace('"', "\\\"")
                    ));
                }
            }
        }
    }
    std::fs::write(out, policy).expect("writable");
}

fn corpus(work: &Path, runs: usize, targets: &mut Targets) {
    let dir = PathBuf::from(
        std::env::var("RETRYLINT_CORPUS").unwrap_or_else(|_| "../shared/corpus".into()),
    );
    if !dir.is_dir() {
        eprintln!(
            "notice: no corpus at {}; set RETRYLINT_CORPUS to measure it",
            dir.display()
        );
        return;
    }
    println!(
        "## Corpus: check end to end against the bare parse (medians of {} runs of each, in turn; the ratio is the median of each pair's)\n",
        runs.max(11)
    );
    println!(
        "| description | size (all files read) | bare parse | check, in process | ratio | check, whole process | ratio | peak memory | memory ÷ size |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for spec in [
        "github/api.github.com.json",
        "stripe/spec3.yaml",
        "digitalocean/specification/DigitalOcean-public.v2.yaml",
    ] {
        let path = dir.join(spec);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("notice: {spec} is missing");
            continue;
        };
        let policy = work.join(format!("policy-{}.yaml", spec.replace('/', "-")));
        policy_for_every_operation(&path, &policy);
        // Every file the check reads (a multi-file description reaches many), but the policy.
        let texts: Vec<std::sync::Arc<String>> = {
            let options = CheckOptions::default();
            let loaded = load_policy(&policy, &options.load).expect("the policy loads");
            let result = check_description(&path, Some(&loaded), &options).expect("checks");
            result
                .sources
                .iter()
                .skip(1)
                .map(|f| f.text.clone())
                .collect()
        };
        let bytes_read: usize = texts.iter().map(|t| t.len()).sum();
        // The bare parse and the check in turn, so that the machine's load falls on both
        // (at least 11 pairs: the targets are read from these ratios).
        let pairs = runs.max(11);
        let json = spec.ends_with(".json");
        let parser = if json {
            "serde_json::Value"
        } else {
            "saphyr-parser events"
        };
        let bare_parse = || {
            if json {
                let value: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
                std::hint::black_box(value);
            } else {
                let mut events = 0usize;
                for text in &texts {
                    let mut parser = saphyr_parser::Parser::new_from_str(text);
                    while let Some(Ok(_)) = parser.next_event() {
                        events += 1;
                    }
                }
                std::hint::black_box(events);
            }
        };
        let (parse, check, ratio) = paired(pairs, bare_parse, || {
            std::hint::black_box(check_in_process(&path, &policy));
        });
        let (wall, peak) = process(
            runs,
            &[
                "check",
                path.to_str().unwrap_or_default(),
                "-p",
                policy.to_str().unwrap_or_default(),
            ],
        );
        let kib = peak.unwrap_or(0);
        let secs = wall.as_secs_f64();
        let size_mb = bytes_read as f64 / 1e6;
        if spec.starts_with("github/") {
            targets.at_most(
                "GitHub: check in process ÷ `serde_json::Value` parse of the file",
                ratio,
                0.6,
                "×",
            );
        } else if spec.starts_with("digitalocean/") {
            targets.at_most(
                &format!(
                    "DigitalOcean: check in process ÷ `saphyr-parser` events over the {} files it reads",
                    texts.len()
                ),
                ratio,
                1.5,
                "×",
            );
        }
        println!(
            "| {spec} | {size_mb:.1} MB | {:.0} ms ({parser}) | {:.0} ms | {:.2}× | {:.0} ms | {:.2}× | {:.0} MiB | {:.1}× |",
            ms(parse),
            ms(check),
            ratio,
            secs * 1e3,
            secs * 1e3 / ms(parse),
            kib as f64 / 1024.0,
            (kib as f64 * 1024.0) / bytes_read as f64
        );
    }
    println!();
}

fn scale(work: &Path, runs: usize, targets: &mut Targets) {
    println!(
        "## Scale: generated descriptions, one policy entry per operation (whole process, median of {runs})\n"
    );
    println!("| operations | files | check | per operation | vs 1k | peak memory |");
    println!("|---:|---:|---:|---:|---:|---:|");
    let mut base: Option<f64> = None;
    for (operations, split) in [
        (1_000, false),
        (10_000, false),
        (100_000, false),
        (10_000, true),
    ] {
        let dir = work.join(format!("scale-{operations}-{split}"));
        let spec = generate::write(&dir, operations, split).expect("generated");
        let runs = if operations >= 100_000 {
            runs.min(3)
        } else {
            runs
        };
        let (time, peak) = process(runs, &["check", spec.to_str().unwrap_or_default()]);
        let per_op = ms(time) * 1e3 / operations as f64;
        if base.is_none() {
            base = Some(per_op);
        }
        let files = if split { operations / 5 * 2 + 1 } else { 1 };
        if split {
            // The files of a multi-file description are parsed on every core, wave by wave.
            let (wall, cpu) = cpu_and_wall(&["check", spec.to_str().unwrap_or_default()]);
            let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
            targets.info(&format!(
                "{files} files of one description: CPU ÷ wall {:.2} on {cores} cores (above 1: files parsed in parallel)",
                cpu / wall.as_secs_f64()
            ));
        }
        let mib = peak.unwrap_or(0) as f64 / 1024.0;
        if operations == 100_000 && peak.is_some() {
            targets.at_most(
                "peak memory at 100k generated operations (half of 815 MiB)",
                mib,
                815.0 / 2.0,
                " MiB",
            );
        }
        println!(
            "| {operations} | {files} | {:.0} ms | {per_op:.1} µs | {:.2}× | {:.0} MiB |",
            ms(time),
            per_op / base.unwrap_or(per_op),
            mib
        );
    }
    println!();
}

fn many_files(work: &Path) {
    let dir = work.join("many");
    let mut specs = Vec::new();
    for i in 0..200 {
        let spec = generate::write(&dir.join(format!("api{i:03}")), 500, false).expect("generated");
        specs.push(spec.to_string_lossy().into_owned());
    }
    let mut args: Vec<&str> = vec!["check"];
    args.extend(specs.iter().map(String::as_str));
    let run = || {
        let start = Instant::now();
        let before = cpu_of_children();
        let output = Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .args(&args)
            .output()
            .expect("the binary runs");
        (start.elapsed(), cpu_of_children() - before, output.stdout)
    };
    let (wall, cpu, first) = run();
    let (_, _, second) = run();
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    println!("## Many files: 200 descriptions of 500 operations in one check\n");
    println!("| wall | CPU | CPU ÷ wall | cores | output identical across runs |");
    println!("|---:|---:|---:|---:|---|");
    println!(
        "| {:.0} ms | {:.0} ms | {:.2} | {cores} | {} |\n",
        ms(wall),
        cpu * 1e3,
        cpu / wall.as_secs_f64(),
        if first == second { "yes" } else { "NO" }
    );
}

/// The wall time and CPU seconds of one run of the binary.
fn cpu_and_wall(args: &[&str]) -> (Duration, f64) {
    let start = Instant::now();
    let before = cpu_of_children();
    measure::run_quietly(args);
    (start.elapsed(), cpu_of_children() - before)
}

/// CPU seconds (user + system) used by finished children, from `/proc/self/stat`.
fn cpu_of_children() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name: cutime and cstime are the 16th and 17th fields.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(13) + ticks(14)) / 100.0
}
