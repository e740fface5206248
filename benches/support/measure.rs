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
