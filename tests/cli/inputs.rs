//! What `check` reads: standard input (`-` with `--stdin-filename`), folders searched as
//! git sees them, quoted globs, the files a pre-commit hook passes, and fingerprints that
//! do not depend on how a path was typed — all through the binary.

use crate::common;

use std::path::{Path, PathBuf};

use common::{retrylint, retrylint_in, retrylint_with};
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("inputs-{name}"))
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const SPEC: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    post:\n      responses: {'201': {description: ok}}\n";
const POLICY: &str = "version: 1\ndefaults: {maxAttempts: 3, deadline: 10s, perAttemptTimeout: 2s, retryOn: [503, timeout], backoff: {base: 100ms, cap: 1s, jitter: full}}\n";

fn descriptions(run: &common::Run) -> Vec<String> {
    let doc: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
    doc["summary"]["descriptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn standard_input_named_by_stdin_filename_checks_like_the_file() {
    for spec in [
        "fixtures/shop/openapi.yaml",
        "fixtures/tricky/multi-file/openapi.yaml",
    ] {
        let text = std::fs::read_to_string(root().join(spec)).unwrap();
        let from_file = retrylint(&["check", spec, "--format", "json"]);
        let from_stdin = retrylint_with(
            root(),
            &["check", "-", "--stdin-filename", spec, "--format", "json"],
            &[("NO_COLOR", "1")],
            &text,
        );
        assert_eq!(from_stdin.code, from_file.code, "{}", from_stdin.stderr);
        // The same findings at the same places, the policy beside the name found, and
        // `$ref`s followed from the name's folder.
        assert!(
            from_stdin.stdout == from_file.stdout,
            "{spec}: the outputs differ"
        );
        assert_eq!(from_stdin.stderr, from_file.stderr, "{spec}");
    }
}

#[test]
fn a_stdin_filename_outside_the_root_does_not_move_it() {
    // The current folder is a repository of its own; the name given to standard input
    // lies beside it, next to a policy that is not the current folder's to read.
    let dir = scratch("stdin-outside");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    common::git(&work, &["init", "-q"]);
    write(
        &dir,
        "outside/retry-policy.yaml",
        "version: 1\nsecret-token: hunter2\n",
    );
    let run = retrylint_with(
        &work,
        &["check", "-", "--stdin-filename", "../outside/openapi.yaml"],
        &[("NO_COLOR", "1")],
        SPEC,
    );
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("leads outside the root folder `.`: it was not read"),
        "{}",
        run.stderr
    );
    assert!(
        !run.transcript().contains("hunter2"),
        "{}",
        run.transcript()
    );
    // --root names a wider root, and then the policy beside the name is read.
    let wider = retrylint_with(
        &work,
        &[
            "check",
            "-",
            "--stdin-filename",
            "../outside/openapi.yaml",
            "--root",
            "..",
        ],
        &[("NO_COLOR", "1")],
        SPEC,
    );
    assert_eq!(wider.code, 2, "{}", wider.transcript());
    assert!(wider.stderr.contains("secret-token"), "{}", wider.stderr);
}

#[test]
fn standard_input_without_a_name_is_called_dash() {
    let dir = scratch("stdin-bare");
    let run = retrylint_with(
        &dir,
        &["check", "-", "--format", "concise", "--show-infos"],
        &[],
        SPEC,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("\n-:5:5: info[write-without-retry-protection]"),
        "{}",
        run.stdout
    );
    // The policy in the current folder is found, as beside a file there.
    write(&dir, "retry-policy.yaml", POLICY);
    let run = retrylint_with(&dir, &["check", "-", "--format", "concise"], &[], SPEC);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("error[unprotected-write-retry]"));
}

#[test]
fn bad_standard_input_is_an_input_error() {
    for (input, says) in [
        ("", "(standard input) is empty"),
        ("openapi: 3.0.3\0", "holds a NUL byte"),
        ("openapi: [", "standard input"),
    ] {
        let run = retrylint_with(root(), &["check", "-"], &[], input);
        assert_eq!(run.code, 2, "{input:?}: {}", run.stdout);
        assert!(
            run.stderr.contains(says) || run.stderr.contains('-'),
            "{input:?}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"));
    }
    let run = retrylint_with(root(), &["check", "-", "--max-file-size", "10"], &[], SPEC);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("over the limit of 10 bytes"),
        "{}",
        run.stderr
    );
}

/// A repository-like folder: two descriptions, a policy, a file that is not a
/// description, an ignored folder, a hidden one, and a symbolic link.
fn tree(name: &str) -> PathBuf {
    let dir = scratch(name);
    write(&dir, "apis/orders.yaml", SPEC);
    write(
        &dir,
        "apis/nested/pets.json",
        r#"{"info": {"title": "t", "version": "1"}, "paths": {}, "swagger": "2.0"}"#,
    );
    write(&dir, "apis/retry-policy.yaml", POLICY);
    write(
        &dir,
        "apis/notes.yaml",
        "title: not a description\nopenapiVersion: 3\n",
    );
    write(&dir, "apis/build/generated.yaml", SPEC);
    write(&dir, "apis/.cache/old.yaml", SPEC);
    write(&dir, ".gitignore", "build/\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("apis/orders.yaml"), dir.join("apis/link.yaml")).unwrap();
    dir
}

#[test]
fn a_folder_is_searched_for_descriptions_as_git_sees_it() {
    let dir = tree("walk");
    let run = retrylint_in(&dir, &["check", "apis", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    // Not the policy, not notes.yaml, not the ignored or hidden folders, not the link.
    assert_eq!(
        descriptions(&run),
        vec!["apis/nested/pets.json", "apis/orders.yaml"]
    );
    // A folder named on the command line is searched even when .gitignore names it.
    let named = retrylint_in(&dir, &["check", "apis/build", "--format", "json"]);
    assert_eq!(descriptions(&named), vec!["apis/build/generated.yaml"]);
    let none = scratch("walk-none");
    write(&none, "a.yaml", "a: 1\n");
    let run = retrylint_in(&none, &["check", "."]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("no OpenAPI or Swagger description under `.`"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_quoted_glob_is_expanded_to_descriptions_only() {
    let dir = tree("glob");
    let run = retrylint_in(&dir, &["check", "apis/*.yaml", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    // retry-policy.yaml and notes.yaml match the pattern but are not descriptions.
    assert_eq!(descriptions(&run), vec!["apis/orders.yaml"]);
    let run = retrylint_in(&dir, &["check", "apis/**/*.json", "--format", "json"]);
    assert_eq!(descriptions(&run), vec!["apis/nested/pets.json"]);
    let run = retrylint_in(&dir, &["check", "apis/*.txt"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("matches no OpenAPI or Swagger description"),
        "{}",
        run.stderr
    );
}

#[test]
fn hook_file_lists_skip_files_that_are_not_descriptions() {
    let dir = tree("hook");
    let files = [
        "apis/orders.yaml",
        "apis/retry-policy.yaml",
        "apis/notes.yaml",
    ];
    let mut args = vec!["check", "--skip-non-descriptions", "--format", "json"];
    args.extend(files);
    let run = retrylint_in(&dir, &args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(descriptions(&run), vec!["apis/orders.yaml"]);
    // Named without the flag, a policy is refused as a description.
    let run = retrylint_in(&dir, &["check", "apis/retry-policy.yaml"]);
    assert_eq!(run.code, 2);
    // Only files that are neither descriptions nor what one reads: nothing to do.
    let run = retrylint_in(
        &dir,
        &["check", "--skip-non-descriptions", "apis/notes.yaml"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    // A policy alone checks the descriptions beside it that read it (not the nested one).
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "--skip-non-descriptions",
            "--format",
            "json",
            "apis/notes.yaml",
            "apis/retry-policy.yaml",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(descriptions(&run), vec!["apis/orders.yaml"]);
}

#[test]
fn fingerprints_do_not_depend_on_how_a_path_is_typed() {
    for git in [false, true] {
        let dir = scratch(if git {
            "fingerprints-git"
        } else {
            "fingerprints"
        });
        if git {
            std::fs::create_dir(dir.join(".git")).unwrap();
        }
        write(&dir, "api/openapi.yaml", SPEC);
        write(&dir, "api/retry-policy.yaml", POLICY);
        std::fs::create_dir_all(dir.join("api/sub")).unwrap();
        let api = dir.join("api");
        let baseline = dir.join("baseline.json");
        let written = retrylint_in(
            &api,
            &[
                "check",
                "openapi.yaml",
                "--write-baseline",
                baseline.to_str().unwrap(),
            ],
        );
        assert_eq!(written.code, 0, "{}", written.stderr);
        let absolute = api.join("openapi.yaml");
        for spelling in [
            "./openapi.yaml",
            "sub/../openapi.yaml",
            absolute.to_str().unwrap(),
        ] {
            let run = retrylint_in(
                &api,
                &[
                    "check",
                    spelling,
                    "--baseline",
                    baseline.to_str().unwrap(),
                    "--fail-on",
                    "info",
                ],
            );
            assert_eq!(run.code, 0, "{spelling} (git: {git}): {}", run.stdout);
            assert!(run.stdout.contains("in the baseline"), "{}", run.stdout);
        }
        if git {
            // In a git work tree, from another folder of it too.
            let run = retrylint_in(
                &dir,
                &[
                    "check",
                    "api/openapi.yaml",
                    "--baseline",
                    baseline.to_str().unwrap(),
                    "--fail-on",
                    "info",
                ],
            );
            assert_eq!(run.code, 0, "{}", run.stdout);
            let recorded = std::fs::read_to_string(&baseline).unwrap();
            assert!(
                recorded.contains("\"file\": \"api/openapi.yaml\""),
                "{recorded}"
            );
        }
    }
}

#[test]
fn every_command_that_reads_a_description_reads_standard_input() {
    let spec = "fixtures/shop/openapi.yaml";
    let text = std::fs::read_to_string(root().join(spec)).unwrap();
    for command in [
        vec!["report"],
        vec!["plan"],
        vec!["simulate", "--operation", "createOrder", "--format", "json"],
    ] {
        let mut from_file = command.clone();
        from_file.insert(1, spec);
        let mut from_stdin = command.clone();
        from_stdin.splice(1..1, ["-", "--stdin-filename", spec]);
        let file = retrylint(&from_file);
        let stdin = retrylint_with(root(), &from_stdin, &[("NO_COLOR", "1")], &text);
        assert_eq!(stdin.code, file.code, "{command:?}: {}", stdin.stderr);
        assert!(
            stdin.stdout == file.stdout,
            "{command:?}: the outputs differ"
        );
    }
}

#[cfg(unix)]
#[test]
fn sarif_uris_are_percent_encoded_and_relative_to_their_root() {
    let dir = scratch("sarif-uris");
    let name = "a b#c%d é.yaml";
    write(&dir, &format!("api v1/{name}"), SPEC);
    write(&dir, "api v1/retry-policy.yaml", POLICY);
    let run = retrylint_in(
        &dir,
        &["check", &format!("api v1/{name}"), "--format", "sarif"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(common::sarif_errors(&run.stdout).is_empty());
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    let base = log["runs"][0]["originalUriBaseIds"]["ROOT"]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(base, format!("file://{}/", dir.display()));
    let uris: Vec<&Value> = log["runs"][0]["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["location"])
        .collect();
    assert!(
        uris.iter().any(|u| u["uri"] == "api%20v1/a%20b%23c%25d%20%C3%A9.yaml" && u["uriBaseId"] == "ROOT"),
        "{uris:?}"
    );
    // Relative to --sarif-root instead; a file outside the root gets an absolute URI.
    let run = retrylint_in(
        &dir,
        &[
            "check",
            &format!("api v1/{name}"),
            "--format",
            "sarif",
            "--sarif-root",
            "api v1",
        ],
    );
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    let first = &log["runs"][0]["artifacts"][0]["location"];
    assert_eq!(first["uri"], "a%20b%23c%25d%20%C3%A9.yaml", "{first}");
    let elsewhere = scratch("sarif-elsewhere");
    let run = retrylint_in(
        &elsewhere,
        &[
            "check",
            dir.join("api v1").join(name).to_str().unwrap(),
            "--format",
            "sarif",
        ],
    );
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    let first = &log["runs"][0]["artifacts"][0]["location"];
    assert!(first["uriBaseId"].is_null());
    assert!(
        first["uri"].as_str().unwrap().starts_with("file:///")
            && first["uri"]
                .as_str()
                .unwrap()
                .ends_with("/api%20v1/a%20b%23c%25d%20%C3%A9.yaml"),
        "{first}"
    );
}
