//! Code actions on retrylint's diagnostics, and the `retrylint.explain` command.
//!
//! Each kind of action is an [`ActionSource`]: it looks at one diagnostic and offers its
//! actions: the finding's fix (what `check --fix` makes), suppressing it, explaining it.

use std::collections::HashMap;
use std::str::FromStr;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, Command, Diagnostic,
    MessageType, Position, Range, ShowMessageParams, TextEdit, Uri, WorkspaceEdit,
};

use super::diagnostics::FindingData;
use super::state::{Document, Linted, State};
use super::text::Lines;
use crate::analysis::fix::Safety;
use crate::analysis::rules::RuleId;
use std::sync::Arc;

/// The command that explains a rule; its one argument is the rule's name.
pub(super) const EXPLAIN: &str = "retrylint.explain";

/// The reason a new suppression holds until someone writes the real one.
const REASON_PLACEHOLDER: &str = "TODO: why this is safe";

/// What an action source sees of one diagnostic.
pub(super) struct ActionContext<'a> {
    state: &'a State,
    uri: &'a Uri,
    document: &'a Document,
    /// The last check of the document, when it is an open description.
    linted: Option<&'a Linted>,
    diagnostic: &'a Diagnostic,
    rule: RuleId,
    data: FindingData,
}

/// One kind of action offered on a finding's diagnostic.
pub(super) trait ActionSource: Sync {
    fn actions(&self, cx: &ActionContext<'_>) -> Vec<CodeActionOrCommand>;
}

/// Every source of actions, in the order their actions are listed.
const SOURCES: [&dyn ActionSource; 3] = [&QuickFix, &Suppress, &Explain];

/// The actions on the diagnostics a `textDocument/codeAction` request names.
pub(super) fn code_actions(state: &State, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
    let uri = &params.text_document.uri;
    let Some(document) = state.documents.get(uri) else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for diagnostic in &params.context.diagnostics {
        if diagnostic.source.as_deref() != Some("retrylint") {
            continue;
        }
        let data = diagnostic
            .data
            .clone()
            .and_then(|data| serde_json::from_value::<FindingData>(data).ok());
        let Some(data) = data else {
            continue;
        };
        let Ok(rule) = RuleId::from_str(&data.rule) else {
            continue;
        };
        let cx = ActionContext {
            state,
            uri,
            document,
            linted: state.linted.get(uri),
            diagnostic,
            rule,
            data,
        };
        for source in SOURCES {
            actions.extend(source.actions(&cx));
        }
    }
    actions
}

/// The finding's fix, made on the texts the editor holds (the files on disk for the
/// others): "Fix: set backoff.jitter: full", marked preferred when it is safe.
struct QuickFix;

impl ActionSource for QuickFix {
    fn actions(&self, cx: &ActionContext<'_>) -> Vec<CodeActionOrCommand> {
        let Some(fix) = &cx.data.fix else {
            return Vec::new();
        };
        let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
        for (path, documents, change) in &fix.changes {
            let Some(uri) = super::text::uri_of(path) else {
                return Vec::new();
            };
            let text: crate::input::source::SharedText =
                if let Some(document) = cx.state.documents.get(&uri) {
                    document.text.clone()
                } else {
                    let shown = crate::input::source::path_text(path);
                    match cx.state.config.load.read_text(path, &shown) {
                        Ok(text) => Arc::new(text),
                        Err(_) => return Vec::new(),
                    }
                };
            let limits = cx.state.config.load.parse;
            let Ok(edits) =
                crate::rendering::fixed::edits_in(change, path, &text, *documents, limits)
            else {
                // The text moved on from what was checked: the next check offers it again.
                return Vec::new();
            };
            let lines = Lines::new(&text);
            changes
                .entry(uri)
                .or_default()
                .extend(edits.into_iter().map(|edit| TextEdit {
                    range: lines.range(edit.span),
                    new_text: edit.text,
                }));
        }
        let unsafe_note = match fix.safety {
            Safety::Safe => "",
            Safety::Unsafe => " (changes the contract or a layer)",
        };
        vec![CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Fix: {}{unsafe_note}", fix.title),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![cx.diagnostic.clone()]),
            edit: Some(WorkspaceEdit {
                changes: Some(changes),
                ..WorkspaceEdit::default()
            }),
            is_preferred: Some(fix.safety == Safety::Safe),
            ..CodeAction::default()
        })]
    }
}

/// "Suppress `RULE` with a reason": a `# retrylint: ignore[RULE]` comment on the line
/// above the finding in YAML, or an `x-retrylint-ignore` entry on the finding's operation
/// in JSON.
struct Suppress;

impl ActionSource for Suppress {
    fn actions(&self, cx: &ActionContext<'_>) -> Vec<CodeActionOrCommand> {
        // Suppression warnings cannot be suppressed.
        if !cx.rule.is_rule() {
            return Vec::new();
        }
        let text = &cx.document.text;
        let edit = if is_json(text) {
            json_suppression(cx)
        } else {
            Some(yaml_suppression(
                text,
                cx.diagnostic.range.start.line,
                cx.rule,
            ))
        };
        let Some(edit) = edit else {
            return Vec::new();
        };
        let changes = HashMap::from([(cx.uri.clone(), vec![edit])]);
        vec![CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Suppress `{}` with a reason", cx.rule),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![cx.diagnostic.clone()]),
            edit: Some(WorkspaceEdit {
                changes: Some(changes),
                ..WorkspaceEdit::default()
            }),
            ..CodeAction::default()
        })]
    }
}

/// Whether a document is JSON rather than YAML (its first character opens an object or
/// an array).
fn is_json(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with(['{', '['])
}

/// The comment line inserted above line `line`, indented like it.
fn yaml_suppression(text: &str, line: u32, rule: RuleId) -> TextEdit {
    let lines = Lines::new(text);
    let above = lines.line(line);
    let indent: String = above
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let at = Position::new(line, 0);
    TextEdit {
        range: Range::new(at, at),
        new_text: format!("{indent}# retrylint: ignore[{rule}] {REASON_PLACEHOLDER}{newline}"),
    }
}

/// The `x-retrylint-ignore` entry, first in the object of the finding's operation, when
/// the finding is about one operation declared in this file without one.
fn json_suppression(cx: &ActionContext<'_>) -> Option<TextEdit> {
    let (method, path) = (cx.data.method.as_deref()?, cx.data.path.as_deref()?);
    let linted = cx.linted?;
    // Places are those of the text last checked.
    if *linted.text != *cx.document.text {
        return None;
    }
    let analysis = &linted.analysed.as_ref()?.analysis;
    let op = analysis.api.operations.iter().find(|op| {
        op.method.as_str() == method && op.path == path && op.loc.file == analysis.api.root_file
    })?;
    if op.ignore.is_some() {
        return None;
    }
    let text = &linted.text;
    let after_key = text.get(op.loc.span.end as usize..)?;
    let colon = after_key.trim_start().strip_prefix(':')?;
    let inside = colon.trim_start().strip_prefix('{')?;
    let brace = text.len() - inside.len();
    let lines = Lines::new(text);
    let key_line = lines.line(lines.position(op.loc.span.start).line);
    let indent: String = key_line.chars().take_while(|c| *c == ' ').collect();
    let comma = if inside.trim_start().starts_with('}') {
        ""
    } else {
        ","
    };
    let at = lines.position(brace as u32);
    Some(TextEdit {
        range: Range::new(at, at),
        new_text: format!(
            "\n{indent}  \"x-retrylint-ignore\": {{\"{}\": \"{REASON_PLACEHOLDER}\"}}{comma}",
            cx.rule
        ),
    })
}

/// "Explain `RULE`": runs the `retrylint.explain` command.
struct Explain;

impl ActionSource for Explain {
    fn actions(&self, cx: &ActionContext<'_>) -> Vec<CodeActionOrCommand> {
        let title = format!("Explain `{}`", cx.rule);
        vec![CodeActionOrCommand::CodeAction(CodeAction {
            title: title.clone(),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![cx.diagnostic.clone()]),
            command: Some(Command {
                title,
                command: EXPLAIN.to_string(),
                arguments: Some(vec![serde_json::Value::String(cx.rule.to_string())]),
            }),
            ..CodeAction::default()
        })]
    }
}

/// What `retrylint.explain RULE` answers: the rule's page (the command's result), and a
/// message for the user with its summary and where the page is published.
pub(super) fn explain(
    arguments: &[serde_json::Value],
) -> Result<(String, ShowMessageParams), String> {
    let name = arguments
        .first()
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| format!("{EXPLAIN} takes a rule's name"))?;
    let rule = RuleId::from_str(name).map_err(|e| e.to_string())?;
    let (summary, doc) = match rule.rule() {
        Some(rule) => (rule.meta().summary, rule.meta().doc),
        None => (
            "a warning about a suppression, which no suppression can silence",
            "",
        ),
    };
    let message = ShowMessageParams {
        typ: MessageType::INFO,
        message: format!(
            "{rule}: {summary}\n{}",
            crate::rendering::output::rule_url(rule)
        ),
    };
    Ok((doc.to_string(), message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yaml_suppression_is_indented_like_the_line_below() {
        let text = "paths:\n  /a:\n    post:\n      responses: {}\n";
        let edit = yaml_suppression(text, 2, RuleId::MissingDeadline);
        assert_eq!(
            edit.range,
            Range::new(Position::new(2, 0), Position::new(2, 0))
        );
        assert_eq!(
            edit.new_text,
            "    # retrylint: ignore[missing-deadline] TODO: why this is safe\n"
        );
    }

    #[test]
    fn json_is_told_from_yaml_by_its_first_character() {
        assert!(is_json("\u{feff} {\"openapi\": \"3.1.0\"}"));
        assert!(!is_json("openapi: 3.1.0\n"));
    }

    #[test]
    fn explain_names_the_rule_and_its_page() {
        let (doc, message) = explain(&[serde_json::json!("missing-deadline")]).expect("a rule");
        assert!(doc.contains("missing-deadline"), "{doc}");
        assert!(
            message.message.contains("rules/missing-deadline.md"),
            "{}",
            message.message
        );
        assert!(explain(&[serde_json::json!("no-such-rule")]).is_err());
        assert!(explain(&[]).is_err());
    }
}
