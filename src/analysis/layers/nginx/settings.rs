//! The retry directives of one `http`, `server` or `location` block, each level inheriting
//! what it does not write (`ngx_http_proxy_merge_loc_conf` in nginx/nginx
//! `src/http/modules/ngx_http_proxy_module.c`), and the `upstream` groups `proxy_pass`
//! names.

use super::{CONDITIONS, args, children, name, nginx_time};
use crate::analysis::layers::values::bad_value;
use crate::error::InputError;
use crate::input::policy::{Duration, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The retry directives in force in a block.
#[derive(Debug, Clone, Default)]
pub(in crate::analysis::layers) struct Settings {
    /// `proxy_next_upstream`'s conditions.
    pub(in crate::analysis::layers) next: Option<Spanned<Vec<String>>>,
    /// `proxy_next_upstream_tries` (0: no limit but the group's servers).
    pub(in crate::analysis::layers) tries: Option<Spanned<u64>>,
    /// `proxy_next_upstream_timeout` (0: no limit).
    pub(in crate::analysis::layers) timeout: Option<Spanned<Duration>>,
    /// `proxy_read_timeout`: how long one attempt waits for the upstream's answer.
    pub(in crate::analysis::layers) read_timeout: Option<Spanned<Duration>>,
}

impl Settings {
    /// These settings with what `block` (at `at`) writes itself replacing them.
    pub(super) fn read(
        &self,
        file: &SourceFile,
        block: &[Node],
        at: &Loc,
    ) -> Result<Settings, InputError> {
        let mut out = self.clone();
        for (i, node) in block.iter().enumerate() {
            let loc = at.item(i, node);
            let words = args(node);
            match name(node) {
                "proxy_next_upstream" => {
                    if let Some(bad) = words.iter().find(|w| !CONDITIONS.contains(w)) {
                        return Err(bad_value(
                            file,
                            &loc,
                            format!(
                                "`{bad}` is not a proxy_next_upstream condition NGINX knows: {}",
                                CONDITIONS.join(", ")
                            ),
                        ));
                    }
                    if words.is_empty() {
                        return Err(bad_value(
                            file,
                            &loc,
                            "proxy_next_upstream takes conditions",
                        ));
                    }
                    let list = words.iter().map(|w| (*w).to_string()).collect();
                    out.next = Some(Spanned::new(list, loc));
                }
                "proxy_next_upstream_tries" => {
                    let count = match words.as_slice() {
                        [one] => one.parse::<u64>().ok(),
                        _ => None,
                    };
                    let count = count.ok_or_else(|| {
                        bad_value(file, &loc, "proxy_next_upstream_tries takes a whole number")
                    })?;
                    out.tries = Some(Spanned::new(count, loc));
                }
                directive @ ("proxy_next_upstream_timeout" | "proxy_read_timeout") => {
                    let time = match words.as_slice() {
                        [one] => nginx_time(one),
                        _ => None,
                    };
                    let time = time.ok_or_else(|| {
                        bad_value(
                            file,
                            &loc,
                            format!("{directive} takes a time (`10s`, `500ms`)"),
                        )
                    })?;
                    let time = Some(Spanned::new(time, loc));
                    if directive == "proxy_read_timeout" {
                        out.read_timeout = time;
                    } else {
                        out.timeout = time;
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The conditions in force: written, or nginx's default `error timeout` noted at `at`.
    pub(in crate::analysis::layers) fn conditions(
        &self,
        at: &Loc,
        note: &str,
    ) -> Spanned<Vec<String>> {
        self.next.clone().unwrap_or_else(|| {
            Spanned::new(
                vec!["error".to_string(), "timeout".to_string()],
                at.noted(note),
            )
        })
    }
}

/// An `upstream` group: its name, how many servers it has, where it is written.
#[derive(Debug, Clone)]
pub(super) struct Upstream {
    pub(super) name: String,
    pub(super) servers: u64,
    pub(super) loc: Loc,
}

/// The `upstream` groups of an `http` block.
pub(super) fn upstreams(block: &[Node], at: &Loc) -> Vec<Upstream> {
    block
        .iter()
        .enumerate()
        .filter(|(_, d)| name(d) == "upstream")
        .filter_map(|(i, d)| {
            let group = args(d).first()?.to_string();
            let servers = children(d.get("block"))
                .iter()
                .filter(|s| name(s) == "server")
                .count();
            Some(Upstream {
                name: group,
                servers: servers as u64,
                loc: at.item(i, d),
            })
        })
        .collect()
}

/// The group a `proxy_pass` target names (`http://backend/path`), with its number of
/// servers and where it is written; `None` for a single host.
pub(super) fn servers_of(target: &str, upstreams: &[Upstream]) -> Option<(u64, Loc)> {
    let rest = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("https://"))
        .unwrap_or(target);
    let host = rest.split('/').next().unwrap_or(rest);
    upstreams
        .iter()
        .find(|u| u.name == host)
        .map(|u| (u.servers, u.loc.clone()))
}
