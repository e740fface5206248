//! What the Kubernetes formats (Istio, Gateway API, Linkerd) share: recognising an object
//! by its `apiVersion` group and `kind`, its metadata (name, namespace, annotations), the
//! in-cluster names of a `Service`, and reading typed values with every error located at
//! the value.

use super::names::Name;
use super::values::{field, k8s_duration};
use crate::error::InputError;
use crate::input::policy::{Duration, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The typed readers every importer shares.
pub use super::values::{boolean, list, mapping, text, whole_number};

/// What the Kubernetes formats cannot say about `Retry-After`: none exposes it.
pub const RETRY_AFTER: &str = "Retry-After";

/// The API group of an object: `networking.istio.io` of `networking.istio.io/v1`, and
/// `""` for the core group (`apiVersion: v1`).
pub fn api_group(doc: &Node) -> Option<&str> {
    let version = doc.get("apiVersion")?.as_str()?;
    Some(version.rsplit_once('/').map_or("", |(group, _)| group))
}

/// Whether a document is an object of one of `kinds` in API group `group` (any version).
pub fn is_object(doc: &Node, group: &str, kinds: &[&str]) -> bool {
    api_group(doc) == Some(group)
        && doc
            .get("kind")
            .and_then(Node::as_str)
            .is_some_and(|kind| kinds.contains(&kind))
}

/// The metadata of an object that names a layer and its hosts.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// `metadata.name`, if written.
    pub name: Option<String>,
    /// `metadata.namespace`, if written.
    pub namespace: Option<String>,
    /// Where the object is named (`metadata.name`), or the whole document.
    pub loc: Loc,
}

impl Metadata {
    /// The layer of kind `kind` (`Istio VirtualService`) this object is, named for messages.
    pub fn layer_name(&self, kind: &str) -> Name {
        Name::of(kind, self.name.as_deref().unwrap_or("(unnamed)"))
    }

    /// The object's name as written, or `(unnamed)`.
    pub fn written_name(&self) -> &str {
        self.name.as_deref().unwrap_or("(unnamed)")
    }
}

/// Reads `metadata.name` and `metadata.namespace` of the document at `loc`.
pub fn metadata(file: &SourceFile, doc: &Node, loc: &Loc) -> Result<Metadata, InputError> {
    let mut meta = Metadata {
        name: None,
        namespace: None,
        loc: loc.clone(),
    };
    let Some((node, at)) = field(doc, loc, "metadata") else {
        return Ok(meta);
    };
    mapping(file, node, &at, "metadata")?;
    if let Some((name, name_at)) = field(node, &at, "name") {
        meta.name = Some(text(file, name, &name_at, "metadata.name")?.to_string());
        meta.loc = name_at;
    }
    if let Some((namespace, ns_at)) = field(node, &at, "namespace") {
        meta.namespace = Some(text(file, namespace, &ns_at, "metadata.namespace")?.to_string());
    }
    Ok(meta)
}

/// The `spec` mapping of an object, if it has one.
pub fn spec<'a>(
    file: &SourceFile,
    doc: &'a Node,
    loc: &Loc,
) -> Result<Option<(&'a Node, Loc)>, InputError> {
    match field(doc, loc, "spec") {
        None => Ok(None),
        Some((node, at)) => {
            mapping(file, node, &at, "spec")?;
            Ok(Some((node, at)))
        }
    }
}

/// Whether the object carries any of these annotations.
pub fn has_any_annotation(doc: &Node, keys: &[&str]) -> bool {
    doc.get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(Node::as_map)
        .is_some_and(|annotations| keys.iter().any(|k| annotations.get(k).is_some()))
}

/// The `metadata.annotations` mapping of an object and its location, if written.
pub fn annotations<'a>(
    file: &SourceFile,
    doc: &'a Node,
    loc: &Loc,
) -> Result<Option<(&'a Node, Loc)>, InputError> {
    let Some((meta, meta_at)) = field(doc, loc, "metadata") else {
        return Ok(None);
    };
    match field(meta, &meta_at, "annotations") {
        None => Ok(None),
        Some((node, at)) => {
            mapping(file, node, &at, "metadata.annotations")?;
            Ok(Some((node, at)))
        }
    }
}

/// The names a `Service` is reached by in the cluster: `payments`, and
/// `payments.prod.svc.cluster.local` when its namespace is known.
pub fn service_hosts(name: &str, namespace: Option<&str>) -> Vec<String> {
    let mut hosts = vec![name.to_string()];
    if let Some(namespace) = namespace.filter(|n| !n.is_empty()) {
        hosts.push(format!("{name}.{namespace}.svc.cluster.local"));
    }
    hosts
}

/// A `Service` reference (`parentRefs`, `targetRefs`): whether its `kind` is `Service` in
/// the core group (written `""`, `core`, or left out).
pub fn refers_to_service(reference: &Node) -> bool {
    let kind = reference.get("kind").and_then(Node::as_str);
    let group = reference.get("group").and_then(Node::scalar_text);
    kind == Some("Service") && group.is_none_or(|g| g.is_empty() || g == "core")
}

/// The host names of the `Service`s a list of references (`parentRefs`, `targetRefs`)
/// names; a reference without a namespace is in the object's own.
pub fn referenced_service_hosts(
    file: &SourceFile,
    references: &[Node],
    loc: &Loc,
    object_namespace: Option<&str>,
) -> Result<Vec<String>, InputError> {
    let mut hosts = Vec::new();
    for (index, reference) in references.iter().enumerate() {
        let at = loc.item(index, reference);
        mapping(file, reference, &at, "a reference")?;
        if !refers_to_service(reference) {
            continue;
        }
        let Some((name, name_at)) = field(reference, &at, "name") else {
            continue;
        };
        let name = text(file, name, &name_at, "name")?;
        let namespace = match field(reference, &at, "namespace") {
            Some((ns, ns_at)) => Some(text(file, ns, &ns_at, "namespace")?),
            None => object_namespace,
        };
        hosts.extend(service_hosts(name, namespace));
    }
    Ok(unique_hosts(hosts))
}

/// `hosts` without repeats, in the order first written: looked up, not scanned, as an
/// object may list thousands.
pub fn unique_hosts(hosts: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = foldhash::HashSet::default();
    hosts
        .into_iter()
        .filter(|host| seen.insert(host.clone()))
        .collect()
}

/// A list of host names (`spec.hosts`, `spec.hostnames`).
pub fn host_list(file: &SourceFile, node: &Node, loc: &Loc) -> Result<Vec<String>, InputError> {
    let mut hosts = Vec::new();
    for (index, item) in list(file, node, loc, "hosts")?.iter().enumerate() {
        hosts.push(text(file, item, &loc.item(index, item), "a host")?.to_string());
    }
    Ok(hosts)
}

/// The name of a route entry: its `name` field, or `fallback` (`http[2]`).
pub fn entry_name(
    file: &SourceFile,
    entry: &Node,
    loc: &Loc,
    fallback: impl FnOnce() -> String,
) -> Result<Name, InputError> {
    match field(entry, loc, "name") {
        Some((name, at)) => Ok(Name::new(text(file, name, &at, "name")?)),
        None => Ok(Name::new(&fallback())),
    }
}

/// A value that is not written in the file: the format's built-in default, located at the
/// nearest thing written (a route, a `retries` block) with a note saying where it is from.
pub fn built_in<T>(value: T, at: &Loc, note: &str) -> Spanned<T> {
    Spanned::new(value, at.noted(note))
}

/// A timeout field (`timeout`, `perTryTimeout`, `timeouts.request`): absent, or zero, which
/// these formats read as "no timeout", is `None`.
pub fn timeout(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    key: &str,
) -> Result<Option<Spanned<Duration>>, InputError> {
    match field(node, loc, key) {
        None => Ok(None),
        Some((value, at)) => {
            let duration = k8s_duration(file, value, &at)?;
            Ok((duration.value > Duration::ZERO).then_some(duration))
        }
    }
}

/// Total attempts for a count of retries: the first attempt plus the retries.
pub fn attempts_for_retries(retries: u64) -> i64 {
    i64::try_from(retries).map_or(i64::MAX, |r| r.saturating_add(1))
}

#[cfg(test)]
pub(crate) mod testing {
    //! Importing YAML text or a fixture the way `-p` does, for the importers' tests.

    use std::sync::Arc;

    use crate::analysis::layers::detect::{LayerFile, import};
    use crate::analysis::layers::{Format, Layer, PathMatch, Route};
    use crate::error::InputError;
    use crate::input::policy::Signal;
    use crate::input::source::SourceFile;
    use crate::location::Loc;

    /// A file and the layers every importer found in it.
    pub(crate) struct Imported {
        pub file: Arc<SourceFile>,
        pub layers: Vec<Layer>,
    }

    impl Imported {
        /// The layers of one format.
        pub(crate) fn of(&self, format: Format) -> Vec<&Layer> {
            self.layers.iter().filter(|l| l.format == format).collect()
        }

        /// The text a location underlines.
        pub(crate) fn text_at(&self, loc: &Loc) -> &str {
            &self.file.text[loc.span.range()]
        }

        /// The 1-based line a location starts on.
        pub(crate) fn line_of(&self, loc: &Loc) -> u32 {
            self.file.position(loc.span.start).line
        }
    }

    /// Parses `text` as a multi-document file.
    pub(crate) fn parse(text: &str) -> SourceFile {
        SourceFile::parse_documents(
            "t.yaml".into(),
            text.into(),
            crate::input::source::ParseLimits::default(),
        )
        .unwrap_or_else(|(_, e)| panic!("{}", e.message))
    }

    /// Every layer of `text`, or the input error.
    pub(crate) fn try_import(text: &str) -> Result<Imported, InputError> {
        let layer_file = LayerFile {
            file: Arc::new(parse(text)),
            walked: false,
            served: None,
        };
        let layers = import(&layer_file, 0)?;
        Ok(Imported {
            file: layer_file.file,
            layers,
        })
    }

    /// Every layer of `text`; panics on an input error.
    pub(crate) fn import_text(text: &str) -> Imported {
        try_import(text).unwrap_or_else(|e| panic!("{}", e.message))
    }

    /// Every layer of a fixture under `fixtures/layers/`.
    pub(crate) fn import_fixture(path: &str) -> Imported {
        let full = format!("{}/fixtures/layers/{path}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
        import_text(&text)
    }

    /// The input error `text` gives, and the text it underlines.
    pub(crate) fn import_error(text: &str) -> (String, String) {
        let Err(error) = try_import(text) else {
            panic!("expected an input error")
        };
        let span = error.site.as_ref().map(|s| s.span).expect("located");
        (error.message.clone(), text[span.range()].to_string())
    }

    /// The route's total attempts.
    pub(crate) fn attempts(route: &Route) -> i64 {
        route
            .policy
            .max_attempts
            .as_ref()
            .expect("maxAttempts")
            .value
    }

    /// The route's retry conditions, in order.
    pub(crate) fn retry_on(route: &Route) -> Vec<Signal> {
        route
            .policy
            .retry_on
            .as_ref()
            .map(|s| s.value.iter().map(|s| s.value).collect())
            .unwrap_or_default()
    }

    /// A path match as text: `exact /a`, `prefix /a`, `segments /a`, `regex ..`, `any`.
    pub(crate) fn path_text(path: &PathMatch) -> String {
        match path {
            PathMatch::Any => "any".into(),
            PathMatch::Exact(p) => format!("exact {p}"),
            PathMatch::Prefix(p) => format!("prefix {p}"),
            PathMatch::SegmentPrefix(p) => format!("segments {p}"),
            PathMatch::Regex(r) => format!("regex {}", r.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> SourceFile {
        testing::parse(text)
    }

    #[test]
    fn objects_are_recognised_by_group_and_kind() {
        let file = doc(
            "apiVersion: networking.istio.io/v1\nkind: VirtualService\n---\napiVersion: v1\nkind: Service\n",
        );
        let docs = file.root.as_seq().unwrap();
        assert!(is_object(
            &docs[0],
            "networking.istio.io",
            &["VirtualService"]
        ));
        assert!(!is_object(&docs[0], "networking.istio.io", &["Gateway"]));
        assert_eq!(api_group(&docs[1]), Some(""));
        assert!(is_object(&docs[1], "", &["Service"]));
    }

    #[test]
    fn metadata_and_service_references() {
        let file = doc(
            "metadata: {name: payments, namespace: prod}\nrefs:\n- {kind: Service, name: a}\n- {kind: Service, group: core, name: b, namespace: other}\n- {kind: Gateway, name: c}\n",
        );
        let root = &file.root.as_seq().unwrap()[0];
        let loc = Loc::new(0, "/0", root.span);
        let meta = metadata(&file, root, &loc).unwrap();
        assert_eq!(meta.name.as_deref(), Some("payments"));
        assert_eq!(meta.namespace.as_deref(), Some("prod"));
        assert_eq!(&file.text[meta.loc.span.range()], "name: payments");
        let (refs, at) = field(root, &loc, "refs").unwrap();
        let hosts =
            referenced_service_hosts(&file, refs.as_seq().unwrap(), &at, Some("prod")).unwrap();
        assert_eq!(
            hosts,
            [
                "a",
                "a.prod.svc.cluster.local",
                "b",
                "b.other.svc.cluster.local"
            ]
        );
    }

    #[test]
    fn a_zero_timeout_is_no_timeout_and_retries_count_the_first_attempt() {
        let file = doc("t: 0s\nu: 2s\n");
        let root = &file.root.as_seq().unwrap()[0];
        let loc = Loc::new(0, "/0", root.span);
        assert_eq!(timeout(&file, root, &loc, "t").ok(), Some(None));
        assert!(timeout(&file, root, &loc, "u").is_ok_and(|t| t.is_some()));
        assert_eq!(attempts_for_retries(2), 3);
        assert_eq!(attempts_for_retries(u64::MAX), i64::MAX);
    }
}
