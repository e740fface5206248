//! Loading files: reading them safely, and following `$ref`s between them.
//!
//! A [`Loader`] owns every file of one description (and the policy): files are read on
//! first reference, parsed once, and shared as `Arc<SourceFile>` so that nodes can be
//! borrowed while more files load. Each file gets a [`FileId`] that findings use.

mod canonical;
pub mod discover;
pub mod git;
mod open;
pub mod overlay;
mod prefetch;
mod refs;
pub mod revision;
mod root;
mod root_ahead;
pub mod stdin;
mod tracked;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::error::{ErrorSite, InputError};
use crate::input::source::{ParseLimits, SourceFile, SyntaxError, path_text};

/// Defined beside [`crate::location::Loc`], which carries one; loading hands them out.
pub use crate::location::FileId;
pub use open::{io_reason, read_bounded, read_text};
pub use refs::Target;
pub use root::{Root, root_for, root_for_stdin};
pub use root_ahead::RootAhead;
pub(crate) use root_ahead::TakenRoot;

/// What loading may do.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Follow `$ref`s to files outside the root folder.
    pub allow_outside_refs: bool,
    /// The root folder (`--root`); found from each description when `None` (see [`root_for`]).
    pub root: Option<PathBuf>,
    /// Largest file read, in bytes.
    pub max_file_size: u64,
    /// Most files one description may reach through `$ref`s.
    pub max_files: usize,
    /// Most bytes of files one description may reach, in all.
    pub max_total_bytes: u64,
    /// Most operations one description may have.
    pub max_operations: usize,
    pub parse: ParseLimits,
    /// The description read from standard input, for the argument `-`.
    pub stdin: Option<Arc<stdin::Stdin>>,
    /// A git revision whose files stand in a scratch folder, written as they are read
    /// (`check --base`).
    pub revision: Option<Arc<revision::Revision>>,
    /// Unsaved texts that stand in for files on disk (an editor's buffers).
    pub overlay: Option<Arc<overlay::Overlay>>,
    /// Build a large JSON description's tree while its text is checked on another core
    /// ([`SourceFile::parse_description_speculative`]), setting the flag when a file was
    /// read so: whoever sets this must see every loaded file [`SourceFile::confirmed`]
    /// before trusting what it read.
    pub read_ahead_of_check: Option<Arc<AtomicBool>>,
    /// The description's root file, being read while the check reads its other inputs.
    pub root_ahead: Option<Arc<RootAhead>>,
}

impl LoadOptions {
    /// Makes a path ready to be read: under a revision's scratch folder, its file (or,
    /// with `whole_folder`, its folder and everything in it) is written from git first.
    pub fn prepare(&self, path: &Path, whole_folder: bool) -> Result<(), InputError> {
        match &self.revision {
            Some(revision) => revision.prepare(path, whole_folder),
            None => Ok(()),
        }
    }

    /// The text of the file at `path` (`shown` in messages), at most `max_file_size`
    /// bytes: the overlay's stand-in when it has one, else the file on disk.
    pub fn read_text(&self, path: &Path, shown: &str) -> Result<String, InputError> {
        self.read_text_of(path, shown, None)
    }

    /// [`LoadOptions::read_text`] of a path found to be a regular file of `regular_size`
    /// bytes, when it was (see [`open::read_text_of`]).
    fn read_text_of(
        &self,
        path: &Path,
        shown: &str,
        regular_size: Option<u64>,
    ) -> Result<String, InputError> {
        if let Some(text) = self
            .overlay
            .as_ref()
            .and_then(|overlay| overlay.text(path, shown, self.max_file_size))
        {
            return text;
        }
        open::read_text_of(path, shown, self.max_file_size, regular_size)
    }

    /// Whether an unsaved text stands in for the file at canonical path `canonical`.
    fn overlays(&self, canonical: &Path) -> bool {
        self.overlay
            .as_ref()
            .is_some_and(|overlay| overlay.holds(canonical))
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            allow_outside_refs: false,
            root: None,
            max_file_size: 256 * 1024 * 1024,
            max_files: 10_000,
            max_total_bytes: 1 << 30,
            max_operations: 1_000_000,
            parse: ParseLimits::default(),
            stdin: None,
            revision: None,
            overlay: None,
            read_ahead_of_check: None,
            root_ahead: None,
        }
    }
}

/// The files of one run, by [`FileId`].
pub type Sources = Vec<Arc<SourceFile>>;

/// Reads files and resolves references among them.
#[derive(Debug)]
pub struct Loader {
    options: LoadOptions,
    files: Sources,
    /// Canonical path of each loaded file, by id.
    canonical: Vec<PathBuf>,
    /// (Keyed by the path's bytes: hashing a `Path` walks its components.)
    by_canonical: HashMap<OsString, FileId>,
    /// References already resolved, by scope (see [`Loader::resolve`]) and reference text.
    resolved: HashMap<FileId, HashMap<String, Target>>,
    /// For each file, the first file loaded from its folder: a reference to another file
    /// means the same from every file of one folder.
    scope: Vec<FileId>,
    /// The first file loaded from each folder, by the folder's bytes.
    folders: HashMap<OsString, FileId>,
    /// Files already reached, by the referring file's scope (its folder, see `scope`) and
    /// the reference's file part: a description's files mostly name the same few shared
    /// files.
    by_reference: HashMap<FileId, HashMap<String, FileId>>,
    /// The folder refs may not leave (see [`root_for`]).
    root_dir: Option<Root>,
    /// Bytes added by expansion so far: YAML aliases and merges of every file, and
    /// definitions reused through `$ref` (see [`Loader::charge_reuse`]).
    expanded: usize,
    /// Definitions (file and pointer) already reached once through a `$ref`.
    reused: HashSet<(FileId, std::sync::Arc<str>)>,
    /// Bytes of the files read so far.
    bytes_read: u64,
    /// Folders of referenced files, resolved once each.
    paths: canonical::CanonicalPaths,
    /// Files read ahead of need, waiting to be asked for (see [`prefetch`]).
    read_ahead: prefetch::ReadAhead,
    /// The file parts of references that reading ahead has looked at, by the folder they
    /// were written in (the same part from the same folder names the same file).
    looked_at: HashMap<OsString, HashSet<String>>,
}

impl Loader {
    /// The options this loader was made with.
    pub fn options(&self) -> &LoadOptions {
        &self.options
    }

    pub fn new(options: LoadOptions) -> Loader {
        Loader {
            options,
            files: Vec::new(),
            canonical: Vec::new(),
            by_canonical: HashMap::new(),
            by_reference: HashMap::new(),
            resolved: HashMap::new(),
            scope: Vec::new(),
            folders: HashMap::new(),
            root_dir: None,
            expanded: 0,
            reused: HashSet::new(),
            bytes_read: 0,
            paths: canonical::CanonicalPaths::default(),
            read_ahead: prefetch::ReadAhead::new(),
            looked_at: HashMap::new(),
        }
    }

    /// Counts a `$ref`'d definition that the model copies once more (an operation or path
    /// item reached from several paths), written at `span` of file `from`, against the
    /// description's expansion budget: its second and later uses cost the bytes of its text.
    pub fn charge_reuse(
        &mut self,
        target: &Target,
        from: FileId,
        span: crate::input::source::Span,
    ) -> Result<(), InputError> {
        let key = (target.file_id, target.loc().pointer);
        if self.reused.insert(key) {
            return Ok(());
        }
        let bytes = target.node().span.len() + crate::input::source::NODE_BYTES;
        self.expanded = self.expanded.saturating_add(bytes);
        if self.expanded > self.options.parse.max_expansion_bytes {
            let file = self.file(from);
            return Err(InputError::at(
                &file,
                span,
                format!(
                    "definitions reused through `$ref` and YAML aliases expand this description to more than {} bytes; refusing to go further",
                    self.options.parse.max_expansion_bytes
                ),
            )
            .with_help("raise the limit with --max-expansion-bytes BYTES"));
        }
        Ok(())
    }

    /// Holds the root file read ahead until [`Loader::load_root`] asks for it.
    pub(crate) fn hold_root(&mut self, root: TakenRoot) {
        self.read_ahead
            .insert(root.canonical.into_os_string(), (root.display, root.file));
    }

    /// Loads the root description; its root folder bounds where refs may lead.
    pub fn load_root(&mut self, path: &Path) -> Result<FileId, InputError> {
        let from_stdin = path.as_os_str() == discover::STDIN;
        let id = if from_stdin {
            self.load_stdin()?
        } else {
            self.load_path(path, path.to_path_buf(), None)?
        };
        self.root_dir = Some(if from_stdin {
            root_for_stdin(self.options.root.as_deref())?
        } else {
            root_for(&self.canonical[id], self.options.root.as_deref())?
        });
        self.read_ahead(id);
        Ok(id)
    }

    /// Loads the description read from standard input: it is named by
    /// `--stdin-filename` (and its `$ref`s are relative to that name's folder).
    fn load_stdin(&mut self) -> Result<FileId, InputError> {
        let stdin = self.options.stdin.clone().ok_or_else(|| {
            InputError::new("`-` names standard input, which this command does not read")
        })?;
        let text = stdin.text(self.options.max_file_size)?;
        let shown = path_text(&stdin.display);
        refuse_empty(&shown, " (standard input)", &text)?;
        let mut file =
            SourceFile::parse_description_shared(stdin.display.clone(), text, self.options.parse)
                .map_err(|(text, e)| syntax_error(&shown, text, e))?;
        let canonical = stdin.path();
        file.canonical = Some(canonical.clone());
        self.expanded = self.expanded.saturating_add(file.expanded_bytes);
        let id = self.add(Arc::new(file));
        self.place(id, canonical);
        Ok(id)
    }

    /// Loads a file that is not part of the description's ref graph (the policy).
    pub fn load_other(&mut self, path: &Path) -> Result<FileId, InputError> {
        self.load_path(path, path.to_path_buf(), None)
    }

    /// Adds an already loaded file (a policy shared by several descriptions).
    pub fn add(&mut self, file: Arc<SourceFile>) -> FileId {
        self.files.push(file);
        self.canonical.push(PathBuf::new());
        let id = self.files.len() - 1;
        self.scope.push(id);
        id
    }

    /// Records where file `id` is: its canonical path, and the first file loaded from its
    /// folder (whose resolved references it shares).
    fn place(&mut self, id: FileId, canonical: PathBuf) {
        let folder = canonical.parent().unwrap_or(Path::new("")).as_os_str();
        self.scope[id] = if let Some(&first) = self.folders.get(folder) {
            first
        } else {
            self.folders.insert(folder.to_owned(), id);
            id
        };
        self.canonical[id].clone_from(&canonical);
        self.by_canonical.insert(canonical.into_os_string(), id);
    }

    pub fn file(&self, id: FileId) -> Arc<SourceFile> {
        self.files[id].clone()
    }

    /// How many files have been loaded.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// The loaded files, for output, without their trees.
    ///
    /// The description's trees are dropped here: everything after the model reads only
    /// the files' text, and a large description's tree is most of the memory.
    pub fn into_sources(self) -> Sources {
        // The resolved references hold the files too: let them go first.
        let Loader {
            files, resolved, ..
        } = self;
        drop(resolved);
        let mut spent = Vec::new();
        let sources = files
            .into_iter()
            .map(|file| match Arc::try_unwrap(file) {
                Ok(file) => {
                    let kept = Arc::new(file.without_tree());
                    spent.push(file);
                    kept
                }
                // Shared (the policy, kept by its caller): leave it whole.
                Err(shared) => shared,
            })
            .collect();
        // Freeing a thousand files' trees is a tenth of a check: done beside it.
        drop_beside(spent);
        sources
    }

    /// Reads and parses a file, once per canonical path.
    ///
    /// `referrer` is where the path was named (a `$ref`), for error messages.
    fn load_path(
        &mut self,
        path: &Path,
        display: PathBuf,
        referrer: Option<&ErrorSite>,
    ) -> Result<FileId, InputError> {
        let with_referrer = |e: InputError| mention(e, referrer);
        let shown = path_text(&display);
        self.options.prepare(path, false).map_err(with_referrer)?;
        let canonical = std::fs::canonicalize(path).map_err(|e| {
            with_referrer(InputError::new(format!(
                "cannot read `{shown}`: {}",
                io_reason(&e)
            )))
        })?;
        self.load_canonical(canonical, display, referrer)
    }

    /// Reads and parses a file whose canonical path is known, once.
    fn load_canonical(
        &mut self,
        canonical: PathBuf,
        display: PathBuf,
        referrer: Option<&ErrorSite>,
    ) -> Result<FileId, InputError> {
        if let Some(&id) = self.by_canonical.get(canonical.as_os_str()) {
            return Ok(id);
        }
        let with_referrer = |e: InputError| mention(e, referrer);
        let shown = path_text(&display);
        if self.files.len() >= self.options.max_files {
            return Err(with_referrer(
                InputError::new(format!(
                    "more than {} files are reached through `$ref`s; refusing to load `{shown}`",
                    self.options.max_files
                ))
                .with_help(
                    "raise the limit with --max-files N, or look for refs that reach far more files than intended",
                ),
            ));
        }
        // A file read ahead from disk is stale when an unsaved text stands in for it.
        let read_ahead = self.take_read_ahead(&canonical, &display);
        let file = match read_ahead {
            Some(read) if !self.options.overlays(&canonical) => read,
            _ => read_resolved(&canonical, display, &self.options, None),
        }
        .map_err(with_referrer)?;
        self.bytes_read = self.bytes_read.saturating_add(file.text.len() as u64);
        if self.bytes_read > self.options.max_total_bytes {
            return Err(with_referrer(
                InputError::new(format!(
                    "`{shown}` and the files before it hold more than {} bytes in all; refusing to go further",
                    self.options.max_total_bytes
                ))
                .with_help("raise the limit with --max-total-bytes BYTES"),
            ));
        }
        self.expanded = self.expanded.saturating_add(file.expanded_bytes);
        if self.expanded > self.options.parse.max_expansion_bytes {
            return Err(with_referrer(
                InputError::new(format!(
                    "YAML aliases and merges in `{shown}` and the files before it expand this description to more than {} bytes; refusing to go further",
                    self.options.parse.max_expansion_bytes
                ))
                .with_help("raise the limit with --max-expansion-bytes BYTES"),
            ));
        }
        let id = self.add(Arc::new(file));
        self.place(id, canonical);
        Ok(id)
    }
}

/// An error about a file, with the `$ref` that named it when there is one.
fn mention(error: InputError, referrer: Option<&ErrorSite>) -> InputError {
    match referrer {
        Some(site) => error.with_related(site.clone()),
        None => error,
    }
}

/// Reads one file from disk into a parsed [`SourceFile`], with every check of its bytes.
pub fn read_source(
    path: &Path,
    display: PathBuf,
    options: &LoadOptions,
) -> Result<SourceFile, InputError> {
    let mut file = read_parsed(path, display, options, SourceFile::parse, None)?;
    file.canonical = std::fs::canonicalize(path).ok();
    Ok(file)
}

/// [`read_source`] for a file of the description whose path is already canonical: it is
/// not resolved again, and its schemas and examples are built when first looked at.
/// `regular_size`: the size an `lstat` of the path found, when it found a regular file.
fn read_resolved(
    canonical: &Path,
    display: PathBuf,
    options: &LoadOptions,
    regular_size: Option<u64>,
) -> Result<SourceFile, InputError> {
    let parse = if options.read_ahead_of_check.is_some() {
        SourceFile::parse_description_speculative
    } else {
        SourceFile::parse_description
    };
    let mut file = read_parsed(canonical, display, options, parse, regular_size)?;
    if let Some(read_ahead) = &options.read_ahead_of_check
        && file.read_ahead()
    {
        read_ahead.store(true, Ordering::Relaxed);
    }
    file.canonical = Some(canonical.to_path_buf());
    Ok(file)
}

fn read_parsed(
    path: &Path,
    display: PathBuf,
    options: &LoadOptions,
    parse: ParseFn,
    regular_size: Option<u64>,
) -> Result<SourceFile, InputError> {
    let text = options.read_text_of(path, &path_text(&display), regular_size)?;
    parse_source(display, "", text, options.parse, parse)
}

/// How a file's text becomes a [`SourceFile`]: [`SourceFile::parse`], or
/// [`SourceFile::parse_description`] for the files of a description.
type ParseFn = fn(PathBuf, String, ParseLimits) -> Result<SourceFile, (String, SyntaxError)>;

/// Parses a file's text, refusing text with nothing in it. `what` follows the name in
/// the message about empty text (` (standard input)`).
fn parse_source(
    display: PathBuf,
    what: &str,
    text: String,
    limits: ParseLimits,
    parse: ParseFn,
) -> Result<SourceFile, InputError> {
    let shown = path_text(&display);
    refuse_empty(&shown, what, &text)?;
    parse(display, text, limits).map_err(|(text, e)| syntax_error(&shown, text, e))
}

/// The error for text with nothing in it (`what` follows the name: ` (standard input)`).
fn refuse_empty(shown: &str, what: &str, text: &str) -> Result<(), InputError> {
    if text.trim_start_matches('\u{feff}').trim().is_empty() {
        return Err(InputError::new(format!(
            "`{shown}`{what} is empty: expected {}",
            if crate::input::source::is_proto_path(Path::new(shown)) {
                "a protobuf source (`syntax`, `package`, `service`)"
            } else {
                "a YAML or JSON document"
            }
        )));
    }
    Ok(())
}

/// The input error for a file that cannot be parsed, pointing into its text.
pub fn syntax_error(shown: &str, text: String, e: crate::input::source::SyntaxError) -> InputError {
    let site = ErrorSite {
        file: shown.to_string(),
        text: text.into(),
        span: e.span,
        label: "here".into(),
    };
    InputError::new(format!("`{shown}` cannot be parsed: {}", e.message)).with_site(site)
}

/// Drops `value` on a thread of its own, so that the caller goes on while its memory is
/// freed. (When no thread can be made, `spawn` drops it here.)
fn drop_beside<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("free".into())
        .spawn(move || drop(value));
}

/// Joins a relative path onto a folder and folds `.` and `..` lexically (for display).
fn join_display(base_file: &Path, relative: &str) -> PathBuf {
    crate::input::source::fold_dots(&base_file.parent().unwrap_or(Path::new("")).join(relative))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_paths_fold_dots() {
        assert_eq!(
            join_display(Path::new("spec/root.yaml"), "./paths/../models/a.yml"),
            PathBuf::from("spec/models/a.yml")
        );
        assert_eq!(
            join_display(Path::new("root.yaml"), "../x.yml"),
            PathBuf::from("../x.yml")
        );
    }
}
