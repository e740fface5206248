//! The operation model: what a description says that retrying depends on.
//!
//! Built once per description by [`build`], from the spanned trees of all its files.
//! Every fact keeps the [`Loc`] where the operation states it (its *site*) and, when it
//! came through a `$ref`, where the shared definition is.

mod build;
pub mod effect;
mod methods;

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use foldhash::HashSet;

pub use crate::input::source::proto::{IdempotencyLevel, Streaming};
pub use build::build;
pub use effect::{Confidence, Cue, CueSource, Inferred, Repeat};

use crate::input::load::FileId;
use crate::input::source::Node;
use crate::location::Loc;

/// Which specification a description follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecVersion {
    Swagger2,
    OpenApi30,
    OpenApi31,
    OpenApi32,
    /// A gRPC `.proto` file: each `rpc` of each `service` is an operation.
    Proto,
}

impl fmt::Display for SpecVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SpecVersion::Swagger2 => "Swagger 2.0",
            SpecVersion::OpenApi30 => "OpenAPI 3.0",
            SpecVersion::OpenApi31 => "OpenAPI 3.1",
            SpecVersion::OpenApi32 => "OpenAPI 3.2",
            SpecVersion::Proto => "gRPC (.proto)",
        })
    }
}

/// An HTTP method of an operation.
///
/// The methods a path item has a field for (OpenAPI 3.2 adds `query`), and any other
/// method an OpenAPI 3.2 path item lists under `additionalOperations` (`PURGE`, `LINK`),
/// kept as the description writes it: method names are case-sensitive (RFC 9110 §9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Trace,
    Query,
    /// A method with no field of its own, as written (an HTTP token).
    Custom(&'static str),
}

impl Method {
    /// The methods a path item has a field for.
    pub const ALL: [Method; 9] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
        Method::Query,
    ];

    /// The method of a path item field (`get`) or a selector (`GET`), any case.
    pub fn parse(text: &str) -> Option<Method> {
        Method::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(text))
    }

    /// Any method name: one with a path item field (any case, as [`Method::parse`]), else
    /// a custom method kept as written. `None` when the text is not an HTTP token.
    pub fn named(text: &str) -> Option<Method> {
        if let Some(method) = Method::parse(text) {
            return Some(method);
        }
        is_token(text).then(|| Method::Custom(intern(text)))
    }

    /// As in a request line: upper case, or a custom method as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
            Method::Query => "QUERY",
            Method::Custom(name) => name,
        }
    }

    /// Safe methods, by the IANA HTTP Method Registry (GET, HEAD, PROPFIND, QUERY, …): a
    /// request asks for no change. A method the registry does not list is never safe.
    pub fn is_safe(self) -> bool {
        methods::is_safe(self.as_str())
    }

    /// Idempotent methods, by the IANA HTTP Method Registry (PUT, DELETE, WebDAV's COPY
    /// and MOVE, …; not POST, PATCH or LOCK). A method the registry does not list
    /// promises nothing.
    pub fn is_idempotent(self) -> bool {
        methods::is_idempotent(self.as_str())
    }
}

/// Whether `text` is an HTTP token (RFC 9110 §5.6.2), the syntax of a method name.
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Custom method names, each stored once for the life of the process so that
/// [`Method`] stays a plain copyable value. Only names an input writes are stored, so
/// what they hold is bounded by the size of the files read.
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(known) = names.get(name) {
        return known;
    }
    let stored: &'static str = Box::leak(name.into());
    names.insert(stored);
    stored
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A described API: its operations and where its description lives.
#[derive(Debug)]
pub struct Api {
    pub version: SpecVersion,
    pub root_file: FileId,
    pub operations: Vec<Operation>,
    /// Webhooks (3.1 `webhooks`, `x-webhooks`): server-to-client calls, not checked.
    pub webhook_count: usize,
    /// The document-level `x-retry-policy`.
    pub retry_policy: Option<Extension>,
    /// The server URLs the document names (Swagger 2.0's `host` + `basePath` as
    /// `//host/basePath`): which hosts and base paths requests to it carry.
    pub servers: Vec<String>,
    /// The document-level `x-speakeasy-retries`: the generated SDK's retries for every
    /// operation without its own.
    pub speakeasy_retries: Option<Extension>,
    /// The header names of the document-level `x-fern-idempotency-headers`: the keys
    /// Fern's SDKs send to every operation marked `x-fern-idempotent: true`.
    pub fern_idempotency_headers: Vec<(String, Loc)>,
}

/// An extension value of the description, kept as a tree to be read later.
#[derive(Debug, Clone)]
pub struct Extension {
    pub node: Node,
    pub loc: Loc,
}

/// One operation (a method of a path).
#[derive(Debug)]
pub struct Operation {
    pub method: Method,
    /// The path template, as the description writes it.
    pub path: String,
    pub operation_id: Option<String>,
    pub tags: Vec<String>,
    /// The method's entry under the path (`post:`).
    pub loc: Loc,
    /// The operation object when the method entry is a `$ref` to it.
    pub definition: Option<Loc>,
    /// Header parameters, path level merged with operation level.
    pub headers: Vec<HeaderParam>,
    /// Query parameters, path level merged with operation level.
    pub query: Vec<RequestField>,
    /// The top-level properties of the JSON request body (shared among the operations
    /// whose bodies `$ref` one schema).
    pub body: std::sync::Arc<[RequestField]>,
    pub responses: Vec<Response>,
    /// `x-idempotent: true|false`.
    pub idempotent: Option<(bool, Loc)>,
    pub retry_policy: Option<Box<Extension>>,
    /// The operation's own `x-speakeasy-retries`, which replaces the document's.
    pub speakeasy_retries: Option<Box<Extension>>,
    pub ignore: Option<Box<Extension>>,
    /// Fern's `x-fern-idempotent: true|false`: the operation takes the document's
    /// idempotency headers.
    pub fern_idempotent: Option<(bool, Loc)>,
    /// Azure's `x-ms-long-running-operation: true`: the result of the write is followed
    /// through a status resource.
    pub long_running: Option<Loc>,
    /// What a gRPC description says of the rpc (none for OpenAPI operations).
    pub grpc: Option<Box<Grpc>>,
    /// What repeating it repeats, as everything its description says reads (see
    /// [`effect`]). Shared: each contract derived from the operation keeps it, to put it
    /// in words only where a finding or report asks.
    pub effect: Arc<Inferred>,
}

/// The path of a gRPC call, `/package.Service/Method`: the `:path` gRPC sends over
/// HTTP/2 (grpc/grpc `doc/PROTOCOL-HTTP2.md`: `"/" Service-Name "/" {method name}`). A
/// `.proto` rpc's operation and a GRPCRoute's exact method match both take their path
/// from here, so that one binds to the other.
pub fn grpc_path(service: &str, method: &str) -> String {
    format!("/{service}/{method}")
}

/// An rpc of a gRPC description: the operation `POST /package.Service/Method`.
#[derive(Debug)]
pub struct Grpc {
    /// `package.Service`, as on the wire.
    pub service: String,
    /// `Method`.
    pub method: String,
    pub streaming: Streaming,
    /// `option idempotency_level = …;`, where it is written.
    pub idempotency: Option<(IdempotencyLevel, Loc)>,
}

impl Grpc {
    /// The rpc's level: `IDEMPOTENCY_UNKNOWN` when no option sets it (its default).
    pub fn level(&self) -> IdempotencyLevel {
        self.idempotency
            .as_ref()
            .map_or(IdempotencyLevel::Unknown, |(level, _)| *level)
    }

    /// `package.Service/Method`, the full method name gRPC's service config and logs use.
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.service, self.method)
    }

    /// Where the level comes from, as plans and messages say it.
    pub fn level_source(&self) -> String {
        match &self.idempotency {
            Some((level, _)) => format!("option idempotency_level = {}", level.as_str()),
            None => "no idempotency_level: unknown".to_string(),
        }
    }
}

/// A path template without the `#fragment` some descriptions add to tell two operations
/// of one path apart (Box's `/files/{file_id}#add_shared_link`): a fragment is no part of
/// the URL a request is sent to (RFC 3986 §3.5).
pub(crate) fn request_path(template: &str) -> &str {
    template.split('#').next().unwrap_or_default()
}

impl Operation {
    /// The path a request is sent to: [`request_path`] of the template.
    pub fn request_path(&self) -> &str {
        request_path(&self.path)
    }

    /// `POST /orders`, the selector form of the operation.
    pub fn key(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// `POST /orders (createOrder)`: the key, and the operationId when there is one.
    pub fn title(&self) -> String {
        match &self.operation_id {
            Some(id) => format!("{} ({id})", self.key()),
            None => self.key(),
        }
    }

    /// Whether the operation only reads: a GET or HEAD, or a gRPC rpc marked
    /// `idempotency_level = NO_SIDE_EFFECTS` (every rpc is a POST). A status endpoint is one.
    pub fn is_read(&self) -> bool {
        match &self.grpc {
            Some(grpc) => grpc.level() == IdempotencyLevel::NoSideEffects,
            None => matches!(self.method, Method::Get | Method::Head),
        }
    }

    /// The header parameter with this name (compared without case).
    pub fn header(&self, name: &str) -> Option<&HeaderParam> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
    }

    /// The declared response with this code (`"503"`, `"5XX"`, `"default"`).
    pub fn response(&self, code: &str) -> Option<&Response> {
        self.responses
            .iter()
            .find(|r| r.code.eq_ignore_ascii_case(code))
    }
}

/// A header parameter an operation declares.
#[derive(Debug)]
pub struct HeaderParam {
    pub name: String,
    pub required: bool,
    /// Where the operation (or its path item) lists the parameter.
    pub loc: Loc,
    /// The shared definition, when listed through `$ref`.
    pub definition: Option<Loc>,
}

/// Where a request carries a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Place {
    Header,
    Query,
    Body,
}

impl Place {
    /// `header`, `query parameter`, `body property`: what a value in this place is.
    pub fn noun(self) -> &'static str {
        match self {
            Place::Header => "header",
            Place::Query => "query parameter",
            Place::Body => "body property",
        }
    }
}

/// A query parameter, or a top-level property of an operation's JSON request body.
#[derive(Debug, Clone)]
pub struct RequestField {
    pub name: String,
    /// [`Place::Query`] or [`Place::Body`].
    pub place: Place,
    /// `required: true` on the parameter, or the name in the body schema's `required`.
    pub required: bool,
    /// Its `description` (a body property's `title` and `description`), as written:
    /// shared with the source, not copied.
    pub description: Option<crate::input::source::Text>,
    /// The parameter's `name:` line, or the property's key in the body schema.
    pub loc: Loc,
}

/// The last words of a name that can carry a key the client chooses: `…key`, `…token`,
/// `…id`, `…reference`, `…ref`.
pub(crate) const KEY_LIKE_ENDINGS: &[&str] = &["key", "token", "id", "reference", "ref"];

/// Whether a field's name ends in a key-like word (in any case): only such a field can be
/// made an idempotency key by its description. A quick test, before any word is split.
pub(crate) fn ends_key_like(name: &str) -> bool {
    KEY_LIKE_ENDINGS.iter().any(|end| {
        name.len() >= end.len()
            && name
                .get(name.len() - end.len()..)
                .is_some_and(|tail| tail.eq_ignore_ascii_case(end))
    })
}

/// Words that make any name a key, wherever they are in it: `idempotencyKey`,
/// `dedup_key`, `X-Idempotency-Token`.
pub(crate) const KEY_WORDS: &[&str] = &["idempotency", "dedup"];

/// Whether `name` holds one of [`KEY_WORDS`] (in any case), compared in place.
pub(crate) fn names_a_key(name: &str) -> bool {
    KEY_WORDS.iter().any(|word| {
        name.as_bytes()
            .windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
    })
}

/// Whether a field of this name could be an idempotency key, by its name or by its
/// description: every other field is no key, whatever it says.
pub(crate) fn may_be_key(name: &str) -> bool {
    ends_key_like(name) || names_a_key(name)
}

impl RequestField {
    /// The query parameters and body properties of `op`, in that order.
    pub fn of(op: &Operation) -> impl Iterator<Item = &RequestField> {
        op.query.iter().chain(op.body.iter())
    }
}

/// A response an operation declares.
#[derive(Debug)]
pub struct Response {
    /// `"200"`, `"5XX"`, `"default"` (held inline: every operation has a few).
    pub code: compact_str::CompactString,
    /// The operation's own entry for the code (`503:`).
    pub loc: Loc,
    /// The shared definition, when the entry is a `$ref` (shared by its referrers).
    pub definition: Option<std::sync::Arc<Loc>>,
    /// Shared by the responses that `$ref` one definition.
    pub headers: std::sync::Arc<[ResponseHeader]>,
    /// OpenAPI 3 `links`: operations a client can call with values of this response.
    pub links: Vec<Link>,
}

impl Response {
    pub fn has_header(&self, name: &str) -> bool {
        self.headers
            .iter()
            .any(|h| h.name.eq_ignore_ascii_case(name))
    }

    /// Where the response's content is written: the shared definition, or the entry.
    pub fn written_at(&self) -> &Loc {
        self.definition.as_deref().unwrap_or(&self.loc)
    }

    /// The declared header with this name (compared without case).
    pub fn header(&self, name: &str) -> Option<&ResponseHeader> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
    }
}

/// A header a response declares.
#[derive(Debug)]
pub struct ResponseHeader {
    pub name: String,
    pub loc: Loc,
    /// What its schema says the value is.
    pub format: HeaderFormat,
}

/// What a header's schema says its value is: what a `Retry-After` needs to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderFormat {
    /// An integer (or number): seconds, for `Retry-After`.
    Seconds,
    /// A string of format `date-time` or `http-date`.
    Date,
    /// Both, through `oneOf`/`anyOf` or a list of types.
    SecondsOrDate,
    /// Another string.
    Text,
    /// No schema, or one that says nothing of the kind.
    Unstated,
}

impl HeaderFormat {
    /// `integer seconds`, `an HTTP-date`, for the contract's answers.
    pub fn describe(self) -> &'static str {
        match self {
            HeaderFormat::Seconds => "seconds",
            HeaderFormat::Date => "an HTTP-date",
            HeaderFormat::SecondsOrDate => "seconds or an HTTP-date",
            HeaderFormat::Text => "a string",
            HeaderFormat::Unstated => "no stated format",
        }
    }
}

/// A link from a response to another operation (OpenAPI 3 `links`).
#[derive(Debug)]
pub struct Link {
    /// The link's name in `links`.
    pub name: String,
    pub target: LinkTarget,
    /// The link's entry.
    pub loc: Loc,
}

/// How a link names the operation it leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    OperationId(String),
    /// A reference to an operation object: `#/paths/~1orders~1{id}/get`, possibly in
    /// another file (only the part after `#` is compared).
    OperationRef(String),
}
