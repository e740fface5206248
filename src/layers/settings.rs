//! What `retry-policy.yaml` says about layers: the names the service answers to
//! (`service.hosts`) and the position of a layer file (`layers:`), read from the policy
//! file's tree. `lint.maxAmplification` is read here too.
//!
//! ```yaml
//! service:
//!   hosts: [payments.prod.svc.cluster.local]
//! layers:
//!   - file: deploy/ingress-virtualservice.yaml
//!     position: gateway
//! lint:
//!   maxAmplification: 10
//! ```

use super::Position;
use crate::error::{InputError, did_you_mean};
use crate::location::Loc;
use crate::policy::Spanned;
use crate::source::{Node, SourceFile, Value};

/// The layer settings of a policy file.
#[derive(Debug, Clone, Default)]
pub struct LayerSettings {
    /// `service.hosts`.
    pub hosts: Vec<Spanned<String>>,
    /// `layers:` entries.
    pub positions: Vec<PositionSetting>,
    /// `lint.maxAmplification`.
    pub max_amplification: Option<Spanned<u64>>,
}

/// One `layers:` entry: the layers of a file (or of one object) take a position.
#[derive(Debug, Clone)]
pub struct PositionSetting {
    /// A file given with `-p`, matched by the end of its path (`istio/vs.yaml`).
    pub file: Option<Spanned<String>>,
    /// A layer's object name (`payments`) or full name (`Istio VirtualService payments`).
    pub name: Option<Spanned<String>>,
    pub position: Spanned<Position>,
    /// The entry.
    pub loc: Loc,
}

impl PositionSetting {
    /// Whether this entry sets the position of a layer of `file_name` named `layer_name`.
    pub fn applies_to(&self, file_name: &str, layer_name: &str) -> bool {
        let file_ok = self.file.as_ref().is_none_or(|f| {
            let wanted = f.value.trim_start_matches("./");
            file_name == wanted || file_name.ends_with(&format!("/{wanted}"))
        });
        let name_ok = self.name.as_ref().is_none_or(|n| {
            layer_name == n.value || layer_name.rsplit(' ').next() == Some(n.value.as_str())
        });
        file_ok && name_ok
    }
}

/// Reads the layer settings of a policy file whose locations use file id `id`.
pub fn read(file: &SourceFile, id: crate::load::FileId) -> Result<LayerSettings, InputError> {
    let mut settings = LayerSettings::default();
    let root = Loc::new(id, "", file.root.span);
    let Some(map) = file.root.as_map() else {
        return Ok(settings);
    };
    let error = |node: &Node, message: String| InputError::at(file, node.span, message);
    if let Some(service) = map
        .entry("service")
        .filter(|e| e.value.value != Value::Null)
    {
        let loc = root.entry("service", service.key_span, &service.value);
        let service_map = service.value.as_map().ok_or_else(|| {
            error(
                &service.value,
                "`service` must be a mapping with `hosts`".into(),
            )
        })?;
        for entry in service_map.entries() {
            if &*entry.key != "hosts" {
                return Err(error(&entry.value, format!("unknown key `{}` in `service`", entry.key))
                    .with_help("`service` has one key, `hosts`: the names a mesh or gateway knows the service by"));
            }
            let hosts_loc = loc.entry("hosts", entry.key_span, &entry.value);
            let items = entry.value.as_seq().ok_or_else(|| {
                error(
                    &entry.value,
                    "`service.hosts` must be a list of host names".into(),
                )
            })?;
            for (i, item) in items.iter().enumerate() {
                let host = item
                    .as_str()
                    .ok_or_else(|| error(item, "host names must be strings".into()))?;
                settings
                    .hosts
                    .push(Spanned::new(host.to_string(), hosts_loc.item(i, item)));
            }
        }
    }
    if let Some(layers) = map.entry("layers").filter(|e| e.value.value != Value::Null) {
        let loc = root.entry("layers", layers.key_span, &layers.value);
        let items = layers.value.as_seq().ok_or_else(|| {
            error(
                &layers.value,
                "`layers` must be a list of `{file, name, position}` entries".into(),
            )
        })?;
        for (i, item) in items.iter().enumerate() {
            settings
                .positions
                .push(position_setting(file, item, loc.item(i, item))?);
        }
    }
    if let Some(lint) = map.get("lint").and_then(Node::as_map)
        && let Some(entry) = lint.entry("maxAmplification")
    {
        let lint_loc = root
            .child(&file.root, "lint")
            .unwrap_or_else(|| root.clone());
        let loc = lint_loc.entry("maxAmplification", entry.key_span, &entry.value);
        let value = entry
            .value
            .scalar_text()
            .and_then(|t| t.parse::<u64>().ok())
            .filter(|v| *v >= 1)
            .ok_or_else(|| {
                error(
                    &entry.value,
                    "`maxAmplification` must be a whole number of 1 or more".into(),
                )
            })?;
        settings.max_amplification = Some(Spanned::new(value, loc));
    }
    Ok(settings)
}

fn position_setting(
    file: &SourceFile,
    node: &Node,
    loc: Loc,
) -> Result<PositionSetting, InputError> {
    let error = |node: &Node, message: String| InputError::at(file, node.span, message);
    let map = node.as_map().ok_or_else(|| {
        error(
            node,
            "a `layers` entry must be a mapping: {file, name, position}".into(),
        )
    })?;
    let mut setting = PositionSetting {
        file: None,
        name: None,
        position: Spanned::new(Position::Mesh, loc.clone()),
        loc: loc.clone(),
    };
    let mut position = None;
    for entry in map.entries() {
        let at = loc.entry(&entry.key, entry.key_span, &entry.value);
        let text = entry
            .value
            .as_str()
            .ok_or_else(|| error(&entry.value, format!("`{}` must be a string", entry.key)))?;
        match &*entry.key {
            "file" => setting.file = Some(Spanned::new(text.to_string(), at)),
            "name" => setting.name = Some(Spanned::new(text.to_string(), at)),
            "position" => {
                let value = Position::parse(text).ok_or_else(|| {
                    let names = Position::ALL.map(Position::as_str);
                    let e = error(
                        &entry.value,
                        format!("unknown position `{text}`: use {}", names.join(", ")),
                    );
                    match did_you_mean(text, names) {
                        Some(near) => e.with_help(format!("did you mean `{near}`?")),
                        None => e,
                    }
                })?;
                position = Some(Spanned::new(value, at));
            }
            other => {
                return Err(error(
                    &entry.value,
                    format!("unknown key `{other}` in a `layers` entry"),
                )
                .with_help("a `layers` entry has `file`, `name` and `position`"));
            }
        }
    }
    setting.position =
        position.ok_or_else(|| error(node, "a `layers` entry needs a `position`".into()))?;
    if setting.file.is_none() && setting.name.is_none() {
        return Err(error(
            node,
            "a `layers` entry needs a `file` or a `name` to say which layers it places".into(),
        ));
    }
    Ok(setting)
}
