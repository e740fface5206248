//! The server's settings, from the `initializationOptions` of `initialize`: the same
//! inputs the command line takes (`-p`, `--root`, `--max-file-size`, `--host`), with the
//! same defaults.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::analysis::check::CheckOptions;
use crate::input::load::LoadOptions;

/// What a client may set in `initializationOptions` (every key optional).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct InitializationOptions {
    /// The retry policy and layer files, as `-p` takes them: a path or a list of paths.
    #[serde(default)]
    policy: Option<OneOrMany>,
    /// The folder files may not leave (`--root`).
    #[serde(default)]
    root: Option<PathBuf>,
    /// The largest file or buffer read, in bytes (`--max-file-size`).
    #[serde(default)]
    max_file_size: Option<u64>,
    /// Host names the service answers to (`--host`).
    #[serde(default)]
    hosts: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(PathBuf),
    Many(Vec<PathBuf>),
}

/// The settings every check of the server uses.
#[derive(Debug, Clone, Default)]
pub(super) struct Config {
    /// `-p`: the policy and layer files; empty to find `retry-policy.yaml` beside each
    /// description.
    pub(super) policy: Vec<PathBuf>,
    pub(super) hosts: Vec<String>,
    pub(super) load: LoadOptions,
}

impl Config {
    /// The settings from `initializationOptions`, relative paths taken from `base` (the
    /// workspace folder). Options that cannot be read leave the defaults, and say why.
    pub(super) fn read(
        options: Option<&serde_json::Value>,
        base: &Path,
    ) -> (Config, Option<String>) {
        let (options, problem) = match options {
            None | Some(serde_json::Value::Null) => (InitializationOptions::default(), None),
            Some(value) => match InitializationOptions::deserialize(value) {
                Ok(options) => (options, None),
                Err(e) => (
                    InitializationOptions::default(),
                    Some(format!("retrylint: initializationOptions ignored: {e}")),
                ),
            },
        };
        let absolute = |path: PathBuf| {
            if path.is_absolute() {
                path
            } else {
                base.join(path)
            }
        };
        let policy = match options.policy {
            None => Vec::new(),
            Some(OneOrMany::One(path)) => vec![absolute(path)],
            Some(OneOrMany::Many(paths)) => paths.into_iter().map(absolute).collect(),
        };
        let mut load = LoadOptions {
            root: options.root.map(absolute),
            ..LoadOptions::default()
        };
        if let Some(max) = options.max_file_size {
            load.max_file_size = max;
        }
        (
            Config {
                policy,
                hosts: options.hosts,
                load,
            },
            problem,
        )
    }

    /// The options of one check, before the policy and layers are read.
    pub(super) fn check_options(&self) -> CheckOptions {
        CheckOptions {
            load: self.load.clone(),
            ..CheckOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_as_the_command_line_reads_them() {
        let options = serde_json::json!({
            "policy": ["policy/retry.yaml", "/etc/mesh"],
            "root": "..",
            "maxFileSize": 1000,
        });
        let (config, problem) = Config::read(Some(&options), Path::new("/work/space"));
        assert_eq!(problem, None);
        assert_eq!(
            config.policy,
            [
                PathBuf::from("/work/space/policy/retry.yaml"),
                PathBuf::from("/etc/mesh")
            ]
        );
        assert_eq!(config.load.root, Some(PathBuf::from("/work/space/..")));
        assert_eq!(config.load.max_file_size, 1000);
        let (single, _) = Config::read(
            Some(&serde_json::json!({"policy": "p.yaml"})),
            Path::new("/w"),
        );
        assert_eq!(single.policy, [PathBuf::from("/w/p.yaml")]);
    }

    #[test]
    fn unknown_options_leave_the_defaults_and_say_so() {
        let (config, problem) = Config::read(
            Some(&serde_json::json!({"maxFileSise": 1})),
            Path::new("/w"),
        );
        assert_eq!(
            config.load.max_file_size,
            LoadOptions::default().max_file_size
        );
        assert!(
            problem.is_some_and(|p| p.contains("maxFileSise")),
            "a misspelt option is reported"
        );
    }
}
