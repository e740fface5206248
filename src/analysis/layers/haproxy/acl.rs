//! The conditions of `use_backend NAME if|unless …` read as route matches, as HAProxy
//! evaluates them (`parse_acl_cond` and `acl_exec_cond` in haproxy/haproxy `src/acl.c`):
//! terms side by side must all hold, `or` (or `||`) separates alternatives, `!` negates a
//! term, `{ … }` is an anonymous ACL, and a named ACL holds when any of its `acl` lines
//! holds, a line when any of its values matches.
//!
//! What retrylint reads of a term: `path` (exact), `path_beg` (prefix), `path_end`,
//! `path_sub`, `path_reg` (regexes, `path_reg` searched anywhere in the path), `-m
//! str|beg|end|sub|reg` on `path`, `-i` (case ignored); `method` and the predefined
//! `METH_*` ACLs; `TRUE`, `FALSE`. Any other term (a header, the host, a negated term, a
//! list from a file) is kept as the match's condition: the route takes only the requests
//! that meet it.

use foldhash::{HashMap, HashMapExt};

use super::args;
use crate::analysis::layers::values::{bad_value, route_regex};
use crate::analysis::layers::{PathMatch, RegexEngine};
use crate::error::InputError;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// Most alternatives one condition is read into; past it, the rest of the condition is
/// kept as a condition on the alternatives already read.
pub(super) const MAX_ALTERNATIVES: usize = 64;

/// One alternative of a condition: what it asks of the path and the method, and of the
/// rest of the request.
#[derive(Debug, Clone, Default)]
pub(super) struct Alternative {
    pub(super) path: Option<PathMatch>,
    /// Any of these methods; `None` for every method.
    pub(super) methods: Option<Vec<String>>,
    /// What else it asks, for messages (`hdr(host) -i api.example.com`).
    pub(super) other: Vec<String>,
}

/// The named ACLs of a section: each name with the criteria and values of its `acl` lines.
pub(super) type Acls<'a> = HashMap<String, Vec<Vec<&'a str>>>;

/// The `acl NAME criterion [flags] values…` lines of a section.
pub(super) fn acls<'a>(lines: &'a [Node]) -> Acls<'a> {
    let mut out: Acls<'a> = HashMap::new();
    for line in lines {
        if super::name(line) != "acl" {
            continue;
        }
        let words = args(line);
        if let Some((name, rest)) = words.split_first() {
            out.entry((*name).to_string())
                .or_default()
                .push(rest.to_vec());
        }
    }
    out
}

/// The methods each predefined `METH_*` ACL takes (`acl.c`'s `default_acl_list`).
fn predefined_methods(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "METH_CONNECT" => &["CONNECT"],
        "METH_DELETE" => &["DELETE"],
        "METH_GET" => &["GET", "HEAD"],
        "METH_HEAD" => &["HEAD"],
        "METH_OPTIONS" => &["OPTIONS"],
        "METH_POST" => &["POST"],
        "METH_PUT" => &["PUT"],
        "METH_TRACE" => &["TRACE"],
        _ => return None,
    })
}

/// The predefined ACLs that ask nothing of the path or the method (`TRUE`, the protocol).
const PREDEFINED_OTHER: &[&str] = &[
    "HTTP",
    "HTTP_1.0",
    "HTTP_1.1",
    "HTTP_2.0",
    "HTTP_URL_ABS",
    "HTTP_URL_SLASH",
    "HTTP_URL_STAR",
    "HTTP_CONTENT",
    "LOCALHOST",
    "RDP_COOKIE",
    "REQ_CONTENT",
    "WAIT_END",
];

/// Reads conditions of one section.
pub(super) struct Reader<'a> {
    pub(super) file: &'a SourceFile,
    pub(super) acls: &'a Acls<'a>,
    /// Where the rule is written: errors point at it.
    pub(super) loc: &'a Loc,
}

impl Reader<'_> {
    /// The alternatives of the condition after `if` (the words that follow it).
    pub(super) fn condition(&self, words: &[&str]) -> Result<Vec<Alternative>, InputError> {
        let mut all = Vec::new();
        for group in words.split(|w| *w == "or" || *w == "||") {
            if group.is_empty() {
                return Err(bad_value(
                    self.file,
                    self.loc,
                    "an `or` in this condition has no term on one side",
                ));
            }
            let mut alternatives = vec![Alternative::default()];
            for term in terms(group) {
                let options = self.term(&term)?;
                alternatives = and(&alternatives, &options, &term.join(" "));
            }
            all.extend(alternatives);
            if all.len() > MAX_ALTERNATIVES {
                all.truncate(MAX_ALTERNATIVES);
                break;
            }
        }
        Ok(all)
    }

    /// The alternatives one term stands for.
    fn term(&self, term: &[&str]) -> Result<Vec<Alternative>, InputError> {
        let shown = term.join(" ");
        let condition = || {
            vec![Alternative {
                other: vec![shown.clone()],
                ..Alternative::default()
            }]
        };
        match term {
            ["{", inner @ .., "}"] => self.acl_line(inner),
            [first, ..] if first.starts_with('!') || *first == "{" => Ok(condition()),
            [name] => {
                if let Some(lines) = self.acls.get(*name) {
                    let mut out = Vec::new();
                    for line in lines {
                        out.extend(self.acl_line(line)?);
                    }
                    return Ok(out);
                }
                if let Some(methods) = predefined_methods(name) {
                    return Ok(vec![Alternative {
                        methods: Some(methods.iter().map(|m| (*m).to_string()).collect()),
                        ..Alternative::default()
                    }]);
                }
                match *name {
                    "TRUE" => Ok(vec![Alternative::default()]),
                    "FALSE" => Ok(Vec::new()),
                    other if PREDEFINED_OTHER.contains(&other) => Ok(condition()),
                    other => Err(bad_value(
                        self.file,
                        self.loc,
                        format!("no ACL named `{other}` is declared in this section"),
                    )),
                }
            }
            _ => Ok(condition()),
        }
    }

    /// The alternatives of one ACL's criterion, flags and values.
    fn acl_line(&self, line: &[&str]) -> Result<Vec<Alternative>, InputError> {
        let shown = line.join(" ");
        let condition = || {
            Ok(vec![Alternative {
                other: vec![shown.clone()],
                ..Alternative::default()
            }])
        };
        let Some((criterion, rest)) = line.split_first() else {
            return Err(bad_value(self.file, self.loc, "an ACL without a criterion"));
        };
        let mut insensitive = false;
        let mut method: Option<&str> = None;
        let mut values = Vec::new();
        let mut words = rest.iter();
        let mut flags_done = false;
        while let Some(word) = words.next() {
            if flags_done || !word.starts_with('-') {
                flags_done = true;
                values.push(*word);
                continue;
            }
            match *word {
                "-i" => insensitive = true,
                "-m" => method = words.next().copied(),
                "--" => flags_done = true,
                "-f" | "-M" => return condition(),
                "-n" => {}
                "-u" => {
                    words.next();
                }
                _ => {
                    flags_done = true;
                    values.push(*word);
                }
            }
        }
        if values.is_empty() {
            return condition();
        }
        let kind = match (*criterion, method) {
            ("path", None | Some("str")) => "str",
            ("path_beg", None) | ("path", Some("beg")) => "beg",
            ("path_end", None) | ("path", Some("end")) => "end",
            ("path_sub", None) | ("path", Some("sub")) => "sub",
            ("path_reg", None) | ("path", Some("reg")) => "reg",
            ("method", None | Some("str")) => {
                let methods = values.iter().map(|v| (*v).to_string()).collect();
                return Ok(vec![Alternative {
                    methods: Some(methods),
                    ..Alternative::default()
                }]);
            }
            _ => return condition(),
        };
        let mut out = Vec::new();
        for value in values {
            let path = match (kind, insensitive) {
                ("str", false) => PathMatch::Exact(value.to_string()),
                ("beg", false) => PathMatch::Prefix(value.to_string()),
                _ => {
                    let flags = if insensitive { "(?is)" } else { "(?s)" };
                    let literal = regex::escape(value);
                    let pattern = match kind {
                        "str" => format!("{flags}{literal}"),
                        "beg" => format!("{flags}{literal}.*"),
                        "end" => format!("{flags}.*{literal}"),
                        "sub" => format!("{flags}.*{literal}.*"),
                        // HAProxy's regexes are searched anywhere in the path (`regex_exec`).
                        _ => format!("{flags}.*(?:{value}).*"),
                    };
                    PathMatch::Regex(route_regex(
                        self.file,
                        &pattern,
                        self.loc,
                        RegexEngine::Re2,
                    )?)
                }
            };
            out.push(Alternative {
                path: Some(path),
                ..Alternative::default()
            });
        }
        Ok(out)
    }
}

/// The terms of one group: a word, or `{ … }` with its braces (a `!` before a brace
/// stays with it).
fn terms<'a>(group: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut words = group.iter();
    while let Some(word) = words.next() {
        if *word == "{" || *word == "!{" || (*word == "!" && group.contains(&"{")) {
            let mut term = vec![*word];
            if *word == "!"
                && let Some(next) = words.next()
            {
                term.push(*next);
            }
            for inner in words.by_ref() {
                term.push(*inner);
                if *inner == "}" {
                    break;
                }
            }
            out.push(term);
        } else {
            out.push(vec![*word]);
        }
    }
    out
}

/// Every alternative of `left` combined with every one of `right` (both must hold),
/// bounded by [`MAX_ALTERNATIVES`]: a path asked twice keeps the second as a condition,
/// and methods asked twice are those both take.
fn and(left: &[Alternative], right: &[Alternative], shown: &str) -> Vec<Alternative> {
    let mut out = Vec::new();
    for l in left {
        for r in right {
            if out.len() >= MAX_ALTERNATIVES {
                return out;
            }
            let mut both = l.clone();
            both.other.extend(r.other.iter().cloned());
            match (&both.path, &r.path) {
                (None, Some(path)) => both.path = Some(path.clone()),
                (Some(_), Some(_)) => both.other.push(shown.to_string()),
                _ => {}
            }
            both.methods = match (&l.methods, &r.methods) {
                (Some(a), Some(b)) => Some(a.iter().filter(|m| b.contains(m)).cloned().collect()),
                (a, b) => a.clone().or_else(|| b.clone()),
            };
            if both.methods.as_ref().is_some_and(Vec::is_empty) {
                continue;
            }
            out.push(both);
        }
    }
    out
}
