//! The Envoy importer.

use super::{Format, ImportFile, Importer, Layer};
use crate::error::InputError;
use crate::location::Loc;
use crate::source::Node;

/// Reads Envoy retry settings.
pub struct RouteConfig;

impl Importer for RouteConfig {
    fn format(&self) -> Format {
        Format::Envoy
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
