//! `retrylint server`: the real binary driven as an editor drives it (see
//! `common::lsp`), its diagnostics compared with the command line's.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::lsp::{Client, RETRIED, actions_on, demo, insert_line, places, rules, uri};
use crate::common::{retrylint_in, scratch};

#[test]
fn the_demo_is_linted_as_the_command_line_lints_it_and_its_findings_can_be_suppressed() {
    let (dir, description, policy) = demo("server-demo");
    let text = std::fs::read_to_string(&description).expect("the demo");
    let cli = retrylint_in(&dir, &["check", "openapi.yaml", "--format", "json"]);
    let expected: BTreeMap<String, Vec<String>> = {
        let doc: Value = serde_json::from_str(&cli.stdout).expect("JSON output");
        let mut by_file: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for finding in doc["findings"].as_array().expect("findings") {
            let at = &finding["location"];
            by_file
                .entry(uri(&dir.join(at["file"].as_str().expect("a file"))))
                .or_default()
                .push(format!(
                    "{} {}:{}-{}:{}",
                    finding["rule"].as_str().expect("a rule"),
                    at["line"],
                    at["column"],
                    at["endLine"],
                    at["endColumn"]
                ));
        }
        for places in by_file.values_mut() {
            places.sort();
        }
        by_file
    };
    assert_eq!(
        expected.len(),
        2,
        "the demo has findings in both files: {expected:?}"
    );

    let mut client = Client::start(&dir, Value::Null);
    let file = client.open(&description, &text);
    let published = client.published(&file);
    let shown: BTreeMap<String, Vec<String>> = published
        .iter()
        .map(|(f, d)| (f.clone(), places(d)))
        .collect();
    assert_eq!(
        shown, expected,
        "the server's places are the command line's"
    );
    let payment = published[&file]
        .iter()
        .find(|d| d["code"] == "unknown-outcome-unhandled")
        .expect("the demo's warning on POST /orders/{orderId}/payments")
        .clone();
    assert_eq!(payment["source"], "retrylint");
    assert_eq!(payment["severity"], 2);
    assert!(
        payment["codeDescription"]["href"]
            .as_str()
            .is_some_and(|href| href.ends_with("rules/unknown-outcome-unhandled.md")),
        "{payment}"
    );
    let policy_uri = uri(&policy);
    assert!(
        rules(&published[&policy_uri]).contains(&"policy-matches-nothing"),
        "the policy's own findings are published to it"
    );

    // An edit that adds the operation a selector names fixes the policy's finding.
    let added = text.replacen(
        "paths:\n",
        "paths:\n  /order/{orderId}:\n    get:\n      responses:\n        '200': { description: ok }\n",
        1,
    );
    client.change(&file, 2, &added);
    let republished = client.published(&file);
    assert!(
        !rules(&republished[&policy_uri]).contains(&"policy-matches-nothing"),
        "{:?}",
        places(&republished[&policy_uri])
    );

    // The warning is still there, further down, with its actions.
    let (moved, actions) = actions_on(
        &mut client,
        &file,
        &republished[&file],
        "unknown-outcome-unhandled",
    );
    let start = &moved["range"]["start"];
    let line = start["line"].as_u64().expect("a line");
    assert_eq!(
        line,
        payment["range"]["start"]["line"].as_u64().expect("a line") + 4
    );

    // The hover on the operation's method key is what `retrylint plan` prints for it,
    // then where each value of its effective policy is written.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": file}, "position": {"line": line, "character": start["character"]}}),
    );
    let plan = retrylint_in(&dir, &["plan", "openapi.yaml", "--operation", "payOrder"]);
    let shown = hover["contents"]["value"].as_str().expect("Markdown");
    let sources = shown
        .strip_prefix(&format!("```text\n{}", plan.stdout))
        .unwrap_or_else(|| panic!("the hover starts with the plan:\n{shown}"));
    let policy_text = std::fs::read_to_string(dir.join("retry-policy.yaml")).expect("the policy");
    let retry_on_line = policy_text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("retryOn:"))
        .map(|(i, _)| i + 1)
        .nth(1)
        .expect("payOrder's own retryOn");
    assert!(
        sources.starts_with("  where the values come from:\n    maxAttempts: retry-policy.yaml:")
            && sources.contains(&format!(
                "\n    retryOn: retry-policy.yaml:{retry_on_line}:5\n"
            ))
            && !sources.contains("\n    backoff: "),
        "{sources}"
    );
    // On the path key: the plans of the path's operations (here its one POST).
    let path_line = added
        .lines()
        .position(|l| l == "  /orders/{orderId}/payments:")
        .expect("the path key");
    let on_path = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": file}, "position": {"line": path_line, "character": 4}}),
    );
    assert_eq!(on_path["contents"]["value"], hover["contents"]["value"]);

    // Suppress and explain.
    let titles: Vec<&str> = actions
        .as_array()
        .expect("actions")
        .iter()
        .filter_map(|a| a["title"].as_str())
        .collect();
    assert_eq!(
        titles,
        [
            "Suppress `unknown-outcome-unhandled` with a reason",
            "Explain `unknown-outcome-unhandled`"
        ]
    );
    let edits = &actions[0]["edit"]["changes"][&file];
    assert_eq!(edits.as_array().map(Vec::len), Some(1), "{edits}");
    let edit = &edits[0];
    assert_eq!(
        edit["range"]["start"],
        json!({"line": line, "character": 0})
    );
    assert_eq!(
        edit["newText"],
        "    # retrylint: ignore[unknown-outcome-unhandled] TODO: why this is safe\n"
    );
    let suppressed = insert_line(
        &added,
        line as usize,
        edit["newText"].as_str().unwrap_or(""),
    );
    client.change(&file, 3, &suppressed);
    let after = client.published(&file);
    assert!(
        !rules(&after[&file]).contains(&"unknown-outcome-unhandled"),
        "{:?}",
        places(&after[&file])
    );
    assert!(
        !rules(&after[&file])
            .iter()
            .any(|r| r.contains("suppression")),
        "the suppression has a reason and silences a finding: {:?}",
        places(&after[&file])
    );

    let command = &actions[1]["command"];
    assert_eq!(command["command"], "retrylint.explain");
    let page = client.request(
        "workspace/executeCommand",
        json!({"command": command["command"], "arguments": command["arguments"]}),
    );
    let explained = retrylint_in(&dir, &["explain", "unknown-outcome-unhandled"]);
    assert_eq!(page.as_str(), Some(explained.stdout.as_str()));
    assert!(
        client
            .notifications
            .iter()
            .any(|n| n["method"] == "window/showMessage"
                && n["params"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("rules/unknown-outcome-unhandled.md"))),
        "{:?}",
        client.notifications
    );
    assert_eq!(client.shut_down(), 0);
}

const POST: &str =
    "post:\n  operationId: createOrder\n  responses:\n    '201': {description: created}\n";

/// Every rule of every file's diagnostics.
fn all_rules(published: &BTreeMap<String, Vec<Value>>) -> Vec<String> {
    let mut all: Vec<String> = published
        .values()
        .flat_map(|d| rules(d).into_iter().map(str::to_string).collect::<Vec<_>>())
        .collect();
    all.sort();
    all
}

#[test]
fn a_change_to_a_referenced_file_or_to_the_policy_checks_the_description_again() {
    let dir = scratch("server-refs");
    let description = dir.join("openapi.yaml");
    let text = "openapi: 3.1.0\ninfo: {title: orders, version: '1'}\npaths:\n  /orders:\n    $ref: 'orders.yaml'\n";
    std::fs::write(&description, text).expect("written");
    std::fs::write(dir.join("orders.yaml"), POST).expect("written");
    std::fs::write(dir.join("retry-policy.yaml"), RETRIED).expect("written");
    let (orders, policy) = (dir.join("orders.yaml"), dir.join("retry-policy.yaml"));
    let write_retried = "unprotected-write-retry".to_string();

    let mut client = Client::start(&dir, Value::Null);
    let file = client.open(&description, text);
    let first = client.published(&file);
    assert!(all_rules(&first).contains(&write_retried), "{first:?}");
    assert!(
        rules(&first[&uri(&orders)]).contains(&"unknown-outcome-unhandled"),
        "a finding on the operation is published to the file that declares it: {first:?}"
    );

    // The referenced file, open and edited: the unsaved text is what is checked.
    let orders_uri = client.open(&orders, POST);
    client.published(&file);
    client.change(&orders_uri, 2, &POST.replace("post:", "get:"));
    let read = client.published(&file);
    assert!(!all_rules(&read).contains(&write_retried), "{read:?}");
    assert_eq!(
        read.get(&uri(&orders)).map(Vec::len),
        Some(0),
        "cleared: {read:?}"
    );

    // Closed unsaved: the file on disk counts again.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": orders_uri}}),
    );
    assert!(all_rules(&client.published(&file)).contains(&write_retried));

    // The policy, open and edited to stop retrying.
    let policy_uri = client.open(&policy, RETRIED);
    client.published(&file);
    client.change(
        &policy_uri,
        2,
        &RETRIED.replace("maxAttempts: 3", "maxAttempts: 1"),
    );
    let unretried = client.published(&file);
    assert!(
        !all_rules(&unretried).contains(&write_retried),
        "{unretried:?}"
    );
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": policy_uri}}),
    );
    assert!(all_rules(&client.published(&file)).contains(&write_retried));

    // A file changed on disk, as the editor's file watcher reports it.
    std::fs::write(&orders, POST.replace("post:", "get:")).expect("written");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&orders), "type": 2}]}),
    );
    assert!(!all_rules(&client.published(&file)).contains(&write_retried));
    assert_eq!(client.shut_down(), 0);
}

#[test]
fn broken_and_hostile_buffers_give_a_diagnostic_and_the_server_goes_on() {
    let dir = scratch("server-broken");
    let description = dir.join("openapi.yaml");
    let mut client = Client::start(&dir, Value::Null);
    let file = client.open(&description, "openapi: 3.1.0\npaths: [\n");
    let broken = &client.published(&file)[&file];
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert_eq!(broken[0]["severity"], 1);
    assert!(
        broken[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot be parsed")),
        "{broken:?}"
    );
    assert_eq!(broken[0]["range"]["start"]["line"], 2, "{broken:?}");

    let hostile = [
        (
            crate::hostile::long_string_aliased(100_000, 20_000),
            "expand",
        ),
        (crate::hostile::deep_list(100_000, false), "nest"),
    ];
    for (version, (text, said)) in (2..).zip(&hostile) {
        client.change(&file, version, text);
        let refused = &client.published(&file)[&file];
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(
            refused[0]["message"]
                .as_str()
                .is_some_and(|m| m.contains(said)),
            "{refused:?}"
        );
    }

    let valid = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n";
    client.change(&file, 9, valid);
    assert_eq!(client.published(&file)[&file], Vec::<Value>::new());
    assert_eq!(client.shut_down(), 0);
}

#[test]
fn a_buffer_over_the_size_limit_is_refused_with_a_diagnostic() {
    let dir = scratch("server-limit");
    let mut client = Client::start(&dir, json!({"maxFileSize": 300}));
    let text = format!(
        "openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\npaths: {{}}\nx-pad: '{}'\n",
        "x".repeat(300)
    );
    let file = client.open(&dir.join("openapi.yaml"), &text);
    let refused = &client.published(&file)[&file];
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("over the limit of 300 bytes")),
        "{refused:?}"
    );
    // Shut down, then gone without an exit: done all the same.
    assert_eq!(client.request("shutdown", Value::Null), Value::Null);
    assert_eq!(client.hang_up(), 0);
}

#[test]
fn only_the_latest_version_of_a_document_is_published() {
    let (dir, description, _) = demo("server-versions");
    let text = std::fs::read_to_string(&description).expect("the demo");
    let mut client = Client::start(&dir, Value::Null);
    let file = client.open(&description, &text);
    client.published(&file);
    client.publications.clear();
    // Typed faster than the server waits: each version supersedes the one before.
    for version in 2..=6 {
        client.change(&file, version, &format!("{text}# edit {version}\n"));
    }
    client.published(&file);
    let versions: Vec<&Value> = client
        .publications
        .iter()
        .filter(|(published, _)| *published == file)
        .map(|(_, version)| version)
        .collect();
    assert_eq!(versions, [&json!(6)], "{:?}", client.publications);
    assert_eq!(client.exit(), 1, "an exit without a shutdown is an error");
}

#[test]
fn a_layer_file_of_the_settings_is_checked_and_a_policy_selector_shows_its_matches() {
    use crate::common::orders;
    let dir = scratch("server-layers");
    let description = dir.join("openapi.yaml");
    let text = orders::description("orders", Some(orders::HEADER_KEY));
    std::fs::write(&description, &text).expect("written");
    std::fs::write(dir.join("retry-policy.yaml"), orders::POLICY).expect("written");
    let mesh = orders::mesh("orders");
    std::fs::write(dir.join("mesh.yaml"), &mesh).expect("written");
    let settings = json!({"policy": ["retry-policy.yaml", "mesh.yaml"]});
    let mut client = Client::start(&dir, settings);
    let file = client.open(&description, &text);
    let mesh_uri = uri(&dir.join("mesh.yaml"));
    let first = client.published(&file);
    assert!(
        rules(&first[&mesh_uri]).contains(&"layer-ignores-retry-after"),
        "{first:?}"
    );

    client.open(&dir.join("mesh.yaml"), &mesh);
    client.published(&file);
    client.change(&mesh_uri, 2, &mesh.replace("attempts: 2", "attempts: 0"));
    let unretried = client.published(&file);
    assert_eq!(
        unretried.get(&mesh_uri).map(Vec::len),
        Some(0),
        "{unretried:?}"
    );

    let policy = dir.join("retry-policy.yaml");
    let policy_uri = client.open(&policy, orders::POLICY);
    client.published(&file);
    let line = orders::POLICY
        .lines()
        .position(|l| l.trim() == "createOrder:")
        .expect("a selector");
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": policy_uri}, "position": {"line": line, "character": 4}}),
    );
    let shown = hover["contents"]["value"].as_str().expect("Markdown");
    assert_eq!(
        shown,
        format!(
            "`createOrder` matches 1 operation in `{}`:\n\n- `POST /orders (createOrder)`\n",
            description.display()
        )
    );
    let nothing = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": policy_uri}, "position": {"line": 0, "character": 1}}),
    );
    assert_eq!(nothing, Value::Null, "no hover off the selectors");
    assert_eq!(client.shut_down(), 0);
}

#[test]
fn a_policy_open_on_its_own_shows_its_findings_through_the_descriptions_beside_it() {
    let (dir, description, policy) = demo("server-policy-alone");
    let policy_text = std::fs::read_to_string(&policy).expect("the demo's policy");
    let mut client = Client::start(&dir, Value::Null);
    let policy_uri = client.open(&policy, &policy_text);
    let alone = client.published(&policy_uri);
    assert!(
        rules(&alone[&policy_uri]).contains(&"policy-matches-nothing"),
        "{alone:?}"
    );
    let file = uri(&description);
    assert!(
        rules(&alone[&file]).contains(&"unknown-outcome-unhandled"),
        "the description beside it, read from disk, is checked whole: {alone:?}"
    );

    // Its edits are checked too.
    let fixed = policy_text.replace("\"GET /order/{orderId}\"", "\"GET /orders/{orderId}\"");
    assert_ne!(fixed, policy_text);
    client.change(&policy_uri, 2, &fixed);
    let edited = client.published(&policy_uri);
    assert!(
        !rules(&edited[&policy_uri]).contains(&"policy-matches-nothing"),
        "{edited:?}"
    );

    // A description beside it opened is checked as an open document; closed, it is
    // checked from disk again, for the policy still open on its own.
    let text = std::fs::read_to_string(&description).expect("the demo");
    client.open(&description, &text);
    let opened = client.published(&file);
    assert!(rules(&opened[&file]).contains(&"unknown-outcome-unhandled"));
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": file}}),
    );
    let from_disk = client.published(&policy_uri);
    assert!(
        rules(&from_disk[&file]).contains(&"unknown-outcome-unhandled"),
        "{from_disk:?}"
    );

    // Closed: what was shown for it is cleared.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": policy_uri}}),
    );
    let closed = client.published(&policy_uri);
    assert_eq!(closed[&policy_uri], Vec::<Value>::new());
    assert_eq!(closed[&file], Vec::<Value>::new());

    assert_eq!(client.shut_down(), 0);
}
