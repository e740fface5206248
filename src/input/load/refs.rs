//! `$ref` resolution: relative files, JSON Pointer fragments, chains and cycles.
//!
//! Only local files are read: a remote (`http:`, `https:`) or `file:` reference is an
//! input error, never a fetch, and a file outside the root folder (see `root_for`) is
//! refused unless the user allows it.

use std::path::Path;
use std::sync::Arc;

use super::{FileId, Loader, join_display};
use crate::error::{ErrorSite, InputError, did_you_mean};
use crate::input::source::{Node, SourceFile, Span, pointer};
use crate::location::{Loc, entry_span};

/// Most `$ref`s followed in one chain before it counts as a cycle.
const MAX_CHAIN: usize = 64;

/// Where a `$ref` (after following any chain of refs) leads.
///
/// Cheap to clone: a shared definition reached from many operations is resolved once.
#[derive(Debug, Clone)]
pub struct Target {
    pub file_id: FileId,
    pub file: Arc<SourceFile>,
    tokens: Arc<[String]>,
    loc: Loc,
}

impl Target {
    /// The node the reference leads to.
    pub fn node(&self) -> &Node {
        // Resolution checked that the pointer leads somewhere.
        self.file
            .root
            .at(self.tokens.iter())
            .unwrap_or(&self.file.root)
    }

    /// The target's location: its key in the parent mapping, or the node itself.
    pub fn loc(&self) -> Loc {
        self.loc.clone()
    }

    /// The escaped JSON Pointer of the target in its file (`""` for the whole file).
    pub fn pointer(&self) -> &str {
        &self.loc.pointer
    }
}

/// Where a resolved node is written: its key in the parent mapping, or the node itself.
fn target_loc(file_id: FileId, file: &SourceFile, tokens: &[String], pointer: String) -> Loc {
    let node = file.root.at(tokens).unwrap_or(&file.root);
    let span = match tokens.split_last() {
        Some((last, parent)) => file
            .root
            .at(parent)
            .and_then(|p| p.as_map())
            .and_then(|m| m.entry(last))
            .map_or(node.span, |e| entry_span(e.key_span, node)),
        None => node.span,
    };
    Loc::new(file_id, pointer, span)
}

impl Loader {
    /// If `node` is a `{$ref: …}` object, where it leads; otherwise `None`.
    pub fn follow(&mut self, from: FileId, node: &Node) -> Result<Option<Target>, InputError> {
        let Some(reference) = node.get("$ref") else {
            return Ok(None);
        };
        let file = self.file(from);
        let Some(text) = reference.as_str() else {
            return Err(InputError::at(
                &file,
                reference.span,
                format!("`$ref` must be a string, found {}", reference.kind()),
            ));
        };
        self.resolve(from, text, reference.span).map(Some)
    }

    /// Resolves the reference `text`, written at `span` of file `from`.
    pub fn resolve(&mut self, from: FileId, text: &str, span: Span) -> Result<Target, InputError> {
        // A reference within the file is the file's own; one to another file leads to the
        // same place from every file of the folder (most of a multi-file description's
        // files sit in a few folders and name the same shared files).
        let file_part = text.split_once('#').map_or(text, |(file, _)| file);
        let scope = if file_part.is_empty() {
            from
        } else {
            self.scope[from]
        };
        if let Some(target) = self.resolved.get(&scope).and_then(|m| m.get(text)) {
            return Ok(target.clone());
        }
        let target = self.resolve_uncached(from, text, span)?;
        self.resolved
            .entry(scope)
            .or_default()
            .insert(text.to_string(), target.clone());
        Ok(target)
    }

    fn resolve_uncached(
        &mut self,
        from: FileId,
        text: &str,
        span: Span,
    ) -> Result<Target, InputError> {
        let mut from = from;
        let mut text = text.to_string();
        let mut span = span;
        let mut chain: Vec<(FileId, String)> = Vec::new();
        loop {
            let referrer = |this: &Self| ErrorSite::new(&this.files[from], span, "referenced here");
            let (file_part, fragment) = text.split_once('#').unwrap_or((text.as_str(), ""));
            let file_id = if file_part.is_empty() {
                from
            } else {
                self.ref_file(from, file_part, span)?
            };
            let file = self.file(file_id);
            let Some(tokens) = pointer::decode(fragment) else {
                return Err(InputError::new(format!(
                    "`{text}` has a malformed JSON Pointer after `#`"
                ))
                .with_site(referrer(self))
                .with_help("a pointer starts with `/`; escape `/` as `~1` and `~` as `~0`"));
            };
            let node = walk(&file, &tokens).map_err(|e| e.with_site(referrer(self)))?;
            let pointer = tokens
                .iter()
                .fold(String::new(), |p, t| pointer::push(&p, t));
            if chain.iter().any(|(f, p)| *f == file_id && *p == pointer) || chain.len() >= MAX_CHAIN
            {
                return Err(InputError::new(format!(
                    "`$ref` cycle: `{text}` leads back to a reference already followed"
                ))
                .with_site(referrer(self)));
            }
            chain.push((file_id, pointer.clone()));
            match node.get("$ref") {
                Some(next) if next.as_str().is_some() => {
                    text = next.as_str().unwrap_or_default().to_string();
                    span = next.span;
                    from = file_id;
                }
                _ => {
                    let loc = target_loc(file_id, &file, &tokens, pointer);
                    return Ok(Target {
                        file_id,
                        file,
                        tokens: tokens.into(),
                        loc,
                    });
                }
            }
        }
    }

    /// Loads the file a `.proto` file imports, written at `span` of file `from`: beside the
    /// importing file, else in the nearest folder above it that holds the name (the
    /// include path protoc and buf are given: a package's folders mirror its name, so
    /// `acme/pay/v1/a.proto` imports `acme/pay/v1/b.proto` from the folder above `acme`),
    /// never above the root, and with the root's rules of a `$ref`.
    pub fn import_file(
        &mut self,
        from: FileId,
        name: &str,
        span: Span,
    ) -> Result<FileId, InputError> {
        let folder = self.canonical[from]
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        if let Some(root) = self.root_dir.as_ref().filter(|root| root.holds(&folder)) {
            let mut found = None;
            for (up, dir) in folder
                .ancestors()
                .take_while(|dir| root.holds(dir))
                .enumerate()
            {
                // Under `check --base`, a revision's file is written when first asked for.
                self.options.prepare(&dir.join(name), false)?;
                if std::fs::symlink_metadata(dir.join(name)).is_ok() {
                    found = Some(up);
                    break;
                }
            }
            match found {
                Some(0) => {}
                Some(up) => {
                    return self.ref_file(from, &format!("{}{name}", "../".repeat(up)), span);
                }
                None => {
                    return Err(InputError::new(format!(
                        "the import `{name}` is found neither beside `{}` nor in a folder above it, up to the root `{}`",
                        self.files[from].name(),
                        root.shown
                    ))
                    .with_site(ErrorSite::new(&self.files[from], span, "imported here"))
                    .with_help(
                        "an import is looked up as protoc's include path finds it: put the file there, or give the root folder its imports are relative to with --root DIR",
                    ));
                }
            }
        }
        self.ref_file(from, name, span)
    }

    /// Loads the file part of a reference, relative to the referring file.
    fn ref_file(
        &mut self,
        from: FileId,
        file_part: &str,
        span: Span,
    ) -> Result<FileId, InputError> {
        let scope = self.scope[from];
        if let Some(&id) = self.by_reference.get(&scope).and_then(|m| m.get(file_part)) {
            return Ok(id);
        }
        let base = self.canonical[from]
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        // Where the reference is written, for a message: made only when one is needed.
        let referrer = || ErrorSite::new(&self.files[from], span, "referenced here");
        let lower = file_part.to_ascii_lowercase();
        if let Some(scheme) = ["http://", "https://", "file:", "ftp://"]
            .iter()
            .find(|s| lower.starts_with(**s))
        {
            return Err(InputError::new(format!(
                "`{file_part}` is a remote reference ({scheme}); retrylint never fetches references"
            ))
            .with_site(referrer())
            .with_help(
                "download the file next to the description and reference it by a relative path",
            ));
        }
        let decoded = pointer::percent_decode(file_part).ok_or_else(|| {
            InputError::new(format!("`{file_part}` has a malformed percent-escape"))
                .with_site(referrer())
        })?;
        let actual = base.join(&decoded);
        self.options
            .prepare(&actual, false)
            .map_err(|e| e.with_related(referrer()))?;
        let canonical = self.paths.file(&actual);
        if !self.options.allow_outside_refs
            && let (Some(root), Some(target)) = (&self.root_dir, &canonical)
            && !root.holds(target)
        {
            // A missing file is reported by the load below.
            return Err(InputError::new(format!(
                "`{file_part}` leads outside the root folder `{}`",
                root.shown
            ))
            .with_site(referrer())
            .with_help(root.help()));
        }
        // A file loaded already (most references name one another file did): its id, with
        // no name to work out.
        let loaded = canonical
            .as_ref()
            .and_then(|c| self.by_canonical.get(c.as_os_str()).copied());
        let id = if let Some(id) = loaded {
            id
        } else {
            let display = if Path::new(&decoded).is_absolute() {
                Path::new(&decoded).to_path_buf()
            } else {
                join_display(&self.files[from].display, &decoded)
            };
            let referrer = referrer();
            match canonical {
                Some(canonical) => self.load_canonical(canonical, display, Some(&referrer))?,
                None => self.load_path(&actual, display, Some(&referrer))?,
            }
        };
        self.by_reference
            .entry(scope)
            .or_default()
            .insert(file_part.to_string(), id);
        Ok(id)
    }
}

/// Follows pointer tokens in a file, explaining which token leads nowhere.
fn walk<'a>(file: &'a SourceFile, tokens: &[String]) -> Result<&'a Node, InputError> {
    let mut node = &file.root;
    for (depth, token) in tokens.iter().enumerate() {
        if let Some(next) = node.at([token]) {
            node = next;
        } else {
            let so_far = tokens[..depth]
                .iter()
                .fold(String::new(), |p, t| pointer::push(&p, t));
            let mut error = InputError::new(format!(
                "unresolvable `$ref`: `{}` has no `{token}` under `{}`",
                file.name(),
                if so_far.is_empty() { "/" } else { &so_far }
            ));
            if let Some(map) = node.as_map()
                && let Some(near) = did_you_mean(token, map.entries().iter().map(|e| &*e.key))
            {
                error = error.with_help(format!("did you mean `{near}`?"));
            }
            return Err(error);
        }
    }
    Ok(node)
}
