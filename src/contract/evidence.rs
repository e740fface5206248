//! Reading one operation's contract out of the model: each piece of evidence with the
//! place that states it.

use std::collections::HashMap;

use super::{
    Contract, ContractState, EffectEvidence, KeyHeaders, KeyOffer, KeySource, StatusKind,
    StatusOffer, Throttle, WaitHint,
};
use crate::model::{Api, LinkTarget, Method, Operation, Response};
use crate::policy::SideEffect;
use crate::source::pointer;

/// Header names that carry idempotency keys: the IETF draft's, and vendors' variants
/// (compared without case). Any other name with `idempotency` in it counts too.
pub const KNOWN_KEY_HEADERS: &[&str] = &[
    "Idempotency-Key",
    "X-Idempotency-Key",
    "PayPal-Request-Id",
    "Repeatability-Request-ID",
    "I-Twilio-Idempotency-Token",
];

/// Responses that tell a client its key is in flight (409) or reused with another body
/// (422, or 400 as some APIs answer); `4XX` covers them all.
pub const CONFLICT_CODES: &[&str] = &["409", "422", "400", "4XX"];

/// Headers that say when to come back, besides `Retry-After`.
const RATE_LIMIT_HEADERS: &[&str] = &["RateLimit", "RateLimit-Reset", "X-RateLimit-Reset"];

/// The response declaring `status`: its own code, or its class (`4XX`). `default` says
/// nothing of which statuses the server sends, so it does not count.
pub fn declares_status(op: &Operation, status: u16) -> Option<&Response> {
    op.response(&status.to_string())
        .or_else(|| op.response(&format!("{}XX", status / 100)))
}

/// The GET and HEAD operations, by operationId and by method and path, for links.
pub struct ReadIndex<'a> {
    by_id: HashMap<&'a str, &'a Operation>,
    by_path: HashMap<(Method, &'a str), &'a Operation>,
}

impl<'a> ReadIndex<'a> {
    pub fn new(api: &'a Api) -> ReadIndex<'a> {
        let reads = || {
            api.operations
                .iter()
                .filter(|o| matches!(o.method, Method::Get | Method::Head))
        };
        ReadIndex {
            by_id: reads()
                .filter_map(|o| o.operation_id.as_deref().map(|id| (id, o)))
                .collect(),
            by_path: reads().map(|o| ((o.method, o.path.as_str()), o)).collect(),
        }
    }

    /// The GET or HEAD operation a link leads to.
    fn target(&self, link: &LinkTarget) -> Option<&'a Operation> {
        match link {
            LinkTarget::OperationId(id) => self.by_id.get(id.as_str()).copied(),
            LinkTarget::OperationRef(reference) => {
                // `#/paths/~1orders~1{id}/get`, possibly after a file name.
                let fragment = reference.rsplit_once('#').map_or("", |(_, f)| f);
                let tokens = pointer::decode(fragment)?;
                let [paths, path, method] = tokens.as_slice() else {
                    return None;
                };
                if paths.as_str() != "paths" {
                    return None;
                }
                let method = Method::parse(method)?;
                self.by_path.get(&(method, path.as_str())).copied()
            }
        }
    }
}

/// The contract of one operation.
pub fn contract(op: &Operation, api: &Api, keys: &KeyHeaders, reads: &ReadIndex<'_>) -> Contract {
    let fern_marked = op.fern_idempotent.as_ref().filter(|(v, _)| *v);
    let (effect, effect_evidence) = match (&op.idempotent, fern_marked) {
        (Some((value, loc)), _) => (
            if *value {
                SideEffect::Idempotent
            } else {
                SideEffect::NonIdempotent
            },
            EffectEvidence::Idempotent(loc.clone()),
        ),
        // Fern marks the operations that take its idempotency headers; with none
        // declared, the mark says the operation itself is idempotent.
        (None, Some((_, loc))) if api.fern_idempotency_headers.is_empty() => {
            (SideEffect::Idempotent, EffectEvidence::Fern(loc.clone()))
        }
        _ => (SideEffect::of_method(op.method), EffectEvidence::Method),
    };
    let key = key_offer(op, api, keys);
    let conflicts: Vec<String> = CONFLICT_CODES
        .iter()
        .filter(|c| op.response(c).is_some())
        .map(|c| c.to_string())
        .collect();
    let status = if effect == SideEffect::NonIdempotent {
        status_offer(op, reads)
    } else {
        None
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
        effect_evidence,
        key,
        status,
        throttling: throttling(op),
        conflicts,
        state,
    }
}

/// Why `name` would be taken for an idempotency key.
fn key_source(name: &str, keys: &KeyHeaders) -> Option<KeySource> {
    if keys.configured.iter().any(|k| k.eq_ignore_ascii_case(name)) {
        return Some(KeySource::Configured);
    }
    let known = KNOWN_KEY_HEADERS
        .iter()
        .any(|k| k.eq_ignore_ascii_case(name))
        || name.to_ascii_lowercase().contains("idempotency");
    known.then_some(KeySource::KnownName)
}

/// The key header the operation declares (a required one first), or the Fern headers of
/// an `x-fern-idempotent` operation.
fn key_offer(op: &Operation, api: &Api, keys: &KeyHeaders) -> Option<KeyOffer> {
    let fern = op
        .fern_idempotent
        .as_ref()
        .is_some_and(|(marked, _)| *marked);
    let fern_header = |name: &str| {
        fern && api
            .fern_idempotency_headers
            .iter()
            .any(|(h, _)| h.eq_ignore_ascii_case(name))
    };
    let declared = op
        .headers
        .iter()
        .filter_map(|h| {
            let source = key_source(&h.name, keys)
                .or_else(|| fern_header(&h.name).then_some(KeySource::Fern))?;
            Some(KeyOffer {
                header: h.name.clone(),
                required: h.required,
                source,
                loc: h.loc.clone(),
            })
        })
        .max_by_key(|k| k.required);
    if declared.is_some() || !fern {
        return declared;
    }
    // Fern's SDKs send the document's headers without the operation listing them.
    api.fern_idempotency_headers
        .first()
        .map(|(header, loc)| KeyOffer {
            header: header.clone(),
            required: false,
            source: KeySource::Fern,
            loc: loc.clone(),
        })
}

/// A way to find out whether the write happened: a link to a read, a 202 with
/// `Location`, or a long-running-operation mark.
fn status_offer(op: &Operation, reads: &ReadIndex<'_>) -> Option<StatusOffer> {
    for response in &op.responses {
        for link in &response.links {
            if let Some(read) = reads.target(&link.target) {
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
    if let Some(accepted) = op.response("202")
        && let Some(location) = accepted.header("Location")
    {
        return Some(StatusOffer {
            kind: StatusKind::AcceptedWithLocation,
            loc: location.loc.clone(),
        });
    }
    op.long_running.as_ref().map(|loc| StatusOffer {
        kind: StatusKind::LongRunning,
        loc: loc.clone(),
    })
}

/// The 429 and 503 the operation declares, each with what says when to come back.
fn throttling(op: &Operation) -> Vec<Throttle> {
    [429, 503]
        .into_iter()
        .filter_map(|status| {
            let response = declares_status(op, status)?;
            let wait = match response.header("Retry-After") {
                Some(header) => WaitHint::RetryAfter(header.format),
                None => RATE_LIMIT_HEADERS
                    .iter()
                    .find_map(|name| response.header(name))
                    .map_or(WaitHint::None, |h| WaitHint::RateLimit(h.name.clone())),
            };
            Some(Throttle {
                status,
                declared_as: response.code.clone(),
                wait,
                loc: response.loc.clone(),
            })
        })
        .collect()
}
