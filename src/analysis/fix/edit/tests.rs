//! Each kind of change on each way a file writes mappings and lists, checked on the text
//! it gives and on that text parsing back to what was asked for.

use super::{Target, TextEdit};
use crate::analysis::fix::{Change, NewValue};
use crate::input::source::{ParseLimits, Syntax, parse};

/// `text` after `change`, checked to parse back.
fn changed(text: &str, change: &Change) -> String {
    let (root, syntax) = parse(text, ParseLimits::default()).expect("the text parses");
    let target = Target {
        text,
        root: &root,
        syntax,
    };
    let mut edits: Vec<TextEdit> = target.edits(change).expect("the change can be made");
    edits.sort();
    let mut out = String::new();
    let mut at = 0;
    for edit in edits {
        out.push_str(&text[at..edit.span.start as usize]);
        out.push_str(&edit.text);
        at = edit.span.end as usize;
    }
    out.push_str(&text[at..]);
    let (_, again) =
        parse(&out, ParseLimits::default()).unwrap_or_else(|e| panic!("{out}\n{}", e.message));
    assert_eq!(again, syntax, "the fixed text keeps its syntax");
    out
}

fn set(map: &str, key: &str, value: NewValue) -> Change {
    Change::Set {
        file: 0,
        map: map.into(),
        key: key.into(),
        value,
    }
}

fn remove(list: &str, items: &[usize]) -> Change {
    Change::RemoveItems {
        file: 0,
        list: list.into(),
        items: items.to_vec(),
    }
}

#[test]
fn a_key_joins_a_block_mapping_on_its_own_line_after_a_trailing_comment() {
    let text = "defaults:\n  backoff:\n    base: 100ms\n    cap: 2s   # short\nlint: {}\n";
    assert_eq!(
        changed(
            text,
            &set("/defaults/backoff", "jitter", NewValue::str("full"))
        ),
        "defaults:\n  backoff:\n    base: 100ms\n    cap: 2s   # short\n    jitter: full\nlint: {}\n"
    );
}

#[test]
fn a_mapping_joins_a_block_mapping_in_block_style() {
    assert_eq!(
        changed(
            "version: 1\ndefaults: {maxAttempts: 3}\n",
            &set(
                "",
                "operations",
                NewValue::map([(
                    "POST /orders",
                    NewValue::map([("maxAttempts", NewValue::Plain("1".into()))])
                )])
            )
        ),
        "version: 1\ndefaults: {maxAttempts: 3}\noperations:\n  \"POST /orders\": {maxAttempts: 1}\n"
    );
}

#[test]
fn a_key_joins_the_last_block_mapping_of_a_file_without_a_final_line_break() {
    let text = "defaults:\n  maxAttempts: 3";
    assert_eq!(
        changed(text, &set("/defaults", "deadline", NewValue::str("10s"))),
        "defaults:\n  maxAttempts: 3\n  deadline: 10s"
    );
}

#[test]
fn a_key_joins_a_flow_mapping_on_its_line_and_a_spread_json_object_on_a_new_one() {
    assert_eq!(
        changed(
            "a: {base: 50ms, cap: 1s}\n",
            &set("/a", "jitter", NewValue::str("full"))
        ),
        "a: {base: 50ms, cap: 1s, jitter: full}\n"
    );
    assert_eq!(
        changed(
            "{\r\n  \"a\": {\r\n    \"honor\": true\r\n  }\r\n}\r\n",
            &set("/a", "max", NewValue::str("5s"))
        ),
        "{\r\n  \"a\": {\r\n    \"honor\": true,\r\n    \"max\": \"5s\"\r\n  }\r\n}\r\n"
    );
}

#[test]
fn a_written_key_has_its_value_replaced_and_an_empty_mapping_is_filled() {
    assert_eq!(
        changed(
            "b: {jitter: none}  # keep\n",
            &set("/b", "jitter", NewValue::str("full"))
        ),
        "b: {jitter: full}  # keep\n"
    );
    assert_eq!(
        changed(
            "{\"b\": {}}",
            &set(
                "/b",
                "retries",
                NewValue::map([("attempts", NewValue::Plain("0".into()))])
            )
        ),
        "{\"b\": {\"retries\": {\"attempts\": 0}}}"
    );
}

#[test]
fn a_mapping_not_written_yet_is_written_with_the_entry() {
    assert_eq!(
        changed(
            "busy:\n  description: busy\n",
            &set(
                "/busy/headers",
                "Retry-After",
                NewValue::map([(
                    "schema",
                    NewValue::map([("type", NewValue::str("integer"))])
                )])
            )
        ),
        "busy:\n  description: busy\n  headers:\n    Retry-After: {schema: {type: integer}}\n"
    );
}

#[test]
fn strings_that_yaml_would_read_as_something_else_are_quoted() {
    let out = changed(
        "r:\n  x: 1\n",
        &set(
            "/r",
            "409",
            NewValue::map([("description", NewValue::str("yes"))]),
        ),
    );
    assert_eq!(out, "r:\n  x: 1\n  \"409\":\n    description: \"yes\"\n");
}

#[test]
fn items_leave_a_flow_list_with_their_separators() {
    let text = "retryOn: [503, 400, timeout, 401]\n";
    assert_eq!(
        changed(text, &remove("/retryOn", &[1, 3])),
        "retryOn: [503, timeout]\n"
    );
    assert_eq!(
        changed(text, &remove("/retryOn", &[0, 1])),
        "retryOn: [timeout, 401]\n"
    );
}

#[test]
fn items_leave_a_block_list_with_their_lines() {
    let text = "retryOn:\n  - 503\n  - 400   # no\n  - timeout\n";
    assert_eq!(
        changed(text, &remove("/retryOn", &[1])),
        "retryOn:\n  - 503\n  - timeout\n"
    );
}

#[test]
fn a_list_is_never_emptied() {
    let (root, syntax) = parse("r: [400]\n", ParseLimits::default()).expect("parses");
    let target = Target {
        text: "r: [400]\n",
        root: &root,
        syntax,
    };
    assert!(target.edits(&remove("/r", &[0])).is_err());
    assert_eq!(syntax, Syntax::Yaml);
}

#[test]
fn an_item_joins_a_block_list_at_its_dash_and_a_flow_list_after_its_last_item() {
    let append = |map: &str| Change::Append {
        file: 0,
        map: map.into(),
        key: "p".into(),
        value: NewValue::map([("in", NewValue::str("header"))]),
    };
    assert_eq!(
        changed("p:\n  - {in: query}\n", &append("")),
        "p:\n  - {in: query}\n  - {in: header}\n"
    );
    assert_eq!(
        changed("{\"p\": [{\"in\": \"query\"}]}", &append("")),
        "{\"p\": [{\"in\": \"query\"}, {\"in\": \"header\"}]}"
    );
    // No list yet: it is written with the item.
    assert_eq!(
        changed("o:\n  r: 1\n", &append("/o")),
        "o:\n  r: 1\n  p:\n    - {in: header}\n"
    );
}

#[test]
fn a_place_that_is_not_written_is_refused() {
    let (root, syntax) = parse("a: 1\n", ParseLimits::default()).expect("parses");
    let target = Target {
        text: "a: 1\n",
        root: &root,
        syntax,
    };
    // A missing mapping is written in its parent, but not a missing parent.
    assert!(target.edits(&set("/x/y", "k", NewValue::str("v"))).is_err());
    assert!(target.edits(&set("/a", "k", NewValue::str("v"))).is_err());
}
