//! Which files retrylint reads, and how: only regular files (a FIFO or a device is refused at
//! once, never waited on), only inside the root folder for files it finds by itself (a
//! `retry-policy.yaml` beside a description, `$ref` targets), and a description's own
//! `x-retry-policy` read as strictly as a policy file.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::Run;

/// A fresh folder under `base` holding `files`.
fn folder_in(base: &Path, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = base.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A fresh folder inside this crate's target folder (so inside its git work tree).
fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    folder_in(
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("files"),
        name,
        files,
    )
}

/// A folder under the system's temporary folder: no git work tree above it.
fn loose_base() -> PathBuf {
    std::env::temp_dir().join(format!("retrylint-files-{}", std::process::id()))
}

/// Runs `retrylint ARGS…` in `dir`, killing it (and failing) if it still runs after a
/// generous number of polls: a hang guard, not a bound on how fast it runs.
fn run_or_kill(dir: &Path, args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the retrylint binary runs");
    let mut polls = 0;
    loop {
        if child.try_wait().expect("waiting works").is_some() {
            break;
        }
        polls += 1;
        if polls > 3000 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`retrylint {}` did not finish", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("the output is read");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Asserts an input error that says `words`, with nothing on stdout.
fn refused(run: &Run, words: &str) {
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stdout.is_empty(), "{}", run.transcript());
    assert!(run.stderr.contains(words), "says {words:?}: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

const API: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      x-retry-policy: {maxAttempts: 2}\n      responses: {'200': {description: ok}}\n";

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_at_once_wherever_it_is_named() {
    let dir = folder(
        "fifo",
        &[
            ("api.yaml", API),
            (
                "via-ref.yaml",
                "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a: {$ref: 'pipe.yaml'}\n",
            ),
            ("beside/api.yaml", API),
        ],
    );
    mkfifo(&dir.join("pipe.yaml"));
    mkfifo(&dir.join("beside/retry-policy.yaml"));
    let fifo = "is a named pipe (FIFO), not a regular file";
    for args in [
        &["check", "pipe.yaml"][..],
        &["check", "via-ref.yaml"],
        &["check", "api.yaml", "-p", "pipe.yaml"],
        &["check", "api.yaml", "--baseline", "pipe.yaml"],
        &["check", "beside/api.yaml"],
        &["plan", "api.yaml", "-p", "pipe.yaml"],
        &["report", "via-ref.yaml"],
        &["init", "via-ref.yaml"],
        &["simulate", "api.yaml", "--scenario", "pipe.yaml"],
        &["simulate", "api.yaml", "-p", "pipe.yaml"],
    ] {
        let run = run_or_kill(&dir, args);
        refused(&run, fifo);
        assert!(run.stderr.contains("pipe.yaml") || run.stderr.contains("retry-policy.yaml"));
    }
}

#[cfg(unix)]
#[test]
fn a_device_is_refused_not_read() {
    let dir = folder("device", &[("api.yaml", API)]);
    for args in [
        &["check", "/dev/zero"][..],
        &["check", "api.yaml", "-p", "/dev/urandom"],
        &["check", "api.yaml", "--baseline", "/dev/zero"],
        &["simulate", "api.yaml", "--scenario", "/dev/urandom"],
    ] {
        refused(&run_or_kill(&dir, args), "is a device, not a regular file");
    }
}

#[test]
fn a_baseline_is_held_to_the_size_limit() {
    let baseline = format!("{{\"version\": 1, \"findings\": []{}}}", " ".repeat(2_000));
    let dir = folder("baseline", &[("api.yaml", API), ("base.json", &baseline)]);
    let run = run_or_kill(
        &dir,
        &[
            "check",
            "api.yaml",
            "--baseline",
            "base.json",
            "--max-file-size",
            "1000",
        ],
    );
    refused(&run, "over the limit of 1000 bytes");
}

/// A file whose reported size is wrong (0 for files under /proc) is held to the limit on
/// the bytes actually read.
#[cfg(target_os = "linux")]
#[test]
fn the_size_limit_holds_for_the_bytes_read_not_the_size_reported() {
    let dir = folder("proc", &[("api.yaml", API)]);
    for args in [
        &["check", "/proc/self/status", "--max-file-size", "100"][..],
        &[
            "check",
            "api.yaml",
            "-p",
            "/proc/self/status",
            "--max-file-size",
            "100",
        ],
    ] {
        let run = run_or_kill(&dir, args);
        refused(&run, "is over the limit of 100 bytes");
        // Nothing of what was read is shown.
        assert!(!run.stderr.contains("VmRSS"), "{}", run.stderr);
    }
}

const SECRET: &str = "aws_secret_access_key = AKIAEXAMPLESECRET1234567";

#[cfg(unix)]
#[test]
fn a_discovered_policy_that_leads_outside_the_root_is_refused_unread() {
    let elsewhere = folder(
        "secret-store",
        &[("secret.yaml", &format!("{SECRET}\n  : : [ broken\n"))],
    );
    let dir = folder("secret", &[("api.yaml", API)]);
    // The description's folder is its own git work tree: the secret lies outside it.
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("secret.yaml"), dir.join("retry-policy.yaml"))
        .unwrap();
    let mut runs = Vec::new();
    for format in ["human", "json", "sarif", "github", "junit"] {
        runs.push(run_or_kill(
            &dir,
            &["check", "api.yaml", "--format", format],
        ));
    }
    for format in ["markdown", "html", "json"] {
        runs.push(run_or_kill(
            &dir,
            &["report", "api.yaml", "--format", format],
        ));
    }
    runs.push(run_or_kill(&dir, &["plan", "api.yaml"]));
    runs.push(run_or_kill(&dir, &["simulate", "api.yaml"]));
    for run in &runs {
        refused(run, "leads outside the root folder");
        assert!(run.stderr.contains("retry-policy.yaml"), "{}", run.stderr);
        assert!(run.stderr.contains("it was not read"), "{}", run.stderr);
        assert!(run.stderr.contains("-p POLICY"), "{}", run.stderr);
        for text in [&run.stdout, &run.stderr] {
            assert!(!text.contains("AKIAEXAMPLESECRET"), "{}", run.transcript());
            assert!(!text.contains("aws_secret"), "{}", run.transcript());
        }
    }
    // Inside the root, a symbolic link to a policy is followed as before.
    std::fs::write(dir.join("real-policy.yaml"), "version: 1\n").unwrap();
    std::fs::remove_file(dir.join("retry-policy.yaml")).unwrap();
    std::os::unix::fs::symlink(dir.join("real-policy.yaml"), dir.join("retry-policy.yaml"))
        .unwrap();
    let run = run_or_kill(&dir, &["check", "api.yaml"]);
    assert_ne!(run.code, 2, "{}", run.transcript());
}

/// An Azure-like layout: every description reaches `../../common-types`.
fn azure(base: &Path, name: &str) -> PathBuf {
    folder_in(
        base,
        name,
        &[
            (
                "specification/x/stable/2024-01-01/api.json",
                r#"{"swagger": "2.0", "info": {"title": "x", "version": "2024-01-01"},
"paths": {"/things": {"get": {"operationId": "Things_List",
  "x-retry-policy": {"maxAttempts": 2},
  "parameters": [{"$ref": "../../../../common-types/types.json#/parameters/ApiVersion"}],
  "responses": {"200": {"description": "ok"}}}}}}
"#,
            ),
            (
                "common-types/types.json",
                r#"{"parameters": {"ApiVersion": {"name": "api-version", "in": "query", "required": true, "type": "string"}}}
"#,
            ),
        ],
    )
}

const AZURE_API: &str = "specification/x/stable/2024-01-01/api.json";

#[test]
fn refs_may_reach_anywhere_in_the_git_work_tree() {
    let dir = azure(&loose_base(), "azure-git");
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    let spec = dir.join(AZURE_API);
    let spec = spec.to_str().unwrap();
    // From any current folder: the work tree is found from the description.
    let elsewhere = Path::new(env!("CARGO_MANIFEST_DIR"));
    for args in [
        &["check", spec][..],
        &["plan", spec],
        &["report", spec],
        &["init", spec],
        &["simulate", spec, "--clients", "10"],
    ] {
        let run = run_or_kill(elsewhere, args);
        assert_ne!(run.code, 2, "{}", run.transcript());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_work_tree_refs_stay_inside_the_root_unless_told() {
    let dir = azure(&loose_base(), "azure-loose");
    let spec = dir.join(AZURE_API);
    let spec = spec.to_str().unwrap();
    let root = dir.to_str().unwrap();
    // The current folder does not hold the description: its own folder is the root.
    let elsewhere = Path::new(env!("CARGO_MANIFEST_DIR"));
    for command in ["check", "plan", "report", "init", "simulate"] {
        let run = run_or_kill(elsewhere, &[command, spec]);
        refused(&run, "leads outside the root folder");
        assert!(run.stderr.contains("--root DIR"), "{}", run.stderr);
        assert!(
            run.stderr.contains("--allow-outside-refs"),
            "{}",
            run.stderr
        );
        let run = run_or_kill(elsewhere, &[command, spec, "--root", root]);
        assert_ne!(run.code, 2, "{command}: {}", run.transcript());
        let run = run_or_kill(elsewhere, &[command, spec, "--allow-outside-refs"]);
        assert_ne!(run.code, 2, "{command}: {}", run.transcript());
    }
    // The current folder is the root when it holds the description.
    let run = run_or_kill(&dir, &["check", AZURE_API]);
    assert_ne!(run.code, 2, "{}", run.transcript());
    // A root that is not a folder is an input error.
    let run = run_or_kill(elsewhere, &["check", spec, "--root", "no-such-folder"]);
    refused(&run, "no-such-folder");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_x_retry_policy_is_an_input_error_with_or_without_a_policy_file() {
    let head = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n";
    let op = "paths:\n  /a:\n    post:\n";
    let responses = "      responses: {'200': {description: ok}}\n";
    let cases = [
        (
            "root-type",
            format!("{head}x-retry-policy:\n  maxAttempts: lots\n{op}{responses}"),
            "`maxAttempts` must be a whole number",
            "api.yaml:4:",
        ),
        (
            "op-key",
            format!("{head}{op}      x-retry-policy: {{maxAttempt: 3}}\n{responses}"),
            "unknown key `maxAttempt`",
            "api.yaml:6:",
        ),
        (
            "op-duration",
            format!("{head}{op}      x-retry-policy:\n        deadline: 3\n{responses}"),
            "deadline",
            "api.yaml:7:",
        ),
    ];
    for (name, api, words, at) in cases {
        let dir = folder(
            &format!("x-retry-{name}"),
            &[("api.yaml", &api), ("p.yaml", "version: 1\n")],
        );
        for args in [
            &["check", "api.yaml"][..],
            &["check", "api.yaml", "-p", "p.yaml"],
            &["plan", "api.yaml"],
            &["report", "api.yaml"],
        ] {
            let run = run_or_kill(&dir, args);
            refused(&run, words);
            assert!(run.stderr.contains(at), "{name}: span {at}: {}", run.stderr);
        }
    }
}
