//! Bad input (SPEC §7) through the real binary: exit 2, a message that names the file,
//! a span where there is one, and nothing on stdout that could pass for a result.

use crate::common;

use common::retrylint;

/// The description of an error fixture folder.
fn description(name: &str) -> String {
    let dir = format!("{}/fixtures/errors/{name}", env!("CARGO_MANIFEST_DIR"));
    for candidate in ["openapi.yaml", "openapi.json", "api/openapi.yaml"] {
        if std::path::Path::new(&dir).join(candidate).exists() {
            return format!("fixtures/errors/{name}/{candidate}");
        }
    }
    panic!("no description in {dir}");
}

#[test]
fn every_bad_input_is_exit_2_with_a_message_naming_the_file() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/errors");
    let mut names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 20, "{names:?}");
    for name in &names {
        let spec = description(name);
        // Each fixture is its own root, as if it were a repository of its own.
        let root = std::path::Path::new(&spec)
            .parent()
            .unwrap()
            .to_str()
            .unwrap();
        let run = retrylint(&["check", &spec, "--root", root]);
        assert_eq!(run.code, 2, "{name}:\n{}", run.transcript());
        assert!(
            run.stdout.is_empty(),
            "{name}: stdout must stay empty:\n{}",
            run.stdout
        );
        assert!(
            run.stderr.contains(&format!("fixtures/errors/{name}/")),
            "{name}: the file is not named:\n{}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
        insta::assert_snapshot!(format!("error-{name}"), run.transcript());
    }
}

#[test]
fn a_missing_description_or_policy_is_exit_2() {
    let run = retrylint(&["check", "fixtures/does-not-exist.yaml"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("cannot read `fixtures/does-not-exist.yaml`: no such file"),
        "{}",
        run.stderr
    );
    let run = retrylint(&[
        "check",
        "fixtures/shop/openapi.yaml",
        "-p",
        "fixtures/nope.yaml",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("cannot read `fixtures/nope.yaml`"),
        "{}",
        run.stderr
    );
    // A folder is searched for descriptions; one with none is an input error.
    let run = retrylint(&["check", "rules"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("no OpenAPI or Swagger description under `rules`"),
        "{}",
        run.stderr
    );
}

#[test]
fn one_bad_description_among_good_ones_fails_the_whole_run() {
    let run = retrylint(&[
        "check",
        "fixtures/shop/openapi.yaml",
        &description("cyclic-ref"),
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty(), "no partial report: {}", run.stdout);
}

#[test]
fn outside_refs_load_when_allowed() {
    let spec = description("outside-ref");
    let root = "fixtures/errors/outside-ref/api";
    assert_eq!(retrylint(&["check", &spec, "--root", root]).code, 2);
    let run = retrylint(&["check", &spec, "--root", root, "--allow-outside-refs"]);
    assert_ne!(run.code, 2, "{}", run.transcript());
    assert!(run.stdout.contains("operation"), "{}", run.stdout);
}

#[test]
fn the_file_size_limit_is_a_flag() {
    let run = retrylint(&[
        "check",
        "fixtures/shop/openapi.yaml",
        "--max-file-size",
        "100",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("over the limit of 100 bytes"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--max-file-size"), "{}", run.stderr);
}
