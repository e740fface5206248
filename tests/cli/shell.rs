//! Shell integration: completion scripts and manual pages, generated from the command
//! line's own definition.

use crate::common;

use common::retrylint;

#[test]
fn completions_cover_every_command_and_check_flag() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = retrylint(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        for word in [
            "check",
            "report",
            "simulate",
            "explain",
            "fail-on",
            "stdin-filename",
        ] {
            assert!(run.stdout.contains(word), "{shell} completes {word}");
        }
    }
    // The bash script is valid bash.
    let script = retrylint(&["completions", "bash"]).stdout;
    if let Ok(out) = std::process::Command::new("bash")
        .args(["-n", "-c", &script])
        .output()
    {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let bad = retrylint(&["completions", "tcsh"]);
    assert_eq!(bad.code, 2);
}

#[test]
fn the_manual_page_is_roff_with_every_command() {
    let run = retrylint(&["man"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(".TH retrylint 1"));
    for command in ["check", "report", "plan", "init", "simulate", "completions"] {
        assert!(run.stdout.contains(command), "{command}");
    }
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("man-pages");
    let _ = std::fs::remove_dir_all(&dir);
    let run = retrylint(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let check = std::fs::read_to_string(dir.join("retrylint-check.1")).unwrap();
    assert!(check.contains(".TH retrylint-check 1"));
    assert!(
        check.contains("fail\\-on"),
        "the check page lists its flags"
    );
    assert!(dir.join("retrylint.1").is_file());
    // `man` reads the page without complaint where it is installed.
    if let Ok(out) = std::process::Command::new("man")
        .args(["--warnings", "-l", "-Tutf8"])
        .arg(dir.join("retrylint-check.1"))
        .output()
        && out.status.success()
    {
        assert!(String::from_utf8_lossy(&out.stdout).contains("retrylint-check"));
    }
}
