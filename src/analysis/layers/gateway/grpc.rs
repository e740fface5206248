//! The matches of a Gateway API `GRPCRoute`, as paths and methods of HTTP requests.
//!
//! A gRPC call is a `POST` to `/{service}/{method}`. A `method` match becomes a path
//! match as Istio converts it (istio/istio `pilot/pkg/config/kube/gateway/conversion.go`,
//! `createGRPCURIMatch`): with `type: Exact` (the default), service and method make the
//! exact path `/S/M`, a service alone the prefix `/S/`, a method alone the regex
//! `/[^/]+/M`; with `type: RegularExpression`, the regexes `/S/M`, `/S/.+` and `/[^/]+/M`.
//! A match without `method` takes every call.

use super::super::k8s;
use super::super::values::{bad_value, field, route_regex};
use super::super::{PathMatch, RegexEngine, StringMatch};
use crate::error::InputError;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The method of every gRPC call.
pub fn post() -> StringMatch {
    StringMatch::Exact("POST".into())
}

/// The path a `GRPCRouteMatch` takes, and its length as Istio ranks it (the characters of
/// the path, prefix or regex).
pub fn method_path(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<(PathMatch, usize), InputError> {
    let Some((method, at)) = field(node, loc, "method") else {
        return Ok((PathMatch::Any, 0));
    };
    k8s::mapping(file, method, &at, "method")?;
    let written = |key: &str| -> Result<Option<&str>, InputError> {
        match field(method, &at, key) {
            Some((value, value_at)) => Ok(Some(k8s::text(file, value, &value_at, key)?)),
            None => Ok(None),
        }
    };
    let service = written("service")?.filter(|s| !s.is_empty());
    let name = written("method")?.filter(|m| !m.is_empty());
    let kind = written("type")?.unwrap_or("Exact");
    let path = match (kind, service, name) {
        (_, None, None) => {
            return Err(bad_value(
                file,
                &at,
                "a gRPC method match names a `service`, a `method` or both",
            ));
        }
        ("Exact", Some(service), Some(name)) => {
            PathMatch::Exact(crate::input::model::grpc_path(service, name))
        }
        ("Exact", Some(service), None) => PathMatch::Prefix(format!("/{service}/")),
        ("Exact" | "RegularExpression", None, Some(name)) => {
            regex(file, &at, format!("/[^/]+/{name}"))?
        }
        ("RegularExpression", Some(service), Some(name)) => {
            regex(file, &at, format!("/{service}/{name}"))?
        }
        ("RegularExpression", Some(service), None) => regex(file, &at, format!("/{service}/.+"))?,
        (other, _, _) => {
            let type_at = field(method, &at, "type").map_or(at.clone(), |(_, type_at)| type_at);
            return Err(bad_value(
                file,
                &type_at,
                format!(
                    "`{other}` is not a gRPC method match type: write Exact or RegularExpression"
                ),
            ));
        }
    };
    let length = match &path {
        PathMatch::Exact(text) | PathMatch::Prefix(text) => text.chars().count(),
        PathMatch::Regex(regex) => regex.as_str().chars().count(),
        PathMatch::Any | PathMatch::SegmentPrefix(_) => 0,
    };
    Ok((path, length))
}

/// A path regex built from a method match, read as Istio's proxy reads it (RE2).
fn regex(file: &SourceFile, at: &Loc, pattern: String) -> Result<PathMatch, InputError> {
    Ok(PathMatch::Regex(route_regex(
        file,
        &pattern,
        at,
        RegexEngine::Re2,
    )?))
}
