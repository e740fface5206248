//! Measuring: the median of several runs, and a whole process's wall time and peak memory.

use std::process::Command;
use std::time::{Duration, Instant};

/// The median duration of `runs` calls of `f`.
pub(crate) fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// `base` and `check` timed in turn, `runs` times each: the median of each, and the
/// median of the ratios check ÷ base of each pair. Load that comes and goes on a shared
/// machine then falls on both sides of a ratio alike, rather than on one side's runs.
#[allow(dead_code)] // Only the check benchmark pairs its runs.
pub(crate) fn paired(
    runs: usize,
    mut base: impl FnMut(),
    mut check: impl FnMut(),
) -> (Duration, Duration, f64) {
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed()
    };
    let (mut bases, mut checks, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let b = time(&mut base);
        let c = time(&mut check);
        ratios.push(c.as_secs_f64() / b.as_secs_f64().max(1e-9));
        bases.push(b);
        checks.push(c);
    }
    bases.sort();
    checks.sort();
    ratios.sort_by(f64::total_cmp);
    (bases[runs / 2], checks[runs / 2], ratios[runs / 2])
}

/// The median wall time of the binary over `runs`, and its peak memory in KiB (from
/// `/usr/bin/time` when it is installed).
pub(crate) fn process(runs: usize, args: &[&str]) -> (Duration, Option<u64>) {
    let wall = median(runs, || run_quietly(args));
    let peak = Command::new("/usr/bin/time")
        .args(["-f", "%M", env!("CARGO_BIN_EXE_retrylint")])
        .args(args)
        .stdout(std::process::Stdio::null())
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .and_then(|l| l.trim().parse().ok())
        });
    (wall, peak)
}

/// Runs the binary once, its output discarded.
pub(crate) fn run_quietly(args: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    std::hint::black_box(status.is_ok());
}
