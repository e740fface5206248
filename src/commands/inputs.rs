//! The inputs every command that reads a description shares: the policy and layer files
//! (`-p`), host names (`--host`), the root folder and the limits of what is read.

use std::path::PathBuf;

use clap::Args;

use crate::analysis::check::{LayerInputs, LoadedPolicy, discover_policy, load_given};
use crate::error::InputError;
use crate::input::load::LoadOptions;
use crate::input::load::stdin::Stdin;
use crate::input::source::ParseLimits;

/// Where the policy comes from and how files are read.
#[derive(Debug, Args)]
pub(crate) struct InputArgs {
    /// The retry policy, and the retry settings of proxies, gateways and meshes in front of
    /// the service (Istio, Gateway API, Linkerd, Envoy, Envoy Gateway, Traefik, Kong, an
    /// NGINX `*.conf`, ingress-nginx, an HAProxy `*.cfg`), and a gRPC service config (the
    /// client's own retries);
    /// repeatable; a folder is read
    /// whole. Without a retrylint policy among them, retry-policy.yaml beside each
    /// description is used.
    #[arg(short = 'p', long = "policy", value_name = "POLICY")]
    pub(crate) policy: Vec<PathBuf>,
    /// A host name the service answers to in the mesh or gateway (repeatable), besides
    /// the description's servers and the policy's `service.hosts`.
    #[arg(long = "host", value_name = "NAME")]
    pub(crate) hosts: Vec<String>,
    /// Follow `$ref`s to files outside the root folder.
    #[arg(long)]
    allow_outside_refs: bool,
    /// The folder `$ref`s and discovered files may not leave [default: the enclosing git
    /// work tree, else the current folder].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Largest file read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = LoadOptions::default().max_file_size)]
    max_file_size: u64,
    /// Most files one description may reach through `$ref`s.
    #[arg(long, value_name = "N", default_value_t = LoadOptions::default().max_files)]
    max_files: usize,
    /// Most bytes of files one description (or a `--base` revision) may reach, in all.
    #[arg(long, value_name = "BYTES", default_value_t = LoadOptions::default().max_total_bytes)]
    max_total_bytes: u64,
    /// Most operations one description may have.
    #[arg(long, value_name = "N", default_value_t = LoadOptions::default().max_operations)]
    max_operations: usize,
    /// Deepest nesting of lists and mappings in a file.
    #[arg(long, value_name = "N", default_value_t = ParseLimits::default().max_depth)]
    max_depth: usize,
    /// Most bytes that YAML aliases, merges and definitions reused through `$ref` may add
    /// to one description.
    #[arg(long, value_name = "BYTES", default_value_t = ParseLimits::default().max_expansion_bytes)]
    max_expansion_bytes: usize,
    /// Deprecated: the expansion budget is now counted in bytes (--max-expansion-bytes);
    /// N nodes are taken as N × 64 bytes.
    #[arg(long, value_name = "N", hide = true)]
    max_alias_nodes: Option<usize>,
    /// The file name of a description read from standard input (`-`): findings point
    /// into it, its `$ref`s are relative to its folder, and the policy beside it is used.
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<PathBuf>,
    /// Standard input, read once however many times options are made.
    #[arg(skip)]
    stdin: std::sync::OnceLock<std::sync::Arc<Stdin>>,
}

impl InputArgs {
    /// The policy named by `-p`, or the one beside the description, loaded, and the
    /// other layers `-p` names.
    pub(crate) fn policy_for(
        &self,
        spec: &std::path::Path,
    ) -> Result<(Option<PathBuf>, Option<LoadedPolicy>, LayerInputs), InputError> {
        let options = self.load_options();
        let given = load_given(&self.policy, &options)?;
        let layers = LayerInputs {
            files: given.layer_files,
            hosts: self.hosts.clone(),
        };
        Ok(match given.policy {
            Some((path, policy)) => (Some(path), Some(policy), layers),
            None => match discover_policy(spec, &options)? {
                Some(found) => (
                    Some(found.path.clone()),
                    Some(found.load(&options)?),
                    layers,
                ),
                None => (None, None, layers),
            },
        })
    }

    pub(crate) fn load_options(&self) -> LoadOptions {
        LoadOptions {
            allow_outside_refs: self.allow_outside_refs,
            root: self.root.clone(),
            max_file_size: self.max_file_size,
            max_files: self.max_files,
            max_total_bytes: self.max_total_bytes,
            max_operations: self.max_operations,
            parse: ParseLimits {
                max_depth: self.max_depth,
                max_expansion_bytes: self
                    .max_alias_nodes
                    .map_or(self.max_expansion_bytes, |nodes| nodes.saturating_mul(64)),
            },
            stdin: Some(
                self.stdin
                    .get_or_init(|| std::sync::Arc::new(Stdin::new(self.stdin_filename.clone())))
                    .clone(),
            ),
            revision: None,
            overlay: None,
            read_ahead_of_check: None,
            root_ahead: None,
        }
    }
}
