//! Hostile descriptions and policies, sized by their callers: the inputs that once took
//! gigabytes or minutes. Shared by `benches/hostile.rs` and `tests/cli/limits.rs`.

#![allow(dead_code)]

const HEAD: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n";

/// A string of `len` bytes aliased `aliases` times.
pub(crate) fn long_string_aliased(len: usize, aliases: usize) -> String {
    let mut text = format!(
        "{HEAD}paths: {{}}\nx-big: &s \"{}\"\nx-list:\n",
        "x".repeat(len)
    );
    for _ in 0..aliases {
        text.push_str("  - *s\n");
    }
    text
}

/// `depth` anchored mappings, each inside the previous one with `pad` bytes of text, and
/// no alias at all.
pub(crate) fn nested_anchors(depth: usize, pad: usize) -> String {
    let mut text = format!("{HEAD}paths: {{}}\nx-nested:\n");
    for i in 0..depth {
        let indent = " ".repeat(i + 1);
        text.push_str(&format!("{indent}k{i}: &a{i}\n"));
        text.push_str(&format!("{indent} pad: \"{}\"\n", "p".repeat(pad)));
    }
    text.push_str(&format!("{} end: 1\n", " ".repeat(depth)));
    text
}

/// A `<<` merge of a mapping of `keys` keys into a mapping of `keys` other keys.
pub(crate) fn large_merge(keys: usize) -> String {
    let mut text = format!("{HEAD}paths: {{}}\nx-base: &b\n");
    for i in 0..keys {
        text.push_str(&format!("  b{i}: {i}\n"));
    }
    text.push_str("x-merged:\n  <<: *b\n");
    for i in 0..keys {
        text.push_str(&format!("  m{i}: {i}\n"));
    }
    text
}

/// One path item of `size` bytes reached through `$ref` from `paths` paths.
pub(crate) fn reused_path_item(paths: usize, size: usize) -> String {
    let mut text = format!("{HEAD}paths:\n");
    for i in 0..paths {
        text.push_str(&format!("  /p{i}: {{$ref: '#/x-shared'}}\n"));
    }
    text.push_str("x-shared:\n  post:\n    description: \"");
    text.push_str(&"d".repeat(size));
    text.push_str("\"\n    responses: {'200': {description: ok}}\n");
    text
}

/// `count` header parameters on the path and `count` others on its operation.
pub(crate) fn many_header_parameters(count: usize) -> String {
    let mut text = format!("{HEAD}paths:\n  /a:\n    parameters:\n");
    for i in 0..count {
        text.push_str(&format!("      - {{name: X-P{i}, in: header}}\n"));
    }
    text.push_str("    get:\n      responses: {'200': {description: ok}}\n      parameters:\n");
    for i in 0..count {
        text.push_str(&format!("        - {{name: X-O{i}, in: header}}\n"));
    }
    text
}

/// A list nested `depth` levels deep, in JSON or YAML flow style.
pub(crate) fn deep_list(depth: usize, json: bool) -> String {
    let (open, close) = ("[".repeat(depth), "]".repeat(depth));
    if json {
        format!(
            "{{\"openapi\": \"3.0.3\", \"info\": {{\"title\": \"t\", \"version\": \"1\"}}, \"paths\": {{}}, \"x\": {open}{close}}}"
        )
    } else {
        format!("{HEAD}paths: {{}}\nx: {open}{close}\n")
    }
}

/// `n` paths `/rI/x` with a GET (operationId `opI`) and a POST each; with `comments`, a
/// suppression comment above each POST.
pub(crate) fn many_operations(n: usize, comments: bool) -> String {
    let mut text = format!("{HEAD}paths:\n");
    for i in 0..n {
        text.push_str(&format!("  /r{i}/x:\n    get:\n      operationId: op{i}\n      responses: {{'200': {{description: ok}}}}\n"));
        if comments {
            text.push_str(
                "    # retrylint: ignore[unprotected-write-retry] deduplicated by the order number\n",
            );
        }
        text.push_str("    post:\n      responses: {'200': {description: ok}}\n");
    }
    text
}

/// `n` reads `opI` and `n` writes whose responses link to `opI-by-id`, which no operation
/// has: every link is broken, and each is close to an operationId.
pub(crate) fn broken_links(n: usize) -> String {
    let mut text = format!("{HEAD}paths:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  /r{i}/x:\n    get:\n      operationId: op{i}\n      responses: {{'200': {{description: ok}}}}\n    post:\n      responses:\n        '201':\n          description: ok\n          links: {{ read: {{ operationId: op{i}-by-id }} }}\n"
        ));
    }
    text
}

/// A policy with one glob `* /rI/*` for each of `n` paths.
pub(crate) fn glob_policy(n: usize) -> String {
    let mut policy = String::from("version: 1\ndefaults: {maxAttempts: 1}\noperations:\n");
    for i in 0..n {
        policy.push_str(&format!("  \"* /r{i}/*\": {{maxAttempts: 1}}\n"));
    }
    policy
}

/// A policy that retries every operation on 503 with a deadline and jitter.
pub(crate) const RETRY_POLICY: &str = "version: 1\ndefaults:\n  maxAttempts: 2\n  deadline: 5s\n  backoff: {base: 100ms, cap: 1s, jitter: full}\n  retryOn: [503]\n  onUnknownOutcome: fail\n";

/// A git repository in `dir` whose work tree holds a small `openapi.yaml` and a folder
/// `mesh/` with an Istio `VirtualService`, and the commit it returns: the same description beside a folder
/// `mesh/` of trees nested `depth` deep, each holding `fanout` copies of the one below (the
/// deepest, `fanout` copies of a small YAML file). A few kilobytes of objects stand for
/// `fanout`^`depth` files.
pub(crate) fn nested_trees_repository(
    dir: &std::path::Path,
    fanout: usize,
    depth: usize,
) -> String {
    let git = |args: &[&str], input: &str| git_with_input(dir, args, input);
    let description = format!("{HEAD}paths: {{}}\n");
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("mesh")).expect("a scratch folder");
    std::fs::write(dir.join("openapi.yaml"), &description).expect("a scratch file");
    std::fs::write(
        dir.join("mesh/shop.yaml"),
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: shop}\nspec:\n  hosts: [shop]\n  http:\n  - route: [{destination: {host: shop}}]\n",
    )
    .expect("a scratch file");
    git(&["init", "-q"], "");
    git(&["add", "."], "");
    git(&["commit", "-q", "-m", "head"], "");
    let leaf = git(&["hash-object", "-w", "--stdin"], "replicas: 1\n");
    let mut tree = git(
        &["mktree"],
        &(0..fanout)
            .map(|i| format!("100644 blob {leaf}\tf{i}.yaml\n"))
            .collect::<String>(),
    );
    for _ in 0..depth {
        tree = git(
            &["mktree"],
            &(0..fanout)
                .map(|i| format!("040000 tree {tree}\td{i}\n"))
                .collect::<String>(),
        );
    }
    let spec = git(&["hash-object", "-w", "--stdin"], &description);
    let top = git(
        &["mktree"],
        &format!("100644 blob {spec}\topenapi.yaml\n040000 tree {tree}\tmesh\n"),
    );
    git(&["commit-tree", &top, "-m", "nested"], "")
}

/// Runs git in `dir` with `input` on its standard input; its output, trimmed.
pub(crate) fn git_with_input(dir: &std::path::Path, args: &[&str], input: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).expect("git reads");
    }
    let out = child.wait_with_output().expect("git ends");
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// An Istio `VirtualService` whose name and whose one route's name are `len` characters
/// long, and whose route retries by the mesh's default: every finding about the mesh
/// names both, for every operation.
pub(crate) fn long_layer_names(len: usize) -> String {
    format!(
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {{name: {}}}\nspec:\n  http:\n  - name: {}\n    route: [{{destination: {{host: backend}}}}]\n",
        "n".repeat(len),
        "r".repeat(len)
    )
}

/// An Istio `VirtualService` serving `count` hosts `hI.example.com` (with `*.wI.example.com`
/// wildcards among them), each padded to `len` characters, none of them the service's.
pub(crate) fn many_layer_hosts(count: usize, len: usize) -> String {
    let mut text = String::from(
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: hosts}\nspec:\n  hosts:\n",
    );
    for i in 0..count {
        let host = if i % 2 == 0 {
            format!("h{i}.example.com")
        } else {
            format!("*.w{i}.example.com")
        };
        text.push_str(&format!(
            "  - {}{host}\n",
            "p".repeat(len.saturating_sub(host.len()))
        ));
    }
    text.push_str("  http:\n  - route: [{destination: {host: backend}}]\n");
    text
}

/// A policy naming `count` hosts of the service (`service.hosts`), each `sI.svc.cluster.local`.
pub(crate) fn many_service_hosts(count: usize) -> String {
    let mut text = String::from("version: 1\nservice:\n  hosts:\n");
    for i in 0..count {
        text.push_str(&format!("    - s{i}.prod.svc.cluster.local\n"));
    }
    text
}

/// `n` paths `/rI/x` with a GET and a POST each, and `bases` servers with base paths `/bI`.
pub(crate) fn operations_under_bases(n: usize, bases: usize) -> String {
    let mut text = format!("{HEAD}servers:\n");
    for i in 0..bases {
        text.push_str(&format!("  - url: https://api.example.com/b{i}\n"));
    }
    text.push_str(&many_operations(n, false)[HEAD.len()..]);
    text
}

/// An Istio `VirtualService` with one route of `count` match alternatives, none of which
/// takes a path of [`many_operations`]: regular expressions with `regex`, prefixes otherwise.
/// Binding tries each alternative after each base path, for each operation.
pub(crate) fn many_match_alternatives(count: usize, regex: bool) -> String {
    let mut text = String::from(
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: alternatives}\nspec:\n  http:\n  - match:\n",
    );
    for i in 0..count {
        if regex {
            text.push_str(&format!("    - uri: {{regex: '/z{i}/[a-z]+'}}\n"));
        } else {
            text.push_str(&format!("    - uri: {{prefix: /z{i}/}}\n"));
        }
    }
    text.push_str("    route: [{destination: {host: backend}}]\n");
    text
}
