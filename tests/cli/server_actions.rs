//! `retrylint server`'s code actions applied as an editor applies them: a suppression
//! written where the syntax wants it silences the finding, in JSON and in the policy; a
//! quick fix makes the edits `check --fix` makes, and the finding is gone.

use serde_json::{Value, json};

use crate::common::lsp::{
    Client, RETRIED, actions_on, apply_edits, demo, insert_line, places, rules, titled,
};
use crate::common::scratch;

#[test]
fn a_finding_in_json_is_suppressed_on_its_operation() {
    let dir = scratch("server-json");
    std::fs::write(dir.join("retry-policy.yaml"), RETRIED).expect("written");
    let text = "{\n  \"openapi\": \"3.1.0\",\n  \"info\": {\"title\": \"orders\", \"version\": \"1\"},\n  \"paths\": {\n    \"/orders\": {\n      \"post\": {\n        \"operationId\": \"createOrder\",\n        \"responses\": {\"201\": {\"description\": \"created\"}}\n      }\n    }\n  }\n}\n";
    let mut client = Client::start(&dir, Value::Null);
    let file = client.open(&dir.join("openapi.json"), text);
    let published = client.published(&file);
    let (_, actions) = actions_on(
        &mut client,
        &file,
        &published[&file],
        "unknown-outcome-unhandled",
    );
    let edit = &actions[0]["edit"]["changes"][&file][0];
    assert_eq!(
        edit["range"]["start"],
        json!({"line": 5, "character": 15}),
        "{actions}"
    );
    let new_text = edit["newText"].as_str().expect("an edit");
    let suppressed = format!(
        "{}{new_text}{}",
        &text[..text.find("\"post\": {").expect("post") + 9],
        &text[text.find("\"post\": {").expect("post") + 9..]
    );
    serde_json::from_str::<Value>(&suppressed).expect("still JSON");
    client.change(&file, 2, &suppressed);
    let after = client.published(&file);
    assert!(
        !rules(&after[&file]).contains(&"unknown-outcome-unhandled"),
        "{after:?}"
    );
    assert_eq!(client.shut_down(), 0);
}

/// The demo open in a server (a copy in the scratch folder `name`), with the code actions
/// on its policy's `backoff-without-jitter` diagnostic: the folder, the client, the
/// description's and the policy's URIs, the policy's text, and the diagnostic with its
/// actions.
fn on_the_demos_jitter(
    name: &str,
) -> (
    std::path::PathBuf,
    Client,
    String,
    String,
    String,
    (Value, Value),
) {
    let (dir, description, policy) = demo(name);
    let text = std::fs::read_to_string(&description).expect("the demo");
    let policy_text = std::fs::read_to_string(&policy).expect("the demo's policy");
    let mut client = Client::start(&dir, Value::Null);
    let file = client.open(&description, &text);
    client.published(&file);
    let policy_uri = client.open(&policy, &policy_text);
    let published = client.published(&file);
    let on = actions_on(
        &mut client,
        &policy_uri,
        &published[&policy_uri],
        "backoff-without-jitter",
    );
    (dir, client, file, policy_uri, policy_text, on)
}

#[test]
fn a_finding_in_the_policy_is_suppressed_by_a_comment_in_the_policy() {
    let (_, mut client, file, policy_uri, policy_text, (jitter, actions)) =
        on_the_demos_jitter("server-policy-suppress");
    let edit = &titled(&actions, "Suppress")["edit"]["changes"][&policy_uri][0];
    let line = edit["range"]["start"]["line"].as_u64().expect("a line");
    assert_eq!(Some(line), jitter["range"]["start"]["line"].as_u64());
    let suppressed = insert_line(
        &policy_text,
        line as usize,
        edit["newText"].as_str().unwrap_or(""),
    );
    client.change(&policy_uri, 2, &suppressed);
    let after = client.published(&file);
    assert!(
        !rules(&after[&policy_uri]).contains(&"backoff-without-jitter"),
        "{:?}",
        places(&after[&policy_uri])
    );
    assert_eq!(client.shut_down(), 0);
}

#[test]
fn a_quick_fix_makes_the_edit_check_fix_makes_and_the_finding_goes() {
    let (dir, mut client, file, policy_uri, policy_text, (_, actions)) =
        on_the_demos_jitter("server-quick-fix");
    let fix = titled(&actions, "Fix: set backoff.jitter: full");
    assert_eq!(fix["isPreferred"], true, "a safe fix is preferred: {fix}");
    let fixed = apply_edits(&policy_text, &fix["edit"]["changes"][&policy_uri]);
    // The same text the command line writes.
    let diff = crate::common::retrylint_in(&dir, &["check", "openapi.yaml", "--diff"]);
    assert!(diff.stdout.contains("jitter: full"), "{}", diff.stdout);
    client.change(&policy_uri, 2, &fixed);
    let after = client.published(&file);
    assert!(
        !rules(&after[&policy_uri]).contains(&"backoff-without-jitter"),
        "{:?}",
        places(&after[&policy_uri])
    );
    assert_eq!(client.shut_down(), 0);
}
