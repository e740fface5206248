//! Which names carry idempotency keys, in which place of a request, and the key one
//! operation offers.
//!
//! [`KEY_NAMES`] is the one table of the spellings recognised: headers by the IETF draft
//! and vendors, and request-body properties or query parameters by the APIs that take
//! the key there. Any name with `idempotency` in it is a key in any place. A request id
//! is a key only where its description says the server de-duplicates on it; ordinary
//! ids and tracing ids never are.

use super::{KeyHeaders, KeyOffer, KeySource};
use crate::input::model::{Api, Operation, Place, RequestField};

/// A name known to carry idempotency keys.
pub(super) struct KeyName {
    /// As an API writes it; compared without case.
    pub name: &'static str,
    /// Where a request carries it.
    pub places: &'static [Place],
    /// A key only when its description says the server de-duplicates on it (a
    /// `request_id` is as often a tracing id).
    pub needs_dedup_description: bool,
}

const HEADER: &[Place] = &[Place::Header];
const BODY_OR_QUERY: &[Place] = &[Place::Body, Place::Query];

const fn named(name: &'static str, places: &'static [Place]) -> KeyName {
    KeyName {
        name,
        places,
        needs_dedup_description: false,
    }
}

const fn described(name: &'static str) -> KeyName {
    KeyName {
        name,
        places: BODY_OR_QUERY,
        needs_dedup_description: true,
    }
}

/// Every spelling recognised besides names with `idempotency` in them.
pub(super) const KEY_NAMES: &[KeyName] = &[
    // The IETF draft's header, and vendors' variants.
    named("Idempotency-Key", HEADER),
    named("X-Idempotency-Key", HEADER),
    named("PayPal-Request-Id", HEADER),
    named("Repeatability-Request-ID", HEADER),
    named("I-Twilio-Idempotency-Token", HEADER),
    // Square's body `idempotency_key`, and its other spellings.
    named("idempotency_key", BODY_OR_QUERY),
    named("idempotencyKey", BODY_OR_QUERY),
    named("idempotency_token", BODY_OR_QUERY),
    // AWS's idempotency token (`ClientToken`, "ensuring idempotency").
    named("client_token", BODY_OR_QUERY),
    named("clientToken", BODY_OR_QUERY),
    // Temporal's and others' request ids, when described as de-duplicating.
    described("request_id"),
    described("requestId"),
];

/// Words of a description that say the server de-duplicates on the value.
const DEDUP_WORDS: &[&str] = &["idempoten", "de-dup", "dedup", "deduplicat", "duplicate"];

/// Why a value named `name` in `place`, described as `description`, is taken for an
/// idempotency key; `None` when it is not one.
fn key_source(
    name: &str,
    place: Place,
    description: Option<&str>,
    keys: &KeyHeaders,
) -> Option<KeySource> {
    if place == Place::Header && keys.configured.iter().any(|k| k.eq_ignore_ascii_case(name)) {
        return Some(KeySource::Configured);
    }
    if name.to_ascii_lowercase().contains("idempotency") {
        return Some(KeySource::KnownName);
    }
    let known = KEY_NAMES
        .iter()
        .find(|k| k.places.contains(&place) && k.name.eq_ignore_ascii_case(name))?;
    if !known.needs_dedup_description {
        return Some(KeySource::KnownName);
    }
    let text = description.unwrap_or_default().to_ascii_lowercase();
    DEDUP_WORDS
        .iter()
        .any(|w| text.contains(w))
        .then_some(KeySource::Described)
}

/// The key the operation offers: a required header key first, then a required query or
/// body key, then an optional one in the same order; or the Fern headers of an
/// `x-fern-idempotent` operation.
pub(super) fn key_offer(op: &Operation, api: &Api, keys: &KeyHeaders) -> Option<KeyOffer> {
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
    let header = op
        .headers
        .iter()
        .filter_map(|h| {
            let source = key_source(&h.name, Place::Header, None, keys)
                .or_else(|| fern_header(&h.name).then_some(KeySource::Fern))?;
            Some(KeyOffer {
                name: h.name.clone(),
                place: Place::Header,
                required: h.required,
                source,
                loc: h.loc.clone(),
            })
        })
        .max_by_key(|k| k.required);
    let field = || {
        let offers = RequestField::of(op).filter_map(|f| {
            let source = key_source(&f.name, f.place, f.description.as_deref(), keys)?;
            Some(KeyOffer {
                name: f.name.clone(),
                place: f.place,
                required: f.required,
                source,
                loc: f.loc.clone(),
            })
        });
        let mut first = None;
        for offer in offers {
            if offer.required {
                return Some(offer);
            }
            first.get_or_insert(offer);
        }
        first
    };
    let declared = match header {
        Some(h) if h.required => Some(h),
        header => match field() {
            Some(f) if f.required || header.is_none() => Some(f),
            _ => header,
        },
    };
    if declared.is_some() || !fern {
        return declared;
    }
    // Fern's SDKs send the document's headers without the operation listing them.
    api.fern_idempotency_headers
        .first()
        .map(|(header, loc)| KeyOffer {
            name: header.clone(),
            place: Place::Header,
            required: false,
            source: KeySource::Fern,
            loc: loc.clone(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(name: &str, place: Place, description: Option<&str>) -> Option<KeySource> {
        key_source(name, place, description, &KeyHeaders::default())
    }

    #[test]
    fn body_spellings_are_keys_in_the_body_and_the_query_only() {
        for name in [
            "idempotency_key",
            "idempotencyKey",
            "idempotency_token",
            "client_token",
            "ClientToken",
        ] {
            assert_eq!(source(name, Place::Body, None), Some(KeySource::KnownName));
            assert_eq!(source(name, Place::Query, None), Some(KeySource::KnownName));
        }
        assert_eq!(source("client_token", Place::Header, None), None);
        assert_eq!(
            source("Idempotency-Key", Place::Body, Some("x")),
            Some(KeySource::KnownName)
        );
    }

    #[test]
    fn a_request_id_is_a_key_only_when_described_as_deduplicating() {
        let dedup = Some("Used to de-dupe signal with start requests.");
        assert_eq!(
            source("request_id", Place::Body, dedup),
            Some(KeySource::Described)
        );
        assert_eq!(
            source(
                "requestId",
                Place::Body,
                Some("Idempotent retries return the job.")
            ),
            Some(KeySource::Described)
        );
        assert_eq!(
            source("request_id", Place::Body, Some("Logged with the call.")),
            None
        );
        assert_eq!(source("request_id", Place::Body, None), None);
    }

    #[test]
    fn ids_and_tracing_ids_are_not_keys() {
        for name in ["id", "uuid", "trace_id", "correlation_id", "X-Request-Id"] {
            for place in [Place::Header, Place::Query, Place::Body] {
                assert_eq!(source(name, place, Some("a duplicate id")), None, "{name}");
            }
        }
    }
}
