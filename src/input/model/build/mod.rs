//! Builds the [`Api`] model from a loaded description, following `$ref`s at path-item,
//! operation, parameter, response and header level.
//!
//! OpenAPI 3.0, 3.1, 3.2 and Swagger 2.0 share this walk: the facts retrying depends on
//! (header parameters, response codes, response header names) are written the same way
//! in all of them. Schemas are never visited.
//!
//! Operations come from `paths` and from Azure's `x-ms-paths` (whose keys may carry a
//! query string, `/items?op=purge`; the path template is kept as written). A path item's
//! methods are its method fields (3.2 adds `query`) and, in 3.2, the custom methods of
//! `additionalOperations`; both are read whatever the version says, as they mean one
//! thing.

mod ahead;
mod body;
mod proto;
mod responses;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt, HashSet};

use super::effect::{self, Cue, CueSource, Repeat};
use super::{Api, Extension, HeaderParam, Method, Operation, Place, RequestField, SpecVersion};
use crate::error::InputError;
use crate::input::load::{FileId, Loader, Target};
use crate::input::source::{Entry, Node, SourceFile, Span, Value};
use crate::location::Loc;
use body::BodyCache;
use responses::responses;

/// The maps of path items: the standard one, and Azure's second map whose keys may carry
/// a query string.
const PATH_MAPS: [&str; 2] = ["paths", "x-ms-paths"];

/// A node together with the file it is in and its location there.
struct At<'n> {
    id: FileId,
    file: &'n SourceFile,
    node: &'n Node,
    loc: Loc,
}

impl<'n> At<'n> {
    fn error(&self, span: Span, message: impl Into<String>) -> InputError {
        InputError::at(self.file, span, message)
    }

    /// The mapping under `key`, or an error if something else is written there.
    fn map_child(&self, key: &str) -> Result<Option<At<'n>>, InputError> {
        let Some(entry) = self.node.as_map().and_then(|m| m.entry(key)) else {
            return Ok(None);
        };
        if entry.value.as_map().is_none() {
            return Err(self.error(
                entry.value.span,
                format!("`{key}` must be a mapping, found {}", entry.value.kind()),
            ));
        }
        Ok(Some(At {
            id: self.id,
            file: self.file,
            node: &entry.value,
            loc: self.loc.entry(key, entry.key_span, &entry.value),
        }))
    }
}

/// Where a node leads: the `$ref` target when it is a reference, else the node itself.
fn through<'n>(target: Option<&'n Target>, at: At<'n>) -> At<'n> {
    match target {
        Some(t) => At {
            id: t.file_id,
            file: &t.file,
            node: t.node(),
            loc: t.loc(),
        },
        None => at,
    }
}

/// Builds the model of the description whose root file is `root`.
pub fn build(loader: &mut Loader, root: FileId) -> Result<Api, InputError> {
    let file = loader.file(root);
    if let Some(parsed) = &file.proto {
        return proto::build(loader, root, &file, parsed);
    }
    let doc = At {
        id: root,
        file: &file,
        node: &file.root,
        loc: Loc::new(root, "", file.root.span),
    };
    let version = spec_version(&doc)?;
    // Sized from the paths the root file writes (a path item has an operation or more;
    // its methods are not counted: that would build every path item at once).
    let written = PATH_MAPS
        .iter()
        .filter_map(|paths| file.root.get(paths).and_then(Node::as_map))
        .map(crate::input::source::Map::len)
        .sum::<usize>();
    let mut operations = Vec::with_capacity(written.min(loader.options().max_operations + 1));
    let mut bodies = BodyCache::default();
    let fern_idempotency_headers = fern_headers(&doc)?;
    // With no idempotency headers declared, Fern's mark says the operation itself is
    // idempotent.
    bodies.fern_marks_idempotent = fern_idempotency_headers.is_empty();
    for paths in PATH_MAPS {
        let Some(paths) = doc.map_child(paths)? else {
            continue;
        };
        let entries: Vec<&crate::input::source::Entry> = paths
            .node
            .as_map()
            .map(crate::input::source::Map::entries)
            .unwrap_or_default()
            .iter()
            .filter(|entry| !entry.key.starts_with("x-"))
            .collect();
        // Built for this loop alone, when the parse left it unbuilt: the tree of each path
        // item is freed once its operations are read.
        ahead::each_built(&entries, file.read_ahead(), |entry, node| {
            let item = At {
                id: root,
                file: &file,
                node,
                loc: paths.loc.entry(&entry.key, entry.key_span, &entry.value),
            };
            path_item(loader, &mut bodies, &entry.key, item, &mut operations)?;
            let limit = loader.options().max_operations;
            if operations.len() > limit {
                return Err(InputError::at(
                    &file,
                    entry.key_span,
                    format!(
                        "the description has more than {limit} operations; refusing to go further"
                    ),
                )
                .with_help("raise the limit with --max-operations N"));
            }
            Ok(())
        })?;
    }
    unique(loader, &operations)?;
    // The list may have grown past its estimate; the model lives through the whole check.
    operations.shrink_to_fit();
    let webhook_count = ["webhooks", "x-webhooks"]
        .iter()
        .filter_map(|k| file.root.get(k).and_then(Node::as_map))
        .map(crate::input::source::Map::len)
        .sum();
    Ok(Api {
        version,
        root_file: root,
        operations,
        webhook_count,
        retry_policy: extension(&doc, "x-retry-policy"),
        servers: server_urls(&file.root),
        speakeasy_retries: extension(&doc, "x-speakeasy-retries"),
        fern_idempotency_headers,
    })
}

/// The header names of the document's `x-fern-idempotency-headers`
/// (`[{header: Idempotency-Key, name: idempotency_key}]`).
fn fern_headers(doc: &At<'_>) -> Result<Vec<(String, Loc)>, InputError> {
    const KEY: &str = "x-fern-idempotency-headers";
    let Some(entry) = doc.node.as_map().and_then(|m| m.entry(KEY)) else {
        return Ok(Vec::new());
    };
    let Some(items) = entry.value.as_seq() else {
        return Err(doc.error(
            entry.value.span,
            format!("`{KEY}` must be a list, found {}", entry.value.kind()),
        ));
    };
    let list = doc.loc.entry(KEY, entry.key_span, &entry.value);
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let name = item
                .get("header")
                .and_then(Node::scalar_text)
                .ok_or_else(|| {
                    doc.error(
                        item.span,
                        format!("an entry of `{KEY}` needs a `header`: the header's name"),
                    )
                })?;
            let mut loc = list.item(i, item);
            if let Some(header) = loc.child(item, "header") {
                loc = header;
            }
            Ok((name.to_string(), loc))
        })
        .collect()
}

/// The document's server URLs: OpenAPI 3 `servers[].url`, or Swagger 2.0's `host` and
/// `basePath` written as `//host/basePath`.
fn server_urls(root: &Node) -> Vec<String> {
    let mut urls: Vec<String> = root
        .get("servers")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|s| s.get("url").and_then(Node::as_str).map(str::to_string))
        .collect();
    let host = root.get("host").and_then(Node::as_str);
    let base = root.get("basePath").and_then(Node::as_str);
    if host.is_some() || base.is_some() {
        urls.push(format!(
            "//{}{}",
            host.unwrap_or_default(),
            base.unwrap_or_default()
        ));
    }
    urls
}

fn spec_version(doc: &At<'_>) -> Result<SpecVersion, InputError> {
    let name = doc.file.name();
    if doc.node.as_map().is_none() {
        return Err(doc.error(
            Span::new(doc.node.span.start as usize, doc.node.span.start as usize + 1),
            format!(
                "`{name}` is not an OpenAPI or Swagger document: the top level is {}, not a mapping",
                doc.node.kind()
            ),
        ));
    }
    let (key, supported): (&str, &[(&str, SpecVersion)]) = if doc.node.get("openapi").is_some() {
        (
            "openapi",
            &[
                ("3.0", SpecVersion::OpenApi30),
                ("3.1", SpecVersion::OpenApi31),
                ("3.2", SpecVersion::OpenApi32),
            ],
        )
    } else if doc.node.get("swagger").is_some() {
        ("swagger", &[("2.0", SpecVersion::Swagger2)])
    } else {
        return Err(InputError::at(
            doc.file,
            Span::new(doc.node.span.start as usize, doc.node.span.start as usize),
            format!(
                "`{name}` is not an OpenAPI or Swagger document: it has no `openapi` or `swagger` field"
            ),
        )
        .with_help("retrylint reads OpenAPI 3.0, 3.1, 3.2 and Swagger 2.0 descriptions"));
    };
    let value = doc.node.get(key).unwrap_or(doc.node);
    let text = value.scalar_text().unwrap_or_default();
    supported
        .iter()
        .find(|(prefix, _)| text == *prefix || text.starts_with(&format!("{prefix}.")))
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            doc.error(value.span, format!("unsupported version `{key}: {text}`"))
                .with_help("retrylint reads OpenAPI 3.0.x, 3.1.x, 3.2.x and Swagger 2.0")
        })
}

/// A boolean the description states under `key`: `true`/`false`, or a plain (unquoted)
/// YAML 1.1 spelling that peers read as one, `yes`/`no`, `on`/`off`, `y`/`n` in any case.
/// Every boolean of the model is read here; anything else under the key is an input
/// error rather than a silent `false`.
fn flag<'n>(
    file: &SourceFile,
    node: &'n Node,
    key: &str,
) -> Result<Option<(bool, &'n Entry)>, InputError> {
    let Some(entry) = node.as_map().and_then(|m| m.entry(key)) else {
        return Ok(None);
    };
    let value = entry.value.resolved();
    let plain = file
        .text
        .as_bytes()
        .get(value.span.start as usize)
        .is_some_and(|b| !matches!(b, b'"' | b'\''));
    let parsed = match &value.value {
        Value::Bool(b) => Some(*b),
        Value::String(text) if plain => yaml11_bool(text),
        _ => None,
    };
    match parsed {
        Some(b) => Ok(Some((b, entry))),
        None => Err(InputError::at(
            file,
            value.span,
            format!("`{key}` must be true or false, found {}", value.kind()),
        )
        .with_help(
            "write `true` or `false` (yes/no and on/off are read as YAML 1.1 booleans too)",
        )),
    }
}

/// `yes`/`no`, `on`/`off`, `y`/`n`, `true`/`false` in any case: YAML 1.1 booleans.
fn yaml11_bool(text: &str) -> Option<bool> {
    const TRUE: [&str; 4] = ["true", "yes", "on", "y"];
    const FALSE: [&str; 4] = ["false", "no", "off", "n"];
    if TRUE.iter().any(|t| t.eq_ignore_ascii_case(text)) {
        Some(true)
    } else if FALSE.iter().any(|f| f.eq_ignore_ascii_case(text)) {
        Some(false)
    } else {
        None
    }
}

/// Where a `$ref`'d operation is defined: the target's key, or, for a whole file, its
/// first entry (a label on one line, not on the whole file).
fn definition_loc(op: &At<'_>) -> Loc {
    let mut loc = op.loc.clone();
    if loc.span == op.node.span
        && let Some(first) = op.node.as_map().and_then(|m| m.entries().first())
    {
        loc.span = crate::location::entry_span(first.key_span, &first.value);
    }
    loc
}

fn extension(at: &At<'_>, key: &str) -> Option<Extension> {
    let entry = at.node.as_map()?.entry(key)?;
    Some(Extension {
        node: entry.value.clone(),
        loc: at.loc.entry(key, entry.key_span, &entry.value),
    })
}

/// Reads the operations of one path item (which may be a `$ref`).
fn path_item(
    loader: &mut Loader,
    bodies: &mut BodyCache,
    path: &str,
    item: At<'_>,
    out: &mut Vec<Operation>,
) -> Result<(), InputError> {
    let target = loader.follow(item.id, item.node)?;
    if let Some(t) = &target {
        loader.charge_reuse(t, item.id, ref_span(item.node))?;
    }
    let item = through(target.as_ref(), item);
    let Some(map) = item.node.as_map() else {
        return Err(item.error(
            item.node.span,
            format!(
                "the path item `{path}` must be a mapping, found {}",
                item.node.kind()
            ),
        ));
    };
    let path_params = params(loader, bodies, &item)?;
    for entry in map.entries() {
        let Some(method) = Method::parse(&entry.key) else {
            continue;
        };
        let site = item.loc.entry(&entry.key, entry.key_span, &entry.value);
        let op = At {
            id: item.id,
            file: item.file,
            node: &entry.value,
            loc: site.clone(),
        };
        out.push(operation(loader, bodies, method, path, op, &path_params)?);
    }
    // OpenAPI 3.2: methods without a field of their own, keyed by the name as sent.
    if let Some(more) = item.map_child("additionalOperations")? {
        for entry in more
            .node
            .as_map()
            .map(crate::input::source::Map::entries)
            .unwrap_or_default()
        {
            let Some(method) = Method::named(&entry.key) else {
                return Err(more.error(
                    entry.key_span,
                    format!(
                        "`{}` is not an HTTP method name: `additionalOperations` keys are methods as sent, such as PURGE or LINK",
                        entry.key.escape_debug()
                    ),
                ));
            };
            let op = At {
                id: more.id,
                file: more.file,
                node: &entry.value,
                loc: more.loc.entry(&entry.key, entry.key_span, &entry.value),
            };
            out.push(operation(loader, bodies, method, path, op, &path_params)?);
        }
    }
    Ok(())
}

/// Refuses a description that states one operation twice (a method field and the same
/// method in `additionalOperations`, or a key of both `paths` and `x-ms-paths`).
fn unique(loader: &mut Loader, operations: &[Operation]) -> Result<(), InputError> {
    let mut seen = HashMap::with_capacity(operations.len());
    for op in operations {
        if let Some(first) = seen.insert((op.method, op.path.as_str()), &op.loc) {
            let file = loader.file(op.loc.file);
            let earlier = loader.file(first.file);
            return Err(InputError::at(
                &file,
                op.loc.span,
                format!("`{}` is described twice", op.key()),
            )
            .with_related(crate::error::ErrorSite::new(
                &earlier,
                first.span,
                "first described here",
            ))
            .with_help("describe each method of a path once: a method with a field of its own (get, query, …) does not belong in `additionalOperations`"));
        }
    }
    Ok(())
}

fn operation(
    loader: &mut Loader,
    bodies: &mut BodyCache,
    method: Method,
    path: &str,
    op: At<'_>,
    path_params: &Params,
) -> Result<Operation, InputError> {
    let site = op.loc.clone();
    let target = loader.follow(op.id, op.node)?;
    if let Some(t) = &target {
        loader.charge_reuse(t, op.id, ref_span(op.node))?;
    }
    let op = through(target.as_ref(), op);
    if op.node.as_map().is_none() {
        return Err(op.error(
            op.node.span,
            format!(
                "the operation `{method} {path}` must be a mapping, found {}",
                op.node.kind()
            ),
        ));
    }
    let operation_id = match op.node.get("operationId") {
        None => None,
        Some(n) => Some(
            n.scalar_text()
                .ok_or_else(|| op.error(n.span, "`operationId` must be a string"))?
                .to_string(),
        ),
    };
    let tags = match op.node.get("tags") {
        None => Vec::new(),
        Some(n) => n
            .as_seq()
            .ok_or_else(|| op.error(n.span, "`tags` must be a list of strings"))?
            .iter()
            .filter_map(|t| t.scalar_text().map(str::to_string))
            .collect(),
    };
    let idempotent = flag(op.file, op.node, "x-idempotent")?
        .map(|(value, e)| (value, op.loc.entry("x-idempotent", e.key_span, &e.value)));
    let fern_idempotent = flag(op.file, op.node, "x-fern-idempotent")?.map(|(value, e)| {
        (
            value,
            op.loc.entry("x-fern-idempotent", e.key_span, &e.value),
        )
    });
    // Operation-level parameters win over path-level ones of the same name (a set of
    // names, so many parameters on both levels stay linear).
    let Params {
        mut headers,
        mut query,
        body: param_body,
    } = params(loader, bodies, &op)?;
    let own: HashSet<String> = headers
        .iter()
        .map(|h| h.name.to_ascii_lowercase())
        .collect();
    for inherited in &path_params.headers {
        if !own.contains(&inherited.name.to_ascii_lowercase()) {
            headers.push(HeaderParam {
                name: inherited.name.clone(),
                required: inherited.required,
                loc: inherited.loc.clone(),
                definition: inherited.definition.clone(),
            });
        }
    }
    // Query names compare as written: they are case-sensitive.
    let own: HashSet<String> = query.iter().map(|q| q.name.clone()).collect();
    query.extend(
        path_params
            .query
            .iter()
            .filter(|q| !own.contains(&q.name))
            .cloned(),
    );
    let body::RequestBody {
        fields: body,
        telling: mut media_types,
    } = match param_body.or_else(|| path_params.body.clone()) {
        Some(swagger_body) => body::RequestBody {
            fields: swagger_body,
            telling: Vec::new(),
        },
        None => body::request_body(loader, bodies, &op),
    };
    media_types.extend(body::consumed_media_types(&op));
    let (responses, refusals) = responses(loader, bodies, &op)?;
    let declared = declared_effect(&op, idempotent.as_ref(), fern_idempotent.as_ref(), bodies)?;
    let text = |key: &'static str| {
        let entry = op.node.as_map().and_then(|m| m.entry(key))?;
        let shared = entry.value.as_text()?;
        Some(effect::Written {
            text: shared,
            loc: effect::Place::Entry {
                parent: &op.loc,
                key,
                key_span: entry.key_span,
                value: &entry.value,
            },
            shared: Some(shared),
        })
    };
    let facts = effect::Facts {
        method,
        path,
        site: &site,
        operation_id: text("operationId"),
        summary: text("summary"),
        description: text("description"),
        declared,
        media_types,
        created_at: responses
            .iter()
            .find(|r| r.code == "201")
            .map(|r| {
                r.header("Location").map_or_else(
                    || (false, false, r.loc.clone()),
                    |h| (true, false, h.loc.clone()),
                )
            })
            .or_else(|| {
                responses
                    .iter()
                    .find(|r| r.code == "202")
                    .map(|r| (false, true, r.loc.clone()))
            }),
        http_rule: None,
        refusals: refusals.texts.iter().map(|(t, l)| (t, l)).collect(),
        refusal_codes: refusals.codes,
        // The request's own fields, and the nested ones every request sends: an optional
        // nested one describes a part of a record that some requests leave out.
        fields: query
            .iter()
            .chain(body.iter())
            .filter(|f| f.place != Place::Body || f.required || !f.name.contains('.'))
            .filter_map(|f| Some((f.description.as_deref()?, &f.loc, f.required)))
            .collect(),
    };
    let effect = Arc::new(effect::infer(&facts, &mut bodies.phrases));
    Ok(Operation {
        method,
        path: path.to_string(),
        operation_id,
        tags,
        definition: target.as_ref().map(|_| definition_loc(&op)),
        loc: site,
        headers,
        query,
        body,
        responses,
        idempotent,
        // Boxed: few operations have them, and an extension is large beside an operation.
        retry_policy: extension(&op, "x-retry-policy").map(Box::new),
        speakeasy_retries: extension(&op, "x-speakeasy-retries").map(Box::new),
        ignore: extension(&op, "x-retrylint-ignore").map(Box::new),
        fern_idempotent,
        long_running: flag(op.file, op.node, "x-ms-long-running-operation")?
            .filter(|(value, _)| *value)
            .map(|(_, e)| {
                op.loc
                    .entry("x-ms-long-running-operation", e.key_span, &e.value)
            }),
        grpc: None,
        effect,
    })
}

/// The effect the operation declares: `x-side-effect` (the policy's `sideEffect` values),
/// else `x-idempotent`, else Fern's `x-fern-idempotent: true` when the document declares
/// no idempotency headers for it to take.
fn declared_effect(
    op: &At<'_>,
    idempotent: Option<&(bool, Loc)>,
    fern: Option<&(bool, Loc)>,
    bodies: &BodyCache,
) -> Result<Option<Cue>, InputError> {
    const KEY: &str = "x-side-effect";
    if let Some(entry) = op.node.as_map().and_then(|m| m.entry(KEY)) {
        let value = entry.value.resolved();
        let says = value
            .as_str()
            .and_then(Repeat::of_side_effect_name)
            .ok_or_else(|| {
                op.error(
                    value.span,
                    format!(
                        "`{KEY}` must be none, idempotent or non-idempotent, found {}",
                        value.kind()
                    ),
                )
                .with_help("the values of the policy's `sideEffect`: none (a read), idempotent, non-idempotent")
            })?;
        return Ok(Some(Cue {
            says,
            source: CueSource::Declared(KEY),
            words: says.side_effect_name().into(),
            loc: Some(op.loc.entry(KEY, entry.key_span, &entry.value)),
            weight: u8::MAX,
        }));
    }
    if let Some((value, loc)) = idempotent {
        let says = if *value {
            Repeat::Idempotent
        } else {
            Repeat::NonIdempotent
        };
        return Ok(Some(Cue {
            says,
            source: CueSource::Declared("x-idempotent"),
            words: if *value {
                "true".into()
            } else {
                "false".into()
            },
            loc: Some(loc.clone()),
            weight: u8::MAX,
        }));
    }
    Ok(fern
        .filter(|(value, _)| *value && bodies.fern_marks_idempotent)
        .map(|(_, loc)| Cue {
            says: Repeat::Idempotent,
            source: CueSource::Declared("x-fern-idempotent"),
            words: "true".into(),
            loc: Some(loc.clone()),
            weight: u8::MAX,
        }))
}

/// Where a `{$ref: …}` node writes its reference (the node itself if it has none).
fn ref_span(node: &Node) -> Span {
    node.get("$ref").map_or(node.span, |r| r.span)
}

/// The parameters of a path item or operation that retrying depends on.
#[derive(Default)]
struct Params {
    headers: Vec<HeaderParam>,
    query: Vec<RequestField>,
    /// The properties of a Swagger 2.0 `in: body` parameter's schema, when it has one.
    body: Option<Arc<[RequestField]>>,
}

/// The `in: header` and `in: query` parameters listed by a path item or operation, and
/// the properties of its Swagger 2.0 `in: body` parameter.
fn params(
    loader: &mut Loader,
    bodies: &mut BodyCache,
    owner: &At<'_>,
) -> Result<Params, InputError> {
    let mut out = Params::default();
    let Some(entry) = owner.node.as_map().and_then(|m| m.entry("parameters")) else {
        return Ok(out);
    };
    let Some(items) = entry.value.as_seq() else {
        return Err(owner.error(
            entry.value.span,
            format!("`parameters` must be a list, found {}", entry.value.kind()),
        ));
    };
    let list = owner.loc.entry("parameters", entry.key_span, &entry.value);
    for (i, item) in items.iter().enumerate() {
        // Point at the item's `name:` (or `$ref:`) line rather than the whole item.
        let mut site = list.item(i, item);
        if let Some(line) = ["name", "$ref"].iter().find_map(|k| site.child(item, k)) {
            site.span = line.span;
        }
        let target = loader.follow(owner.id, item)?;
        let (param, file, id) = match &target {
            Some(t) => (t.node(), &*t.file, t.file_id),
            None => (item, owner.file, owner.id),
        };
        let place = match param.get("in").and_then(Node::as_str) {
            Some("header") => Place::Header,
            Some("query") => Place::Query,
            Some("body") => {
                let Some(schema) = param.as_map().and_then(|m| m.entry("schema")) else {
                    continue;
                };
                let param_loc = target
                    .as_ref()
                    .map_or_else(|| list.item(i, item), crate::input::load::Target::loc);
                let at = At {
                    id,
                    file,
                    node: &schema.value,
                    loc: param_loc.entry("schema", schema.key_span, &schema.value),
                };
                out.body = Some(body::schema_properties(loader, bodies, at));
                continue;
            }
            _ => continue,
        };
        let name = param.get("name").and_then(Node::scalar_text);
        if place == Place::Query {
            // Query parameters were never read before keys could travel there: one
            // written loosely (no name, a `required` that is not a boolean) is passed
            // over rather than failing the description.
            if let Some(name) = name {
                out.query.push(RequestField {
                    name: name.to_string(),
                    place,
                    required: matches!(flag(file, param, "required"), Ok(Some((true, _)))),
                    description: param.get("description").and_then(Node::as_text).cloned(),
                    loc: site,
                });
            }
            continue;
        }
        let Some(name) = name else {
            return Err(InputError::at(
                file,
                param.span,
                "a header parameter needs a `name`",
            ));
        };
        out.headers.push(HeaderParam {
            name: name.to_string(),
            required: flag(file, param, "required")?.is_some_and(|(value, _)| value),
            loc: site,
            definition: target.as_ref().map(crate::input::load::Target::loc),
        });
    }
    Ok(out)
}
