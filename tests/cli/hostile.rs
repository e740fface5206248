//! Hostile and broken input through the real binary: deep nesting, cyclic and escaping
//! references, binary files behind refs, every limit and its flag, and policy values
//! large enough to overflow naive arithmetic.

use crate::common;

use common::{Run, retrylint_in};
use std::path::{Path, PathBuf};

fn folder(name: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, bytes) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

/// Runs `check` and asserts an input error that names `file` and says `words`.
fn refused(dir: &Path, args: &[&str], file: &str, words: &str) -> Run {
    let mut all = vec!["check"];
    all.extend(args);
    let run = retrylint_in(dir, &all);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stdout.is_empty(),
        "nothing that looks like a result: {}",
        run.stdout
    );
    assert!(run.stderr.contains(file), "names {file}: {}", run.stderr);
    assert!(run.stderr.contains(words), "says {words:?}: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

const HEAD: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n";

#[test]
fn a_hundred_thousand_nested_lists_are_refused_without_overflowing_the_stack() {
    let json = format!("{{\"openapi\": \"3.0.3\", \"x\": {}}}", "[".repeat(100_000));
    let block = format!("{HEAD}paths: {{}}\nx:\n{}", "- ".repeat(100_000));
    let flow = format!("{HEAD}paths: {{}}\nx: {}", "{a: ".repeat(100_000));
    let dir = folder(
        "nesting",
        &[
            ("a.json", json.as_bytes()),
            ("b.yaml", block.as_bytes()),
            ("c.yaml", flow.as_bytes()),
        ],
    );
    refused(
        &dir,
        &["a.json"],
        "a.json",
        "nesting is deeper than 1000 levels",
    );
    refused(&dir, &["b.yaml"], "b.yaml", "nesting is deeper");
    refused(&dir, &["c.yaml"], "c.yaml", "nesting is deeper");
    refused(
        &dir,
        &["a.json", "--max-depth", "5"],
        "a.json",
        "--max-depth",
    );
}

#[test]
fn references_that_cycle_or_escape_are_refused() {
    let dir = folder(
        "refs",
        &[
            (
                "api/self.yaml",
                format!("{HEAD}paths:\n  /a: {{$ref: '#/paths/~1a'}}\n").as_bytes(),
            ),
            (
                "api/ab.yaml",
                format!("{HEAD}paths:\n  /a: {{$ref: 'b.yaml#/x'}}\nx: {{$ref: 'b.yaml#/x'}}\n")
                    .as_bytes(),
            ),
            ("api/b.yaml", b"x: {$ref: 'c.yaml#/y'}\n"),
            ("api/c.yaml", b"y: {$ref: 'b.yaml#/x'}\n"),
            (
                "api/abs.yaml",
                format!("{HEAD}paths:\n  /a: {{$ref: '/etc/hostname'}}\n").as_bytes(),
            ),
            (
                "api/file.yaml",
                format!("{HEAD}paths:\n  /a: {{$ref: 'file:///etc/hostname'}}\n").as_bytes(),
            ),
            (
                "api/up.yaml",
                format!("{HEAD}paths:\n  /a: {{$ref: '../outside.yaml'}}\n").as_bytes(),
            ),
            (
                "outside.yaml",
                b"get: {responses: {'200': {description: ok}}}\n",
            ),
            (
                "api/binary.yaml",
                format!("{HEAD}paths:\n  /a: {{$ref: 'blob.yaml'}}\n").as_bytes(),
            ),
            ("api/blob.yaml", b"\x89PNG\r\n\x1a\n\x00\x00"),
            (
                "api/latin.yaml",
                format!("{HEAD}paths:\n  /a: {{$ref: 'latin1.yaml'}}\n").as_bytes(),
            ),
            ("api/latin1.yaml", b"get: {description: caf\xe9}\n"),
        ],
    );
    let api = dir.join("api");
    refused(&api, &["self.yaml"], "self.yaml", "cycle");
    refused(&api, &["ab.yaml"], "yaml", "cycle");
    // The folder is the root, as if it were a repository of its own.
    refused(
        &api,
        &["abs.yaml", "--root", "."],
        "abs.yaml",
        "leads outside the root folder",
    );
    refused(&api, &["file.yaml"], "file.yaml", "never fetches");
    refused(
        &api,
        &["up.yaml", "--root", "."],
        "up.yaml",
        "--allow-outside-refs",
    );
    refused(&api, &["binary.yaml"], "blob.yaml", "binary file");
    refused(&api, &["latin.yaml"], "latin1.yaml", "not UTF-8");
    // A symbolic link inside the folder that leads out of it is refused too.
    #[cfg(unix)]
    {
        let link = api.join("link.yaml");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(dir.join("outside.yaml"), &link).unwrap();
        std::fs::write(
            api.join("via-link.yaml"),
            format!("{HEAD}paths:\n  /a: {{$ref: 'link.yaml'}}\n"),
        )
        .unwrap();
        refused(
            &api,
            &["via-link.yaml", "--root", "."],
            "link.yaml",
            "leads outside the root folder",
        );
    }
}

#[test]
fn every_limit_names_the_flag_that_raises_it() {
    let big = format!("{HEAD}paths: {{}}\nx: '{}'\n", "a".repeat(4_000));
    let dir = folder(
        "limits",
        &[
            (
                "root.yaml",
                format!("{HEAD}paths:\n  /a: {{$ref: 'big.yaml'}}\n  /b: {{$ref: 'b.yaml'}}\n")
                    .as_bytes(),
            ),
            ("big.yaml", big.as_bytes()),
            ("b.yaml", b"get: {responses: {'200': {description: ok}}}\n"),
        ],
    );
    // A file reached through a ref is held to the size limit too.
    refused(
        &dir,
        &["root.yaml", "--max-file-size", "1000"],
        "big.yaml",
        "--max-file-size",
    );
    refused(
        &dir,
        &["root.yaml", "--max-files", "1"],
        "yaml",
        "--max-files",
    );
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shop/openapi.yaml");
    let demo = demo.to_str().unwrap();
    refused(
        &dir,
        &[demo, "--max-operations", "3"],
        "openapi.yaml",
        "--max-operations",
    );
    refused(
        &dir,
        &[demo, "--max-depth", "4"],
        "openapi.yaml",
        "--max-depth",
    );
    let bomb =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/errors/alias-bomb/openapi.yaml");
    refused(
        &dir,
        &[bomb.to_str().unwrap()],
        "alias-bomb",
        "--max-expansion-bytes",
    );
}

#[test]
fn huge_policy_values_do_not_overflow() {
    let spec = format!(
        "{HEAD}paths:\n  /a:\n    get:\n      responses: {{'200': {{description: ok}}, '503': {{description: x, headers: {{Retry-After: {{schema: {{type: integer}}}}}}}}}}\n"
    );
    for (name, policy, rule) in [
        (
            "attempts",
            "maxAttempts: 4000000000, deadline: 1000000h, perAttemptTimeout: 1ms",
            "unbounded-attempts",
        ),
        (
            "multiplier",
            "maxAttempts: 5, deadline: 10s, perAttemptTimeout: 1s, backoff: {base: 100ms, cap: 2s, multiplier: 1e308}",
            "backoff-without-jitter",
        ),
        (
            "negative",
            "maxAttempts: 3, deadline: -5s, perAttemptTimeout: -1s",
            "invalid-backoff",
        ),
        (
            "tiny",
            "maxAttempts: 3, deadline: 1000000h, perAttemptTimeout: 0.001ms, backoff: {base: 1000000h, cap: 1000000h, jitter: full}",
            "attempts-exceed-deadline",
        ),
    ] {
        let policy = format!(
            "version: 1\ndefaults: {{{policy}, retryOn: [503], retryAfter: {{honor: true, max: 1s}}}}\n"
        );
        let dir = folder(
            name,
            &[
                ("openapi.yaml", spec.as_bytes()),
                ("retry-policy.yaml", policy.as_bytes()),
            ],
        );
        let run = retrylint_in(&dir, &["check", "openapi.yaml"]);
        assert_ne!(run.code, 2, "{name}: {}", run.transcript());
        assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
        assert!(
            run.stdout.contains(&format!("[{rule}]")),
            "{name}: {}",
            run.stdout
        );
        let plan = retrylint_in(&dir, &["plan", "openapi.yaml"]);
        assert_eq!(plan.code, 0, "{name}: {}", plan.transcript());
    }
    // A number too large for any attempt count is an input error, not a wrap-around.
    let dir = folder(
        "overflow",
        &[
            ("openapi.yaml", spec.as_bytes()),
            (
                "retry-policy.yaml",
                b"version: 1\ndefaults: {maxAttempts: 99999999999999999999999}\n",
            ),
        ],
    );
    refused(&dir, &["openapi.yaml"], "retry-policy.yaml", "whole number");
    let dir = folder(
        "long-duration",
        &[
            ("openapi.yaml", spec.as_bytes()),
            (
                "retry-policy.yaml",
                b"version: 1\ndefaults: {deadline: 99999999999999999999h}\n",
            ),
        ],
    );
    refused(&dir, &["openapi.yaml"], "retry-policy.yaml", "too long");
}
