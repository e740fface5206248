//! Reviewing a pull request that changes mesh, gateway or policy files, through the
//! binary on git repositories: each side of `check --base` and `diff` reads its own `-p`
//! files, a path only one side has is a note and not an error, and the Markdown comment
//! starts with its marker, lists errors first and links places only where asked.

use crate::common;

use std::path::{Path, PathBuf};

use common::{have_git, outside_code_spans, retrylint_in, scratch, virtual_service};
use serde_json::Value;

const MARKER: &str = "<!-- retrylint-comment -->";

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn commit(dir: &Path, message: &str) {
    common::git(dir, &["add", "-A"]);
    common::git(dir, &["commit", "-q", "-m", message]);
}

/// A repository whose first commit holds the shop's description alone.
fn shop_repository(name: &str) -> PathBuf {
    let dir = scratch(name);
    common::git(&dir, &["init", "-q", "-b", "main"]);
    common::copy_fixture("fixtures/shop/openapi.yaml", &dir, "openapi.yaml");
    commit(&dir, "base");
    dir
}

/// `(rule, file)` of the new or fixed findings of a diff's JSON.
fn findings(doc: &Value, which: &str) -> Vec<(String, String)> {
    doc["findings"][which]
        .as_array()
        .unwrap_or_else(|| panic!("no {which} findings in {doc}"))
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                common::finding_files(f)
                    .first()
                    .copied()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect()
}

fn json(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: not JSON\n{}", run.transcript()))
}

/// `check openapi.yaml -p deploy --host shop --format json ARGS…` in `dir`, ending with
/// `code`: the run and its document.
fn check_deploy(dir: &Path, args: &[&str], code: i32) -> (common::Run, Value) {
    let base = ["check", "openapi.yaml", "-p", "deploy", "--host", "shop"];
    let run = retrylint_in(dir, &[&base[..], args, &["--format", "json"]].concat());
    assert_eq!(run.code, code, "{args:?}: {}", run.transcript());
    let doc = json(&run);
    (run, doc)
}

fn unprotected_in(list: &[(String, String)], file: &str) -> usize {
    list.iter()
        .filter(|(rule, f)| rule == "unprotected-write-retry" && f == file)
        .count()
}

#[test]
fn a_pull_request_adding_deploy_reports_its_virtual_service_as_new() {
    if !have_git() {
        return;
    }
    let dir = shop_repository("pr-adds-deploy");
    // The change adds deploy/ with a VirtualService retrying every write on 5xx.
    write(&dir, "deploy/shop.yaml", &virtual_service(3));
    commit(&dir, "add deploy");
    for p in ["deploy", "deploy/shop.yaml"] {
        let base = ["check", "openapi.yaml", "-p", p, "--host", "shop"];
        let args = [&base[..], &["--base", "HEAD~1", "--format", "json"]].concat();
        let run = retrylint_in(&dir, &args);
        assert_eq!(run.code, 1, "{p}: {}", run.transcript());
        let note = format!(
            "note: `{p}` does not exist at HEAD~1: the base has no such policy or layer file"
        );
        assert!(run.stderr.contains(&note), "{}", run.stderr);
        let doc = json(&run);
        let new = findings(&doc, "new");
        assert_eq!(unprotected_in(&new, "deploy/shop.yaml"), 3, "{new:?}");
        assert!(findings(&doc, "fixed").is_empty(), "{doc}");
        assert_eq!(doc["notes"][0], note.trim_start_matches("note: "));
        // As the Action runs it: the comment is written and says why, with no stderr.
        let args = [
            &base[..],
            &["--base", "HEAD~1", "--format", "markdown", "-q"],
        ]
        .concat();
        let run = retrylint_in(&dir, &args);
        assert_eq!(run.code, 1, "{}", run.transcript());
        assert!(run.stderr.is_empty(), "{}", run.stderr);
        assert!(
            run.stdout
                .starts_with(&format!("{MARKER}\n## retrylint diff\n"))
        );
        assert!(
            run.stdout.contains("> **Note:** \\`deploy"),
            "{}",
            run.stdout
        );
        let errors = run.stdout.find("### New errors").expect("new errors");
        assert!(run.stdout[errors..].contains("`unprotected-write-retry`"));
        assert!(!run.stdout.contains("Fixed findings"), "{}", run.stdout);
    }
    // A -p file outside the repository has no counterpart at the revision.
    let outside = scratch("pr-adds-deploy-outside").join("shop.yaml");
    std::fs::write(&outside, virtual_service(3)).unwrap();
    let outside = outside.to_str().unwrap();
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "-p",
            outside,
            "--host",
            "shop",
            "--base",
            "HEAD~1",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains(&format!(
            "note: `{outside}` lies outside the git repository: the base has no such policy or layer file (name the base's with --base-policy)"
        )),
        "{}",
        run.stderr
    );
    // A -p path on neither side is still an input error.
    let run = retrylint_in(
        &dir,
        &["check", "openapi.yaml", "-p", "mesh", "--base", "HEAD~1"],
    );
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains("cannot read `mesh`"), "{}", run.stderr);
}

#[test]
fn a_pull_request_changing_or_removing_a_layer_file_compares_each_side_s_own() {
    if !have_git() {
        return;
    }
    let dir = shop_repository("pr-changes-layer");
    write(&dir, "deploy/shop.yaml", &virtual_service(0));
    commit(&dir, "no retries");
    write(&dir, "deploy/shop.yaml", &virtual_service(3));
    commit(&dir, "retry on 5xx");
    let (run, doc) = check_deploy(&dir, &["--base", "HEAD~1"], 1);
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
    assert_eq!(
        unprotected_in(&findings(&doc, "new"), "deploy/shop.yaml"),
        3
    );
    assert_eq!(doc["notes"], serde_json::json!([]));
    // The next change deletes the layer: the base has it, the work tree does not.
    std::fs::remove_dir_all(dir.join("deploy")).unwrap();
    commit(&dir, "remove the mesh routes");
    let (run, doc) = check_deploy(&dir, &["--base", "HEAD~1"], 0);
    assert!(
        run.stderr.contains(
            "note: `deploy` does not exist in the work tree: the head has no such policy or layer file; the base reads it at HEAD~1"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(
        unprotected_in(&findings(&doc, "fixed"), "HEAD~1:deploy/shop.yaml"),
        3,
        "{doc}"
    );
    assert!(findings(&doc, "new").is_empty(), "{doc}");
}

#[test]
fn base_policy_names_what_the_base_of_check_base_reads() {
    if !have_git() {
        return;
    }
    let dir = shop_repository("pr-base-policy");
    write(&dir, "deploy/shop.yaml", &virtual_service(3));
    commit(&dir, "add deploy");
    // Routes kept out of the repository stand for the base's: the base reads them, not
    // the revision's (which has none). Findings in files of other names are new on one
    // side and fixed on the other.
    write(&dir, "previous/shop.yaml", &virtual_service(3));
    let base_policy = |files| ["--base", "HEAD~1", "--base-policy", files];
    let (run, doc) = check_deploy(&dir, &base_policy("previous"), 1);
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
    assert_eq!(
        unprotected_in(&findings(&doc, "fixed"), "previous/shop.yaml"),
        3,
        "{doc}"
    );
    // Given the head's own files, the base is the head: nothing new, nothing fixed.
    let (_, doc) = check_deploy(&dir, &base_policy("deploy"), 0);
    assert!(findings(&doc, "new").is_empty(), "{doc}");
    assert!(findings(&doc, "fixed").is_empty(), "{doc}");
    // It means nothing without --base.
    let run = retrylint_in(
        &dir,
        &["check", "openapi.yaml", "--base-policy", "previous"],
    );
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(run.stderr.contains("--base"), "{}", run.stderr);
}

#[test]
fn diff_reads_each_description_s_own_layer_files() {
    let dir = scratch("pr-diff-own-files");
    common::copy_fixture("fixtures/shop/openapi.yaml", &dir, "old/openapi.yaml");
    common::copy_fixture("fixtures/shop/openapi.yaml", &dir, "new/openapi.yaml");
    write(&dir, "new/deploy/shop.yaml", &virtual_service(3));
    // `diff old/openapi.yaml new/openapi.yaml --host shop ARGS…`, ending with `code`.
    let diff = |args: &[&str], code: i32| {
        let base = [
            "diff",
            "old/openapi.yaml",
            "new/openapi.yaml",
            "--host",
            "shop",
        ];
        let run = retrylint_in(&dir, &[&base[..], args].concat());
        assert_eq!(run.code, code, "{args:?}: {}", run.transcript());
        run
    };
    let new_deploy = ["-p", "new/deploy", "--format", "json"];
    // A new VirtualService: its findings are new, never fixed.
    let run = diff(&new_deploy, 1);
    let doc = json(&run);
    assert_eq!(
        unprotected_in(&findings(&doc, "new"), "new/deploy/shop.yaml"),
        3
    );
    assert!(findings(&doc, "fixed").is_empty(), "{doc}");
    assert!(
        run.stderr.contains(
            "note: `new/deploy` has no counterpart `old/deploy` beside the base description"
        ),
        "{}",
        run.stderr
    );
    let text = diff(&["-p", "new/deploy"], 1);
    assert!(!text.stdout.contains("Fixed findings"), "{}", text.stdout);
    // The base's own routes retry too: nothing is new.
    write(&dir, "old/deploy/shop.yaml", &virtual_service(3));
    assert!(findings(&json(&diff(&new_deploy, 0)), "new").is_empty());
    // The head stops retrying: the base's findings are fixed, read from its own file.
    write(&dir, "new/deploy/shop.yaml", &virtual_service(0));
    let doc = json(&diff(&new_deploy, 0));
    assert_eq!(
        unprotected_in(&findings(&doc, "fixed"), "old/deploy/shop.yaml"),
        3,
        "{doc}"
    );
    // A -p path outside the head's folder has no counterpart: the base reads none.
    write(&dir, "mesh/shop.yaml", &virtual_service(3));
    let run = diff(&["-p", "mesh", "--format", "json"], 1);
    assert!(
        run.stderr
            .contains("note: `mesh` lies outside `new`, where the head description stands"),
        "{}",
        run.stderr
    );
    assert_eq!(
        unprotected_in(&findings(&json(&run), "new"), "mesh/shop.yaml"),
        3
    );
    // --base-policy names the base's files instead.
    diff(&["-p", "mesh", "--base-policy", "mesh"], 0);
}

#[test]
fn diff_of_a_base_checked_out_elsewhere_reads_its_files_there() {
    // `git worktree add ../base main` beside the work tree: the descriptions' paths end
    // alike, so `-p deploy` of the head is `base/deploy` for the base.
    let dir = scratch("pr-diff-worktree");
    common::copy_fixture("fixtures/shop/openapi.yaml", &dir, "head/api/openapi.yaml");
    common::copy_fixture("fixtures/shop/openapi.yaml", &dir, "base/api/openapi.yaml");
    write(&dir, "head/deploy/shop.yaml", &virtual_service(3));
    write(&dir, "base/deploy/shop.yaml", &virtual_service(3));
    let run = retrylint_in(
        &dir.join("head"),
        &[
            "diff",
            "../base/api/openapi.yaml",
            "api/openapi.yaml",
            "-p",
            "deploy",
            "--host",
            "shop",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(findings(&json(&run), "new").is_empty());
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
}

const LINKS: &str = "https://github.com/o/r/blob/0123abc";
const RULE_PAGES: &str = "https://github.com/retrylint/retrylint/blob/main/rules/";

/// The targets of the Markdown links of a comment (outside code spans, where a reader's
/// Markdown finds them).
fn link_targets(markdown: &str) -> Vec<String> {
    let outside = outside_code_spans(markdown);
    outside
        .match_indices("](")
        .map(|(i, _)| {
            let rest = &outside[i + 2..];
            rest[..rest.find(')').unwrap_or(rest.len())].to_string()
        })
        .collect()
}

/// What every comment holds: the marker as its first line and nowhere else, every link
/// under the prefix (or a rule's page) and inert, and no HTML comment of a description's.
fn assert_inert(markdown: &str) {
    assert_eq!(markdown.lines().next(), Some(MARKER), "{markdown}");
    assert_eq!(markdown.lines().filter(|l| *l == MARKER).count(), 1);
    let outside = outside_code_spans(markdown);
    assert!(!outside[MARKER.len()..].contains("<!--"), "{outside}");
    assert!(!outside.contains("javascript:"), "{outside}");
    for target in link_targets(markdown) {
        assert!(
            target.starts_with(&format!("{LINKS}/")) || target.starts_with(RULE_PAGES),
            "a link to {target} in\n{markdown}"
        );
        assert!(
            !target.contains(['(', '<', '`', ' ', '"', '\'']),
            "{target}"
        );
    }
}

#[test]
fn the_comment_is_marked_lists_errors_first_and_links_places_when_asked() {
    let spec = "fixtures/shop/openapi.yaml";
    let run = common::retrylint(&[
        "check",
        spec,
        "--format",
        "markdown",
        "--source-links",
        LINKS,
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let text = &run.stdout;
    assert_inert(text);
    let last_error = text.rfind("- **error**").expect("errors");
    let first_warning = text.find("- **warning**").expect("warnings");
    assert!(last_error < first_warning);
    assert!(!text[..last_error].contains("<details>"), "{text}");
    assert!(text.contains(&format!(
        "at [`fixtures/shop/retry-policy.yaml:14`]({LINKS}/fixtures/shop/retry-policy.yaml#L14): "
    )));
    assert!(link_targets(text).iter().any(|t| t.starts_with(LINKS)));
    // Without the option, places are plain code spans as before.
    let plain = common::retrylint(&["check", spec, "--format", "markdown"]);
    assert!(
        plain
            .stdout
            .contains("at `fixtures/shop/retry-policy.yaml:14`: ")
    );
    assert!(!plain.stdout.contains(LINKS));
    // Only an http(s) prefix is taken, by every command that writes the comment.
    for url in [
        "javascript:alert(1)",
        "ftp://e.example/x",
        "https://e.example/a b",
    ] {
        for args in [
            &["check", spec, "--format", "markdown"][..],
            &["check", spec, "--base", "HEAD", "--format", "markdown"][..],
            &["diff", spec, spec, "--format", "markdown"][..],
        ] {
            let run = common::retrylint(&[args, &["--source-links", url]].concat());
            assert_eq!(run.code, 2, "{args:?} {url}: {}", run.transcript());
            assert!(run.stderr.contains("--source-links"), "{}", run.stderr);
            assert!(run.stdout.is_empty());
        }
    }
}

/// An OpenAPI description whose one write's path and operationId try to end a link, a
/// code span and the comment's HTML.
const HOSTILE_SPEC: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  \"/a](javascript:alert(1))`<!--\":\n    post:\n      operationId: \"op](javascript:alert(2))``<!-- x -->\"\n      responses: {'201': {description: ok}}\n";
const HOSTILE_NAME: &str = "v](javascript:alert(3))`<!--.yaml";

#[test]
fn hostile_names_stay_inert_in_every_comment() {
    if !have_git() {
        return;
    }
    let dir = scratch("pr-hostile");
    common::git(&dir, &["init", "-q", "-b", "main"]);
    write(&dir, "openapi.yaml", HOSTILE_SPEC);
    write(&dir, "deploy/old.yaml", &virtual_service(3));
    commit(&dir, "base");
    std::fs::remove_file(dir.join("deploy/old.yaml")).unwrap();
    write(&dir, &format!("deploy/{HOSTILE_NAME}"), &virtual_service(3));
    commit(&dir, "rename the routes");
    let with = |args: &[&str]| {
        let common = ["-p", "deploy", "--host", "shop", "--format", "markdown"];
        let run = retrylint_in(
            &dir,
            &[args, &common[..], &["--source-links", LINKS]].concat(),
        );
        assert_eq!(run.code, 1, "{args:?}: {}", run.transcript());
        assert_inert(&run.stdout);
        run.stdout
    };
    let check = with(&["check", "openapi.yaml"]);
    assert!(check.contains("### Errors"), "{check}");
    let base = with(&["check", "openapi.yaml", "--base", "HEAD~1"]);
    // The head's place is linked, percent-encoded; the base's stays plain text.
    let encoded = "deploy/v%5D%28javascript%3Aalert%283%29%29%60%3C%21--.yaml#L8";
    assert!(
        link_targets(&base).contains(&format!("{LINKS}/{encoded}")),
        "{base}"
    );
    assert!(base.contains("Fixed findings"), "{base}");
    assert!(base.contains("at `HEAD~1:deploy/old.yaml:8:28`"), "{base}");
    assert!(!link_targets(&base).iter().any(|t| t.contains("HEAD")));
    // diff of two copies, the head's description under a hostile name too.
    write(&dir, "old/openapi.yaml", HOSTILE_SPEC);
    write(&dir, &format!("new/{HOSTILE_NAME}"), HOSTILE_SPEC);
    write(
        &dir,
        &format!("new/deploy/{HOSTILE_NAME}"),
        &virtual_service(3),
    );
    let run = retrylint_in(
        &dir,
        &[
            "diff",
            "old/openapi.yaml",
            &format!("new/{HOSTILE_NAME}"),
            "-p",
            "new/deploy",
            "--host",
            "shop",
            "--format",
            "markdown",
            "--source-links",
            LINKS,
        ],
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert_inert(&run.stdout);
    assert!(run.stdout.contains("### New errors"), "{}", run.stdout);
    assert!(!run.stdout.contains("Fixed findings"), "{}", run.stdout);
}
