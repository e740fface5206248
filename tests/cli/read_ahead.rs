//! A large JSON description is built while its text is checked on another core, and what
//! was built is kept only when the check passes; otherwise everything is done again the
//! ordinary way. So a description read from a file (which reads ahead) and the same text
//! read from standard input (which never does) give byte-identical output: valid or not,
//! JSON or YAML that starts with `{`. A JSON description's path items, built on another
//! core ahead of the model, give what the same description in YAML (built by its parse)
//! gives.

use crate::common::{retrylint_in, retrylint_with, rule_operations, scratch};

/// A description of more than a megabyte (the size from which a file is read ahead):
/// `schemas` named schemas with long descriptions, an operation using one of them, and
/// `inject` written into the schema `S{at}`.
fn large(at: usize, inject: &str) -> String {
    let schemas: Vec<String> = (0..3000)
        .map(|i| {
            let extra = if i == at { inject } else { "" };
            format!(
                r#""S{i}": {{"type": "object", "description": "{}"{extra}, "properties": {{"id": {{"type": "string", "example": "Y_y"}}}}}}"#,
                "d".repeat(400)
            )
        })
        .collect();
    format!(
        r##"{{"openapi": "3.0.3", "info": {{"title": "Large", "version": "1"}},
  "paths": {{"/items": {{"post": {{"operationId": "make",
    "requestBody": {{"content": {{"application/json": {{"schema": {{"$ref": "#/components/schemas/S1"}}}}}}}},
    "responses": {{"201": {{"description": "made"}}, "503": {{"description": "busy"}}}}}}}}}},
  "components": {{"schemas": {{{}}}}}}}
"##,
        schemas.join(",\n    ")
    )
}

/// A large description cut off inside a schema's description, just after a backslash.
fn cut_in_a_string() -> String {
    let text = large(0, "");
    let middle = text.len() * 4 / 5;
    let at = middle + text[middle..].find(r#""description": "d"#).unwrap_or(0) + 20;
    format!("{}\\", &text[..at])
}

/// Checks `text` as the file `name` and as standard input named `name`: the transcripts.
fn both_ways(name: &str, text: &str) -> (String, String) {
    let dir = scratch(&format!("read-ahead-{name}"));
    std::fs::write(dir.join(name), text).expect("writable");
    let from_file = retrylint_with(&dir, &["check", name], &[("NO_COLOR", "1")], "");
    let from_stdin = retrylint_with(
        &dir,
        &["check", "-", "--stdin-filename", name],
        &[("NO_COLOR", "1")],
        text,
    );
    (from_file.transcript(), from_stdin.transcript())
}

#[test]
fn a_large_description_reads_the_same_from_a_file_as_from_standard_input() {
    let cases = [
        // Valid: findings, exit 0 or 1.
        ("valid.json", large(0, ""), "exit code: 0"),
        // A repeated key deep in a schema that the model never builds.
        (
            "repeated.json",
            large(2500, r#", "type": "string""#),
            "exit code: 2",
        ),
        // A trailing comma, a bad escape and a bare word in schemas left unbuilt.
        (
            "comma.json",
            large(2999, r#", "x": [1, 2,]"#),
            "exit code: 2",
        ),
        ("escape.json", large(1700, r#", "x": "\q""#), "exit code: 2"),
        ("bare.json", large(40, r#", "x": nope"#), "exit code: 2"),
        // Cut off after a backslash inside a string that the parse only measures.
        ("cut.json", cut_in_a_string(), "exit code: 2"),
        // Text after the document.
        (
            "trailing.json",
            format!("{}\n]", large(0, "")),
            "exit code: 2",
        ),
        // YAML whose flow mappings look like JSON up to a schema that is not: read as YAML.
        (
            "flow.yaml",
            large(2000, r#", "x": {plain: yes}"#),
            "exit code: 0",
        ),
    ];
    for (name, text, code) in cases {
        assert!(
            text.len() > 1 << 20,
            "{name} is large enough to be read ahead"
        );
        let (from_file, from_stdin) = both_ways(name, &text);
        assert!(from_file.starts_with(code), "{name}: {from_file}");
        assert_eq!(from_file, from_stdin, "{name}");
    }
}

/// The same description of `n` path items as JSON (whose path items the parse leaves
/// unbuilt, to be built on another core ahead of the model) and as YAML (built by the
/// parse). Each path item's POST has no key, so that each one is a finding (an info).
fn many_path_items(n: usize) -> (String, String) {
    let json: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#""/p{i}": {{"post": {{"operationId": "op{i}", "responses": {{"201": {{"description": "made"}}, "503": {{"description": "busy"}}}}}}}}"#
            )
        })
        .collect();
    let yaml: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "  /p{i}:\n    post:\n      operationId: op{i}\n      responses:\n        '201': {{description: made}}\n        '503': {{description: busy}}\n"
            )
        })
        .collect();
    let head = r#""openapi": "3.0.3", "info": {"title": "Many", "version": "1"}"#;
    (
        format!("{{{head},\n\"paths\": {{{}}}}}\n", json.join(",\n")),
        format!(
            "openapi: 3.0.3\ninfo: {{title: Many, version: '1'}}\npaths:\n{}",
            yaml.concat()
        ),
    )
}

#[test]
fn path_items_built_ahead_come_out_as_written_and_a_limit_stops_at_the_same_one() {
    // More path items than a helper is started for (64).
    let (json, yaml) = many_path_items(150);
    let dir = scratch("path-items-ahead");
    std::fs::write(dir.join("many.json"), json).expect("writable");
    std::fs::write(dir.join("many.yaml"), yaml).expect("writable");
    let findings = |name: &str| {
        let run = retrylint_in(&dir, &["check", name, "--format", "json"]);
        assert_eq!(run.code, 0, "{}", run.transcript());
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON output");
        rule_operations(&doc)
    };
    let from_json = findings("many.json");
    assert!(from_json.len() >= 150, "{from_json:?}");
    assert_eq!(from_json, findings("many.yaml"));
    // Stopped at the 101st operation, whichever way its path item was built.
    for name in ["many.json", "many.yaml"] {
        let run = retrylint_in(&dir, &["check", name, "--max-operations", "100"]);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(
            run.stderr.contains("more than 100 operations") && run.stderr.contains("/p100"),
            "{}",
            run.stderr
        );
    }
}
