//! What `retry-policy.yaml` says about layers: the names the service answers to
//! (`service.hosts`), the position of a layer file (`layers:`) and
//! `lint.maxAmplification`, taken from the policy file's one model
//! ([`crate::policy::PolicyFile`], which its reader fills).
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
use crate::location::Loc;
use crate::policy::{PolicyFile, Spanned};

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

/// The layer settings of a policy file, as [`crate::policy::parse_policy_file`] read them.
impl From<&PolicyFile> for LayerSettings {
    fn from(policy: &PolicyFile) -> LayerSettings {
        let positions = policy.layers.iter().map(|entry| PositionSetting {
            file: entry.file.clone(),
            name: entry.name.clone(),
            position: entry.position.clone(),
            loc: entry.loc.clone(),
        });
        LayerSettings {
            hosts: policy.service_hosts.clone(),
            positions: positions.collect(),
            max_amplification: policy.lint.max_amplification.clone(),
        }
    }
}
