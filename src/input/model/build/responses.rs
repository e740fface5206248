//! The responses of an operation: their codes, their headers (with what a `Retry-After`
//! holds), and their links to other operations.

use std::sync::Arc;

use super::body::BodyCache;
use super::{At, through};
use crate::error::InputError;
use crate::input::load::{FileId, Loader};
use crate::input::model::{HeaderFormat, Link, LinkTarget, Response, ResponseHeader};
use crate::input::source::Node;
use crate::location::Loc;

/// What an operation's responses say of a repeated request: that it is refused, or that
/// what it asks for is already done.
#[derive(Default)]
pub(super) struct Refusals {
    /// The description of each response but a 5xx, with the response's entry: what the
    /// server answers a request it refuses or finds done (`409: the folder already
    /// exists`, `204: Response when already merged`).
    pub texts: Vec<(crate::input::source::Text, Loc)>,
    /// An error code of a 409 or `default` response, written inline as an enum value or
    /// an example, that names a repeat refused (`already_reacted`), with where it is
    /// written.
    pub codes: Vec<(String, Loc)>,
}

/// The responses an operation declares, with their header names, and what its error
/// responses say of a refused request (through their `$ref`s).
pub(super) fn responses(
    loader: &mut Loader,
    shared: &mut BodyCache,
    op: &At<'_>,
) -> Result<(Vec<Response>, Refusals), InputError> {
    let mut refusals = Refusals::default();
    let Some(list) = op.map_child("responses")? else {
        return Ok((Vec::new(), refusals));
    };
    let entries = list
        .node
        .as_map()
        .map(crate::input::source::Map::entries)
        .unwrap_or_default();
    // Sized up front: a description of many operations keeps these lists for its whole
    // check, and a doubled one's spare room would stay with them.
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        if entry.key.starts_with("x-") {
            continue;
        }
        let site = list.loc.entry(&entry.key, entry.key_span, &entry.value);
        let target = loader.follow(op.id, &entry.value)?;
        let here = At {
            id: op.id,
            file: op.file,
            node: &entry.value,
            loc: site.clone(),
        };
        let response = through(target.as_ref(), here);
        // Any response but a server error may be the answer to a repeat.
        if !entry.key.starts_with('5')
            && let Some(text) = response.node.get("description").and_then(Node::as_text)
        {
            refusals.texts.push((text.clone(), site.clone()));
        }
        // A 409 or an operation's `default` error: a 400 or 422 lists what can be wrong
        // with a field's value (GitHub's `already_exists` among `missing` and
        // `invalid`), not a refusal of the request.
        if matches!(&*entry.key, "409" | "default") && refusals.codes.is_empty() {
            let mut budget = CODE_SEARCH_NODES;
            refused_code(
                response.node,
                &response.loc,
                &mut budget,
                &mut refusals.codes,
            );
        }
        // The headers of a `$ref`ed response are the definition's, read the first time:
        // every referrer would read the same ones, with the same outcome.
        let key = target
            .as_ref()
            .map(|t| (t.file_id, response.loc.pointer.clone()));
        let (definition, headers) =
            if let Some((definition, headers)) = key.as_ref().and_then(|k| shared.headers.get(k)) {
                (Some(definition.clone()), headers.clone())
            } else {
                let headers = headers(loader, &response)?;
                let definition = target.as_ref().map(|_| Arc::new(response.loc.clone()));
                if let (Some(key), Some(definition)) = (key, &definition) {
                    shared
                        .headers
                        .insert(key, (definition.clone(), headers.clone()));
                }
                (definition, headers)
            };
        let links = links(loader, &response)?;
        out.push(Response {
            code: compact_str::CompactString::from(&*entry.key),
            loc: site,
            definition,
            headers,
            links,
        });
    }
    Ok((out, refusals))
}

/// How many nodes of one error response are searched for a code that refuses a repeat.
const CODE_SEARCH_NODES: usize = 400;

/// The first error code under `node` (inline, no `$ref` followed) that says the request
/// was already done: `already_reacted`, `ALREADY_EXISTS`. Such a code is the server's
/// answer to a repeat: the second request changes nothing.
fn refused_code(node: &Node, loc: &Loc, budget: &mut usize, out: &mut Vec<(String, Loc)>) {
    if !out.is_empty() || *budget == 0 {
        return;
    }
    *budget -= 1;
    if let Some(text) = node.as_str() {
        if says_already(text) {
            out.push((text.to_string(), loc.clone()));
        }
    } else if let Some(items) = node.as_seq() {
        for (index, item) in items.iter().enumerate() {
            refused_code(item, &loc.item(index, item), budget, out);
        }
    } else if let Some(map) = node.as_map() {
        for entry in map.entries() {
            // What a field says of itself is no code, and a `$ref` is read where it
            // is defined.
            if matches!(&*entry.key, "description" | "title" | "summary" | "$ref") {
                continue;
            }
            let here = loc.entry(&entry.key, entry.key_span, &entry.value);
            refused_code(&entry.value, &here, budget, out);
        }
    }
}

/// `already_<word>…` in snake case, either case, as an error code is written.
fn says_already(code: &str) -> bool {
    let Some(rest) = code
        .strip_prefix("already_")
        .or_else(|| code.strip_prefix("ALREADY_"))
    else {
        return false;
    };
    code.len() <= 48
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The headers of a response, with their names and what a `Retry-After` holds.
fn headers(loader: &mut Loader, response: &At<'_>) -> Result<Arc<[ResponseHeader]>, InputError> {
    let mut headers = Vec::new();
    if let Some(map) = response.map_child("headers")? {
        let entries = map
            .node
            .as_map()
            .map(crate::input::source::Map::entries)
            .unwrap_or_default();
        headers.reserve_exact(entries.len());
        for header in entries {
            // A header `$ref` must resolve even though only its name matters here.
            let definition = loader.follow(response.id, &header.value)?;
            // Only a `Retry-After`'s format is ever asked about.
            let format = if header.key.eq_ignore_ascii_case("Retry-After") {
                match &definition {
                    Some(t) => header_format(loader, t.file_id, t.node())?,
                    None => header_format(loader, response.id, &header.value)?,
                }
            } else {
                HeaderFormat::Unstated
            };
            headers.push(ResponseHeader {
                name: header.key.to_string(),
                loc: map.loc.entry(&header.key, header.key_span, &header.value),
                format,
            });
        }
    }
    Ok(headers.into())
}

/// The `links` of a response (OpenAPI 3), each leading to an operation by operationId or
/// by a reference to the operation object.
fn links(loader: &mut Loader, response: &At<'_>) -> Result<Vec<Link>, InputError> {
    let Some(map) = response.map_child("links")? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in map
        .node
        .as_map()
        .map(crate::input::source::Map::entries)
        .unwrap_or_default()
    {
        let loc = map.loc.entry(&entry.key, entry.key_span, &entry.value);
        let definition = loader.follow(map.id, &entry.value)?;
        let (node, file) = match &definition {
            Some(t) => (t.node(), &*t.file),
            None => (&entry.value, map.file),
        };
        let target = if let Some(id) = node.get("operationId") {
            let text = id
                .scalar_text()
                .ok_or_else(|| InputError::at(file, id.span, "`operationId` must be a string"))?;
            LinkTarget::OperationId(text.to_string())
        } else if let Some(reference) = node.get("operationRef") {
            let text = reference.as_str().ok_or_else(|| {
                InputError::at(file, reference.span, "`operationRef` must be a string")
            })?;
            LinkTarget::OperationRef(text.to_string())
        } else {
            // A link must name its operation one way or the other; one that does not
            // leads nowhere, and is no evidence of anything.
            continue;
        };
        out.push(Link {
            name: entry.key.to_string(),
            target,
            loc,
        });
    }
    Ok(out)
}

/// What a header's schema says its value is. The header object holds `schema` (OpenAPI
/// 3) or its `type` itself (Swagger 2.0); a `$ref` is followed, and `oneOf`/`anyOf`
/// alternatives are combined (one level: a header's schema is small).
fn header_format(
    loader: &mut Loader,
    id: FileId,
    header: &Node,
) -> Result<HeaderFormat, InputError> {
    let (id, schema) = match header.get("schema") {
        Some(schema) => (id, schema),
        None => (id, header),
    };
    let target = loader.follow(id, schema)?;
    let schema = match &target {
        Some(t) => t.node().clone(),
        None => schema.clone(),
    };
    let mut seconds = false;
    let mut date = false;
    let mut text = false;
    let mut read = |node: &Node| {
        let format = node
            .get("format")
            .and_then(Node::as_str)
            .unwrap_or_default();
        let types: Vec<&str> = match node.get("type") {
            Some(t) => match t.as_seq() {
                Some(items) => items.iter().filter_map(Node::as_str).collect(),
                None => t.as_str().into_iter().collect(),
            },
            None => Vec::new(),
        };
        for t in types {
            match t {
                "integer" | "number" => seconds = true,
                "string" if matches!(format, "date-time" | "http-date" | "date") => date = true,
                "string" => text = true,
                _ => {}
            }
        }
    };
    read(&schema);
    for key in ["oneOf", "anyOf"] {
        for item in schema.get(key).and_then(Node::as_seq).unwrap_or_default() {
            read(item);
        }
    }
    Ok(match (seconds, date, text) {
        (true, true, _) => HeaderFormat::SecondsOrDate,
        (true, false, _) => HeaderFormat::Seconds,
        (false, true, _) => HeaderFormat::Date,
        (false, false, true) => HeaderFormat::Text,
        (false, false, false) => HeaderFormat::Unstated,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::input::load::{LoadOptions, Loader};
    use crate::input::model::build;
    use crate::input::source::{ParseLimits, SourceFile};

    #[test]
    fn the_responses_that_ref_one_definition_share_its_headers() {
        let text = r##"openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      responses:
        "503": {$ref: "#/components/responses/Busy"}
        "429":
          description: own
          headers: {Retry-After: {schema: {type: integer}}}
    post:
      responses:
        "503": {$ref: "#/components/responses/Busy"}
components:
  responses:
    Busy:
      description: busy
      headers: {Retry-After: {schema: {type: integer}}, X-Other: {schema: {type: string}}}
"##;
        let file = SourceFile::parse("openapi.yaml".into(), text.into(), ParseLimits::default())
            .unwrap_or_else(|(_, e)| panic!("{}", e.message));
        let mut loader = Loader::new(LoadOptions::default());
        let root = loader.add(Arc::new(file));
        let api = build(&mut loader, root).unwrap();
        let get = &api.operations[0];
        let post = &api.operations[1];
        let (a, b) = (get.response("503").unwrap(), post.response("503").unwrap());
        assert!(Arc::ptr_eq(&a.headers, &b.headers));
        let names: Vec<_> = a.headers.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["Retry-After", "X-Other"]);
        assert_eq!(
            &*a.headers[0].loc.pointer,
            "/components/responses/Busy/headers/Retry-After"
        );
        // A response written in place keeps headers of its own, at its own place.
        let own = get.response("429").unwrap();
        assert!(!Arc::ptr_eq(&own.headers, &a.headers));
        assert_eq!(
            &*own.headers[0].loc.pointer,
            "/paths/~1a/get/responses/429/headers/Retry-After"
        );
    }
}
