//! retrylint's own retry policy as a layer format: the client's retries, read by
//! [`crate::input::policy`] rather than by an importer of `-p` files, declared here beside the
//! other formats.

use super::Position;
use super::format::{DocsRow, FormatSpec, RetryAfter};

/// What retrylint's policy is as a format.
pub(super) static SPEC: FormatSpec = FormatSpec {
    label: "retry policy",
    position: Position::Client,
    objects: &[],
    understood: Some("a retrylint policy (`version: 1`)"),
    family: "retrylint",
    importer: None,
    retry_after: RetryAfter::Can,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "retrylint policy (`version: 1`)",
        position_note: "",
        read: "everything",
        defaults: "—",
    },
    help: &[],
};
