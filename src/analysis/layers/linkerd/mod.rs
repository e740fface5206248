//! The Linkerd importers: `ServiceProfile` objects (`linkerd.io`), and the
//! `retry.linkerd.io/*` and `timeout.linkerd.io/*` annotations on a `Service` or
//! `HTTPRoute`. Both sit at the mesh: Linkerd retries in the caller's proxy.
//!
//! Linkerd uses a `ServiceProfile`'s retries instead of annotations when both exist for a
//! service; both are imported, as two layers at the same position, of which the worse
//! counts.

mod annotations;
mod profile;
mod status;

#[cfg(test)]
mod tests;

use super::format::{DocsRow, FormatSpec, ObjectKinds, RetryAfter};
use super::{ImportFile, Importer, Layer, Position};
use crate::analysis::layers::format::Fix;
use crate::error::InputError;
use crate::input::source::Node;
use crate::location::Loc;

/// The API group of `ServiceProfile`.
const GROUP: &str = "linkerd.io";

/// What a Linkerd `ServiceProfile` is as a format.
pub static PROFILE_SPEC: FormatSpec = FormatSpec {
    label: "Linkerd ServiceProfile",
    position: Position::Mesh,
    objects: &[ObjectKinds {
        group: GROUP,
        kinds: &["ServiceProfile"],
    }],
    understood: Some("Linkerd `ServiceProfile`"),
    family: "Linkerd",
    importer: Some(&ServiceProfile),
    retry_after: RetryAfter::Cannot,
    budget: true,
    retries_off: None,
    docs: DocsRow {
        format: "Linkerd `ServiceProfile`",
        position_note: "",
        read: "routes, `isRetryable`, `responseClasses`, `timeout`, `retryBudget`",
        defaults: "retries bounded only by the budget (20%, 10/s, 10 s); 5xx are failures; a 10 s route timeout when none is written (Linkerd 2.12's documented default)",
    },
    help: &[
        (
            Fix::Deadline,
            "set the route's `timeout`: it includes retries",
        ),
        (Fix::WriteRetries, "do not mark a write route `isRetryable`"),
        (
            Fix::NonTransientStatus,
            "do not make the status a failure in `responseClasses` of a retryable route",
        ),
    ],
};

/// What Linkerd's retry and timeout annotations are as a format.
pub static ANNOTATIONS_SPEC: FormatSpec = FormatSpec {
    label: "Linkerd annotations",
    position: Position::Mesh,
    objects: &[],
    understood: Some("`retry.linkerd.io` annotations on a `Service` or `HTTPRoute`"),
    family: "Linkerd",
    importer: Some(&Annotations),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "Linkerd `retry.linkerd.io/*`, `timeout.linkerd.io/*` annotations on a `Service` or `HTTPRoute`",
        position_note: "",
        read: "`http`, `limit`, `timeout`, request timeout",
        defaults: "1 retry; 25–250 ms backoff",
    },
    help: &[
        (
            Fix::Deadline,
            "set `timeout.linkerd.io/request`: it bounds the request and its retries",
        ),
        (
            Fix::WriteRetries,
            "keep the retry annotations off routes that take writes",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from `retry.linkerd.io/http`",
        ),
        (Fix::TooManyAttempts, "lower `retry.linkerd.io/limit`"),
        (
            Fix::AttemptsPastDeadline,
            "lower `retry.linkerd.io/limit` or `retry.linkerd.io/timeout`, or raise `timeout.linkerd.io/request`",
        ),
    ],
};

/// Reads a Linkerd `ServiceProfile`.
pub struct ServiceProfile;

impl Importer for ServiceProfile {
    fn recognises(&self, doc: &Node) -> bool {
        PROFILE_SPEC.reads_object(doc)
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        profile::import(file.file, doc, loc)
    }
}

/// Reads `retry.linkerd.io/*` and `timeout.linkerd.io/*` annotations.
pub struct Annotations;

impl Importer for Annotations {
    fn recognises(&self, doc: &Node) -> bool {
        annotations::recognises(doc)
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        annotations::import(file.file, doc, loc)
    }
}
