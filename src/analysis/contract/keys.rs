//! Which names carry idempotency keys, in which place of a request, and the key one
//! operation offers.
//!
//! [`KEY_NAMES`] is the one table of the spellings recognised: headers by the IETF draft
//! and vendors, and request-body properties or query parameters by the APIs that take
//! the key there. Any name with `idempotency` or `dedup` in it is a key in any place
//! (PagerDuty's `dedup_key`). Another body or query field named as a key, token, id or
//! reference is one only where its description or title says the server de-duplicates
//! on it (a `request_id` "used to de-duplicate"), or, for a `…_key`, that it identifies
//! or correlates what the request acts on (PagerDuty's `incident_key`: "Identifies the
//! incident to trigger"); credentials, ordinary ids and tracing ids never are.

use super::{KeyHeaders, KeyOffer, KeySource};
use crate::input::model::effect::words::identifier_words;
use crate::input::model::effect::{quote, sentence_start};
use crate::input::model::{Api, KEY_LIKE_ENDINGS, Operation, Place, RequestField, ends_key_like};

/// A name known to carry idempotency keys.
pub(super) struct KeyName {
    /// As an API writes it; compared without case.
    pub name: &'static str,
    /// Where a request carries it.
    pub places: &'static [Place],
}

const HEADER: &[Place] = &[Place::Header];
const BODY_OR_QUERY: &[Place] = &[Place::Body, Place::Query];

const fn named(name: &'static str, places: &'static [Place]) -> KeyName {
    KeyName { name, places }
}

/// Every spelling recognised besides names with `idempotency` or `dedup` in them, and
/// fields whose description makes them keys (Temporal's `request_id`).
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
];

/// Words of a description that say the server de-duplicates on the value.
const DEDUP_WORDS: &[&str] = &["idempoten", "de-dup", "dedup", "deduplicat", "duplicate"];

/// Words of a `…_key` field's description that say it names what the request acts on:
/// a repeat with the same key reaches the same thing.
const IDENTIFIES_WORDS: &[&str] = &["identifies the", "correlate"];

/// Words of a name that make it a credential, a trace or a bare identifier, never a key.
const NEVER_KEYS: &[&str] = &[
    "api",
    "access",
    "auth",
    "secret",
    "private",
    "public",
    "signing",
    "license",
    "service",
    "routing",
    "integration",
    "session",
    "trace",
    "span",
    "correlation",
    "parent",
];

/// Where a body or query field named `name`, described as `text` (lower-cased), says it
/// is a key: a key-like name that is no credential or trace, whose text says the server
/// de-duplicates on it (or, for a `…_key`, that it identifies what the request acts on).
/// The byte offset of the deciding words; `None` when it is no key.
fn described_key(name: &str, text: &str) -> Option<usize> {
    let words = identifier_words(name);
    let (Some(last), true) = (words.last(), words.len() > 1) else {
        return None;
    };
    let is = |word: &str, list: &[&str]| list.iter().any(|w| w.eq_ignore_ascii_case(word));
    // A header's spelling (`X-Request-Id`) in a body or query is a forwarded header.
    let header_style = words.first().is_some_and(|w| w.eq_ignore_ascii_case("x"));
    if header_style || !is(last, KEY_LIKE_ENDINGS) || words.iter().any(|w| is(w, NEVER_KEYS)) {
        return None;
    }
    let found = |list: &[&str]| list.iter().filter_map(|w| text.find(w)).min();
    let identifies = || {
        last.eq_ignore_ascii_case("key")
            .then(|| found(IDENTIFIES_WORDS))
            .flatten()
    };
    found(DEDUP_WORDS).or_else(identifies)
}

/// Why a value named `name` in `place`, described as `description`, is taken for an
/// idempotency key; `None` when it is not one.
fn key_source(
    name: &str,
    place: Place,
    description: Option<&str>,
    keys: &KeyHeaders,
) -> Option<KeySource> {
    key_judged(name, place, description, keys).map(|(source, _)| source)
}

/// [`key_source`], with the words of the description that decided a described key.
fn key_judged(
    name: &str,
    place: Place,
    description: Option<&str>,
    keys: &KeyHeaders,
) -> Option<(KeySource, Option<String>)> {
    if place == Place::Header && keys.configured.iter().any(|k| k.eq_ignore_ascii_case(name)) {
        return Some((KeySource::Configured, None));
    }
    // A nested body property (`data.attributes.idempotencyKey`) is judged by its own name.
    let name = match place {
        Place::Body => name.rsplit('.').next().unwrap_or(name),
        _ => name,
    };
    if crate::input::model::names_a_key(name) {
        return Some((KeySource::KnownName, None));
    }
    if KEY_NAMES
        .iter()
        .any(|k| k.places.contains(&place) && k.name.eq_ignore_ascii_case(name))
    {
        return Some((KeySource::KnownName, None));
    }
    if place == Place::Header {
        return None;
    }
    let description = description?;
    // Most fields end in no key-like word: they are passed over before any allocation.
    if !ends_key_like(name) {
        return None;
    }
    // ASCII lower-casing keeps every byte offset of the description.
    let at = described_key(name, &description.to_ascii_lowercase())?;
    let said = quote(description, sentence_start(description, at));
    Some((KeySource::Described, Some(said.into())))
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
                said: None,
                loc: h.loc.clone(),
            })
        })
        .max_by_key(|k| k.required);
    let field = || {
        let offers = RequestField::of(op).filter_map(|f| {
            let (source, said) = key_judged(&f.name, f.place, f.description.as_deref(), keys)?;
            Some(KeyOffer {
                name: f.name.clone(),
                place: f.place,
                required: f.required,
                source,
                said,
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
            said: None,
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
    fn a_name_that_says_dedup_is_a_key_in_any_place() {
        // PagerDuty Events API v2 (PagerDuty/api-schema, reference/events-v2/openapiv3.json):
        // `dedup_key`, "Identifies the alert to trigger, acknowledge, or resolve".
        for place in [Place::Header, Place::Query, Place::Body] {
            assert_eq!(source("dedup_key", place, None), Some(KeySource::KnownName));
            assert_eq!(
                source("X-Dedup-Key", place, None),
                Some(KeySource::KnownName)
            );
        }
    }

    #[test]
    fn a_key_that_identifies_what_the_request_acts_on_is_a_key() {
        // PagerDuty Events API v1 (PagerDuty/api-schema, reference/events-v1/openapiv3.json).
        let incident = Some("Identifies the incident to `trigger`, `acknowledge`, or `resolve`.");
        assert_eq!(
            source("incident_key", Place::Body, incident),
            Some(KeySource::Described)
        );
        // A credential that identifies an account is not.
        let service = Some("Identifies the \"Generic API\" service.");
        assert_eq!(source("service_key", Place::Body, service), None);
        assert_eq!(source("api_key", Place::Body, service), None);
        // An id that identifies a related thing is not: only a `…_key` names the target.
        let customer = Some("Identifies the customer to charge.");
        assert_eq!(source("customer_id", Place::Body, customer), None);
        // A key that says nothing of either is not.
        assert_eq!(
            source("sort_key", Place::Query, Some("The field to sort on.")),
            None
        );
    }

    #[test]
    fn a_domain_named_field_described_as_deduplicating_is_a_key() {
        for (name, text) in [
            (
                "external_reference",
                "Requests with a duplicate external_reference are rejected.",
            ),
            (
                "clientRequestToken",
                "Used to de-duplicate retried requests.",
            ),
            (
                "transferId",
                "The server treats a repeated transferId as idempotent.",
            ),
        ] {
            assert_eq!(
                source(name, Place::Body, Some(text)),
                Some(KeySource::Described),
                "{name}"
            );
            // In a header only the known names and `lint.keyHeaders` are keys.
            assert_eq!(source(name, Place::Header, Some(text)), None, "{name}");
        }
        // Not a key-like name: a unique e-mail address is a constraint, not a key.
        assert_eq!(
            source(
                "email",
                Place::Body,
                Some("Duplicate e-mail addresses are rejected.")
            ),
            None
        );
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(identifier_words("incident_key"), ["incident", "key"]);
        assert_eq!(identifier_words("requestId"), ["request", "Id"]);
        assert_eq!(identifier_words("X-Dedup-Key"), ["X", "Dedup", "Key"]);
        assert_eq!(
            identifier_words("data.attributes.clientRef"),
            ["data", "attributes", "client", "Ref"]
        );
        assert_eq!(identifier_words("ID"), ["ID"]);
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
