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

use super::k8s;
use super::{Format, ImportFile, Importer, Layer};
use crate::error::InputError;
use crate::location::Loc;
use crate::source::Node;

/// Reads a Linkerd `ServiceProfile`.
pub struct ServiceProfile;

impl Importer for ServiceProfile {
    fn format(&self) -> Format {
        Format::LinkerdProfile
    }

    fn recognises(&self, doc: &Node) -> bool {
        k8s::is_object(doc, "linkerd.io", &["ServiceProfile"])
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
    fn format(&self) -> Format {
        Format::LinkerdAnnotations
    }

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
