//! gRPC descriptions: a `.proto` file read with `protox-parse` into what retrying depends
//! on, each fact with its byte span.
//!
//! `protox-parse` builds the file's `FileDescriptorProto` with its `SourceCodeInfo`: one
//! location per element, as a path of field numbers (`descriptor.proto`'s) and a span of
//! 0-based line and byte column. Those spans are turned back into byte offsets of the
//! text here, so a service, an `rpc`, its `idempotency_level` option and an `import` are
//! places like any other of the run's files.
//!
//! Only the syntax is read: message types are not resolved (retrying does not depend on
//! them), and imports are followed by the model (`input::model::build`), which loads
//! them under the root's rules. `option idempotency_level` is read from the options the
//! parser leaves uninterpreted, as protoc interprets it: an identifier naming a value of
//! `MethodOptions.IdempotencyLevel` (google/protobuf/descriptor.proto).

use foldhash::{HashMap, HashMapExt};
use prost_types::source_code_info::Location;
use prost_types::{FileDescriptorProto, MethodDescriptorProto, UninterpretedOption};

use super::{Span, SyntaxError};

/// Field numbers of `google/protobuf/descriptor.proto` that `SourceCodeInfo` paths use.
mod tag {
    /// `FileDescriptorProto.dependency`, `.service`.
    pub(super) const DEPENDENCY: i32 = 3;
    pub(super) const SERVICE: i32 = 6;
    /// `ServiceDescriptorProto.name`, `.method`.
    pub(super) const NAME: i32 = 1;
    pub(super) const METHOD: i32 = 2;
    /// `MethodDescriptorProto.output_type`, `.options`.
    pub(super) const OUTPUT_TYPE: i32 = 3;
    pub(super) const OPTIONS: i32 = 4;
    /// `*Options.uninterpreted_option`.
    pub(super) const UNINTERPRETED: i32 = 999;
}

/// `MethodOptions.IdempotencyLevel` (google/protobuf/descriptor.proto).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum IdempotencyLevel {
    /// `NO_SIDE_EFFECTS`: "implies idempotent" — a read, safe like GET.
    NoSideEffects,
    /// `IDEMPOTENT`: "idempotent, but may have side effects", like PUT.
    Idempotent,
    /// `IDEMPOTENCY_UNKNOWN`, the default: a write that promises nothing, like POST.
    Unknown,
}

impl IdempotencyLevel {
    /// The value as `descriptor.proto` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            IdempotencyLevel::NoSideEffects => "NO_SIDE_EFFECTS",
            IdempotencyLevel::Idempotent => "IDEMPOTENT",
            IdempotencyLevel::Unknown => "IDEMPOTENCY_UNKNOWN",
        }
    }

    fn named(text: &str) -> Option<IdempotencyLevel> {
        match text {
            "NO_SIDE_EFFECTS" => Some(IdempotencyLevel::NoSideEffects),
            "IDEMPOTENT" => Some(IdempotencyLevel::Idempotent),
            "IDEMPOTENCY_UNKNOWN" => Some(IdempotencyLevel::Unknown),
            _ => None,
        }
    }
}

/// Which sides of an rpc are streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Streaming {
    Unary,
    /// `rpc M(stream Req) returns (Res)`.
    Client,
    /// `rpc M(Req) returns (stream Res)`.
    Server,
    /// Both.
    Bidi,
}

impl Streaming {
    /// `unary`, `client streaming`, … as plans print it.
    pub fn describe(self) -> &'static str {
        match self {
            Streaming::Unary => "unary",
            Streaming::Client => "client streaming",
            Streaming::Server => "server streaming",
            Streaming::Bidi => "bidirectional streaming",
        }
    }
}

/// One `rpc` of a service.
#[derive(Debug, Clone)]
pub struct ProtoMethod {
    pub name: String,
    /// From `rpc` to the `)` after the response type: the rpc's signature.
    pub span: Span,
    pub streaming: Streaming,
    /// `option idempotency_level = …;`, the statement's span.
    pub idempotency: Option<(IdempotencyLevel, Span)>,
    /// `option (google.api.http) = { get: "…" };`: the binding's verb (`get`, `put`,
    /// `post`, `delete`, `patch`), and the statement's span.
    pub http: Option<(&'static str, Span)>,
}

/// One `service`.
#[derive(Debug, Clone)]
pub struct ProtoService {
    pub name: String,
    /// The service's name after `service`.
    pub name_span: Span,
    pub methods: Vec<ProtoMethod>,
}

/// What retrying depends on in one `.proto` file.
#[derive(Debug, Clone, Default)]
pub struct ProtoFile {
    /// `package a.b;`, empty when there is none.
    pub package: String,
    /// Each `import "x.proto";`: the name and the statement's span.
    pub imports: Vec<(String, Span)>,
    pub services: Vec<ProtoService>,
}

/// Parses a `.proto` file; `name` is what the parser calls it in messages.
pub fn parse(name: &str, text: &str) -> Result<ProtoFile, SyntaxError> {
    let descriptor = protox_parse::parse(name, text).map_err(|e| {
        let span = e.span().map_or(Span::at(text.len()), |r| {
            Span::new(r.start.min(text.len()), r.end.min(text.len()))
        });
        // The parser's message names the token; its related errors follow, as protoc
        // lists every error of a file.
        SyntaxError::new(describe_error(&e), span)
    })?;
    let spans = Spans::new(text, &descriptor);
    read(&descriptor, &spans)
}

/// The parser's message, with the first of its other errors when it has several.
fn describe_error(e: &protox_parse::ParseError) -> String {
    use miette::Diagnostic;
    let mut message = e.to_string();
    let help = e.help().map(|h| h.to_string());
    // protox-parse 0.10 names a bad import path "invalid group name".
    if help
        .as_deref()
        .is_some_and(|h| h.starts_with("imports may not"))
    {
        message = "invalid import path".to_string();
    }
    if let Some(help) = help {
        message.push_str(&format!(" ({help})"));
    }
    let more = e.related().map_or(0, Iterator::count);
    if more > 0 {
        message.push_str(&format!(
            " (and {more} more error{})",
            if more == 1 { "" } else { "s" }
        ));
    }
    message
}

/// Byte spans of the descriptor's `SourceCodeInfo` locations.
struct Spans<'a> {
    text: &'a str,
    /// Byte offset of each line's start (lines end at `\n`, as the parser counts them).
    lines: Vec<usize>,
    /// The first location of each path (a file has one location per element and more:
    /// looked up by path, never searched, so a large file stays linear).
    locations: HashMap<&'a [i32], &'a Location>,
}

impl<'a> Spans<'a> {
    fn new(text: &'a str, descriptor: &'a FileDescriptorProto) -> Spans<'a> {
        let mut lines = vec![0];
        lines.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        let all = descriptor
            .source_code_info
            .as_ref()
            .map_or(&[][..], |info| info.location.as_slice());
        let mut locations = HashMap::with_capacity(all.len());
        for location in all {
            locations
                .entry(location.path.as_slice())
                .or_insert(location);
        }
        Spans {
            text,
            lines,
            locations,
        }
    }

    /// The byte offset of a 0-based line and byte column.
    fn offset(&self, line: i32, column: i32) -> usize {
        let start = usize::try_from(line)
            .ok()
            .and_then(|l| self.lines.get(l))
            .copied()
            .unwrap_or(self.text.len());
        (start + usize::try_from(column).unwrap_or(0)).min(self.text.len())
    }

    /// The span of the first location with exactly this path.
    fn of(&self, path: &[i32]) -> Option<Span> {
        let location = self.locations.get(path)?;
        match *location.span.as_slice() {
            [line, start, end] => Some(Span::new(self.offset(line, start), self.offset(line, end))),
            [line, start, end_line, end] => Some(Span::new(
                self.offset(line, start),
                self.offset(end_line, end),
            )),
            _ => None,
        }
    }
}

fn read(descriptor: &FileDescriptorProto, spans: &Spans<'_>) -> Result<ProtoFile, SyntaxError> {
    let whole = Span::new(0, spans.text.len());
    let package = descriptor.package.clone().unwrap_or_default();
    let imports = descriptor
        .dependency
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let span = spans.of(&[tag::DEPENDENCY, i as i32]).unwrap_or(whole);
            (name.clone(), span)
        })
        .collect();
    let mut services = Vec::with_capacity(descriptor.service.len());
    for (s, service) in descriptor.service.iter().enumerate() {
        let at = [tag::SERVICE, s as i32];
        let name_span = spans
            .of(&[tag::SERVICE, s as i32, tag::NAME])
            .or_else(|| spans.of(&at))
            .unwrap_or(whole);
        let mut methods = Vec::with_capacity(service.method.len());
        for (m, method) in service.method.iter().enumerate() {
            let path = [tag::SERVICE, s as i32, tag::METHOD, m as i32];
            methods.push(read_method(method, &path, spans, name_span)?);
        }
        services.push(ProtoService {
            name: service.name.clone().unwrap_or_default(),
            name_span,
            methods,
        });
    }
    Ok(ProtoFile {
        package,
        imports,
        services,
    })
}

fn read_method(
    method: &MethodDescriptorProto,
    path: &[i32; 4],
    spans: &Spans<'_>,
    fallback: Span,
) -> Result<ProtoMethod, SyntaxError> {
    let whole = spans.of(path).unwrap_or(fallback);
    let with = |tail: &[i32]| {
        let mut p = path.to_vec();
        p.extend_from_slice(tail);
        spans.of(&p)
    };
    // The signature: from `rpc` to the `)` that closes the response type.
    let end = with(&[tag::OUTPUT_TYPE]).map_or(whole.end as usize, |output| {
        let rest = &spans.text[output.end as usize..whole.end as usize];
        let trimmed = rest.trim_start();
        if trimmed.starts_with(')') {
            output.end as usize + (rest.len() - trimmed.len()) + 1
        } else {
            output.end as usize
        }
    });
    let span = Span::new(whole.start as usize, end.max(whole.start as usize));
    let streaming = match (
        method.client_streaming.unwrap_or(false),
        method.server_streaming.unwrap_or(false),
    ) {
        (false, false) => Streaming::Unary,
        (true, false) => Streaming::Client,
        (false, true) => Streaming::Server,
        (true, true) => Streaming::Bidi,
    };
    let mut idempotency = None;
    let mut http = None;
    let options = method
        .options
        .as_ref()
        .map_or(&[][..], |o| o.uninterpreted_option.as_slice());
    for (i, option) in options.iter().enumerate() {
        if is_extension(option, "google.api.http") && http.is_none() {
            let at = with(&[tag::OPTIONS, tag::UNINTERPRETED, i as i32]).unwrap_or(span);
            http = option
                .aggregate_value
                .as_deref()
                .and_then(http_verb)
                .map(|v| (v, at));
            continue;
        }
        if !is_named(option, "idempotency_level") {
            continue;
        }
        let at = with(&[tag::OPTIONS, tag::UNINTERPRETED, i as i32]).unwrap_or(span);
        if idempotency.is_some() {
            return Err(SyntaxError::new(
                "option `idempotency_level` is set twice on this rpc",
                at,
            ));
        }
        let level = option
            .identifier_value
            .as_deref()
            .and_then(IdempotencyLevel::named)
            .ok_or_else(|| {
                SyntaxError::new(
                    "`idempotency_level` must be NO_SIDE_EFFECTS, IDEMPOTENT or IDEMPOTENCY_UNKNOWN",
                    at,
                )
            })?;
        idempotency = Some((level, at));
    }
    Ok(ProtoMethod {
        name: method.name.clone().unwrap_or_default(),
        span,
        streaming,
        idempotency,
        http,
    })
}

/// Whether an option is the extension `(name)` (`option (google.api.http) = {…}`).
fn is_extension(option: &UninterpretedOption, name: &str) -> bool {
    matches!(option.name.as_slice(), [part] if part.is_extension && part.name_part.trim_start_matches('.') == name)
}

/// The verb of a `google.api.HttpRule` written as an aggregate (`get: "/v1/{name=*}"`):
/// its first field among the pattern fields of googleapis `google/api/http.proto`
/// (`get`, `put`, `post`, `delete`, `patch`; `custom` names no standard verb).
fn http_verb(aggregate: &str) -> Option<&'static str> {
    const VERBS: [&str; 5] = ["get", "put", "post", "delete", "patch"];
    let mut rest = aggregate;
    while !rest.is_empty() {
        let start = rest.find(|c: char| c.is_ascii_alphabetic())?;
        rest = &rest[start..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..end];
        let after = rest[end..].trim_start();
        if after.starts_with(':')
            && let Some(verb) = VERBS.iter().find(|v| **v == word)
        {
            return Some(verb);
        }
        // Past the word, and past a quoted value whole.
        rest = &rest[end..];
        if let Some(open) = rest.find('"') {
            let before = &rest[..open];
            if !before.contains(|c: char| c.is_ascii_alphabetic()) {
                let quoted = &rest[open + 1..];
                rest = quoted.find('"').map_or("", |close| &quoted[close + 1..]);
            }
        }
    }
    None
}

/// Whether an option is the built-in one named `name` (`option idempotency_level`, not
/// an extension in parentheses).
fn is_named(option: &UninterpretedOption, name: &str) -> bool {
    matches!(option.name.as_slice(), [part] if !part.is_extension && part.name_part == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAYMENTS: &str = "syntax = \"proto3\";\npackage acme.pay.v1;\nimport \"google/protobuf/empty.proto\";\n\nservice Payments {\n  rpc GetPayment(GetPaymentRequest) returns (Payment) {\n    option idempotency_level = NO_SIDE_EFFECTS;\n  }\n  rpc Capture(CaptureRequest) returns (Payment) { option idempotency_level = IDEMPOTENT; }\n  rpc Charge(ChargeRequest) returns (Payment);\n  rpc Watch(WatchRequest) returns (stream Event);\n  rpc Upload(stream Chunk) returns (Payment);\n  rpc Chat(stream A) returns (stream B);\n}\n";

    fn at(text: &str, span: Span) -> &str {
        &text[span.range()]
    }

    #[test]
    fn services_methods_and_options_keep_their_spans() {
        let file = parse("p.proto", PAYMENTS).unwrap();
        assert_eq!(file.package, "acme.pay.v1");
        assert_eq!(file.imports.len(), 1);
        assert_eq!(
            at(PAYMENTS, file.imports[0].1),
            "import \"google/protobuf/empty.proto\";"
        );
        let service = &file.services[0];
        assert_eq!(at(PAYMENTS, service.name_span), "Payments");
        let m = &service.methods;
        assert_eq!(
            at(PAYMENTS, m[0].span),
            "rpc GetPayment(GetPaymentRequest) returns (Payment)"
        );
        let (level, span) = m[0].idempotency.unwrap();
        assert_eq!(level, IdempotencyLevel::NoSideEffects);
        assert_eq!(
            at(PAYMENTS, span),
            "option idempotency_level = NO_SIDE_EFFECTS;"
        );
        assert_eq!(m[1].idempotency.unwrap().0, IdempotencyLevel::Idempotent);
        assert!(m[2].idempotency.is_none());
        let streams: Vec<_> = m.iter().map(|m| m.streaming).collect();
        assert_eq!(
            streams,
            [
                Streaming::Unary,
                Streaming::Unary,
                Streaming::Unary,
                Streaming::Server,
                Streaming::Client,
                Streaming::Bidi
            ]
        );
        assert_eq!(
            at(PAYMENTS, m[3].span),
            "rpc Watch(WatchRequest) returns (stream Event)"
        );
    }

    #[test]
    fn bad_levels_and_syntax_errors_have_spans() {
        let bad = "syntax = \"proto3\";\nservice S { rpc M(A) returns (B) { option idempotency_level = 2; } }\n";
        let e = parse("b.proto", bad).unwrap_err();
        assert!(e.message.contains("NO_SIDE_EFFECTS"), "{}", e.message);
        assert_eq!(at(bad, e.span), "option idempotency_level = 2;");
        let twice = "syntax = \"proto3\";\nservice S { rpc M(A) returns (B) { option idempotency_level = IDEMPOTENT; option idempotency_level = IDEMPOTENT; } }\n";
        assert!(
            parse("t.proto", twice)
                .unwrap_err()
                .message
                .contains("twice")
        );
        let broken = "syntax = \"proto3\";\nservice S { rpc M(A) returns B; }\n";
        let e = parse("x.proto", broken).unwrap_err();
        assert_eq!(at(broken, e.span), "B");
        // An identifier cannot hold markup or control characters: the lexer refuses them.
        let markup = "syntax = \"proto3\";\nservice S { rpc <b>M</b>(A) returns (B); }\n";
        assert!(parse("m.proto", markup).is_err());
        let control = "syntax = \"proto3\";\nservice S { rpc M\u{7}x(A) returns (B); }\n";
        assert!(parse("c.proto", control).is_err());
    }

    #[test]
    fn extension_options_are_not_the_level() {
        let text = "syntax = \"proto3\";\nservice S { rpc M(A) returns (B) { option (idempotency_level) = IDEMPOTENT; } }\n";
        let file = parse("e.proto", text).unwrap();
        assert!(file.services[0].methods[0].idempotency.is_none());
    }
}
