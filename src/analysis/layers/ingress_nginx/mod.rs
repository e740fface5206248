//! ingress-nginx: the retry annotations of a Kubernetes `Ingress` (`networking.k8s.io`)
//! that the ingress-nginx controller serves, read as the NGINX directives its template
//! writes, with the NGINX layer's semantics ([`super::nginx::upstream_retries`]).
//!
//! From kubernetes/ingress-nginx:
//!
//! - `internal/ingress/annotations/proxy/main.go` reads `proxy-next-upstream` (nginx's
//!   conditions, checked against `validUpstreamAnnotation`), `proxy-next-upstream-tries`,
//!   `proxy-next-upstream-timeout` and `proxy-read-timeout` (whole numbers, seconds)
//!   under the prefix `nginx.ingress.kubernetes.io/`; an unwritten one takes the
//!   controller's default from `internal/ingress/controller/config/config.go`
//!   (`error timeout`, 3 tries, no timeout, 60 s read timeout). The controller falls back to
//!   the default on a value it cannot read; retrylint reports it as an input error instead.
//! - `rootfs/etc/nginx/template/nginx.tmpl` writes them into each location as
//!   `proxy_next_upstream` (with `non_idempotent` added when the ConfigMap's
//!   `retry-non-idempotent` is true: `buildNextUpstream` in
//!   `internal/ingress/controller/template/template.go`), `proxy_next_upstream_tries`,
//!   `proxy_next_upstream_timeout` and `proxy_read_timeout`.
//! - Every location passes to `upstream_balancer`, one placeholder server whose
//!   `balancer_by_lua_file` picks an endpoint and calls `ngx_balancer.set_more_tries(1)`
//!   on every try (`rootfs/etc/nginx/lua/balancer.lua`, `balance`): the tries are not
//!   bounded by the number of endpoints but by `proxy_next_upstream_tries` alone, and a
//!   `proxy-next-upstream-tries` of 0 leaves them unbounded (openresty/lua-nginx-module
//!   v0.10.28, the release `images/nginx/rootfs/build.sh` builds, caps `set_more_tries` at
//!   `next_upstream_tries` only when it is not 0).
//!
//! Which `Ingress` is ingress-nginx's, after `GetIngressClass` in
//! `internal/ingress/controller/store/store.go`: `spec.ingressClassName` first, then the
//! legacy `kubernetes.io/ingress.class` annotation, which must equal the controller's
//! `--ingress-class` (`nginx`, `DefaultAnnotationValue` in
//! `internal/ingress/controller/ingressclass/ingressclass.go`). retrylint does not see the
//! cluster's `IngressClass`es, so it reads an `Ingress` as ingress-nginx's when its class
//! (either way) is `nginx`, the class the project's chart installs; when it names another
//! class or none and carries `nginx.ingress.kubernetes.io/` annotations (an unclassed
//! `Ingress` takes the cluster's default class when it is created); and not when the legacy
//! annotation names another class. A canary `Ingress` (`canary: "true"`) makes no layer:
//! ingress-nginx merges it into the main `Ingress`'s locations and ignores its proxy
//! annotations.
//!
//! Routes are the rules' paths as `internal/ingress/controller/location.go` and
//! `buildLocation` turn them into locations: `Exact` is `= path`; `Prefix` is the path
//! with a `/` added and an exact location for the path itself (a prefix of whole
//! segments); `ImplementationSpecific` a plain nginx prefix. `use-regex: "true"`, or a
//! `rewrite-target` other than a path (`needsRewrite`), makes every location of the host a case-insensitive regular expression
//! anchored at the start (`~* "^path"`, `enforceRegexModifier`), tried longest path first
//! as the controller sorts them. Each host of the rules is one edge layer.

#[cfg(test)]
mod tests;

use super::format::{DocsRow, Fix, FormatSpec, RetryAfter};
use super::k8s::{self, RETRY_AFTER, built_in};
use super::names::Name;
use super::nginx::{CONDITIONS, Notes, Settings, upstream_retries};
use super::values::{bad_value, field, list, mapping, text};
use super::{
    Format, ImportFile, Importer, Layer, PathMatch, Position, RegexEngine, Route, RouteMatch,
};
use crate::error::InputError;
use crate::input::policy::{Duration, PolicyObject, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

/// The annotations' prefix (the controller's `--annotations-prefix` default).
const PREFIX: &str = "nginx.ingress.kubernetes.io/";
/// The legacy class annotation (`ingressclass.IngressKey`).
const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";
/// The class ingress-nginx answers to unless its flags say otherwise.
const CLASS: &str = "nginx";

const NOTES: Notes = Notes {
    next: "built-in default of ingress-nginx (config.go, its ConfigMap not read): \
           proxy-next-upstream error timeout, retry-non-idempotent false",
    read_timeout: "built-in default of ingress-nginx (config.go): proxy-read-timeout 60 seconds",
};
const NOTE_TRIES: &str = "built-in default of ingress-nginx (config.go, its ConfigMap not read): proxy-next-upstream-tries 3";
const NOTE_BALANCER: &str = "ingress-nginx's Lua balancer adds a try after every try (set_more_tries): \
     only proxy-next-upstream-tries bounds them, and 0 leaves them unbounded";

/// Reads ingress-nginx's `Ingress` annotations.
pub struct Annotations;

/// What ingress-nginx's annotations are as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "ingress-nginx",
    position: Position::Edge,
    objects: &[],
    understood: Some(
        "an ingress-nginx `Ingress` (class `nginx`, or `nginx.ingress.kubernetes.io` annotations)",
    ),
    family: "NGINX",
    importer: Some(&Annotations),
    retry_after: RetryAfter::Cannot,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "ingress-nginx `Ingress` (`networking.k8s.io`; class `nginx`, or `nginx.ingress.kubernetes.io/*` annotations)",
        position_note: "",
        read: "rules' hosts and paths (`Exact`, `Prefix`, `ImplementationSpecific`; `use-regex`), `proxy-next-upstream`, `-tries`, `-timeout` (checked), `proxy-read-timeout` (per attempt)",
        defaults: "the controller's `config.go`: `error timeout`, **3 tries whatever the endpoints** (the Lua balancer), 60 s read timeout, `retry-non-idempotent` false: POST, LOCK, PATCH not retried once sent",
    },
    help: &[
        (
            Fix::WriteRetries,
            "remove `non_idempotent` from the `nginx.ingress.kubernetes.io/proxy-next-upstream` annotation (and `retry-non-idempotent` from the ConfigMap), or set it to `off`",
        ),
        (
            Fix::NonTransientStatus,
            "remove the `http_` condition from the `nginx.ingress.kubernetes.io/proxy-next-upstream` annotation",
        ),
        (
            Fix::TooManyAttempts,
            "set `nginx.ingress.kubernetes.io/proxy-next-upstream-tries` (it counts every attempt; 0 is no limit)",
        ),
        (
            Fix::Deadline,
            "ingress-nginx has no deadline that cuts an attempt: lower `nginx.ingress.kubernetes.io/proxy-next-upstream-tries` or `proxy-read-timeout`",
        ),
    ],
};

/// The API groups an `Ingress` is written in (`extensions` for manifests older than
/// Kubernetes 1.19).
const GROUPS: [&str; 2] = ["networking.k8s.io", "extensions"];

impl Importer for Annotations {
    fn recognises(&self, doc: &Node) -> bool {
        GROUPS.iter().any(|g| k8s::is_object(doc, g, &["Ingress"])) && is_ingress_nginx(doc)
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let source = file.file;
        let meta = k8s::metadata(source, doc, loc)?;
        let annotations = k8s::annotations(source, doc, loc)?;
        let read = read_annotations(source, annotations, &meta.loc)?;
        if read.canary {
            return Ok(Vec::new());
        }
        let Some((spec, spec_at)) = k8s::spec(source, doc, loc)? else {
            return Ok(Vec::new());
        };
        let Some((rules, rules_at)) = field(spec, &spec_at, "rules") else {
            return Ok(Vec::new());
        };
        // `enforceRegexModifier`: `use-regex`, or a `rewrite-target` other than a path
        // (`needsRewrite`), makes every location a regex.
        let regex = read.regex
            || read
                .rewrite
                .as_deref()
                .is_some_and(|target| written_paths(rules).iter().any(|p| *p != target));
        // The rules of one host are one nginx `server`, in the order first written.
        let mut hosts: Vec<(String, Vec<Location>)> = Vec::new();
        for (index, rule) in list(source, rules, &rules_at, "rules")?.iter().enumerate() {
            let rule_at = rules_at.item(index, rule);
            mapping(source, rule, &rule_at, "a rule")?;
            let host = match field(rule, &rule_at, "host") {
                Some((h, h_at)) => text(source, h, &h_at, "host")?.to_string(),
                None => String::new(),
            };
            let locations = rule_locations(source, rule, &rule_at, regex)?;
            match hosts.iter_mut().find(|(h, _)| *h == host) {
                Some((_, existing)) => existing.extend(locations),
                None => hosts.push((host, locations)),
            }
        }
        let several = hosts.len() > 1;
        let mut layers = Vec::new();
        for (host, mut locations) in hosts {
            // nginx takes an exact location first, then the longest prefix; regexes are
            // tried in the controller's order, the longest path first.
            locations.sort_by_key(|l| (!l.exact, std::cmp::Reverse(l.length)));
            let routes = locations
                .into_iter()
                .map(|l| route(l, &read.settings, &meta.loc))
                .collect();
            let object = match (several, host.is_empty()) {
                (true, false) => format!("{} {host}", meta.written_name()),
                (true, true) => format!("{} (every host)", meta.written_name()),
                (false, _) => meta.written_name().to_string(),
            };
            layers.push(Layer {
                format: Format::IngressNginx,
                position: Position::Edge,
                name: Name::of("ingress-nginx Ingress", &object),
                loc: meta.loc.clone(),
                hosts: if host.is_empty() {
                    Vec::new()
                } else {
                    vec![host]
                },
                routes,
                budget: None,
            });
        }
        Ok(layers)
    }
}

/// Whether ingress-nginx serves the `Ingress` (see the module's docs).
fn is_ingress_nginx(doc: &Node) -> bool {
    let annotations = doc
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(Node::as_map);
    let ours = annotations.is_some_and(|a| a.entries().iter().any(|e| e.key.starts_with(PREFIX)));
    let class_name = doc
        .get("spec")
        .and_then(|s| s.get("ingressClassName"))
        .and_then(Node::scalar_text);
    if let Some(class) = class_name {
        return class == CLASS || ours;
    }
    let legacy = annotations
        .and_then(|a| a.get(CLASS_ANNOTATION))
        .and_then(Node::scalar_text);
    match legacy {
        Some(class) => class == CLASS,
        None => ours,
    }
}

/// The paths the rules write (`/` for a path left out), as written.
fn written_paths(rules: &Node) -> Vec<&str> {
    let rules = rules.as_seq().unwrap_or_default();
    rules
        .iter()
        .filter_map(|r| r.get("http")?.get("paths")?.as_seq())
        .flatten()
        .map(|p| {
            p.get("path")
                .and_then(Node::scalar_text)
                .filter(|p| !p.is_empty())
                .unwrap_or("/")
        })
        .collect()
}

/// What the annotations of one `Ingress` say.
struct Read {
    settings: Settings,
    /// `use-regex: "true"`: every location is a regex.
    regex: bool,
    /// `rewrite-target`: every location is a regex when it differs from a path.
    rewrite: Option<String>,
    canary: bool,
}

/// Reads the retry annotations into the NGINX directives the template writes.
fn read_annotations(
    file: &SourceFile,
    annotations: Option<(&Node, Loc)>,
    object_at: &Loc,
) -> Result<Read, InputError> {
    let mut settings = Settings {
        tries: Some(built_in(3, object_at, NOTE_TRIES)),
        ..Settings::default()
    };
    let mut read = Read {
        settings: Settings::default(),
        regex: false,
        rewrite: None,
        canary: false,
    };
    let Some((annotations, at)) = annotations else {
        read.settings = settings;
        return Ok(read);
    };
    for entry in mapping(file, annotations, &at, "metadata.annotations")?.entries() {
        let Some(name) = entry.key.strip_prefix(PREFIX) else {
            continue;
        };
        let value_at = at.entry(&entry.key, entry.key_span, &entry.value);
        let value = text(file, &entry.value, &value_at, &entry.key)?;
        match name {
            "proxy-next-upstream" => {
                let words: Vec<String> = value.split_whitespace().map(str::to_string).collect();
                if let Some(bad) = words.iter().find(|w| !CONDITIONS.contains(&w.as_str())) {
                    return Err(bad_value(
                        file,
                        &value_at,
                        format!(
                            "`{}` is not a proxy-next-upstream condition ingress-nginx accepts: {}",
                            super::names::shown(bad),
                            CONDITIONS.join(", ")
                        ),
                    ));
                }
                if words.is_empty() {
                    return Err(bad_value(
                        file,
                        &value_at,
                        "proxy-next-upstream takes nginx's conditions (`error timeout`)",
                    ));
                }
                settings.next = Some(Spanned::new(words, value_at));
            }
            "proxy-next-upstream-tries" => {
                settings.tries = Some(Spanned::new(
                    seconds_or_count(file, value, &value_at, name)?,
                    value_at,
                ));
            }
            "proxy-next-upstream-timeout" => {
                let seconds = seconds_or_count(file, value, &value_at, name)?;
                settings.timeout = Some(Spanned::new(duration(seconds), value_at));
            }
            "proxy-read-timeout" => {
                let seconds = seconds_or_count(file, value, &value_at, name)?;
                settings.read_timeout = Some(Spanned::new(duration(seconds), value_at));
            }
            "use-regex" => read.regex |= value == "true",
            "rewrite-target" if !value.is_empty() => read.rewrite = Some(value.to_string()),
            "canary" => read.canary = value == "true",
            _ => {}
        }
    }
    read.settings = settings;
    Ok(read)
}

/// A whole number annotation (`parser.GetIntAnnotation`: `strconv.Atoi`; nginx refuses a
/// negative one).
fn seconds_or_count(
    file: &SourceFile,
    value: &str,
    at: &Loc,
    name: &str,
) -> Result<u64, InputError> {
    value.trim().parse::<u64>().map_err(|_| {
        bad_value(
            file,
            at,
            format!("ingress-nginx reads {name} as a whole number (seconds for a timeout), such as \"3\""),
        )
    })
}

fn duration(seconds: u64) -> Duration {
    Duration::from_millis(i64::try_from(seconds.saturating_mul(1000)).unwrap_or(i64::MAX))
}

/// One location the controller writes for a path of a rule.
struct Location {
    exact: bool,
    length: usize,
    name: String,
    at: Loc,
    path: PathMatch,
}

/// The locations of one rule's `http.paths`.
fn rule_locations(
    file: &SourceFile,
    rule: &Node,
    at: &Loc,
    regex: bool,
) -> Result<Vec<Location>, InputError> {
    let Some((http, http_at)) = field(rule, at, "http") else {
        return Ok(Vec::new());
    };
    mapping(file, http, &http_at, "http")?;
    let Some((paths, paths_at)) = field(http, &http_at, "paths") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (index, item) in list(file, paths, &paths_at, "paths")?.iter().enumerate() {
        let item_at = paths_at.item(index, item);
        mapping(file, item, &item_at, "a path")?;
        let (path, path_at) = match field(item, &item_at, "path") {
            Some((p, p_at)) => (text(file, p, &p_at, "path")?.to_string(), p_at),
            // The controller's `rootLocation` for a path left out.
            None => ("/".to_string(), item_at.clone()),
        };
        let path = if path.is_empty() {
            "/".to_string()
        } else {
            path
        };
        let kind = match field(item, &item_at, "pathType") {
            Some((t, t_at)) => {
                let kind = text(file, t, &t_at, "pathType")?;
                if !["Exact", "Prefix", "ImplementationSpecific"].contains(&kind) {
                    return Err(bad_value(
                        file,
                        &t_at,
                        "pathType is `Exact`, `Prefix` or `ImplementationSpecific`",
                    ));
                }
                kind.to_string()
            }
            None => "ImplementationSpecific".to_string(),
        };
        let length = path.len();
        let (exact, matcher) = if regex {
            // `~* "^path"`: PCRE, case-insensitive, searched from the start; RE2 matches the
            // whole text, so the rest of the path is let through.
            let pattern = format!("(?is).*(?:^{path}).*");
            let compiled = super::values::route_regex(file, &pattern, &path_at, RegexEngine::Re2)?;
            (false, PathMatch::Regex(compiled))
        } else {
            match kind.as_str() {
                "Exact" => (true, PathMatch::Exact(path.clone())),
                // `/a` becomes `location /a/` and `location = /a`: whole segments.
                "Prefix" if path != "/" && !path.ends_with('/') => {
                    (false, PathMatch::SegmentPrefix(path.clone()))
                }
                _ => (false, PathMatch::Prefix(path.clone())),
            }
        };
        out.push(Location {
            exact,
            length,
            name: format!("{kind} {path}"),
            at: item_at,
            path: matcher,
        });
    }
    Ok(out)
}

/// One location as a route, retrying as nginx does with the annotations' directives.
fn route(location: Location, settings: &Settings, object_at: &Loc) -> Route {
    let mut route = Route {
        loc: location.at.clone(),
        name: Name::new(&location.name),
        matches: vec![RouteMatch {
            path: location.path,
            method: None,
            condition: None,
            loc: location.at.clone(),
        }],
        policy: PolicyObject::default(),
        implicit: false,
        budget_only: false,
        retried_methods: None,
        unsupported: vec![RETRY_AFTER, "a retry budget"],
    };
    let servers = (u64::MAX, object_at.noted(NOTE_BALANCER));
    upstream_retries(&mut route, settings, servers, object_at, &NOTES);
    route
}
