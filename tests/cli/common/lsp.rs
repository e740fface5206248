//! A language client for the tests of `retrylint server`: the real binary driven over
//! standard input and output as an editor drives it, with Content-Length framed JSON-RPC,
//! every wait bounded by a deadline so a broken server fails the test instead of hanging it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

use super::{copy_fixture, scratch};

/// The longest any one answer may take (a debug build on a busy machine).
pub(crate) const DEADLINE: Duration = Duration::from_secs(30);
/// How many messages a test reads while it waits for one check's diagnostics.
const MESSAGE_LIMIT: usize = 10_000;
/// How long the server stays quiet after a check before the test takes its result whole.
const QUIET: Duration = Duration::from_millis(400);

/// A language client: the server's process, and the messages it sent, in order.
pub(crate) struct Client {
    child: Child,
    /// The server's standard input, until the client hangs up.
    input: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Notifications received while waiting for something else.
    pub(crate) notifications: Vec<Value>,
    /// Every publication of diagnostics taken so far: the file, and the version it was for.
    pub(crate) publications: Vec<(String, Value)>,
    next_id: i64,
}

impl Client {
    /// Starts `retrylint server` in `dir` and initializes it with `options`.
    pub(crate) fn start(dir: &Path, options: Value) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .arg("server")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let input = child.stdin.take().expect("its standard input");
        let output = child.stdout.take().expect("its standard output");
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            while let Some(message) = read_message(&mut output) {
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        let mut client = Client {
            child,
            input: Some(input),
            messages,
            notifications: Vec::new(),
            publications: Vec::new(),
            next_id: 0,
        };
        let folder = uri(dir);
        let result = client.request(
            "initialize",
            json!({
                "processId": null,
                "capabilities": {},
                "workspaceFolders": [{"uri": folder, "name": "work"}],
                "initializationOptions": options,
            }),
        );
        assert_eq!(result["serverInfo"]["name"], "retrylint");
        assert_eq!(result["capabilities"]["hoverProvider"], true);
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let input = self.input.as_mut().expect("the client has not hung up");
        write!(input, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| input.flush())
            .expect("the server reads its input");
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response, keeping notifications for later.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next_message();
            if message.get("method").is_some() && message.get("id").is_none() {
                self.notifications.push(message);
            } else if message["id"] == id {
                assert!(message.get("error").is_none(), "{method} failed: {message}");
                return message["result"].clone();
            }
        }
    }

    fn next_message(&mut self) -> Value {
        match self.messages.recv_timeout(DEADLINE) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => panic!("the server sent nothing for {DEADLINE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        }
    }

    /// The diagnostics of the check that publishes for `description` next: every file's
    /// latest publication, once the server has been quiet for a moment after it.
    pub(crate) fn published(&mut self, description: &str) -> BTreeMap<String, Vec<Value>> {
        let mut files = BTreeMap::new();
        let mut pending = std::mem::take(&mut self.notifications);
        let mut read = 0usize;
        loop {
            read += pending.len();
            for message in pending.drain(..) {
                if message["method"] == "textDocument/publishDiagnostics" {
                    let params = &message["params"];
                    let file = params["uri"].as_str().unwrap_or_default().to_string();
                    self.publications
                        .push((file.clone(), params["version"].clone()));
                    let diagnostics = params["diagnostics"].as_array().cloned();
                    files.insert(file, diagnostics.unwrap_or_default());
                }
            }
            // A server that talks on and never publishes for the description fails here;
            // a silent one, at the wait below.
            assert!(read <= MESSAGE_LIMIT, "no diagnostics for {description}");
            let seen = files.contains_key(description);
            let wait = if seen { QUIET } else { DEADLINE };
            match self.messages.recv_timeout(wait) {
                Ok(message) => pending.push(message),
                Err(RecvTimeoutError::Timeout) if seen => return files,
                Err(e) => panic!("waiting for diagnostics of {description}: {e}"),
            }
        }
    }

    pub(crate) fn open(&mut self, path: &Path, text: &str) -> String {
        let file = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": file, "languageId": "yaml", "version": 1, "text": text}}),
        );
        file
    }

    pub(crate) fn change(&mut self, file: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": file, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    /// Shuts the server down as an editor does; returns its exit code.
    pub(crate) fn shut_down(mut self) -> i32 {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Value::Null);
        self.exit()
    }

    /// Says `exit` (after a shutdown, or without one); returns the exit code.
    pub(crate) fn exit(mut self) -> i32 {
        self.notify("exit", Value::Null);
        self.exit_code()
    }

    /// Closes the server's input without a word, as a client that goes away does;
    /// returns the exit code.
    pub(crate) fn hang_up(mut self) -> i32 {
        self.input = None;
        self.exit_code()
    }

    /// Waits for the server to close its output, as a process that exits does (what it
    /// still sends is kept), then takes its exit code.
    fn exit_code(&mut self) -> i32 {
        loop {
            match self.messages.recv_timeout(DEADLINE) {
                Ok(message) => self.notifications.push(message),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("the server did not exit: its output stayed open for {DEADLINE:?}")
                }
            }
        }
        let status = self.child.wait().expect("the server's status");
        status.code().unwrap_or(-1)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A test that failed leaves no server behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One framed message, or `None` at the end of the stream.
fn read_message(output: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if output.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    output.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

pub(crate) fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// Each diagnostic as `rule line:column-line:column` (from 1, as the command line counts).
pub(crate) fn places(diagnostics: &[Value]) -> Vec<String> {
    let mut places: Vec<String> = diagnostics
        .iter()
        .map(|d| {
            let at = |end: &str, key: &str| d["range"][end][key].as_u64().unwrap_or(0) + 1;
            format!(
                "{} {}:{}-{}:{}",
                d["code"].as_str().unwrap_or("-"),
                at("start", "line"),
                at("start", "character"),
                at("end", "line"),
                at("end", "character")
            )
        })
        .collect();
    places.sort();
    places
}

pub(crate) fn rules(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect()
}

/// The diagnostic of `rule` among `diagnostics` of `file`, and the code actions on it.
pub(crate) fn actions_on(
    client: &mut Client,
    file: &str,
    diagnostics: &[Value],
    rule: &str,
) -> (Value, Value) {
    let diagnostic = diagnostics
        .iter()
        .find(|d| d["code"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {:?}", places(diagnostics)))
        .clone();
    let actions = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": file},
            "range": diagnostic["range"],
            "context": {"diagnostics": [diagnostic]},
        }),
    );
    (diagnostic, actions)
}

/// The action among `actions` whose title starts with `prefix`.
pub(crate) fn titled<'a>(actions: &'a Value, prefix: &str) -> &'a Value {
    actions
        .as_array()
        .and_then(|list| {
            list.iter()
                .find(|a| a["title"].as_str().is_some_and(|t| t.starts_with(prefix)))
        })
        .unwrap_or_else(|| panic!("no action titled {prefix}… in {actions}"))
}

/// `text` with an editor's text edits made (positions in characters; the tests' texts are
/// ASCII, where characters are bytes).
pub(crate) fn apply_edits(text: &str, edits: &Value) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |p: &Value| {
        let line = p["line"].as_u64().expect("a line") as usize;
        starts[line] + p["character"].as_u64().expect("a character") as usize
    };
    let mut edits: Vec<(usize, usize, String)> = edits
        .as_array()
        .expect("edits")
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().expect("a text").to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (start, end, new) in edits {
        out.replace_range(start..end, &new);
    }
    out
}

/// The demo, copied into a scratch folder: its description, policy and their URIs.
pub(crate) fn demo(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = scratch(name);
    copy_fixture("fixtures/shop/openapi.yaml", &dir, "openapi.yaml");
    copy_fixture("fixtures/shop/retry-policy.yaml", &dir, "retry-policy.yaml");
    (
        dir.clone(),
        dir.join("openapi.yaml"),
        dir.join("retry-policy.yaml"),
    )
}

/// `text` with `inserted` put before its line `line` (from 0).
pub(crate) fn insert_line(text: &str, line: usize, inserted: &str) -> String {
    let at: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    format!("{}{inserted}{}", &text[..at], &text[at..])
}

/// A policy that retries every operation on 503, three times.
pub(crate) const RETRIED: &str = "version: 1\ndefaults:\n  maxAttempts: 3\n  retryOn: [503]\n";
