//! Descriptions and layer files for the layers' tests, read the way a run reads them.

use std::path::Path;
use std::sync::Arc;

use super::Layer;
use super::detect::{LayerFile, import};
use crate::error::InputError;
use crate::input::load::{LoadOptions, Loader, Sources};
use crate::input::model::{Api, Operation, build};
use crate::input::source::{ParseLimits, SourceFile};

/// The model of a description written as `text`, with its files.
pub(crate) fn api(text: &str) -> Result<(Api, Sources), InputError> {
    let file = SourceFile::parse("openapi.yaml".into(), text.into(), ParseLimits::default())
        .map_err(|(_, e)| InputError::new(e.message))?;
    let mut loader = Loader::new(LoadOptions::default());
    let root = loader.add(Arc::new(file));
    let api = build(&mut loader, root)?;
    Ok((api, loader.into_sources()))
}

/// The model of the description at `path` (relative to the crate), with its files.
pub(crate) fn api_at(path: &str) -> Result<(Api, Sources), InputError> {
    let mut loader = Loader::new(LoadOptions::default());
    let root = loader.load_root(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path))?;
    let api = build(&mut loader, root)?;
    Ok((api, loader.into_sources()))
}

/// The layers of a `-p` file named `name` holding `text`, and the file.
pub(crate) fn layers(name: &str, text: &str) -> Result<(Vec<Layer>, Arc<SourceFile>), InputError> {
    let file = super::detect::parse_layer_file(name.into(), text.into(), ParseLimits::default())
        .map_err(|(_, e)| InputError::new(e.message))?;
    let layer_file = LayerFile {
        file: Arc::new(file),
        walked: false,
        served: None,
    };
    Ok((import(&layer_file, 0)?, layer_file.file))
}

/// The layers of the fixture at `path` (relative to the crate).
pub(crate) fn fixture_layers(path: &str) -> (Vec<Layer>, Arc<SourceFile>) {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"));
    layers(path, &text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The operation `key` (`GET /payments`) of `api`.
pub(crate) fn operation<'a>(api: &'a Api, key: &str) -> &'a Operation {
    api.operations
        .iter()
        .find(|op| op.key() == key)
        .unwrap_or_else(|| panic!("no operation {key}"))
}

/// The value a policy field holds; panics when it is unset.
#[allow(
    clippy::ref_option,
    reason = "it reads the model's fields as they are declared"
)]
pub(crate) fn value<T: Clone>(field: &Option<crate::input::policy::Field<T>>) -> T {
    field
        .as_ref()
        .map_or_else(|| panic!("unset"), |f| f.value.clone())
}

/// Where a policy field was written; panics when it is unset.
#[allow(
    clippy::ref_option,
    reason = "it reads the model's fields as they are declared"
)]
pub(crate) fn loc<T>(field: &Option<crate::input::policy::Field<T>>) -> crate::location::Loc {
    field
        .as_ref()
        .map_or_else(|| panic!("unset"), |f| f.loc.clone())
}

/// The note a policy field's location carries (a default filled in, …).
#[allow(
    clippy::ref_option,
    reason = "it reads the model's fields as they are declared"
)]
pub(crate) fn note<T>(field: &Option<crate::input::policy::Field<T>>) -> Option<String> {
    field
        .as_ref()
        .and_then(|f| f.loc.note_text().map(str::to_string))
}
