//! Output that cannot be written: `/dev/full`, a closed pipe, a missing or read-only
//! folder. A failed write is exit code 2 with a message; a file given with `-o` is
//! replaced whole or not at all.

use std::path::PathBuf;
use std::process::{Command, Stdio};

const SPEC: &str = "fixtures/shop/openapi.yaml";

fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_retrylint"));
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    command
}

/// Every command that writes to standard output, with its arguments.
fn commands() -> Vec<Vec<&'static str>> {
    let mut all = vec![
        vec!["rules"],
        vec!["schema"],
        vec!["explain", "unprotected-write-retry"],
        vec!["plan", SPEC],
        vec!["init", SPEC],
        vec!["report", SPEC],
        vec!["report", SPEC, "--format", "html"],
        vec!["report", SPEC, "--format", "json"],
        vec!["simulate", SPEC, "--operation", "GET /orders/{orderId}"],
    ];
    for format in ["human", "json", "sarif", "github", "junit"] {
        all.push(vec![
            "check",
            SPEC,
            "--format",
            format,
            "--fail-on",
            "never",
        ]);
    }
    all
}

fn folder(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("write-failure")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_is_exit_code_2_with_a_message() {
    for args in commands() {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = bin().args(&args).stdout(full).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write to standard output"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_stops_quietly_and_keeps_the_exit_code() {
    use std::io::Read;
    for args in commands() {
        let mut child = bin()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before reading anything, as `| head -0` would.
        drop(child.stdout.take());
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
    // `check` still fails on its findings when nobody reads them.
    let mut child = bin()
        .args(["check", SPEC])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

#[test]
fn output_files_are_replaced_whole_and_leave_no_temporary_file() {
    let dir = folder("replace");
    let target = dir.join("report.md");
    std::fs::write(&target, "old\n").unwrap();
    for args in [
        vec!["report", SPEC, "-o"],
        vec!["check", SPEC, "--fail-on", "never", "-o"],
        vec![
            "simulate",
            SPEC,
            "--operation",
            "GET /orders/{orderId}",
            "-o",
        ],
        vec!["init", SPEC, "--force", "-o"],
    ] {
        let out = bin().args(&args).arg(&target).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        let text = std::fs::read_to_string(&target).unwrap();
        assert_ne!(text, "old\n", "{args:?}");
        assert!(!text.is_empty(), "{args:?}");
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["report.md"], "{args:?}: no stray file");
        std::fs::write(&target, "old\n").unwrap();
    }
}

#[test]
fn writing_into_a_missing_folder_is_exit_code_2() {
    let dir = folder("missing");
    let target = dir.join("nowhere").join("report.md");
    for args in [
        vec!["report", SPEC, "-o"],
        vec!["check", SPEC, "-o"],
        vec!["init", SPEC, "-o"],
        vec![
            "simulate",
            SPEC,
            "--operation",
            "GET /orders/{orderId}",
            "-o",
        ],
    ] {
        let out = bin().args(&args).arg(&target).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("cannot write"), "{args:?}: {stderr}");
        assert!(stderr.contains("report.md"), "{args:?}: {stderr}");
    }
}

#[cfg(unix)]
#[test]
fn writing_into_a_read_only_folder_keeps_the_old_content() {
    use std::os::unix::fs::PermissionsExt;
    let dir = folder("read-only");
    let target = dir.join("report.md");
    std::fs::write(&target, "old\n").unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores folder permissions: nothing to check then.
    let writable = std::fs::write(dir.join("probe"), "").is_ok();
    if !writable {
        for args in [
            vec!["report", SPEC, "-o"],
            vec!["check", SPEC, "-o"],
            vec!["init", SPEC, "--force", "-o"],
        ] {
            let out = bin().args(&args).arg(&target).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("cannot write"), "{args:?}: {stderr}");
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
        }
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A write that fails half-way (here: the file-size limit is reached, as on a full disk)
/// leaves the previous file as it was, not a truncated report.
#[cfg(unix)]
#[test]
fn a_write_cut_short_leaves_the_previous_file_in_place() {
    let dir = folder("cut-short");
    let target = dir.join("report.html");
    let old = "old report\n";
    std::fs::write(&target, old).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 1 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_retrylint"))
        .args(["report", SPEC, "--format", "html", "-o"])
        .arg(&target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "the limit stops the write");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), old);
}

#[test]
fn an_output_path_that_is_a_folder_is_refused_and_left_alone() {
    let dir = folder("is-a-folder");
    let target = dir.join("out");
    std::fs::create_dir_all(target.join("inside")).unwrap();
    let out = bin()
        .args(["report", SPEC, "-o"])
        .arg(&target)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");
    assert!(target.join("inside").is_dir());
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["out"], "no stray temporary file");
}
