//! A Traefik router's `rule` (`Host(`a`) && PathPrefix(`/b`) || Path(`/c`)`) read as the
//! matches of a route: each `||` alternative is one match, its `Path` exact, its
//! `PathPrefix` a plain prefix, its `Method` the method and its `Host` the hosts of the
//! layer. Any other matcher, a negation or parentheses make the alternative a conditional
//! one (it takes only the requests that meet it), named by its text.

use super::super::{PathMatch, RouteMatch, StringMatch, condition_of};
use crate::location::Loc;

/// What a rule matches: its alternatives and the hosts it names.
pub(super) struct Rule {
    pub matches: Vec<RouteMatch>,
    pub hosts: Vec<String>,
    /// Whether some alternative names no host (it takes every host).
    pub any_host: bool,
}

/// Reads `rule`, located at `at`.
pub(super) fn read(rule: &str, at: &Loc) -> Rule {
    let mut out = Rule {
        matches: Vec::new(),
        hosts: Vec::new(),
        any_host: false,
    };
    for alternative in split_top(rule, "||") {
        let mut path = PathMatch::Any;
        let mut method = None;
        let mut conditions = Vec::new();
        let mut hosts = Vec::new();
        for term in split_top(alternative, "&&") {
            let term = term.trim();
            match call(term).as_ref().map(|(n, a)| (*n, a.as_slice())) {
                Some(("Path", [arg])) => path = PathMatch::Exact(arg.clone()),
                Some(("PathPrefix", [arg])) => path = PathMatch::Prefix(arg.clone()),
                Some(("Method", [arg])) => method = Some(StringMatch::Exact(arg.clone())),
                Some(("Host", args)) if !args.is_empty() => hosts.extend(args.iter().cloned()),
                _ => conditions.push(format!("rule {term}")),
            }
        }
        if hosts.is_empty() {
            out.any_host = true;
        }
        out.hosts.extend(hosts);
        out.matches.push(RouteMatch {
            path,
            method,
            condition: condition_of(&conditions),
            loc: at.clone(),
        });
    }
    out
}

/// `Name(`a`, `b`)` as its name and arguments (backquoted or double-quoted), or `None`.
fn call(term: &str) -> Option<(&str, Vec<String>)> {
    let open = term.find('(')?;
    let name = &term[..open];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let inner = term[open + 1..].strip_suffix(')')?;
    let mut args = Vec::new();
    for arg in inner.split(',') {
        let arg = arg.trim();
        let unquoted = arg
            .strip_prefix('`')
            .and_then(|a| a.strip_suffix('`'))
            .or_else(|| arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')))?;
        args.push(unquoted.to_string());
    }
    Some((name, args))
}

/// `text` split at `sep` where it stands outside parentheses and quotes; text with
/// unbalanced parentheses is one part.
fn split_top<'a>(text: &'a str, sep: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None, 0);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'`' || c == b'"' => quote = Some(c),
            None if c == b'(' => depth += 1,
            None if c == b')' => depth -= 1,
            None if depth == 0 && bytes[i..].starts_with(sep.as_bytes()) => {
                parts.push(&text[start..i]);
                i += sep.len();
                start = i;
                continue;
            }
            None => {}
        }
        i += 1;
    }
    if depth != 0 || quote.is_some() {
        return vec![text];
    }
    parts.push(&text[start..]);
    parts
}
