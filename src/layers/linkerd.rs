//! The Linkerd importers: `ServiceProfile`, and retry/timeout annotations.

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

    fn recognises(&self, _doc: &Node) -> bool {
        false
    }

    fn import(
        &self,
        _file: &ImportFile<'_>,
        _doc: &Node,
        _loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        Ok(Vec::new())
    }
}

/// Reads `retry.linkerd.io/*` and `timeout.linkerd.io/*` annotations.
pub struct Annotations;

impl Importer for Annotations {
    fn format(&self) -> Format {
        Format::LinkerdAnnotations
    }

    fn recognises(&self, _doc: &Node) -> bool {
        false
    }

    fn import(
        &self,
        _file: &ImportFile<'_>,
        _doc: &Node,
        _loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        Ok(Vec::new())
    }
}
