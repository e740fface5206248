//! `http-request disable-l7-retry`: the action that leaves a request only its connection
//! retries (`http_req_disable_l7_retry` in haproxy/haproxy `src/http_act.c` clears
//! `TX_L7_RETRY` and sets `TX_D_L7_RETRY`, which `stream.c` then honours). Read when it is
//! unconditional or its condition asks only for methods (`if METH_POST`,
//! `if { method POST PUT }`), the form HAProxy's documentation gives; under any other
//! condition it is not read.

use super::acl::{Acls, Reader};
use super::{args, name};
use crate::error::InputError;
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// Which requests a section's `disable-l7-retry` takes, and where it is written.
#[derive(Debug, Clone)]
pub(super) enum Disable {
    /// Every request.
    All(Loc),
    /// The requests of these methods.
    Methods(Vec<String>, Loc),
}

/// The `http-request disable-l7-retry` of a section's lines, if it has a readable one.
pub(super) fn read(
    file: &SourceFile,
    lines: &[Node],
    at: &Loc,
    acls: &Acls<'_>,
) -> Result<Option<Disable>, InputError> {
    let mut methods: Option<(Vec<String>, Loc)> = None;
    for (i, line) in lines.iter().enumerate() {
        let words = args(line);
        if name(line) != "http-request" || words.first() != Some(&"disable-l7-retry") {
            continue;
        }
        let loc = at.item(i, line);
        match &words[1..] {
            [] => return Ok(Some(Disable::All(loc))),
            ["if", condition @ ..] if !condition.is_empty() => {
                let reader = Reader {
                    file,
                    acls,
                    loc: &loc,
                };
                let alternatives = reader.condition(condition)?;
                let only_methods = alternatives
                    .iter()
                    .all(|a| a.path.is_none() && a.other.is_empty() && a.methods.is_some());
                if !only_methods {
                    continue;
                }
                let (list, _) = methods.get_or_insert_with(|| (Vec::new(), loc.clone()));
                for method in alternatives
                    .into_iter()
                    .flat_map(|a| a.methods.unwrap_or_default())
                {
                    if !list.contains(&method) {
                        list.push(method);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(methods.map(|(list, loc)| Disable::Methods(list, loc)))
}
