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
    /// The workspace folder, canonical: the root of a description outside any git work
    /// tree, as the current folder is the command line's.
    pub(super) workspace: Option<PathBuf>,
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
                workspace: std::fs::canonicalize(base).ok(),
            },
            problem,
        )
    }

    /// The options of one check of the description at `path`, before the policy and
    /// layers are read. The root folder is the `root` setting, else the git work tree
    /// that holds the description, else the workspace folder when it holds it, else the
    /// description's folder: the command line's, with the workspace for the current folder.
    pub(super) fn check_options(&self, path: &Path) -> CheckOptions {
        let mut load = self.load.clone();
        if load.root.is_none() {
            let folder = path
                .parent()
                .and_then(|folder| std::fs::canonicalize(folder).ok());
            load.root = match (folder, &self.workspace) {
                (Some(folder), Some(workspace))
                    if crate::input::source::git_work_tree(&folder).is_none()
                        && folder.starts_with(workspace) =>
                {
                    Some(workspace.clone())
                }
                _ => None,
            };
        }
        CheckOptions {
            load,
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
        let (config, problem) = Config::read(Some(&options), Path::new("/srv/api"));
        assert_eq!(problem, None);
        assert_eq!(
            config.policy,
            [
                PathBuf::from("/srv/api/policy/retry.yaml"),
                PathBuf::from("/etc/mesh")
            ]
        );
        assert_eq!(config.load.root, Some(PathBuf::from("/srv/api/..")));
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

    #[test]
    fn outside_git_the_workspace_folder_is_the_root() {
        let workspace =
            std::env::temp_dir().join(format!("retrylint-workspace-{}", std::process::id()));
        let folder = workspace.join("api");
        std::fs::create_dir_all(&folder).expect("a scratch folder");
        let (config, _) = Config::read(None, &workspace);
        let root = config.check_options(&folder.join("openapi.yaml")).load.root;
        let elsewhere = config
            .check_options(&std::env::temp_dir().join("openapi.yaml"))
            .load
            .root;
        std::fs::remove_dir_all(&workspace).ok();
        if crate::input::source::git_work_tree(&std::env::temp_dir()).is_some() {
            return;
        }
        assert_eq!(
            root,
            std::fs::canonicalize(std::env::temp_dir())
                .ok()
                .map(|t| t.join(workspace.file_name().expect("a name")))
        );
        assert_eq!(
            elsewhere, None,
            "outside the workspace: the description's folder"
        );
    }
}
