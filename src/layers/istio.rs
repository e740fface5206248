//! The Istio importer.

use super::{Format, ImportFile, Importer, Layer};
use crate::error::InputError;
use crate::location::Loc;
use crate::source::Node;

/// Reads Istio retry settings.
pub struct VirtualService;

impl Importer for VirtualService {
    fn format(&self) -> Format {
        Format::Istio
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
