//! What a file given with `-p` is: retrylint's policy, or retry settings of a proxy,
//! gateway or mesh, recognised from its content (never from its name).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::gateway::Parents;
use super::{Format, ImportFile, KindsUnderstood, Layer};
use crate::error::InputError;
use crate::input::load::{FileId, LoadOptions, read_text, syntax_error};
use crate::input::source::{Node, SourceFile, path_text};

/// The kinds of file `-p` understands, for the error about any other: what the formats
/// of the registry say (see [`KindsUnderstood`]).
pub const KINDS_UNDERSTOOD: KindsUnderstood = KindsUnderstood;

/// A file of retry settings, read and parsed once for the whole run.
#[derive(Debug, Clone)]
pub struct LayerFile {
    /// Every YAML document of the file, as a list (see [`SourceFile::parse_documents`]).
    pub file: Arc<SourceFile>,
    /// Whether the file was found by walking a folder (then Kubernetes files of no known
    /// kind are skipped instead of refused).
    pub walked: bool,
    /// Set for a file a hook handed over (`check --skip-non-descriptions`) and applied to
    /// every description of the repository: its layers then apply only to the
    /// descriptions they serve (the others are not reported as served by nothing), and
    /// the flag records whether any description was served.
    pub served: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// What one `-p` file is.
#[derive(Debug)]
pub enum Detected {
    /// retrylint's own policy, as one document (the file read once); `None` when the file
    /// holds more documents, which the policy reader refuses with its own message.
    Policy(Option<SourceFile>),
    /// Retry settings of another layer.
    Layers(LayerFile),
    /// Gateway API `Gateway`s or `GatewayClass`es and no retry settings: read only for who
    /// implements the routes of the other files.
    Parents(LayerFile),
    /// A file in a walked folder with nothing retrylint reads (other Kubernetes objects,
    /// values files, the description itself).
    Nothing,
}

/// Expands `-p` arguments: a folder stands for its YAML and JSON files, found recursively
/// and in name order; files stay in the order given.
pub fn expand(
    paths: &[PathBuf],
    options: &LoadOptions,
) -> Result<Vec<(PathBuf, bool)>, InputError> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| {
            InputError::new(format!(
                "cannot read `{}`: {}",
                path_text(path),
                crate::input::load::io_reason(&e)
            ))
        })?;
        if meta.is_dir() {
            let mut found = crate::input::load::discover::layer_folder(path, options)?;
            found.sort();
            out.extend(found.into_iter().map(|p| (p, true)));
        } else {
            out.push((path.clone(), false));
        }
    }
    Ok(out)
}

/// Reads a `-p` file and decides what it is.
pub fn detect(path: &Path, walked: bool, options: &LoadOptions) -> Result<Detected, InputError> {
    let shown = path_text(path);
    let text = options.read_text(path, &shown)?;
    if text.trim_start_matches('\u{feff}').trim().is_empty() {
        if walked {
            return Ok(Detected::Nothing);
        }
        return Err(InputError::new(format!(
            "`{shown}` is empty: expected {KINDS_UNDERSTOOD}"
        )));
    }
    let mut file = parse_layer_file(path.to_path_buf(), text, options.parse)
        .map_err(|(text, e)| syntax_error(&shown, text, e))?;
    file.canonical = std::fs::canonicalize(path).ok();
    let documents = file.root.as_seq().unwrap_or_default();
    let is_policy = documents.first().and_then(Node::as_map).is_some_and(|m| {
        // A Compose file has `version` and `services` too, and no policy section.
        let compose =
            m.get("services").is_some() && !POLICY_SECTIONS.iter().any(|key| m.get(key).is_some());
        m.get("version").is_some() && m.get("apiVersion").is_none() && !compose
    });
    if is_policy {
        let single = documents.len() == 1;
        return Ok(Detected::Policy(single.then(|| {
            let mut file = file;
            let document = file.root.as_seq().map(|d| d[0].clone());
            file.root = document.unwrap_or_else(|| file.root.clone());
            // One document, read as the policy: its places are the document's.
            file.documents = false;
            file
        })));
    }
    let objects = super::k8s_list::objects(documents);
    let known = objects
        .iter()
        .any(|(_, doc)| Format::importers().any(|i| i.recognises(doc)));
    if known {
        let layer_file = LayerFile {
            file: Arc::new(file),
            walked,
            served: None,
        };
        // Read it once now, so a bad value is reported before any description is checked.
        import(&layer_file, 0)?;
        return Ok(Detected::Layers(layer_file));
    }
    if objects.iter().any(|(_, doc)| Parents::recognises(doc)) {
        return Ok(Detected::Parents(LayerFile {
            file: Arc::new(file),
            walked,
            served: None,
        }));
    }
    // A folder holds other files too: other Kubernetes objects, values files, descriptions.
    if walked {
        return Ok(Detected::Nothing);
    }
    let kubernetes = objects.iter().any(|(_, doc)| is_kubernetes_object(doc));
    let what = if kubernetes {
        "holds no Kubernetes object retrylint reads"
    } else {
        "is of no kind retrylint reads"
    };
    Err(
        InputError::new(format!("`{shown}` {what}: -p takes {KINDS_UNDERSTOOD}"))
            .with_help("give the description itself as an argument, not with -p"),
    )
}

/// Whether a file is an NGINX configuration: named `*.conf` (`nginx.conf` among them) and
/// opening a block nginx's `http` module reads (`http {`, `server {`, `upstream NAME {`,
/// `location ... {`). A YAML or JSON file, or a `.conf` of another program, is not.
pub fn is_nginx_conf(path: &Path, text: &str) -> bool {
    if !plain_text_named(path, text, "conf") {
        return false;
    }
    text.lines().any(|line| {
        let line = line.trim_start();
        let word = line.split_whitespace().next().unwrap_or_default();
        matches!(word, "http" | "server" | "upstream" | "location") && line.contains('{')
    })
}

/// Whether a file is an HAProxy configuration: named `*.cfg` (`haproxy.cfg` among them)
/// and opening a proxy section at the start of a line (`frontend NAME`, `backend NAME`,
/// `listen NAME`, `defaults`), as HAProxy's own sections open. A YAML or JSON file, or a
/// `.cfg` of another program (an INI file's `[section]`, `key = value` lines), is not.
pub fn is_haproxy_cfg(path: &Path, text: &str) -> bool {
    if !plain_text_named(path, text, "cfg") {
        return false;
    }
    text.lines().any(|line| {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("frontend" | "backend" | "listen") => {
                words.next().is_some_and(|n| !n.starts_with(['=', ':']))
            }
            Some("defaults") => words.next().is_none_or(|n| !n.starts_with(['=', ':'])),
            _ => false,
        }
    })
}

/// Whether a file has this extension (`conf`, `cfg`) and is not YAML or JSON written as a
/// flow (a proxy's own syntax never opens with `{` or `[`), nor empty.
fn plain_text_named(path: &Path, text: &str, extension: &str) -> bool {
    let named = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension));
    named
        && !matches!(
            crate::input::source::first_byte(text),
            Some(b'{' | b'[') | None
        )
}

/// Parses a file `-p` names: an NGINX or HAProxy configuration in its own syntax into a
/// file of one document (see [`crate::input::source::nginx`] and
/// [`crate::input::source::haproxy`]), anything else as YAML or JSON documents.
pub fn parse_layer_file(
    display: PathBuf,
    text: String,
    limits: crate::input::source::ParseLimits,
) -> Result<SourceFile, (String, crate::input::source::SyntaxError)> {
    let native = if is_nginx_conf(&display, &text) {
        crate::input::source::nginx::parse
    } else if is_haproxy_cfg(&display, &text) {
        crate::input::source::haproxy::parse
    } else {
        return SourceFile::parse_documents(display, text, limits);
    };
    let doc = match native(&text) {
        Ok(doc) => doc,
        Err(e) => return Err((text, e)),
    };
    let span = crate::input::source::Span::new(0, text.len());
    let root = Node::new(span, crate::input::source::Value::Seq(vec![doc].into()));
    let mut file = SourceFile::new(display, text, root, crate::input::source::Syntax::Yaml);
    file.documents = true;
    Ok(file)
}

/// What a file a hook hands over is, when it is not a description.
#[derive(Debug)]
pub enum HandedOver {
    /// A retrylint policy: named as a policy beside a description is named
    /// ([`crate::input::policy::POLICY_FILE_NAMES`], whatever it holds: the descriptions beside it
    /// read it), or shaped like one (`version` and a policy section, no `apiVersion`).
    Policy,
    /// Retry settings of a proxy, gateway or mesh, or the Gateway API `Gateway`s and
    /// `GatewayClass`es that say who implements routes: what `-p` reads.
    Layers(LayerFile),
    /// Anything else: another YAML or JSON file, one that is not valid YAML (a template),
    /// or one that cannot be read as text.
    Other,
}

/// The top-level keys that make a document with `version` a policy rather than another
/// versioned file (a Compose file has `version` and `services`).
const POLICY_SECTIONS: &[&str] = &["defaults", "operations", "lint", "service", "layers"];

/// Reads a file a hook hands over (`check --skip-non-descriptions`) that is not a
/// description and says what it is. A recognised layer file with a bad value is an input
/// error, as it is with `-p`; a file that is not valid YAML is `Other` unless its name
/// makes it a policy (the descriptions beside it then report its syntax error).
pub fn handed_over(path: &Path, options: &LoadOptions) -> Result<HandedOver, InputError> {
    let named_policy = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| crate::input::policy::POLICY_FILE_NAMES.contains(&n));
    if named_policy {
        return Ok(HandedOver::Policy);
    }
    let Ok(text) = read_text(path, &path_text(path), options.max_file_size) else {
        return Ok(HandedOver::Other);
    };
    let Ok(file) = SourceFile::parse_documents(path.to_path_buf(), text, options.parse) else {
        return Ok(HandedOver::Other);
    };
    let documents = file.root.as_seq().unwrap_or_default();
    let first = documents.first().and_then(Node::as_map);
    if first.is_some_and(|m| {
        m.get("version").is_some()
            && m.get("apiVersion").is_none()
            && POLICY_SECTIONS.iter().any(|key| m.get(key).is_some())
    }) {
        return Ok(HandedOver::Policy);
    }
    // Read as a file of a walked `-p` folder: a file of no kind retrylint reads is no error.
    Ok(match detect(path, true, options)? {
        Detected::Layers(file) => HandedOver::Layers(LayerFile {
            walked: false,
            served: Some(Arc::default()),
            ..file
        }),
        // No routes of its own: it says who implements the routes of the other files.
        Detected::Parents(file) => HandedOver::Layers(LayerFile {
            walked: false,
            ..file
        }),
        Detected::Policy(_) | Detected::Nothing => HandedOver::Other,
    })
}

/// Whether a document is a Kubernetes object (`apiVersion` and `kind`).
pub fn is_kubernetes_object(doc: &Node) -> bool {
    doc.as_map()
        .is_some_and(|m| m.get("apiVersion").is_some() && m.get("kind").is_some())
}

/// The layers of a file whose locations use file id `id`, its routes' implementation
/// known from the file's own Gateway API `Gateway`s and `GatewayClass`es.
pub fn import(layer_file: &LayerFile, id: FileId) -> Result<Vec<Layer>, InputError> {
    import_with(layer_file, id, &Parents::read([&*layer_file.file]))
}

/// The layers of a file whose locations use file id `id`, its routes' implementation
/// known from `parents`, the `Gateway`s and `GatewayClass`es of every `-p` file.
pub fn import_with(
    layer_file: &LayerFile,
    id: FileId,
    parents: &Parents,
) -> Result<Vec<Layer>, InputError> {
    let file = ImportFile {
        file: &layer_file.file,
        id,
        parents,
    };
    let mut layers = Vec::new();
    let documents = layer_file.file.root.as_seq().unwrap_or_default();
    for (pointer, doc) in super::k8s_list::objects(documents) {
        let loc = crate::location::Loc::new(id, pointer, doc.span);
        for importer in Format::importers() {
            if importer.recognises(&doc) {
                layers.extend(importer.import(&file, &doc, &loc)?);
            }
        }
    }
    Ok(layers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::load::discover::MAX_WALK_DEPTH;

    /// A scratch folder of this test's own under the system's temporary folder.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("retrylint-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn write(dir: &Path, relative: &str, text: &str) {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_folder_is_walked_for_every_file_but_hidden_ones() {
        let dir = scratch("p-walk");
        // An ignore file does not hide a setting: generated manifests are what runs.
        write(&dir, ".ignore", "generated/\n");
        write(&dir, "b.yaml", "");
        write(&dir, "a/route.json", "");
        write(&dir, "notes.txt", "");
        write(&dir, ".hidden/route.yaml", "");
        write(&dir, "generated/route.yaml", "");
        let found = expand(std::slice::from_ref(&dir), &LoadOptions::default()).unwrap();
        let names: Vec<String> = found
            .iter()
            .map(|(path, walked)| {
                assert!(walked);
                path_text(path.strip_prefix(&dir).unwrap())
            })
            .collect();
        assert_eq!(names, ["a/route.json", "b.yaml", "generated/route.yaml"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_deeper_than_the_walk_is_named() {
        let dir = scratch("p-deep");
        let deep: Vec<String> = (0..=MAX_WALK_DEPTH).map(|i| format!("d{i}")).collect();
        let at_limit = deep[..MAX_WALK_DEPTH].join("/");
        write(&dir, &format!("{at_limit}/read.yaml"), "");
        let found = expand(std::slice::from_ref(&dir), &LoadOptions::default()).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        write(&dir, &format!("{}/too-deep.yaml", deep.join("/")), "");
        let error = expand(std::slice::from_ref(&dir), &LoadOptions::default()).unwrap_err();
        assert!(
            error
                .message
                .contains("too-deep.yaml` lies more than 16 folders deep"),
            "{}",
            error.message
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
