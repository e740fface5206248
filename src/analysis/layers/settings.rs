//! What `retry-policy.yaml` says about layers: the names the service answers to
//! (`service.hosts`), the position of a layer file (`layers:`) and
//! `lint.maxAmplification`, taken from the policy file's one model
//! ([`crate::input::policy::PolicyFile`], which its reader fills).
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

use crate::input::policy::{PolicyFile, Spanned};

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
pub use crate::input::policy::LayerPlacement as PositionSetting;

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

/// The layer settings of a policy file, as [`crate::input::policy::parse_policy_file`] read them.
impl From<&PolicyFile> for LayerSettings {
    fn from(policy: &PolicyFile) -> LayerSettings {
        LayerSettings {
            hosts: policy.service_hosts.clone(),
            positions: policy.layers.clone(),
            max_amplification: policy.lint.max_amplification.clone(),
        }
    }
}
