//! Reading one operation's contract out of the model: each piece of evidence with the
//! place that states it.

use foldhash::HashMap;

use super::{
    BrokenLink, Contract, ContractState, KeyHeaders, StatusKind, StatusOffer, Throttle, WaitHint,
};
use crate::input::model::{Api, Link, LinkTarget, Method, Operation, Response};
use crate::input::policy::SideEffect;
use crate::input::source::pointer;
use crate::location::FileId;

/// Responses that tell a client its key is in flight (409) or reused with another body
/// (422, or 400 as some APIs answer); `4XX` covers them all.
pub(super) const CONFLICT_CODES: &[&str] = &["409", "422", "400", "4XX"];

/// Headers of a `202` that name where the outcome of the write can be read: Azure's
/// `Operation-Location` and `Azure-AsyncOperation` (Azure REST API guidelines,
/// "Long-running operations"), and RFC 9110's `Location`. A `202` with any of them is a
/// status endpoint, with or without `x-ms-long-running-operation`.
pub(super) const STATUS_HEADERS: &[&str] =
    &["Operation-Location", "Azure-AsyncOperation", "Location"];

/// Headers that say when to come back, besides `Retry-After`.
const RATE_LIMIT_HEADERS: &[&str] = &["RateLimit", "RateLimit-Reset", "X-RateLimit-Reset"];

/// The response declaring the throttling status `status` (429 or 503): its own code, or
/// its class (`4XX`, `5XX`) when the class says when to come back. A class with no
/// `Retry-After` or `RateLimit` header is the API's generic error answer: it says nothing
/// of how the server asks clients to slow down, so it declares no 429 or 503. `default`
/// names no status and never counts.
pub(crate) fn declares_status(op: &Operation, status: u16) -> Option<&Response> {
    op.response(&status.to_string()).or_else(|| {
        op.response(&format!("{}XX", status / 100))
            .filter(|class| wait_hint(class) != WaitHint::None)
    })
}

/// What a throttling response says about when to come back.
fn wait_hint(response: &Response) -> WaitHint {
    match response.header("Retry-After") {
        Some(header) => WaitHint::RetryAfter(header.format),
        None => RATE_LIMIT_HEADERS
            .iter()
            .find_map(|name| response.header(name))
            .map_or(WaitHint::None, |h| WaitHint::RateLimit(h.name.clone())),
    }
}

/// Every operation by operationId and by method and path, for links. Where two
/// operations share an operationId (a description error), the GET or HEAD one is kept.
pub(super) struct OperationIndex<'a> {
    by_id: HashMap<&'a str, &'a Operation>,
    by_path: HashMap<(Method, &'a str), &'a Operation>,
    root: FileId,
}

/// Where a link leads.
enum LinkEnd<'a> {
    Found(&'a Operation),
    /// To no operation of the description.
    Missing,
    /// To another document (`operationRef: other.yaml#/…`, or a link written outside
    /// the root file): not judged.
    Elsewhere,
}

impl<'a> OperationIndex<'a> {
    pub(super) fn new(api: &'a Api) -> OperationIndex<'a> {
        let is_read = |o: &&Operation| matches!(o.method, Method::Get | Method::Head);
        // Reads last, so that they win a shared operationId.
        let ordered = || {
            let ops = api.operations.iter();
            ops.clone()
                .filter(move |o| !is_read(o))
                .chain(ops.filter(is_read))
        };
        OperationIndex {
            by_id: ordered()
                .filter_map(|o| o.operation_id.as_deref().map(|id| (id, o)))
                .collect(),
            by_path: ordered()
                .map(|o| ((o.method, o.path.as_str()), o))
                .collect(),
            root: api.root_file,
        }
    }

    /// The operation a link leads to.
    fn target(&self, link: &Link) -> LinkEnd<'a> {
        let found = |op: Option<&&'a Operation>| op.map_or(LinkEnd::Missing, |o| LinkEnd::Found(o));
        match &link.target {
            LinkTarget::OperationId(id) => found(self.by_id.get(id.as_str())),
            LinkTarget::OperationRef(reference) => {
                // `#/paths/~1orders~1{id}/get`, possibly after a file name.
                let (document, fragment) = reference.rsplit_once('#').unwrap_or((reference, ""));
                let end = operation_pointer(fragment).map_or(LinkEnd::Missing, |(method, path)| {
                    found(self.by_path.get(&(method, path.as_str())))
                });
                match end {
                    LinkEnd::Missing if !document.is_empty() || link.loc.file != self.root => {
                        LinkEnd::Elsewhere
                    }
                    end => end,
                }
            }
        }
    }
}

/// The method and path of `/paths/{path}/{method}`.
fn operation_pointer(fragment: &str) -> Option<(Method, String)> {
    let tokens = pointer::decode(fragment)?;
    let [paths, path, method] = tokens.as_slice() else {
        return None;
    };
    if paths.as_str() != "paths" {
        return None;
    }
    Some((Method::parse(method)?, path.clone()))
}

/// The contract of one operation.
pub(super) fn contract(
    op: &Operation,
    api: &Api,
    keys: &KeyHeaders,
    reads: &OperationIndex<'_>,
) -> Contract {
    let effect = SideEffect::of_operation(op);
    let key = super::keys::key_offer(op, api, keys);
    let mut conflicts: Vec<&'static str> = CONFLICT_CODES
        .iter()
        .copied()
        .filter(|c| op.response(c).is_some())
        .collect();
    // Kept for the whole check, one per operation: without the spare room a collected
    // list starts with.
    conflicts.shrink_to_fit();
    let (status, broken_links) = if effect == SideEffect::NonIdempotent {
        (status_offer(op, reads), broken_links(op, reads))
    } else {
        (None, Vec::new())
    };
    let state = match effect {
        SideEffect::None | SideEffect::Idempotent => ContractState::RetrySafe,
        SideEffect::NonIdempotent => match (&key, &status) {
            (Some(k), _) if k.required && !conflicts.is_empty() => ContractState::RetrySafe,
            (_, Some(_)) => ContractState::RetrySafeWithReconcile,
            (Some(_), None) => ContractState::KeyIncomplete,
            (None, None) => ContractState::Unprotected,
        },
    };
    Contract {
        effect,
        repeat: op.effect.clone(),
        method: op.method,
        key,
        status,
        broken_links,
        throttling: throttling(op),
        conflicts,
        state,
    }
}

/// A way to find out whether the write happened: a link to a read, a 202 with one of
/// [`STATUS_HEADERS`], or a long-running-operation mark.
fn status_offer(op: &Operation, reads: &OperationIndex<'_>) -> Option<StatusOffer> {
    for response in &op.responses {
        for link in &response.links {
            if let LinkEnd::Found(read) = reads.target(link)
                && matches!(read.method, Method::Get | Method::Head)
            {
                return Some(StatusOffer {
                    kind: StatusKind::Link {
                        name: link.name.clone(),
                        target: read.key(),
                    },
                    loc: link.loc.clone(),
                });
            }
        }
    }
    if let Some(header) = op
        .response("202")
        .and_then(|accepted| STATUS_HEADERS.iter().find_map(|name| accepted.header(name)))
    {
        return Some(StatusOffer {
            kind: StatusKind::Accepted {
                header: header.name.clone(),
            },
            loc: header.loc.clone(),
        });
    }
    op.long_running.as_ref().map(|loc| StatusOffer {
        kind: StatusKind::LongRunning,
        loc: loc.clone(),
    })
}

/// The response links that lead to no operation of the description.
fn broken_links(op: &Operation, index: &OperationIndex<'_>) -> Vec<BrokenLink> {
    op.responses
        .iter()
        .flat_map(|response| &response.links)
        .filter(|link| matches!(index.target(link), LinkEnd::Missing))
        .map(|link| BrokenLink {
            name: link.name.clone(),
            target: link.target.clone(),
            loc: link.loc.clone(),
        })
        .collect()
}

/// The 429 and 503 the operation declares (as [`declares_status`] reads them), each with
/// what says when to come back.
fn throttling(op: &Operation) -> Vec<Throttle> {
    let mut found: Vec<Throttle> = [429, 503]
        .into_iter()
        .filter_map(|status| {
            let response = declares_status(op, status)?;
            Some(Throttle {
                status,
                declared_as: response.code.clone(),
                wait: wait_hint(response),
                loc: response.loc.clone(),
            })
        })
        .collect();
    found.shrink_to_fit();
    found
}
