//! What an Envoy route matches: its path specifier and its `:method` header matchers.
//!
//! The path and the method decide which operations a route takes (see
//! [`crate::analysis::layers::bind`]). Other conditions (other headers, query parameters, `grpc`,
//! `runtime_fraction`, ...) make the route take only the requests that meet them: they are
//! named in the match's condition, and ordinary traffic falls through to the next route.

use crate::analysis::layers::values::{
    bad_value, boolean, list, mapping, proto_field, route_regex, text,
};
use crate::analysis::layers::{PathMatch, RegexEngine, RouteMatch, StringMatch, condition_of};
use crate::error::InputError;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The header Envoy matches a request's method on (HTTP/1 requests too: Envoy normalises).
const METHOD_HEADER: &str = ":method";

/// A route's `match` as the requests it takes. Usually one alternative; two when the path
/// match ignores case and the path has capitals (the path as written, and in lower case:
/// the description may spell it either way).
pub(super) fn route_match(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Vec<RouteMatch>, InputError> {
    mapping(file, node, loc, "match")?;
    let mut methods = Vec::new();
    let mut conditions = Vec::new();
    if let Some((headers, headers_loc)) = proto_field(node, loc, "headers") {
        for (i, header) in list(file, headers, &headers_loc, "headers")?
            .iter()
            .enumerate()
        {
            let header_loc = headers_loc.item(i, header);
            match method_matcher(file, header, &header_loc)? {
                Ok(value) => methods.extend(value),
                Err(other) => conditions.push(format!("header {other}")),
            }
        }
    }
    if let Some((params, params_loc)) = proto_field(node, loc, "query_parameters") {
        for param in list(file, params, &params_loc, "query_parameters")? {
            let name = param.get("name").and_then(Node::scalar_text).unwrap_or("?");
            conditions.push(format!("query parameter {name}"));
        }
    }
    for (key, what) in [
        ("grpc", "gRPC content"),
        ("runtime_fraction", "a runtime fraction"),
        ("tls_context", "a matching TLS context"),
        ("dynamic_metadata", "matching dynamic metadata"),
        ("filter_state", "matching filter state"),
    ] {
        if proto_field(node, loc, key).is_some() {
            conditions.push(what.to_string());
        }
    }
    let condition = condition_of(&conditions);
    let ignore_case = match proto_field(node, loc, "case_sensitive") {
        // A `BoolValue`: `false` or `{value: false}`.
        Some((flag, flag_loc)) => {
            let flag = proto_field(flag, &flag_loc, "value").map_or(flag, |(v, _)| v);
            !boolean(file, flag, &flag_loc, "case_sensitive")?
        }
        None => false,
    };
    let paths = path_specifier(file, node, loc, ignore_case, &mut methods)?;
    let method = match methods.len() {
        0 => None,
        1 => methods.pop(),
        // Every header matcher of a route must match: several on `:method` all apply.
        _ => Some(StringMatch::All(methods)),
    };
    Ok(paths
        .into_iter()
        .map(|path| RouteMatch {
            path,
            method: method.clone(),
            condition: condition.clone(),
            loc: loc.clone(),
        })
        .collect())
}

/// The path specifier of a `match` (exactly one is required), as path matches.
fn path_specifier(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    ignore_case: bool,
    methods: &mut Vec<StringMatch>,
) -> Result<Vec<PathMatch>, InputError> {
    // The path as written, and lower-cased when Envoy ignores its case.
    let spellings = |path: &str, make: fn(String) -> PathMatch| {
        let mut out = vec![make(path.to_string())];
        if ignore_case && path.to_lowercase() != path {
            out.push(make(path.to_lowercase()));
        }
        out
    };
    if let Some((prefix, at)) = proto_field(node, loc, "prefix") {
        return Ok(spellings(
            text(file, prefix, &at, "prefix")?,
            PathMatch::Prefix,
        ));
    }
    if let Some((path, at)) = proto_field(node, loc, "path") {
        return Ok(spellings(text(file, path, &at, "path")?, PathMatch::Exact));
    }
    if let Some((prefix, at)) = proto_field(node, loc, "path_separated_prefix") {
        let prefix = text(file, prefix, &at, "path_separated_prefix")?;
        return Ok(spellings(prefix, PathMatch::SegmentPrefix));
    }
    if let Some((regex, at)) = proto_field(node, loc, "safe_regex") {
        // `case_sensitive` does not apply to regular expressions.
        return Ok(vec![PathMatch::Regex(safe_regex(file, regex, &at)?)]);
    }
    if let Some((policy, at)) = proto_field(node, loc, "path_match_policy") {
        return Ok(vec![uri_template(file, policy, &at)?]);
    }
    if proto_field(node, loc, "connect_matcher").is_some() {
        methods.push(StringMatch::Exact("CONNECT".into()));
        return Ok(vec![PathMatch::Any]);
    }
    Err(bad_value(
        file,
        loc,
        "this `match` has no path specifier (prefix, path, safe_regex, path_separated_prefix, \
         path_match_policy or connect_matcher): Envoy refuses it",
    ))
}

/// A `RegexMatcher` (`{google_re2: {}, regex: "..."}`), compiled for the whole text.
fn safe_regex(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<std::sync::Arc<crate::analysis::layers::RouteRegex>, InputError> {
    mapping(file, node, loc, "safe_regex")?;
    let Some((pattern, at)) = proto_field(node, loc, "regex") else {
        return Err(bad_value(
            file,
            loc,
            "this regular expression matcher has no `regex`",
        ));
    };
    route_regex(
        file,
        text(file, pattern, &at, "regex")?,
        &at,
        RegexEngine::Re2,
    )
}

/// The `path_template` of a URI template matcher (`/payments/{id}`, `/static/**`) as a
/// regular expression: `*` and `{name}` are one segment, `**` and `{name=**}` any rest.
fn uri_template(file: &SourceFile, node: &Node, loc: &Loc) -> Result<PathMatch, InputError> {
    let template = proto_field(node, loc, "typed_config")
        .and_then(|(config, config_loc)| proto_field(config, &config_loc, "path_template"));
    let Some((template, at)) = template else {
        return Err(bad_value(
            file,
            loc,
            "retrylint reads a `path_match_policy` only as a URI template with a `path_template`",
        ));
    };
    let template = text(file, template, &at, "path_template")?;
    let segments: Vec<String> = template
        .split('/')
        .map(|segment| {
            let variable = segment
                .strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .map(|inner| inner.split_once('=').map_or("*", |(_, glob)| glob));
            match variable.unwrap_or(segment) {
                "*" => "[^/]+".to_string(),
                "**" => ".*".to_string(),
                // A variable over a longer pattern: any rest.
                _ if variable.is_some() => ".*".to_string(),
                literal => regex::escape(literal),
            }
        })
        .collect();
    let pattern = segments.join("/");
    Ok(PathMatch::Regex(route_regex(
        file,
        &pattern,
        &at,
        RegexEngine::Re2,
    )?))
}

/// What a `headers[]` entry asks of the method: `Err(name)` when it is about another
/// header; `Ok(None)` when any method passes; `Ok(Some(m))` for a match on the method.
fn method_matcher<'a>(
    file: &'a SourceFile,
    node: &'a Node,
    loc: &Loc,
) -> Result<Result<Option<StringMatch>, &'a str>, InputError> {
    mapping(file, node, loc, "headers[]")?;
    let Some((name, name_loc)) = proto_field(node, loc, "name") else {
        return Err(bad_value(file, loc, "this header matcher has no `name`"));
    };
    let name = text(file, name, &name_loc, "name")?;
    if !name.eq_ignore_ascii_case(METHOD_HEADER) {
        return Ok(Err(name));
    }
    header_value(file, node, loc).map(Ok)
}

/// What a `HeaderMatcher` takes of its header's value; `None` for any value. Exported for
/// `retriable_request_headers`, which are header matchers too.
pub(super) fn header_value(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Option<StringMatch>, InputError> {
    let invert = match proto_field(node, loc, "invert_match") {
        Some((flag, at)) => boolean(file, flag, &at, "invert_match")?,
        None => false,
    };
    let value = value_specifier(file, node, loc)?;
    Ok(if invert {
        Some(match value {
            None => never(),
            Some(StringMatch::Not(inner)) => *inner,
            Some(other) => StringMatch::Not(Box::new(other)),
        })
    } else {
        value
    })
}

/// A match no method passes: every request has a method, so a matcher on its absence or
/// on a numeric range never takes one.
fn never() -> StringMatch {
    StringMatch::Not(Box::new(StringMatch::Prefix(String::new())))
}

/// The value specifier of a `HeaderMatcher`: `string_match`, or the older `exact_match`,
/// `prefix_match`, `suffix_match`, `contains_match`, `safe_regex_match`, `present_match`
/// and `range_match`. Without one, a header matcher asks only that the header be present.
fn value_specifier(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Option<StringMatch>, InputError> {
    if let Some((matcher, at)) = proto_field(node, loc, "string_match") {
        return string_matcher(file, matcher, &at);
    }
    for (key, kind) in [
        ("exact_match", Kind::Exact),
        ("prefix_match", Kind::Prefix),
        ("suffix_match", Kind::Suffix),
        ("contains_match", Kind::Contains),
    ] {
        if let Some((value, at)) = proto_field(node, loc, key) {
            return kind
                .matcher(file, text(file, value, &at, key)?, false, &at)
                .map(Some);
        }
    }
    if let Some((regex, at)) = proto_field(node, loc, "safe_regex_match") {
        return Ok(Some(StringMatch::Regex(safe_regex(file, regex, &at)?)));
    }
    if let Some((present, at)) = proto_field(node, loc, "present_match") {
        let present = boolean(file, present, &at, "present_match")?;
        return Ok((!present).then(never));
    }
    if proto_field(node, loc, "range_match").is_some() {
        return Ok(Some(never()));
    }
    Ok(None)
}

/// A `StringMatcher`: one of `exact`, `prefix`, `suffix`, `contains`, `safe_regex`, with
/// `ignore_case` (which does not apply to `safe_regex`). A `custom` matcher is read as
/// taking every value: retrylint cannot run an extension.
fn string_matcher(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Option<StringMatch>, InputError> {
    mapping(file, node, loc, "string_match")?;
    let ignore_case = match proto_field(node, loc, "ignore_case") {
        Some((flag, at)) => boolean(file, flag, &at, "ignore_case")?,
        None => false,
    };
    for (key, kind) in [
        ("exact", Kind::Exact),
        ("prefix", Kind::Prefix),
        ("suffix", Kind::Suffix),
        ("contains", Kind::Contains),
    ] {
        if let Some((value, at)) = proto_field(node, loc, key) {
            return kind
                .matcher(file, text(file, value, &at, key)?, ignore_case, &at)
                .map(Some);
        }
    }
    if let Some((regex, at)) = proto_field(node, loc, "safe_regex") {
        return Ok(Some(StringMatch::Regex(safe_regex(file, regex, &at)?)));
    }
    Ok(None)
}

/// How a literal of a string matcher is compared.
#[derive(Clone, Copy)]
enum Kind {
    Exact,
    Prefix,
    Suffix,
    Contains,
}

impl Kind {
    fn matcher(
        self,
        file: &SourceFile,
        literal: &str,
        ignore_case: bool,
        loc: &Loc,
    ) -> Result<StringMatch, InputError> {
        match (self, ignore_case) {
            (Kind::Exact, false) => return Ok(StringMatch::Exact(literal.to_string())),
            (Kind::Prefix, false) => return Ok(StringMatch::Prefix(literal.to_string())),
            _ => {}
        }
        let flags = if ignore_case { "(?i)" } else { "" };
        let literal = regex::escape(literal);
        let pattern = match self {
            Kind::Exact => format!("{flags}{literal}"),
            Kind::Prefix => format!("{flags}{literal}(?s:.*)"),
            Kind::Suffix => format!("(?s:.*){flags}{literal}"),
            Kind::Contains => format!("(?s:.*){flags}{literal}(?s:.*)"),
        };
        route_regex(file, &pattern, loc, RegexEngine::Re2).map(StringMatch::Regex)
    }
}
