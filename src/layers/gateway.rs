//! The GatewayApi importer.

use super::{Format, ImportFile, Importer, Layer};
use crate::error::InputError;
use crate::location::Loc;
use crate::source::Node;

/// Reads GatewayApi retry settings.
pub struct HttpRoute;

impl Importer for HttpRoute {
    fn format(&self) -> Format {
        Format::GatewayApi
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
