//! What a retry format is, declared once beside its importer: a [`FormatSpec`] says how
//! the format is named, where its layers sit, which Kubernetes kinds it reads, which
//! importer recognises and reads its files, what it can say about `Retry-After` and
//! budgets, its row in the documentation's table of formats, and the fix for each
//! client-policy rule in its own terms.
//!
//! [`formats!`] turns the registry (one line per format, in `super`) into the [`Format`]
//! enum and [`Format::spec`]; adding a format is one importer file with its spec plus one
//! line there.

use std::fmt;

use super::{Importer, Position};

/// Everything retrylint knows about one format.
pub struct FormatSpec {
    /// How the format is named in messages (`Istio VirtualService`).
    pub label: &'static str,
    /// The position its layers take unless a file says otherwise.
    pub position: Position,
    /// The Kubernetes objects whose kind alone makes a document the format's: the
    /// importers of Kubernetes formats recognise documents by it ([`FormatSpec::reads_object`]).
    /// Empty for a format recognised by shape or annotations, or not read from `-p` files.
    pub objects: &'static [ObjectKinds],
    /// How the error about a file `-p` cannot read names the format (`None` for a format
    /// `-p` does not read); see [`KindsUnderstood`].
    pub understood: Option<&'static str>,
    /// Who names the format (`Istio`, `Linkerd`): consecutive formats of one family are
    /// listed as one in [`KindsUnderstood`].
    pub family: &'static str,
    /// What recognises and reads the format in `-p` files; `None` for the policy and the
    /// description's `x-speakeasy-retries`, read elsewhere.
    pub importer: Option<&'static dyn Importer>,
    pub retry_after: RetryAfter,
    /// Whether the format can limit retries with a budget.
    pub budget: bool,
    /// The key under which a route takes `{attempts: 0}` to retry nothing (Istio's
    /// `retries`, Gateway API's `retry`): what `check --fix --unsafe-fixes` writes on a
    /// route that retries an unprotected write. `None` where there is no such key.
    pub retries_off: Option<&'static str>,
    /// The format's row in the documentation's table of formats.
    pub docs: DocsRow,
    /// How to make each [`Fix`] in the format's own terms, where it differs from the
    /// policy's.
    pub help: &'static [(Fix, &'static str)],
}

impl FormatSpec {
    /// Whether the document is a Kubernetes object of a kind the format reads (by its
    /// API group, whatever the version, and its kind).
    pub fn reads_object(&self, doc: &crate::input::source::Node) -> bool {
        self.objects
            .iter()
            .any(|o| super::k8s::is_object(doc, o.group, o.kinds))
    }
}

/// Kinds of one API group (`networking.istio.io`) a format reads, whatever the version.
pub struct ObjectKinds {
    pub group: &'static str,
    pub kinds: &'static [&'static str],
}

/// A change to a layer's retry settings that a client-policy rule's finding asks for: the
/// rules name the fix their findings need (`rules::layer_fix`), and each format says how it
/// is made in its own terms, so that neither side names the other's items by string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fix {
    /// Bound the whole call and its retries in time (`missing-deadline`).
    Deadline,
    /// Stop retrying non-idempotent writes where they may have been processed
    /// (`unprotected-write-retry`).
    WriteRetries,
    /// Stop retrying a status that retrying cannot fix (`retry-on-non-transient`).
    NonTransientStatus,
    /// Make fewer attempts (`unbounded-attempts`).
    TooManyAttempts,
    /// Fit the attempts into the deadline (`attempts-exceed-deadline`).
    AttemptsPastDeadline,
    /// Wait between attempts (`immediate-retry`).
    NoWait,
    /// Make the backoff's values agree (`invalid-backoff`).
    Backoff,
    /// Honour `Retry-After` (`retry-after-ignored`).
    RetryAfterIgnored,
    /// Bound the wait `Retry-After` asks for (`retry-after-unbounded`).
    RetryAfterUnbounded,
}

impl Fix {
    /// Every fix.
    pub const ALL: [Fix; 9] = [
        Fix::Deadline,
        Fix::WriteRetries,
        Fix::NonTransientStatus,
        Fix::TooManyAttempts,
        Fix::AttemptsPastDeadline,
        Fix::NoWait,
        Fix::Backoff,
        Fix::RetryAfterIgnored,
        Fix::RetryAfterUnbounded,
    ];
}

/// What a format can do about `Retry-After`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfter {
    /// It honours it with a setting (the policy, Envoy), or always (the SDKs Speakeasy
    /// generates, each language in its own way).
    Can,
    /// It has no way at all to honour it (Istio, Gateway API and Linkerd expose none).
    Cannot,
}

/// A format's row in the documentation's table of formats; the position column is the
/// spec's position, then `position_note`.
pub struct DocsRow {
    pub format: &'static str,
    /// Said after the position (` (mesh when its parent is a `Service`)`), or empty.
    pub position_note: &'static str,
    pub read: &'static str,
    pub defaults: &'static str,
}

/// Generates, from one line per format (`Variant => spec`, in the order importers are
/// tried on a document), the [`Format`] enum, `Format::ALL` and `Format::spec`.
macro_rules! formats {
    ($($format:ident => $spec:expr,)+) => {
        /// The formats retries are read from.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Format {
            $($format,)+
        }

        impl Format {
            /// Every format, in the order importers are tried on a document.
            pub const ALL: &'static [Format] = &[$(Format::$format,)+];

            /// What the format's importer declares about it.
            pub fn spec(self) -> &'static $crate::analysis::layers::format::FormatSpec {
                match self {
                    $(Format::$format => &$spec,)+
                }
            }
        }
    };
}
pub(super) use formats;

impl super::Format {
    /// How the format is named in messages.
    pub fn name(self) -> &'static str {
        self.spec().label
    }

    /// The position a layer of this format takes unless its file says otherwise.
    pub fn default_position(self) -> Position {
        self.spec().position
    }

    /// Whether the format can honour `Retry-After`: with a setting (the policy, Envoy), or
    /// always (the SDKs Speakeasy generates, each language in its own way).
    pub fn can_honor_retry_after(self) -> bool {
        self.spec().retry_after == RetryAfter::Can
    }

    /// Whether the format has no way at all to honour `Retry-After` (Istio, Gateway API
    /// and Linkerd expose none).
    pub fn cannot_honor_retry_after(self) -> bool {
        self.spec().retry_after == RetryAfter::Cannot
    }

    /// Whether the format can limit retries with a budget.
    pub fn can_budget(self) -> bool {
        self.spec().budget
    }

    /// How to make `fix` in a layer of this format, when it differs from the policy's.
    pub fn help(self, fix: Fix) -> Option<&'static str> {
        self.spec()
            .help
            .iter()
            .find(|(listed, _)| *listed == fix)
            .map(|(_, help)| *help)
    }

    /// The importers of `-p` files, in the order they are tried on a document.
    pub fn importers() -> impl Iterator<Item = &'static dyn Importer> {
        super::Format::ALL.iter().filter_map(|f| f.spec().importer)
    }
}

/// The kinds of file `-p` reads, for the error about any other: each format's phrase,
/// one family's joined by `or`, the families by commas and a last `or`.
#[derive(Debug, Clone, Copy)]
pub struct KindsUnderstood;

impl fmt::Display for KindsUnderstood {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut families: Vec<(&str, Vec<&str>)> = Vec::new();
        for spec in super::Format::ALL.iter().map(|f| f.spec()) {
            let Some(phrase) = spec.understood else {
                continue;
            };
            match families.last_mut() {
                Some((family, phrases)) if *family == spec.family => phrases.push(phrase),
                _ => families.push((spec.family, vec![phrase])),
            }
        }
        let items: Vec<String> = families.iter().map(|(_, p)| p.join(" or ")).collect();
        match items.split_last() {
            None => Ok(()),
            Some((last, [])) => f.write_str(last),
            Some((last, rest)) => write!(f, "{}, or {last}", rest.join(", ")),
        }
    }
}

/// The documentation's table of formats: a header, then one row per format by position,
/// client first (formats at one position in registry order).
pub fn formats_table() -> String {
    let mut out = String::from(
        "| format | position | read | defaults retrylint fills in (noted in every finding) |\n\
         |---|---|---|---|\n",
    );
    let mut formats = super::Format::ALL.to_vec();
    formats.sort_by_key(|f| f.spec().position);
    for spec in formats.iter().map(|f| f.spec()) {
        let row = &spec.docs;
        out.push_str(&format!(
            "| {} | {}{} | {} | {} |\n",
            row.format, spec.position, row.position_note, row.read, row.defaults
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Format;
    use super::*;

    #[test]
    fn each_format_gives_each_fix_one_help_at_most() {
        for format in Format::ALL {
            let help = format.spec().help;
            for (i, (fix, _)) in help.iter().enumerate() {
                assert!(
                    help[..i].iter().all(|(other, _)| other != fix),
                    "{format:?} lists {fix:?} twice"
                );
            }
        }
    }

    #[test]
    fn a_format_recognised_by_kind_is_recognised_by_its_importer() {
        for format in Format::ALL {
            let spec = format.spec();
            for objects in spec.objects {
                let Some(importer) = spec.importer else {
                    panic!("{format:?} lists kinds but has no importer");
                };
                for kind in objects.kinds {
                    let text = format!("apiVersion: {}/v1\nkind: {kind}\n", objects.group);
                    let parsed = crate::input::source::parse(
                        &text,
                        crate::input::source::ParseLimits::default(),
                    );
                    let Ok((doc, _)) = parsed else {
                        panic!("{kind}: the test document does not parse");
                    };
                    assert!(importer.recognises(&doc), "{format:?}: {kind}");
                }
            }
        }
    }

    #[test]
    fn the_error_about_other_files_names_every_format_read_with_p() {
        assert_eq!(
            KindsUnderstood.to_string(),
            "a retrylint policy (`version: 1`), Istio `VirtualService` or `DestinationRule`, \
             Gateway API `HTTPRoute` or `GRPCRoute`, Linkerd `ServiceProfile` or \
             `retry.linkerd.io` annotations on a `Service` or `HTTPRoute`, Envoy route \
             configuration (a bootstrap with `route_config`, or a `RouteConfiguration`), \
             Envoy Gateway `BackendTrafficPolicy`, Traefik dynamic configuration \
             (`http.routers` and `http.middlewares`) or Traefik `IngressRoute` (`traefik.io`, \
             `traefik.containo.us`) with its `Middleware`s or a Compose file with Traefik labels \
             (`traefik.http.routers.*`, `traefik.http.middlewares.*`), Kong declarative configuration \
             (`_format_version` and `services`) or `konghq.com/retries` or \
             `konghq.com/*-timeout` annotations on a `Service` (Kong Ingress Controller), an \
             NGINX configuration (a `*.conf` with `server` or `location` blocks) or an \
             ingress-nginx `Ingress` (class `nginx`, or `nginx.ingress.kubernetes.io` \
             annotations), an HAProxy configuration (a `*.cfg` with `frontend`, `backend`, \
             `listen` or `defaults` sections), or a gRPC service config (`methodConfig` or \
             `retryThrottling`)"
        );
    }
}
