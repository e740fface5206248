//! What the server knows between messages: the open documents, the last check of each
//! open description (its analysis, for hovers, and the files it read, to know what a
//! change affects), and the diagnostics each description contributed to each file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use foldhash::HashMap;
use lsp_types::{Diagnostic, Uri};

use super::config::Config;
use super::diagnostics::ByFile;
use super::text::uri_of;
use crate::analysis::check::{Analysis, LoadedPolicy};
use crate::input::load::overlay::Overlay;

/// A document the editor has open, with its unsaved text.
#[derive(Debug)]
pub(super) struct Document {
    pub(super) path: PathBuf,
    /// Its path with links resolved, when it exists on disk.
    pub(super) canonical: Option<PathBuf>,
    pub(super) text: crate::input::source::SharedText,
    pub(super) version: i32,
}

impl Document {
    pub(super) fn new(
        path: PathBuf,
        text: crate::input::source::SharedText,
        version: i32,
    ) -> Document {
        Document {
            canonical: std::fs::canonicalize(&path).ok(),
            path,
            text,
            version,
        }
    }

    /// Whether it is an OpenAPI or Swagger description (`openapi:` or `swagger:` at its
    /// top level), as the command line recognises one in a folder.
    pub(super) fn is_description(&self) -> bool {
        crate::input::load::discover::is_description(&self.text)
    }

    fn is_at(&self, path: &Path) -> bool {
        self.path == path || self.canonical.as_deref() == Some(path)
    }
}

/// A description checked: the model its hovers read, and the policy it was checked with.
#[derive(Debug)]
pub(super) struct Analysed {
    pub(super) analysis: Analysis,
    pub(super) policy: Option<LoadedPolicy>,
}

/// The last check of an open description.
#[derive(Debug)]
pub(super) struct Linted {
    /// The document's text that was checked.
    pub(super) text: crate::input::source::SharedText,
    /// `None` when an input error stopped the check.
    pub(super) analysed: Option<Arc<Analysed>>,
    /// The canonical paths of the files the check read (the last ones read, when it
    /// stopped on an error).
    pub(super) reads: Vec<PathBuf>,
}

/// The server's state, shared by the message loop and the lint worker.
#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) config: Config,
    pub(super) documents: HashMap<Uri, Document>,
    pub(super) linted: HashMap<Uri, Linted>,
    /// Descriptions on disk, not open, checked for an open policy that no open
    /// description reads (those beside it): by description, the policy's URI.
    pub(super) beside_policy: HashMap<Uri, Uri>,
    /// Per file, the diagnostics each description's last check put there.
    contributions: HashMap<Uri, BTreeMap<Uri, Vec<Diagnostic>>>,
}

impl State {
    pub(super) fn new(config: Config) -> State {
        State {
            config,
            ..State::default()
        }
    }

    /// The unsaved texts of every open document but `except`, standing in for their files.
    pub(super) fn overlay(&self, except: &Uri) -> Overlay {
        let mut overlay = Overlay::default();
        for (uri, document) in &self.documents {
            if uri != except {
                overlay.insert(&document.path, document.text.clone());
            }
        }
        overlay
    }

    /// The descriptions checked (open, or read from disk for a policy open on its own)
    /// whose check may change when the file at `path` changes:
    /// those that read it, those whose last check stopped on an error, those beside a
    /// policy file it names, and all of them for a file under the `policy` setting.
    pub(super) fn dependents(&self, path: &Path) -> Vec<Uri> {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let named_policy = is_policy_name(path);
        let configured = self
            .config
            .policy
            .iter()
            .any(|given| path.starts_with(given) || canonical.starts_with(given));
        let mut found: Vec<Uri> = self
            .linted
            .iter()
            .filter(|(uri, linted)| {
                let beside = named_policy
                    && self
                        .documents
                        .get(*uri)
                        .is_some_and(|document| document.path.parent() == path.parent());
                configured
                    || beside
                    || linted.analysed.is_none()
                    || linted
                        .reads
                        .iter()
                        .any(|read| *read == canonical || read == path)
            })
            .map(|(uri, _)| uri.clone())
            .collect();
        found.sort();
        found
    }

    /// For an open policy file that no open description reads, and that is found by its
    /// name beside descriptions (no `policy` setting): the descriptions on disk beside
    /// it, to check from disk so that the policy's findings show. Empty otherwise.
    pub(super) fn beside_unread_policy(&self, path: &Path) -> Vec<PathBuf> {
        if !is_policy_name(path) || !self.config.policy.is_empty() {
            return Vec::new();
        }
        // An open description beside it finds it, and its check shows the policy's findings.
        let read = self
            .documents
            .values()
            .any(|document| document.path.parent() == path.parent() && document.is_description());
        if read {
            return Vec::new();
        }
        let Some(folder) = path.parent() else {
            return Vec::new();
        };
        let found = crate::input::load::discover::under(folder, Some(1), &self.config.load)
            .unwrap_or_default();
        found
            .into_iter()
            .filter(|description| {
                !self
                    .documents
                    .values()
                    .any(|document| document.is_at(description))
            })
            .collect()
    }

    /// Brings the descriptions checked from disk up to date with the open documents:
    /// those of a policy no longer open on its own are forgotten (what to publish to clear
    /// them comes back first), and the descriptions beside each policy open on its own are
    /// added (they come back second, to be checked).
    pub(super) fn check_beside_policies(&mut self) -> (Vec<(Uri, Vec<Diagnostic>)>, Vec<Uri>) {
        let mut cleared = Vec::new();
        let mut policies: Vec<Uri> = self.beside_policy.values().cloned().collect();
        policies.sort();
        policies.dedup();
        for policy in policies {
            let alone = self
                .documents
                .get(&policy)
                .is_some_and(|document| !self.beside_unread_policy(&document.path).is_empty());
            if !alone {
                cleared.extend(self.release_beside(&policy));
            }
        }
        let mut added = Vec::new();
        let open: Vec<(Uri, PathBuf)> = self
            .documents
            .iter()
            .filter(|(_, document)| !document.is_description())
            .map(|(uri, document)| (uri.clone(), document.path.clone()))
            .collect();
        for (policy, path) in open {
            for description in self.beside_unread_policy(&path) {
                let Some(description) = uri_of(&description) else {
                    continue;
                };
                if !self.beside_policy.contains_key(&description) {
                    self.beside_policy
                        .insert(description.clone(), policy.clone());
                    added.push(description);
                }
            }
        }
        (cleared, added)
    }

    /// The descriptions checked from disk for the policy at `policy`, now closed or read
    /// by an open description: forgotten, with what to publish to clear them.
    fn release_beside(&mut self, policy: &Uri) -> Vec<(Uri, Vec<Diagnostic>)> {
        let released: Vec<Uri> = self
            .beside_policy
            .iter()
            .filter(|(_, of)| *of == policy)
            .map(|(description, _)| description.clone())
            .collect();
        let mut publications = Vec::new();
        for description in released {
            self.beside_policy.remove(&description);
            publications.extend(self.forget(&description));
        }
        publications
    }

    /// The URI to publish a file's diagnostics under: the open document's at that path
    /// (whatever link it was opened through), else the path's own.
    fn uri_for(&self, path: &Path) -> Option<Uri> {
        self.documents
            .iter()
            .find(|(_, document)| document.is_at(path))
            .map(|(uri, _)| uri.clone())
            .or_else(|| uri_of(path))
    }

    /// Records a description's check and returns what to publish: each file whose
    /// diagnostics it changed, with all the diagnostics every description puts there.
    pub(super) fn record(
        &mut self,
        description: &Uri,
        linted: Linted,
        by_file: &ByFile,
    ) -> Vec<(Uri, Vec<Diagnostic>)> {
        self.linted.insert(description.clone(), linted);
        let mut files: BTreeMap<Uri, Vec<Diagnostic>> = BTreeMap::new();
        // The description's own file is published even with nothing in it.
        files.insert(description.clone(), Vec::new());
        for (path, diagnostics) in by_file {
            if let Some(uri) = self.uri_for(path) {
                files
                    .entry(uri)
                    .or_default()
                    .extend(diagnostics.iter().cloned());
            }
        }
        self.contribute(description, files)
    }

    /// Forgets a description (closed, or no longer a description) and returns what to
    /// publish: the files it put diagnostics in, without them.
    pub(super) fn forget(&mut self, description: &Uri) -> Vec<(Uri, Vec<Diagnostic>)> {
        self.linted.remove(description);
        self.contribute(description, BTreeMap::new())
    }

    fn contribute(
        &mut self,
        description: &Uri,
        files: BTreeMap<Uri, Vec<Diagnostic>>,
    ) -> Vec<(Uri, Vec<Diagnostic>)> {
        let mut touched: Vec<Uri> = self
            .contributions
            .iter()
            .filter(|(_, by_description)| by_description.contains_key(description))
            .map(|(uri, _)| uri.clone())
            .collect();
        for by_description in self.contributions.values_mut() {
            by_description.remove(description);
        }
        for (uri, diagnostics) in files {
            touched.push(uri.clone());
            self.contributions
                .entry(uri)
                .or_default()
                .insert(description.clone(), diagnostics);
        }
        touched.sort();
        touched.dedup();
        touched
            .into_iter()
            .map(|uri| {
                let merged = self.merged(&uri);
                if merged.is_empty() && self.contributions.get(&uri).is_some_and(BTreeMap::is_empty)
                {
                    self.contributions.remove(&uri);
                }
                (uri, merged)
            })
            .collect()
    }

    /// Every description's diagnostics in a file, each once (a policy's finding that two
    /// descriptions report is one diagnostic).
    fn merged(&self, uri: &Uri) -> Vec<Diagnostic> {
        let mut merged: Vec<Diagnostic> = Vec::new();
        for diagnostics in self
            .contributions
            .get(uri)
            .into_iter()
            .flat_map(BTreeMap::values)
        {
            for diagnostic in diagnostics {
                if !merged.contains(diagnostic) {
                    merged.push(diagnostic.clone());
                }
            }
        }
        merged
    }
}

/// Whether a file has a name a policy beside a description is found by
/// (`retry-policy.yaml`, `retry-policy.yml`).
fn is_policy_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| crate::input::policy::POLICY_FILE_NAMES.contains(&name))
}
