//! A run that exits 0 has looked at everything it was pointed at: a folder search takes
//! every file that may be a description (and refuses, with its reason, one it cannot
//! read), a file git tracks is searched whatever a `.gitignore` says, and a `-p` folder
//! reads Kubernetes lists and the files a `.gitignore` names, and names what lies deeper
//! than it walks.

use crate::common;

use std::path::Path;

use common::{retrylint_in, scratch};

/// A description with one write and no key: each one checked gives one finding.
fn description(head: &str) -> String {
    format!(
        "{head}\ninfo: {{title: t, version: '1'}}\npaths:\n  /orders:\n    post:\n      operationId: createOrder\n      responses: {{'201': {{description: ok}}}}\n"
    )
}

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The files `check --format concise --show-infos` reports findings in.
fn checked_files(stdout: &str) -> Vec<String> {
    let mut files: Vec<String> = stdout
        .lines()
        .filter_map(|line| line.split_once(':').map(|(file, _)| file.to_string()))
        .filter(|file| file.ends_with(".yaml") || file.ends_with(".json"))
        .collect();
    files.sort();
    files.dedup();
    files
}

#[test]
fn a_folder_search_reads_the_top_level_as_the_loaders_do() {
    let dir = scratch("skipped-sniff");
    write(&dir, "specs/spaced.yaml", description("openapi : 3.0.3"));
    write(
        &dir,
        "specs/flow.yaml",
        "{openapi: 3.0.3, info: {title: t, version: '1'}, paths: {/orders: {post: {responses: {'201': {description: ok}}}}}}\n",
    );
    write(
        &dir,
        "specs/explicit.yaml",
        description("? openapi\n: 3.0.3"),
    );
    write(
        &dir,
        "specs/escaped.json",
        r#"{"info": {"title": "t", "version": "1"}, "open\u0061pi": "3.0.3", "paths": {"/orders": {"post": {"responses": {"201": {"description": "ok"}}}}}}"#,
    );
    // Not descriptions: a nested key, a Helm template.
    write(&dir, "specs/values.yaml", "service:\n  openapi: 3.0.3\n");
    write(
        &dir,
        "specs/chart.yaml",
        "{{- if .Values.x }}\nkind: x\n{{- end }}\n",
    );
    let run = retrylint_in(
        &dir,
        &["check", "specs", "--format", "concise", "--show-infos"],
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(
        checked_files(&run.stdout),
        [
            "specs/escaped.json",
            "specs/explicit.yaml",
            "specs/flow.yaml",
            "specs/spaced.yaml"
        ],
        "{}",
        run.transcript()
    );
    // The same through a glob.
    let glob = retrylint_in(
        &dir,
        &[
            "check",
            "specs/*.yaml",
            "--format",
            "concise",
            "--show-infos",
        ],
    );
    assert_eq!(
        checked_files(&glob.stdout).len(),
        3,
        "{}",
        glob.transcript()
    );
}

#[test]
fn a_description_a_folder_search_cannot_read_is_refused_not_skipped() {
    let dir = scratch("skipped-unreadable");
    write(&dir, "specs/good.yaml", description("openapi: 3.0.3"));
    // Latin-1 text: not UTF-8, but a description all the same.
    let mut latin1 = description("openapi: 3.0.3").into_bytes();
    latin1.extend_from_slice(b"# caf\xe9\n");
    write(&dir, "specs/latin1.yaml", &latin1);
    let run = retrylint_in(&dir, &["check", "specs"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("`specs/latin1.yaml` is not UTF-8 text"),
        "{}",
        run.stderr
    );
    std::fs::remove_file(dir.join("specs/latin1.yaml")).unwrap();
    // Over --max-file-size: refused by its size, not left out.
    let padding = "#".repeat(5_000);
    write(
        &dir,
        "specs/large.yaml",
        format!("{}{padding}\n", description("openapi: 3.0.3")),
    );
    let run = retrylint_in(&dir, &["check", "specs", "--max-file-size", "2000"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("`specs/large.yaml` is 5150 bytes, over the limit of 2000 bytes"),
        "{}",
        run.stderr
    );
    // A large file that is not a description stays out of the search.
    std::fs::remove_file(dir.join("specs/large.yaml")).unwrap();
    write(&dir, "specs/data.json", format!("[\"{padding}\"]"));
    let run = retrylint_in(&dir, &["check", "specs", "--max-file-size", "2000"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
}

#[test]
fn a_description_git_tracks_is_searched_whatever_gitignore_says() {
    let dir = scratch("skipped-ignored");
    common::git(&dir, &["init", "-q"]);
    write(&dir, "api/public.yaml", description("openapi: 3.0.3"));
    write(&dir, "api/internal.yaml", description("openapi: 3.0.3"));
    write(
        &dir,
        "api/build/generated.yaml",
        description("openapi: 3.0.3"),
    );
    common::git(&dir, &["add", "api/public.yaml", "api/internal.yaml"]);
    common::git(&dir, &["commit", "-q", "-m", "base"]);
    // A change hides a tracked description; an untracked build output stays ignored.
    write(&dir, ".gitignore", "internal.yaml\nbuild/\n");
    write(&dir, "api/.ignore", "public.yaml\n");
    common::git(&dir, &["add", ".gitignore", "api/.ignore"]);
    common::git(&dir, &["commit", "-q", "-m", "hide"]);
    for args in [
        &["check", ".", "--format", "concise", "--show-infos"][..],
        &["check", "api", "--format", "concise", "--show-infos"],
        &["check", "api/*.yaml", "--format", "concise", "--show-infos"],
    ] {
        let run = retrylint_in(&dir, args);
        assert_eq!(run.code, 0, "{}", run.transcript());
        assert_eq!(
            checked_files(&run.stdout),
            ["api/internal.yaml", "api/public.yaml"],
            "retrylint {args:?}: {}",
            run.transcript()
        );
    }
    // From a subfolder too.
    let run = retrylint_in(
        &dir.join("api"),
        &["check", ".", "--format", "concise", "--show-infos"],
    );
    assert_eq!(
        checked_files(&run.stdout),
        ["internal.yaml", "public.yaml"],
        "{}",
        run.transcript()
    );
}

/// An Istio `VirtualService` that retries every request of host `shop` 5 times.
const RETRYING_ROUTE: &str = "metadata: {name: shop}\n    spec:\n      hosts: [shop]\n      http:\n      - route: [{destination: {host: shop}}]\n        retries: {attempts: 5, retryOn: 5xx}\n";

#[test]
fn a_kubernetes_list_in_a_p_folder_is_read_item_by_item() {
    let dir = scratch("skipped-list");
    write(&dir, "openapi.yaml", description("openapi: 3.0.3"));
    // `kubectl get virtualservices -o yaml` writes a typed list whose items name their
    // kind; a hand-written `VirtualServiceList` may leave it to the list.
    write(
        &dir,
        "mesh/exported.yaml",
        format!(
            "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: networking.istio.io/v1\n    kind: VirtualService\n    {RETRYING_ROUTE}"
        ),
    );
    write(
        &dir,
        "typed/list.yaml",
        format!(
            "apiVersion: networking.istio.io/v1\nkind: VirtualServiceList\nitems:\n  - {RETRYING_ROUTE}"
        ),
    );
    for folder in ["mesh", "typed", "mesh/exported.yaml"] {
        let run = retrylint_in(
            &dir,
            &[
                "check",
                "openapi.yaml",
                "-p",
                folder,
                "--host",
                "shop",
                "--format",
                "json",
            ],
        );
        assert_eq!(run.code, 1, "-p {folder}: {}", run.transcript());
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let rules: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["rule"].as_str())
            .collect();
        assert!(
            rules.contains(&"unprotected-write-retry"),
            "-p {folder}: {rules:?}"
        );
        // The finding points into the item.
        let pointers: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["location"]["pointer"].as_str())
            .collect();
        assert!(
            pointers
                .iter()
                .any(|p| p.starts_with("/0/items/0/spec/http/0/retries")),
            "-p {folder}: {pointers:?}\n{}",
            run.stdout
        );
    }
}

#[test]
fn a_p_folder_reads_the_files_gitignore_names() {
    let dir = scratch("skipped-gitignored");
    write(&dir, "openapi.yaml", description("openapi: 3.0.3"));
    // Generated manifests are often ignored by git, yet they are what the mesh runs.
    write(&dir, ".gitignore", "mesh/rendered.yaml\n");
    write(
        &dir,
        "mesh/rendered.yaml",
        format!(
            "apiVersion: networking.istio.io/v1\nkind: VirtualService\n{}",
            RETRYING_ROUTE.replace("\n    ", "\n")
        ),
    );
    common::git(&dir, &["init", "-q", "."]);
    let run = retrylint_in(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "-p",
            "mesh",
            "--host",
            "shop",
            "--format",
            "concise",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("mesh/rendered.yaml:") && l.contains("unprotected-write-retry")),
        "{}",
        run.transcript()
    );
}

#[test]
fn a_layer_file_deeper_than_the_walk_is_named_not_skipped() {
    let dir = scratch("skipped-deep");
    write(&dir, "openapi.yaml", description("openapi: 3.0.3"));
    let deep = (0..20)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    write(
        &dir,
        &format!("mesh/{deep}/route.yaml"),
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: shop}\nspec:\n  hosts: [shop]\n  http:\n  - route: [{destination: {host: shop}}]\n    retries: {attempts: 5, retryOn: 5xx}\n",
    );
    write(
        &dir,
        "mesh/shallow.yaml",
        format!(
            "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: networking.istio.io/v1\n    kind: VirtualService\n    {RETRYING_ROUTE}"
        ),
    );
    let run = retrylint_in(&dir, &["check", "openapi.yaml", "-p", "mesh"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("route.yaml` lies more than 16 folders deep"),
        "{}",
        run.stderr
    );
}
