//! A mutational fuzzer for the parts that read untrusted text: the description loader
//! (YAML and JSON, through the operation model; gRPC `.proto` files, through theirs), the policy parser, the duration and
//! selector parsers, and a whole check of a description against a policy. It needs no
//! nightly toolchain.
//!
//! Beside mutants of the fixtures it generates hostile shapes — a long string aliased many
//! times, anchors nested in anchors, large `<<` merges, deep nesting, an operation reused
//! through `$ref` from many paths, many globs and many suppression comments, and layer
//! files with long names, many hosts or many match alternatives — and holds
//! every input to a bound: memory (the test's allocator refuses to grow past
//! [`memory_bound`], which aborts the run with the input left in
//! `target/fuzz-current.bin`) and time ([`time_bound`], a failure).
//!
//! Every run of `cargo test` mutates the seeds a few thousand times with a fixed seed.
//! For a longer run: `RETRYLINT_FUZZ_SECONDS=600 cargo test --release --test fuzz -- --nocapture`
//! (`RETRYLINT_FUZZ_SEED` picks another sequence, `RETRYLINT_FUZZ_HOSTILE=PERCENT` how
//! many inputs are hostile shapes rather than mutants). An input that panics is written to
//! `target/fuzz-crashes/` and fails the test; inputs that once did are kept in
//! `tests/fuzz-regressions/` and replayed on every run.

#[path = "../benches/support/hostile.rs"]
mod hostile;

use std::alloc::System;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration as Wall, Instant};

use cap::Cap;
use retrylint::analysis::check::{CheckOptions, check_analysis, load_policy};
use retrylint::input::load::{LoadOptions, Loader};
use retrylint::input::policy::{Duration, Selector, parse_policy_file};
use retrylint::input::source::{ParseLimits, SourceFile};

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// The expansion budget the fuzzer runs with (the default is larger; the shapes scale).
const EXPANSION_BYTES: usize = 8 * 1024 * 1024;

/// Most memory one input of `len` bytes may add to what was allocated before it: the tree
/// and its copies in building are a few dozen bytes per input byte, expansions are
/// bounded by their budget, and a constant covers the rest.
fn memory_bound(len: usize) -> usize {
    128 * len + 8 * EXPANSION_BYTES + (48 << 20)
}

/// Most time one input of `len` bytes may take, generous for a debug build on a loaded
/// machine: a quadratic step on a large input takes far longer.
fn time_bound(len: usize) -> Wall {
    Wall::from_secs(10) + Wall::from_micros(20 * len as u64)
}

/// SplitMix64: small, fast, and the same sequence everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Fragments that reach the parsers' corners.
const TOKENS: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    "- ",
    "\n",
    "\r\n",
    "\t",
    " ",
    "'",
    "\"",
    "\\u",
    "\\ud83d",
    "&a ",
    "*a",
    "<<: ",
    "? ",
    "|\n",
    ">-\n",
    "#",
    "---\n",
    "...\n",
    "!!str ",
    "$ref",
    "'#/paths/~1a'",
    "'#/x'",
    "~1",
    "~0",
    "%7B",
    "null",
    "true",
    "1e999",
    "-0",
    "0x1F",
    ".inf",
    "\u{0}",
    "\u{feff}",
    "é",
    "👍",
    "\u{ffff}",
    "maxAttempts: ",
    "deadline: ",
    "5s",
    "1m30s",
    "-1h",
    "retryOn: [",
    "503",
    "5xx",
    "x-retry-policy: ",
    "x-retrylint-ignore: ",
    "openapi: 3.1.0\n",
    "swagger: '2.0'\n",
    "paths:\n",
    "  /a:\n",
    "    get:\n",
    "    post:\n",
    "parameters:\n",
    "responses:\n",
    "'429':",
    "headers:\n",
    "Retry-After:",
    "in: header",
    "name: Idempotency-Key",
];

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>], input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(7) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
            2 if !out.is_empty() => {
                let end = (at + rng.below(64)).min(out.len());
                out.drain(at..end);
            }
            3 if !out.is_empty() => {
                let start = rng.below(out.len());
                let end = (start + rng.below(256)).min(out.len());
                let copy = out[start..end].to_vec();
                out.splice(at..at, copy);
            }
            4 => {
                let other = &seeds[rng.below(seeds.len())];
                let start = rng.below(other.len() + 1);
                let end = (start + rng.below(512)).min(other.len());
                out.splice(at..at, other[start..end].iter().copied());
            }
            5 => out.truncate(at),
            _ => {
                let token = TOKENS[rng.below(TOKENS.len())].repeat(1 + rng.below(200));
                out.splice(at..at, token.bytes());
            }
        }
    }
    out.truncate(1 << 20);
    out
}

/// One input of a hostile shape (the shapes `benches/hostile.rs` measures), sized at
/// random: a description, and a policy for the shapes that need one.
fn hostile_input(rng: &mut Rng) -> (Vec<u8>, Option<Vec<u8>>) {
    let (text, policy) = match rng.below(10) {
        0 => (
            hostile::long_string_aliased(1 << (10 + rng.below(9)), 1 + rng.below(5_000)),
            None,
        ),
        1 => (
            hostile::nested_anchors(50 + rng.below(900), rng.below(1_000)),
            None,
        ),
        2 => (hostile::large_merge(1 + rng.below(30_000)), None),
        3 => (
            hostile::deep_list(1 + rng.below(5_000), rng.below(2) == 0),
            None,
        ),
        4 => (
            hostile::reused_path_item(1 + rng.below(5_000), rng.below(100_000)),
            None,
        ),
        5 => {
            let n = 1 + rng.below(5_000);
            (
                hostile::many_operations(n, false),
                Some(hostile::glob_policy(n)),
            )
        }
        6 => (
            hostile::many_operations(1 + rng.below(5_000), true),
            Some(hostile::RETRY_POLICY.to_string()),
        ),
        // Layer files: `exercise` imports every input as one and binds it to the demo.
        7 => (hostile::long_layer_names(rng.below(1 << 20)), None),
        8 => (
            hostile::many_layer_hosts(1 + rng.below(20_000), rng.below(100)),
            None,
        ),
        _ => (
            hostile::many_match_alternatives(1 + rng.below(5_000), rng.below(2) == 0),
            None,
        ),
    };
    (text.into_bytes(), policy.map(String::into_bytes))
}

/// Checks a description against a policy, as `check` does.
fn exercise_check(description: &[u8], policy: &[u8], scratch: &Path, limits: ParseLimits) {
    let spec = scratch.join("pair.yaml");
    let policy_path = scratch.join("pair-policy.yaml");
    if std::fs::write(&spec, description).is_err() || std::fs::write(&policy_path, policy).is_err()
    {
        return;
    }
    let options = CheckOptions {
        load: LoadOptions {
            parse: limits,
            max_files: 20,
            ..LoadOptions::default()
        },
        ..CheckOptions::default()
    };
    if let Ok(policy) = load_policy(&policy_path, &options.load) {
        let _ = check_analysis(&spec, Some(&policy), &options);
    }
}

/// Feeds one input to every reader. Errors are fine; panics and hangs are bugs.
fn exercise(bytes: &[u8], scratch: &Path) {
    let limits = fuzz_limits();
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = retrylint::input::source::parse(text, limits);
        // What a folder search reads of every file it meets.
        let _ = retrylint::input::load::discover::is_description(text);
        let _ = retrylint::input::load::discover::declares_service(text);
        let _ = retrylint::input::source::proto::parse("api.proto", text);
        if let Ok(file) = SourceFile::parse("policy.yaml".into(), text.to_string(), limits) {
            let _ = parse_policy_file(&file, 0, &retrylint::analysis::rules::names());
        }
        for line in text.lines().take(20) {
            let _ = Duration::parse(line);
            let _ = Selector::parse(line);
        }
    }
    // The whole loader and model, as `check` runs them on a file.
    let path = scratch.join("openapi.yaml");
    if std::fs::write(&path, bytes).is_ok() {
        let mut loader = Loader::new(LoadOptions {
            parse: limits,
            max_files: 20,
            ..LoadOptions::default()
        });
        if let Ok(root) = loader.load_root(&path) {
            let _ = retrylint::input::model::build(&mut loader, root);
        }
    }
    // The same bytes as a gRPC description, imports followed.
    let proto = scratch.join("api.proto");
    if std::fs::write(&proto, bytes).is_ok() {
        let mut loader = Loader::new(LoadOptions {
            parse: limits,
            max_files: 20,
            ..LoadOptions::default()
        });
        if let Ok(root) = loader.load_root(&proto) {
            let _ = retrylint::input::model::build(&mut loader, root);
        }
    }
    // The same bytes as a mesh, gateway or proxy file given with -p: recognised, imported
    // and bound to the demo's operations.
    let layer = scratch.join("layer.yaml");
    if std::fs::write(&layer, bytes).is_ok() {
        let options = LoadOptions {
            parse: limits,
            max_files: 20,
            ..LoadOptions::default()
        };
        if let Ok(given) = retrylint::analysis::check::load_given(&[layer], &options)
            && !given.layer_files.is_empty()
        {
            let inputs = retrylint::analysis::check::LayerInputs {
                files: given.layer_files,
                hosts: vec!["payments.prod.svc.cluster.local".to_string()],
            };
            let demo =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/layers/payments/openapi.yaml");
            let _ = retrylint::analysis::check::analyze_layers(&demo, None, &inputs, &options);
        }
    }
}

fn fuzz_limits() -> ParseLimits {
    ParseLimits {
        max_expansion_bytes: EXPANSION_BYTES,
        ..ParseLimits::default()
    }
}

fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds = Vec::new();
    let mut stack = vec![root.join("fixtures"), root.join("tests/fuzz-regressions")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path)
                && bytes.len() < 64 * 1024
            {
                seeds.push(bytes);
            }
        }
    }
    seeds
}

#[test]
fn the_readers_survive_mutated_input() {
    let seeds = seeds();
    assert!(seeds.len() > 50, "the fixtures are the seeds");
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz");
    std::fs::create_dir_all(&scratch).unwrap();
    let crashes = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-crashes");
    let budget = std::env::var("RETRYLINT_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(Wall::from_secs);
    let seed = std::env::var("RETRYLINT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0x5eed);
    let mut rng = Rng(seed);
    // Panics are caught and counted; keep their messages out of the test output.
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut runs = 0u64;
    let mut slowest = (Wall::ZERO, Vec::new());
    let current = crashes.with_file_name("fuzz-current.bin");
    // Every seed as it is, then mutants and hostile shapes until the budget (or 3,000
    // inputs) is spent. Hostile shapes are large and slow in a debug build: 3 in 100 by
    // default, `RETRYLINT_FUZZ_HOSTILE=PERCENT` for more.
    let hostile_percent = std::env::var("RETRYLINT_FUZZ_HOSTILE")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(3);
    let mut queue: Vec<Vec<u8>> = seeds.clone();
    loop {
        let (input, policy) = if let Some(input) = queue.pop() {
            (input, None)
        } else {
            let done = match budget {
                Some(budget) => start.elapsed() >= budget,
                None => runs >= seeds.len() as u64 + 3_000,
            };
            if done {
                break;
            }
            if rng.below(100) < hostile_percent {
                hostile_input(&mut rng)
            } else {
                let base = &seeds[rng.below(seeds.len())];
                (mutate(&mut rng, &seeds, base), None)
            }
        };
        runs += 1;
        // Left behind if the memory bound aborts the run.
        let _ = std::fs::write(&current, &input);
        let size = input.len() + policy.as_ref().map_or(0, Vec::len);
        let before = ALLOCATOR.allocated();
        let _ = ALLOCATOR.set_limit(before.saturating_add(memory_bound(size)));
        let began = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            exercise(&input, &scratch);
            if let Some(policy) = &policy {
                exercise_check(&input, policy, &scratch, fuzz_limits());
            }
        }));
        let took = began.elapsed();
        let _ = ALLOCATOR.set_limit(usize::MAX);
        if outcome.is_err() || took > time_bound(size) {
            std::fs::create_dir_all(&crashes).unwrap();
            let kind = if outcome.is_err() { "crash" } else { "slow" };
            let path = crashes.join(format!("{kind}-{seed}-{runs}.bin"));
            std::fs::write(&path, &input).unwrap();
            if let Some(policy) = &policy {
                std::fs::write(path.with_extension("policy.yaml"), policy).unwrap();
            }
            failures.push(path);
        }
        if took > slowest.0 {
            slowest = (took, input);
        }
    }
    let _ = std::fs::remove_file(&current);
    let _ = std::panic::take_hook();
    // Kept for a look: the input that took longest.
    let _ = std::fs::write(crashes.with_file_name("fuzz-slowest.bin"), &slowest.1);
    eprintln!(
        "fuzz: {runs} inputs in {:.1}s, slowest {:?} ({} bytes)",
        start.elapsed().as_secs_f64(),
        slowest.0,
        slowest.1.len()
    );
    assert!(
        failures.is_empty(),
        "inputs that panicked or passed the time bound: {failures:?}"
    );
}
