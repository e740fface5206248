//! `retrylint server`: a Language Server Protocol server over standard input and output.
//!
//! Editors get the check's findings as diagnostics while a description, its `$ref`'d
//! files or its policy are edited, hovers with an operation's plan and a selector's
//! matches, and code actions that suppress or explain a finding. The message loop
//! answers requests from the state; checks run on the lint worker ([`lint`]).

// `lsp_types::Uri` caches parts of itself in cells, but hashes and compares by its text
// alone: as a map key it cannot change.
#![allow(clippy::mutable_key_type)]

mod actions;
mod config;
mod diagnostics;
mod hover;
mod lint;
mod state;
mod text;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Exit, Notification as _, ShowMessage,
};
use lsp_types::request::{CodeActionRequest, ExecuteCommand, HoverRequest, Request as _, Shutdown};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, ExecuteCommandOptions,
    HoverProviderCapability, InitializeParams, InitializeResult, MessageType, SaveOptions,
    ServerCapabilities, ServerInfo, ShowMessageParams, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
};

use config::Config;
use lint::{Shared, Worker, lock, publish};
use state::{Document, State};
use text::path_of;

/// Runs the server until the client says `exit`: 0 after a `shutdown`, 1 without one.
pub(crate) fn run() -> crate::commands::Outcome {
    serve().map_err(|why| {
        vec![crate::error::InputError::new(format!(
            "retrylint server: {why}"
        ))]
    })
}

fn serve() -> Result<ExitCode, String> {
    let (connection, io_threads) = Connection::stdio();
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let params: InitializeParams =
        serde_json::from_value(params).map_err(|e| format!("bad initialize request: {e}"))?;
    let result = InitializeResult {
        capabilities: capabilities(),
        server_info: Some(ServerInfo {
            name: "retrylint".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    let result = serde_json::to_value(result).map_err(|e| e.to_string())?;
    connection
        .initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let (config, problem) =
        Config::read(params.initialization_options.as_ref(), &workspace(&params));
    if let Some(problem) = problem {
        show_message(&connection, MessageType::WARNING, problem);
    }
    let state: Shared = Arc::new(Mutex::new(State::new(config)));
    let worker = Worker::start(state.clone(), connection.sender.clone());
    let code = message_loop(&connection, &state, &worker);
    worker.stop();
    drop(connection);
    io_threads.join().map_err(|e| e.to_string())?;
    Ok(code)
}

/// What the server offers: full-text sync with saves, hovers, and the code actions and
/// command of [`actions`].
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![actions::EXPLAIN.to_string()],
            ..ExecuteCommandOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}

/// The folder relative settings are read from: the first workspace folder, else the
/// current one.
fn workspace(params: &InitializeParams) -> PathBuf {
    params
        .workspace_folders
        .iter()
        .flatten()
        .find_map(|folder| path_of(&folder.uri))
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

/// Answers messages until `exit`, or until the client goes away. After `shutdown`, only
/// `exit` is expected: other requests are refused, and the exit code is 0 whether the
/// client says `exit` or closes the connection; without a `shutdown` first, it is 1.
fn message_loop(connection: &Connection, state: &Shared, worker: &Worker) -> ExitCode {
    let mut shut_down = false;
    for message in &connection.receiver {
        match message {
            Message::Request(request) if shut_down => {
                let refused = Response::new_err(
                    request.id,
                    ErrorCode::InvalidRequest as i32,
                    "the server is shutting down".to_string(),
                );
                let _ = connection.sender.send(Message::Response(refused));
            }
            Message::Request(request) if request.method == Shutdown::METHOD => {
                shut_down = true;
                let done = Response::new_ok(request.id, ());
                let _ = connection.sender.send(Message::Response(done));
            }
            Message::Request(request) => {
                let response = answer(connection, state, request);
                let _ = connection.sender.send(Message::Response(response));
            }
            Message::Notification(notification) if notification.method == Exit::METHOD => {
                break;
            }
            Message::Notification(notification) => {
                if !shut_down {
                    notice(connection, state, worker, notification);
                }
            }
            Message::Response(_) => {}
        }
    }
    if shut_down {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The response to a request.
fn answer(connection: &Connection, state: &Shared, request: Request) -> Response {
    let id = request.id.clone();
    let bad = |e: serde_json::Error| {
        Response::new_err(id.clone(), ErrorCode::InvalidParams as i32, e.to_string())
    };
    match request.method.as_str() {
        HoverRequest::METHOD => match serde_json::from_value(request.params) {
            Ok(params) => Response::new_ok(id.clone(), hover::hover(&lock(state), &params)),
            Err(e) => bad(e),
        },
        CodeActionRequest::METHOD => match serde_json::from_value(request.params) {
            Ok(params) => {
                Response::new_ok(id.clone(), actions::code_actions(&lock(state), &params))
            }
            Err(e) => bad(e),
        },
        ExecuteCommand::METHOD => {
            match serde_json::from_value::<lsp_types::ExecuteCommandParams>(request.params) {
                Ok(params) if params.command == actions::EXPLAIN => {
                    match actions::explain(&params.arguments) {
                        Ok((doc, message)) => {
                            show_message(connection, message.typ, message.message);
                            Response::new_ok(id, doc)
                        }
                        Err(why) => Response::new_err(id, ErrorCode::InvalidParams as i32, why),
                    }
                }
                Ok(params) => Response::new_err(
                    id,
                    ErrorCode::InvalidParams as i32,
                    format!("no command `{}`", params.command),
                ),
                Err(e) => bad(e),
            }
        }
        other => Response::new_err(
            id,
            ErrorCode::MethodNotFound as i32,
            format!("retrylint does not handle `{other}`"),
        ),
    }
}

/// Acts on a notification: documents opened, changed, saved or closed, files changed.
fn notice(connection: &Connection, state: &Shared, worker: &Worker, notification: Notification) {
    let method = notification.method.clone();
    match method.as_str() {
        DidOpenTextDocument::METHOD => {
            if let Ok(params) =
                notification.extract::<lsp_types::DidOpenTextDocumentParams>(&method)
            {
                let item = params.text_document;
                changed(
                    connection,
                    state,
                    worker,
                    item.uri,
                    Edit::Opened(item.text, item.version),
                );
            }
        }
        DidChangeTextDocument::METHOD => {
            if let Ok(params) =
                notification.extract::<lsp_types::DidChangeTextDocumentParams>(&method)
            {
                // Incremental sync: each change replaces a range of the text before it
                // (a change without a range, the whole text), so that an edit of a large
                // description sends a few bytes, not the description again.
                let document = params.text_document;
                let current = lock(state)
                    .documents
                    .get(&document.uri)
                    .map(|d| d.text.clone());
                if let Some(text) = edited(
                    current.as_deref().map(String::as_str),
                    params.content_changes,
                ) {
                    changed(
                        connection,
                        state,
                        worker,
                        document.uri,
                        Edit::Changed(text, document.version),
                    );
                }
            }
        }
        DidSaveTextDocument::METHOD => {
            if let Ok(params) =
                notification.extract::<lsp_types::DidSaveTextDocumentParams>(&method)
            {
                let uri = params.text_document.uri;
                let paths = lock(state).documents.get(&uri).map(|d| d.path.clone());
                if let Some(path) = paths {
                    worker.schedule(uri);
                    schedule_dependents(state, worker, &path);
                }
            }
        }
        DidCloseTextDocument::METHOD => {
            if let Ok(params) =
                notification.extract::<lsp_types::DidCloseTextDocumentParams>(&method)
            {
                changed(
                    connection,
                    state,
                    worker,
                    params.text_document.uri,
                    Edit::Closed,
                );
            }
        }
        DidChangeWatchedFiles::METHOD => {
            if let Ok(params) =
                notification.extract::<lsp_types::DidChangeWatchedFilesParams>(&method)
            {
                for change in params.changes {
                    if let Some(path) = path_of(&change.uri) {
                        schedule_dependents(state, worker, &path);
                    }
                }
            }
        }
        _ => {}
    }
}

/// What happened to a document.
/// The text after `changes`, made in order on `current` (the document's text); `None`
/// for a change to a document that is not open, which nothing can be made on.
fn edited(
    current: Option<&str>,
    changes: Vec<lsp_types::TextDocumentContentChangeEvent>,
) -> Option<String> {
    let mut text: Option<String> = None;
    for change in changes {
        match change.range {
            None => text = Some(change.text),
            Some(range) => {
                let before = text.as_deref().or(current)?;
                let lines = text::Lines::new(before);
                let (start, end) = (lines.offset(range.start), lines.offset(range.end));
                let (start, end) = (start.min(end), start.max(end));
                let mut after = String::with_capacity(before.len() + change.text.len());
                after.push_str(&before[..start]);
                after.push_str(&change.text);
                after.push_str(&before[end..]);
                text = Some(after);
            }
        }
    }
    text
}

enum Edit {
    Opened(String, i32),
    Changed(String, i32),
    Closed,
}

/// A document opened, changed or closed: it is checked again if it is a description, and
/// so is every description that reads it. While a policy is open on its own, the
/// descriptions beside it are checked from disk (see [`State::check_beside_policies`]).
fn changed(connection: &Connection, state: &Shared, worker: &Worker, uri: Uri, edit: Edit) {
    let Some(path) = path_of(&uri) else {
        return;
    };
    let (is_description, beside, cleared) = {
        let mut state = lock(state);
        let mut cleared = Vec::new();
        let mut beside = Vec::new();
        // Only opening and closing change which policies are open on their own.
        let opened_or_closed = !matches!(edit, Edit::Changed(..));
        let is_description = match edit {
            Edit::Opened(text, version) | Edit::Changed(text, version) => {
                let document = Document::new(path.clone(), Arc::new(text), version);
                let is_description = document.is_description();
                state.documents.insert(uri.clone(), document);
                state.beside_policy.remove(&uri);
                if !is_description && state.linted.contains_key(&uri) {
                    cleared.extend(state.forget(&uri));
                }
                is_description
            }
            Edit::Closed => {
                state.documents.remove(&uri);
                cleared.extend(state.forget(&uri));
                false
            }
        };
        if opened_or_closed {
            let (released, added) = state.check_beside_policies();
            cleared.extend(released);
            beside = added;
        }
        (is_description, beside, cleared)
    };
    for (file, diagnostics) in cleared {
        publish(&connection.sender, file, diagnostics, None);
    }
    if is_description {
        worker.schedule(uri);
    }
    for description in beside {
        worker.schedule(description);
    }
    schedule_dependents(state, worker, &path);
}

/// Schedules a check of every open description that a change of `path` may affect.
fn schedule_dependents(state: &Shared, worker: &Worker, path: &std::path::Path) {
    let dependents = lock(state).dependents(path);
    for uri in dependents {
        worker.schedule(uri);
    }
}

fn show_message(connection: &Connection, typ: MessageType, message: String) {
    let _ = connection
        .sender
        .send(Message::Notification(Notification::new(
            ShowMessage::METHOD.to_string(),
            ShowMessageParams { typ, message },
        )));
}

#[cfg(test)]
mod tests {
    use super::edited;
    use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

    fn change(
        range: Option<((u32, u32), (u32, u32))>,
        text: &str,
    ) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range
                .map(|((a, b), (c, d))| Range::new(Position::new(a, b), Position::new(c, d))),
            range_length: None,
            text: text.to_string(),
        }
    }

    #[test]
    fn changes_are_made_in_order_on_the_text_before_each() {
        let text = "paths:\n  /a: {}\n";
        // `/a` becomes `/bé`, then a line is added after it (columns in UTF-16 units).
        let after = edited(
            Some(text),
            vec![
                change(Some(((1, 3), (1, 4))), "bé"),
                change(Some(((1, 5), (1, 5))), "x"),
                change(Some(((2, 0), (2, 0))), "info: {}\n"),
            ],
        );
        assert_eq!(after.as_deref(), Some("paths:\n  /béx: {}\ninfo: {}\n"));
        // A change without a range is the whole text; a document not open takes no range.
        assert_eq!(
            edited(Some(text), vec![change(None, "x: 1\n")]).as_deref(),
            Some("x: 1\n")
        );
        assert_eq!(
            edited(None, vec![change(Some(((0, 0), (0, 0))), "x")]),
            None
        );
    }
}
