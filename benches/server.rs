//! `cargo bench --bench server`: how long `retrylint server` takes to publish the
//! diagnostics of an edited description, against a `check` of the same text in process.
//!
//! The server is the real binary, driven over standard input and output as an editor
//! drives it: GitHub's description (13 MB) is opened, then changed by a keystroke (sent as
//! the range it replaces: the server takes incremental changes), and the time from the
//! change to the publication of that version's diagnostics is measured. The server waits for a quiet moment before it
//! checks (its debounce); the figure without that wait is what answers "re-lints within
//! the time of one check". The corpus is read from `RETRYLINT_CORPUS` (default
//! `../shared/corpus`); without it the bench says so and measures nothing.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use retrylint::{CheckOptions, check_str};
use serde_json::{Value, json};

/// The server's wait for a quiet moment before it checks (`src/server/lint.rs`).
const DEBOUNCE: Duration = Duration::from_millis(200);

fn main() {
    let runs = if std::env::args().any(|a| a == "--quick") {
        3
    } else {
        5
    };
    let corpus = PathBuf::from(
        std::env::var("RETRYLINT_CORPUS").unwrap_or_else(|_| "../shared/corpus".into()),
    );
    let path = corpus.join("github/api.github.com.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "notice: no {}; set RETRYLINT_CORPUS to measure",
            path.display()
        );
        return;
    };
    let path = std::fs::canonicalize(&path).expect("a resolved path");
    let options = CheckOptions::default();
    let mut checks: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(check_str(&path, &text, None, &options).expect("checks"));
            start.elapsed()
        })
        .collect();
    checks.sort();
    let check = checks[checks.len() / 2];
    let mut server = Server::start(path.parent().expect("a folder"));
    let uri = format!("file://{}", path.display());
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
    );
    server.published(&uri, 1);
    // Where the text ends, in the protocol's lines and UTF-16 columns.
    let last_line = text.matches('\n').count();
    let last_column: usize = text
        .rsplit('\n')
        .next()
        .unwrap_or_default()
        .chars()
        .map(char::len_utf16)
        .sum();
    let mut times = Vec::new();
    for version in 2..2 + i64::from(runs) {
        // A change that moves nothing: one more space at the end of the last line, sent
        // as the range it replaces (the server takes incremental changes).
        let end = json!({"line": last_line, "character": last_column});
        let message = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": {"start": end, "end": end}, "text": " "}]}}).to_string();
        let start = Instant::now();
        server.send_text(&message);
        server.published(&uri, version);
        times.push(start.elapsed());
    }
    times.sort();
    let edit = times[times.len() / 2];
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "## Editor: GitHub's description (13 MB) changed in `retrylint server` (median of {runs})\n"
    );
    println!(
        "| check in process | change to diagnostics | less the debounce ({} ms) | ÷ check |",
        DEBOUNCE.as_millis()
    );
    println!("|---:|---:|---:|---:|");
    println!(
        "| {:.0} ms | {:.0} ms | {:.0} ms | {:.2}× |",
        ms(check),
        ms(edit),
        ms(edit.saturating_sub(DEBOUNCE)),
        ms(edit.saturating_sub(DEBOUNCE)) / ms(check)
    );
    server.stop();
}

/// The server's process: its input, and the messages it sends.
struct Server {
    child: std::process::Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .arg("server")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let input = child.stdin.take().expect("its input");
        let output = child.stdout.take().expect("its output");
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            while let Some(message) = read_message(&mut output) {
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        let mut server = Server {
            child,
            input,
            messages,
            next_id: 0,
        };
        server.next_id += 1;
        server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "capabilities": {}}}));
        server.wait(|m| m["id"] == 1);
        server.notify("initialized", json!({}));
        server
    }

    fn send(&mut self, message: &Value) {
        self.send_text(&message.to_string());
    }

    fn send_text(&mut self, body: &str) {
        write!(self.input, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| self.input.flush())
            .expect("the server reads");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Waits (at most a minute) for a message that `wanted` accepts.
    fn wait(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .messages
                .recv_timeout(left)
                .expect("the server answers");
            if wanted(&message) {
                return message;
            }
        }
    }

    /// Waits for the diagnostics of `uri` at `version`.
    fn published(&mut self, uri: &str, version: i64) {
        self.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
    }

    fn stop(mut self) {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "shutdown"}));
        self.wait(|m| m["id"] == id);
        self.notify("exit", Value::Null);
        let _ = self.child.wait();
    }
}

/// One Content-Length framed message.
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
