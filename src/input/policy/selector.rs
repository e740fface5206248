//! Selectors: which operations a policy entry applies to, and how strongly.
//!
//! `METHOD /path` exactly as the description writes the path; `*` as method matches
//! every method; in paths `*` matches one segment and `**` any number; a bare word is an
//! operationId; `tag:NAME` a tag.

use std::fmt;

use crate::input::model::{Method, Operation};

/// A parsed selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    OperationId(String),
    Exact {
        method: Method,
        path: String,
    },
    Glob {
        method: Option<Method>,
        segments: Vec<String>,
    },
    Tag(String),
}

/// How specific a match is; a higher rank overrides a lower one field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rank {
    Tag,
    /// A glob, by its number of literal path segments.
    Glob(usize),
    /// An operationId or an exact `METHOD /path`.
    Exact,
}

impl Selector {
    /// Parses selector text; the error explains the accepted forms.
    pub fn parse(text: &str) -> Result<Selector, String> {
        let text = text.trim();
        if let Some(tag) = text.strip_prefix("tag:") {
            if tag.trim().is_empty() {
                return Err("`tag:` needs a tag name, as in `tag:payments`".into());
            }
            return Ok(Selector::Tag(tag.trim().to_string()));
        }
        if let Some((method_text, path)) = text.split_once(char::is_whitespace) {
            let path = path.trim();
            let method = if method_text == "*" {
                None
            } else {
                Some(Method::named(method_text).ok_or_else(|| {
                    format!("`{method_text}` is not an HTTP method: write GET, POST, QUERY, a custom method such as PURGE, or `*`")
                })?)
            };
            if !path.starts_with('/') {
                return Err(format!("the path `{path}` must start with `/`"));
            }
            let segments: Vec<String> = path[1..].split('/').map(str::to_string).collect();
            let wild = segments.iter().any(|s| s == "*" || s == "**");
            return Ok(match (method, wild) {
                (Some(method), false) => Selector::Exact {
                    method,
                    path: path.to_string(),
                },
                _ => Selector::Glob { method, segments },
            });
        }
        if text.starts_with('/') {
            return Err(format!(
                "`{text}` has no method: write `GET {text}`, or `* {text}` for every method"
            ));
        }
        if text.is_empty() {
            return Err("an empty selector".into());
        }
        Ok(Selector::OperationId(text.to_string()))
    }

    pub fn rank(&self) -> Rank {
        match self {
            Selector::OperationId(_) | Selector::Exact { .. } => Rank::Exact,
            Selector::Glob { segments, .. } => {
                Rank::Glob(segments.iter().filter(|s| *s != "*" && *s != "**").count())
            }
            Selector::Tag(_) => Rank::Tag,
        }
    }

    pub fn matches(&self, op: &Operation) -> bool {
        match self {
            Selector::OperationId(id) => op.operation_id.as_deref() == Some(id.as_str()),
            Selector::Exact { method, path } => op.method == *method && op.path == *path,
            Selector::Glob { method, segments } => {
                method.is_none_or(|m| m == op.method) && {
                    let op_segments: Vec<&str> =
                        op.path.trim_start_matches('/').split('/').collect();
                    glob_match(segments, &op_segments)
                }
            }
            Selector::Tag(tag) => op.tags.iter().any(|t| t == tag),
        }
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::OperationId(id) => f.write_str(id),
            Selector::Exact { method, path } => write!(f, "{method} {path}"),
            Selector::Glob { method, segments } => write!(
                f,
                "{} /{}",
                method.map_or("*", Method::as_str),
                segments.join("/")
            ),
            Selector::Tag(tag) => write!(f, "tag:{tag}"),
        }
    }
}

/// Matches path segments against a pattern where `*` is one segment and `**` any number.
///
/// Dynamic programming over (pattern, path) prefixes: linear in their product whatever
/// the pattern, so no selector can make matching explode.
pub(super) fn glob_match(pattern: &[String], path: &[&str]) -> bool {
    // reachable[j]: the pattern prefix seen so far matches path[..j].
    let mut reachable = vec![false; path.len() + 1];
    reachable[0] = true;
    for segment in pattern {
        let mut next = vec![false; path.len() + 1];
        if segment == "**" {
            let mut any = false;
            for j in 0..=path.len() {
                any |= reachable[j];
                next[j] = any;
            }
        } else {
            for j in 1..=path.len() {
                next[j] = reachable[j - 1] && (segment == "*" || segment == path[j - 1]);
            }
        }
        reachable = next;
    }
    reachable[path.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(p: &str) -> Vec<String> {
        p.split('/').map(str::to_string).collect()
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(
            Selector::parse("POST /orders").unwrap(),
            Selector::Exact {
                method: Method::Post,
                path: "/orders".into()
            }
        );
        assert_eq!(
            Selector::parse("listOrders").unwrap(),
            Selector::OperationId("listOrders".into())
        );
        assert_eq!(
            Selector::parse("tag:payments").unwrap(),
            Selector::Tag("payments".into())
        );
        assert_eq!(
            Selector::parse("GET /orders/*").unwrap().rank(),
            Rank::Glob(1)
        );
        assert_eq!(Selector::parse("* /orders").unwrap().rank(), Rank::Glob(1));
        assert_eq!(
            Selector::parse("query /search").unwrap(),
            Selector::Exact {
                method: Method::Query,
                path: "/search".into()
            }
        );
        assert_eq!(
            Selector::parse("PURGE /cache").unwrap().to_string(),
            "PURGE /cache"
        );
        assert!(
            Selector::parse("GE(T /x")
                .unwrap_err()
                .contains("not an HTTP method")
        );
        assert!(
            Selector::parse("/orders")
                .unwrap_err()
                .contains("no method")
        );
        assert!(
            Selector::parse("GET orders")
                .unwrap_err()
                .contains("start with `/`")
        );
    }

    #[test]
    fn globs_match_segments() {
        assert!(glob_match(&segs("orders/*"), &["orders", "{id}"]));
        assert!(!glob_match(&segs("orders/*"), &["orders"]));
        assert!(!glob_match(&segs("orders/*"), &["orders", "a", "b"]));
        assert!(glob_match(&segs("orders/**"), &["orders"]));
        assert!(glob_match(&segs("orders/**"), &["orders", "a", "b"]));
        assert!(glob_match(
            &segs("**/refunds"),
            &["payments", "{id}", "refunds"]
        ));
        assert!(!glob_match(&segs("**/refunds"), &["payments"]));
        assert!(
            Rank::Exact > Rank::Glob(3)
                && Rank::Glob(2) > Rank::Glob(1)
                && Rank::Glob(0) > Rank::Tag
        );
    }
}
