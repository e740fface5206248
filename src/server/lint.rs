//! Linting off the message loop: a worker thread checks each description once its
//! document has been quiet for a moment (a newer change supersedes a pending one), reads
//! the other open documents' unsaved texts instead of their files, and publishes a
//! result only while the document still has the version that was checked.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use foldhash::{HashMap, HashMapExt};
use lsp_server::{Message, Notification};
use lsp_types::notification::{Notification as _, PublishDiagnostics};
use lsp_types::{Diagnostic, PublishDiagnosticsParams, Uri};

use super::config::Config;
use super::diagnostics::{self, ByFile};
use super::state::{Analysed, Linted, State};
use crate::analysis::check::{LayerInputs, check_analysis, into_result, load_given};
use crate::api::{BUFFER, buffer_options, policy_for};
use crate::error::InputError;
use crate::input::load::overlay::Overlay;

/// How long a document must be quiet before it is checked.
pub(super) const DEBOUNCE: Duration = Duration::from_millis(200);

/// The state as the loop and the worker share it.
pub(super) type Shared = Arc<Mutex<State>>;

/// Locks the shared state; a thread that panicked while holding it left it usable.
pub(super) fn lock(state: &Shared) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the worker is asked to do.
enum Job {
    Lint(Uri),
    Stop,
}

/// The lint worker: a thread and the queue of descriptions to check.
#[derive(Debug)]
pub(super) struct Worker {
    jobs: Sender<Job>,
    thread: JoinHandle<()>,
}

impl Worker {
    pub(super) fn start(state: Shared, out: crossbeam_channel::Sender<Message>) -> Worker {
        let (jobs, queue) = channel();
        let thread = std::thread::spawn(move || work(&queue, &state, &out));
        Worker { jobs, thread }
    }

    /// Checks the description at `uri` once it has been quiet for [`DEBOUNCE`].
    pub(super) fn schedule(&self, uri: Uri) {
        let _ = self.jobs.send(Job::Lint(uri));
    }

    /// Stops the worker after the check under way, if any.
    pub(super) fn stop(self) {
        let _ = self.jobs.send(Job::Stop);
        let _ = self.thread.join();
    }
}

fn work(queue: &Receiver<Job>, state: &Shared, out: &crossbeam_channel::Sender<Message>) {
    let mut pending: HashMap<Uri, Instant> = HashMap::new();
    loop {
        let next = pending.values().min().copied();
        let job = match next {
            None => queue.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(due) => queue.recv_timeout(due.saturating_duration_since(Instant::now())),
        };
        match job {
            Ok(Job::Lint(uri)) => {
                pending.insert(uri, Instant::now() + DEBOUNCE);
            }
            Ok(Job::Stop) | Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => {}
        }
        let now = Instant::now();
        let mut due: Vec<Uri> = pending
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(uri, _)| uri.clone())
            .collect();
        due.sort();
        for uri in due {
            pending.remove(&uri);
            lint(&uri, state, out);
        }
    }
}

/// What one check needs, copied out of the state so the check runs unlocked.
struct Snapshot {
    path: PathBuf,
    text: crate::input::source::SharedText,
    /// The open document's version; `None` for a description read from disk.
    version: Option<i32>,
    overlay: Overlay,
    config: Config,
    /// The files the last check read, kept when this one stops on an error.
    reads: Vec<PathBuf>,
}

fn lint(uri: &Uri, state: &Shared, out: &crossbeam_channel::Sender<Message>) {
    let Some(snapshot) = snapshot(uri, state) else {
        return;
    };
    let (linted, by_file) = check(&snapshot);
    let publications = {
        let mut state = lock(state);
        let current = match state.documents.get(uri) {
            Some(document) => Some(document.version),
            None if state.beside_policy.contains_key(uri) => None,
            // Closed, or no longer checked for a policy.
            None => return,
        };
        if current != snapshot.version {
            // Changed since: the newer version's check is scheduled.
            return;
        }
        state.record(uri, linted, &by_file)
    };
    for (file, diagnostics) in publications {
        let version = snapshot.version.filter(|_| file == *uri);
        publish(out, file, diagnostics, version);
    }
}

/// What a check of the description at `uri` needs: its open document's text, or for a
/// description checked for a policy open on its own, the file on disk.
fn snapshot(uri: &Uri, state: &Shared) -> Option<Snapshot> {
    let (path, text, config, overlay, reads) = {
        let state = lock(state);
        let reads = state
            .linted
            .get(uri)
            .map(|linted| linted.reads.clone())
            .unwrap_or_default();
        let open = match state.documents.get(uri) {
            Some(document) if document.is_description() => {
                Some((document.text.clone(), document.version))
            }
            Some(_) => return None,
            None if state.beside_policy.contains_key(uri) => None,
            None => return None,
        };
        (
            super::text::path_of(uri)?,
            open,
            state.config.clone(),
            state.overlay(uri),
            reads,
        )
    };
    let (text, version) = if let Some((text, version)) = text {
        (text, Some(version))
    } else {
        let shown = crate::input::source::path_text(&path);
        let text = config.load.read_text(&path, &shown).ok()?;
        (Arc::new(text), None)
    };
    Some(Snapshot {
        path,
        text,
        version,
        overlay,
        config,
        reads,
    })
}

/// Sends a file's diagnostics to the client.
pub(super) fn publish(
    out: &crossbeam_channel::Sender<Message>,
    uri: Uri,
    diagnostics: Vec<Diagnostic>,
    version: Option<i32>,
) {
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version,
    };
    let _ = out.send(Message::Notification(Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        params,
    )));
}

/// Checks a snapshot's description; an input error, or a panic, becomes diagnostics too.
fn check(snapshot: &Snapshot) -> (Linted, ByFile) {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_check(snapshot)));
    let outcome = run.unwrap_or_else(|_| {
        Err(InputError::new(
            "retrylint stopped unexpectedly while checking this file; please report it",
        ))
    });
    match outcome {
        Ok((by_file, analysed, reads)) => (
            Linted {
                text: snapshot.text.clone(),
                analysed: Some(Arc::new(analysed)),
                reads,
            },
            by_file,
        ),
        Err(error) => (
            Linted {
                text: snapshot.text.clone(),
                analysed: None,
                reads: snapshot.reads.clone(),
            },
            diagnostics::of_error(&error, &snapshot.path),
        ),
    }
}

/// Checks the buffer as the command line checks a file: the policy and layers of the
/// `policy` setting, else the policy beside the description, under the same limits.
fn run_check(snapshot: &Snapshot) -> Result<(ByFile, Analysed, Vec<PathBuf>), InputError> {
    let mut options = buffer_options(
        &snapshot.path,
        snapshot.text.clone(),
        &snapshot.config.check_options(&snapshot.path),
    )?;
    options.load.overlay = Some(Arc::new(snapshot.overlay.clone()));
    let given = load_given(&snapshot.config.policy, &options.load)?;
    options.layers = LayerInputs {
        files: given.layer_files,
        hosts: snapshot.config.hosts.clone(),
    };
    let policy = match given.policy {
        Some((_, policy)) => Some(policy),
        None => policy_for(Path::new(BUFFER), None, &options)?,
    };
    let checked = check_analysis(Path::new(BUFFER), policy.as_ref(), &options)?;
    let (result, analysis) = into_result(checked, policy.as_ref());
    let by_file = diagnostics::of_result(&result, &snapshot.path);
    let reads = result
        .sources
        .iter()
        .filter_map(|source| source.canonical.clone())
        .collect();
    Ok((by_file, Analysed { analysis, policy }, reads))
}
