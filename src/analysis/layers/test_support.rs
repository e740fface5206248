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
    let file = SourceFile::parse_documents(name.into(), text.into(), ParseLimits::default())
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
