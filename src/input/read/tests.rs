//! The reader's typed values, tables and error collection.
#![allow(
    clippy::redundant_closure_for_method_calls,
    reason = "the closures are generic over the value's lifetimes; the method paths are not"
)]

use super::*;
use crate::input::policy::{Duration, Spanned};
use crate::input::source::{ParseLimits, SourceFile};

fn parsed(text: &str) -> SourceFile {
    SourceFile::parse("t.yaml".into(), text.into(), ParseLimits::default())
        .unwrap_or_else(|(_, e)| panic!("{}", e.message))
}

/// Reads the root of `text` with `read`, giving the value or every message in order.
fn read_with<T>(
    text: &str,
    read: impl FnOnce(&Value<'_, '_>) -> Option<T>,
) -> Result<T, Vec<String>> {
    let file = parsed(text);
    let cx = Context::new(&file, 0);
    let value = read(&cx.root("the file"));
    cx.finish(value)
        .map_err(|e| e.each().map(|e| e.message.clone()).collect())
}

#[test]
fn typed_values_read_and_say_what_they_found() {
    let get = |text: &str| {
        read_with(text, |root| {
            let mut table = root.table(&["n"])?;
            let n = table.required::<i64>("n");
            table.finish();
            n
        })
    };
    assert_eq!(get("n: 7"), Ok(7));
    assert_eq!(
        get("n: lots"),
        Err(vec![
            "`n` must be a whole number, found a string".to_string()
        ])
    );
    assert_eq!(
        get("n: 1.5"),
        Err(vec!["`n` must be a whole number, found `1.5`".to_string()])
    );
    assert_eq!(
        get("n: 99999999999999999999"),
        Err(vec![
            "`n` must be a whole number of at most 9223372036854775807, found `99999999999999999999`"
                .to_string()
        ])
    );
    assert_eq!(get("{}"), Err(vec!["the file needs a `n`".to_string()]));
}

#[test]
fn whole_numbers_keep_to_their_range() {
    let get = |text: &str| read_with(text, |root| root.read::<Whole<1>>().map(|w| w.0));
    assert_eq!(get("3"), Ok(3));
    assert_eq!(
        get("0"),
        Err(vec![
            "the file must be a whole number of 1 or more, found `0`".to_string()
        ])
    );
    let unsigned = |text: &str| read_with(text, |root| root.read::<u32>());
    assert!(unsigned("-1").unwrap_err()[0].contains("of zero or more, found `-1`"));
    assert!(unsigned("4294967296").unwrap_err()[0].contains("at most 4294967295"));
    let lenient = |text: &str| read_with(text, |root| whole_number(root, 0, 10, true));
    assert_eq!(lenient("' 7 '"), Ok(7));
    assert!(lenient("'x'").unwrap_err()[0].contains("found `x`"));
}

#[test]
fn numbers_booleans_strings_and_durations() {
    assert_eq!(read_with("1.5", |v| v.read::<f64>()), Ok(1.5));
    assert_eq!(
        read_with(".inf", |v| v.read::<f64>()),
        Err(vec![
            "the file must be a finite number, found `.inf`".to_string()
        ])
    );
    assert_eq!(read_with("true", |v| v.read::<bool>()), Ok(true));
    assert!(read_with("'yes'", |v| v.read::<bool>()).is_err());
    assert!(read_with("3", |v| v.read::<String>()).is_err());
    assert_eq!(
        read_with("3", |v| v.read::<ScalarText>()),
        Ok(ScalarText("3".to_string()))
    );
    assert_eq!(
        read_with("2s", |v| v.read::<Duration>()),
        Ok(Duration::from_millis(2_000))
    );
    assert_eq!(
        read_with("500", |v| v.read::<Duration>()),
        Err(vec![
            "bad duration for the file: `500` has no unit: write 500ms or 0.5s".to_string()
        ])
    );
}

#[test]
fn lists_report_every_bad_item_by_its_index() {
    let read = read_with("hosts: [a, 1, b, [c]]", |root| {
        let mut table = root.table(&["hosts"])?;
        let hosts = table.required::<Vec<Spanned<String>>>("hosts");
        table.finish();
        hosts
    });
    assert_eq!(
        read.unwrap_err(),
        [
            "`hosts[1]` must be a string, found a number",
            "`hosts[3]` must be a string, found a list",
        ]
    );
}

#[test]
fn names_are_checked_with_a_suggestion() {
    let file = parsed("jitter: ful");
    let cx = Context::new(&file, 0);
    let mut table = cx.root("the file").table(&["jitter"]).unwrap();
    let jitter = table.entry("jitter").unwrap();
    assert_eq!(jitter.one_of(&["none", "full"]), None);
    table.finish();
    let error = cx.finish(Some(())).unwrap_err();
    assert_eq!(
        error.message,
        "`jitter` cannot be `ful`: expected one of none, full"
    );
    assert_eq!(error.help.as_deref(), Some("did you mean `full`?"));
    let list = read_with("[full]", |v| v.one_of(&["none", "full"]));
    assert_eq!(
        list,
        Err(vec![
            "the file must be one of none, full, found a list".to_string()
        ])
    );
}

#[test]
fn a_table_reports_every_unknown_key_and_every_bad_value_at_once() {
    let text = "maxAtempts: 3\ndeadline: soon\ncolour: red\nbase: 1s\n";
    let file = parsed(text);
    let cx = Context::new(&file, 0);
    let mut table = cx
        .root("a policy object")
        .table(&["maxAttempts", "deadline", "base"])
        .unwrap();
    assert_eq!(table.optional::<i64>("maxAttempts"), None);
    assert_eq!(table.optional::<Duration>("deadline"), None);
    assert_eq!(table.optional("base"), Some(Duration::from_millis(1_000)));
    table.finish();
    let error = cx.finish(Some(())).unwrap_err();
    let all: Vec<(&str, Option<&str>, &str)> = error
        .each()
        .map(|e| {
            let span = e.site.as_ref().map(|s| s.span).unwrap_or_default();
            (e.message.as_str(), e.help.as_deref(), &text[span.range()])
        })
        .collect();
    assert_eq!(
        all,
        [
            (
                "unknown key `maxAtempts` in a policy object",
                Some("did you mean `maxAttempts`?"),
                "maxAtempts"
            ),
            (
                "bad duration for `deadline`: `soon` has an unknown unit `soon`: use ms, s, m, h or d",
                None,
                "soon"
            ),
            (
                "unknown key `colour` in a policy object",
                Some("expected one of: maxAttempts, deadline, base"),
                "colour"
            ),
        ]
    );
}

#[test]
fn a_table_refuses_keys_outside_its_list_and_keys_nobody_reads() {
    let file = parsed("a: 1\nb: 2\n");
    let cx = Context::new(&file, 0);
    let mut table = cx.root("the file").table(&["a", "b"]).unwrap();
    assert_eq!(table.optional::<i64>("c"), None);
    assert_eq!(table.optional::<i64>("a"), Some(1));
    table.finish();
    let error = cx.finish(Some(())).unwrap_err();
    let messages: Vec<&str> = error.each().map(|e| e.message.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages.iter().all(|m| m.starts_with("internal error")));
}

#[test]
fn a_null_section_is_no_section_but_a_null_value_is_a_value() {
    let file = parsed("operations:\nmaxAttempts:\n");
    let cx = Context::new(&file, 0);
    let mut table = cx
        .root("the file")
        .table(&["operations", "maxAttempts"])
        .unwrap();
    assert!(table.section("operations").is_none());
    assert_eq!(table.optional::<i64>("maxAttempts"), None);
    table.finish();
    let error = cx.finish(Some(())).unwrap_err();
    assert_eq!(
        error.message,
        "`maxAttempts` must be a whole number, found null"
    );
}
