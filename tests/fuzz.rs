//! A mutational fuzzer for the parts that read untrusted text: the description loader
//! (YAML and JSON, through the operation model), the policy parser, and the duration and
//! selector parsers. It needs no nightly toolchain.
//!
//! Every run of `cargo test` mutates the seeds a few thousand times with a fixed seed.
//! For a longer run: `RETRYLINT_FUZZ_SECONDS=600 cargo test --release --test fuzz -- --nocapture`
//! (`RETRYLINT_FUZZ_SEED` picks another sequence). An input that panics is written to
//! `target/fuzz-crashes/` and fails the test; inputs that once did are kept in
//! `tests/fuzz-regressions/` and replayed on every run.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration as Wall, Instant};

use retrylint::load::{LoadOptions, Loader};
use retrylint::policy::{Duration, Selector, parse_policy_file};
use retrylint::source::{ParseLimits, SourceFile};

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

/// Feeds one input to every reader. Errors are fine; panics and hangs are bugs.
fn exercise(bytes: &[u8], scratch: &Path) {
    let limits = ParseLimits {
        max_depth: 200,
        max_expansion_bytes: 8 * 1024 * 1024,
    };
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = retrylint::source::parse(text, limits);
        if let Ok(file) = SourceFile::parse("policy.yaml".into(), text.to_string(), limits) {
            let _ = parse_policy_file(&file, 0, &retrylint::rules::names());
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
            let _ = retrylint::model::build(&mut loader, root);
        }
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
    // Every seed as it is, then mutants until the budget (or 3,000 mutants) is spent.
    let mut queue: Vec<Vec<u8>> = seeds.clone();
    loop {
        let input = match queue.pop() {
            Some(input) => input,
            None => {
                let done = match budget {
                    Some(budget) => start.elapsed() >= budget,
                    None => runs >= seeds.len() as u64 + 3_000,
                };
                if done {
                    break;
                }
                let base = &seeds[rng.below(seeds.len())];
                mutate(&mut rng, &seeds, base)
            }
        };
        runs += 1;
        let began = Instant::now();
        if catch_unwind(AssertUnwindSafe(|| exercise(&input, &scratch))).is_err() {
            std::fs::create_dir_all(&crashes).unwrap();
            let path = crashes.join(format!("crash-{seed}-{runs}.bin"));
            std::fs::write(&path, &input).unwrap();
            failures.push(path);
        }
        let took = began.elapsed();
        if took > slowest.0 {
            slowest = (took, input);
        }
    }
    let _ = std::panic::take_hook();
    // Kept for a look: the input that took longest.
    let _ = std::fs::write(crashes.with_file_name("fuzz-slowest.bin"), &slowest.1);
    eprintln!(
        "fuzz: {runs} inputs in {:.1}s, slowest {:?} ({} bytes)",
        start.elapsed().as_secs_f64(),
        slowest.0,
        slowest.1.len()
    );
    assert!(failures.is_empty(), "inputs that panicked: {failures:?}");
}
