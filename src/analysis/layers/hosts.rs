//! Which layer hosts name the service, looked up rather than compared pairwise.
//!
//! A layer serves the service when one of its hosts names one of the service's
//! ([`host_matches`]). Layer files and the policy can each list thousands of hosts, so
//! trying every pair is quadratic. [`HostIndex`] holds the service's names so that one
//! layer host is answered in time proportional to its length (times a logarithm):
//!
//! - the same name: a hash set;
//! - a wildcard `*.example.com`: a name ending in `.example.com`, found by binary search
//!   among the names written backwards;
//! - a short Kubernetes name and a fully qualified one (`payments` and
//!   `payments.prod.svc.cluster.local`): a name that starts the host and is followed by a
//!   dot, found by narrowing the sorted names one byte of the host at a time; or a
//!   fully qualified name that the host and a dot start, found by binary search.
//!
//! [`host_matches`]: super::bind::host_matches

use foldhash::HashSet;

/// The in-cluster endings that let a short name match its longer forms.
const CLUSTER_SUFFIXES: [&str; 2] = [".svc.cluster.local", ".svc"];

/// The service's host names, indexed for [`HostIndex::named_by`].
#[derive(Debug, Clone, Default)]
pub struct HostIndex {
    exact: HashSet<String>,
    /// Every name, sorted.
    sorted: Vec<String>,
    /// Every name written backwards (byte by byte), sorted.
    reversed: Vec<Vec<u8>>,
    /// The names that end in an in-cluster suffix, sorted.
    in_cluster: Vec<String>,
}

impl HostIndex {
    /// The index of `names` (lower case, as [`super::bind::Service`] keeps them).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a String>) -> HostIndex {
        let mut index = HostIndex::default();
        for name in names {
            if index.exact.insert(name.clone()) {
                index.sorted.push(name.clone());
                index.reversed.push(name.bytes().rev().collect());
                if is_in_cluster(name) {
                    index.in_cluster.push(name.clone());
                }
            }
        }
        index.sorted.sort_unstable();
        index.reversed.sort_unstable();
        index.in_cluster.sort_unstable();
        index
    }

    /// Whether the layer host `host` names one of the service's names: the same answer as
    /// [`super::bind::host_matches`] for some name, without trying each.
    pub fn named_by(&self, host: &str) -> bool {
        if self.exact.is_empty() {
            return false;
        }
        let host = host.trim().to_ascii_lowercase();
        let host = host.split(':').next().unwrap_or_default();
        if host == "*" || self.exact.contains(host) {
            return true;
        }
        if let Some(suffix) = host.strip_prefix('*') {
            let backwards: Vec<u8> = suffix.bytes().rev().collect();
            return suffix.starts_with('.') && starts_some(&self.reversed, &backwards);
        }
        // The host is a longer form of a name: the name and a dot start it.
        if is_in_cluster(host) && some_name_then_dot_starts(&self.sorted, host) {
            return true;
        }
        // A name is a longer form of the host.
        starts_some(&self.in_cluster, format!("{host}.").as_bytes())
    }
}

fn is_in_cluster(name: &str) -> bool {
    CLUSTER_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Whether some entry of `sorted` starts with `prefix`: those follow it in sorted order.
fn starts_some<T: AsRef<[u8]>>(sorted: &[T], prefix: &[u8]) -> bool {
    let at = sorted.partition_point(|entry| entry.as_ref() < prefix);
    sorted
        .get(at)
        .is_some_and(|entry| entry.as_ref().starts_with(prefix))
}

/// Whether some entry of `sorted` followed by a dot starts `text`. The entries that
/// start like `text` are a range of `sorted`, narrowed one byte of `text` at a time; the
/// entry that is exactly the bytes read so far comes first in the range.
fn some_name_then_dot_starts(sorted: &[String], text: &str) -> bool {
    let (mut low, mut high) = (0, sorted.len());
    for (at, byte) in text.bytes().enumerate() {
        let range = &sorted[low..high];
        if byte == b'.' && range.first().is_some_and(|name| name.len() == at) {
            return true;
        }
        let byte_at = |name: &String| name.as_bytes().get(at).copied();
        let start = range.partition_point(|name| byte_at(name).is_none_or(|b| b < byte));
        let end = range.partition_point(|name| byte_at(name).is_none_or(|b| b <= byte));
        (low, high) = (low + start, low + end);
        if low == high {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::layers::bind::host_matches;

    const NAMES: &[&str] = &[
        "payments",
        "payments.prod",
        "payments.prod.svc.cluster.local",
        "api.example.com",
        "example.com",
        "a.b.svc",
        "orders.svc",
        "x",
        "pay",
    ];

    const HOSTS: &[&str] = &[
        "payments",
        "PAYMENTS.prod.svc.cluster.local:8080",
        "payments.prod.svc",
        "payments.prod.svc.cluster.local",
        "payments.other.svc.cluster.local",
        "pay.prod.svc.cluster.local",
        "paym.svc",
        "payments.example.com",
        "*.example.com",
        "*example.com",
        "*.com",
        "*.svc",
        "*",
        " api.example.com ",
        "a",
        "a.b",
        "a.b.svc",
        "orders",
        "orders.x.svc",
        "x.svc",
        "x.y.svc.cluster.local",
        "",
        "*.",
        ".svc",
    ];

    #[test]
    fn the_index_answers_as_host_matches_does() {
        // Every subset of names the bits of `mask` pick, against every host.
        for mask in 0u32..(1 << NAMES.len()) {
            let names: Vec<String> = NAMES
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, n)| n.to_string())
                .collect();
            let index = HostIndex::new(&names);
            for host in HOSTS {
                let expected = names.iter().any(|n| host_matches(host, n));
                assert_eq!(index.named_by(host), expected, "{host:?} against {names:?}");
            }
        }
    }
}
