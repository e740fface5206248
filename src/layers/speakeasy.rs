//! The SDK layer: `x-speakeasy-retries` in the description (document root and operations).

use super::Layer;
use crate::error::InputError;
use crate::load::Sources;
use crate::model::Api;

/// The SDK layer the description's `x-speakeasy-retries` declare, if any: one route per
/// operation that says something (its own extension, or the document's).
pub fn import(_api: &Api, _sources: &Sources) -> Result<Option<Layer>, InputError> {
    Ok(None)
}
