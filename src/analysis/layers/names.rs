//! Names from layer files as messages show them: bounded, whatever the file writes.
//!
//! An object's `metadata.name`, a route's `name` and a layer's hosts come from files
//! anyone can change, and every finding about a layer repeats them. A [`Name`] keeps at
//! most [`SHOWN_CHARS`] characters of what the file writes (then `…`); the finding's
//! location still points at the whole text. So a finding's message is bounded in every
//! format, and a long name repeated across findings costs its excerpt each time, not its
//! length.

use std::borrow::Cow;
use std::fmt;

/// The most characters of a name a message shows.
pub const SHOWN_CHARS: usize = 64;

/// The most hosts a message lists.
const SHOWN_HOSTS: usize = 3;

/// What stands for the characters left out.
const ELLIPSIS: char = '…';

/// `text`, or its first [`SHOWN_CHARS`] characters and `…` when it is longer.
pub fn shown(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(SHOWN_CHARS) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => {
            let mut out = String::with_capacity(cut + ELLIPSIS.len_utf8());
            out.push_str(&text[..cut]);
            out.push(ELLIPSIS);
            Cow::Owned(out)
        }
    }
}

/// A list of hosts for a message: the first few, each [`shown`], then how many more.
pub fn shown_hosts(hosts: &[String]) -> String {
    let mut out: Vec<Cow<'_, str>> = hosts.iter().take(SHOWN_HOSTS).map(|h| shown(h)).collect();
    if hosts.len() > SHOWN_HOSTS {
        out.push(Cow::Owned(format!(
            "and {} more",
            hosts.len() - SHOWN_HOSTS
        )));
    }
    out.join(", ")
}

/// The name of a layer or a route: what messages show, and the whole name when that is
/// cut (the policy's `layers:` entries match a layer by its whole name).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Name {
    shown: String,
    whole: Option<String>,
}

impl Name {
    /// A name as the file writes it.
    pub fn new(text: &str) -> Name {
        Name::of("", text)
    }

    /// The name of an object of a kind: `Istio VirtualService payments`, with only the
    /// object's own name cut.
    pub fn of(kind: &str, object: &str) -> Name {
        let joined = |object: &str| {
            if kind.is_empty() {
                object.to_string()
            } else {
                format!("{kind} {object}")
            }
        };
        match shown(object) {
            Cow::Borrowed(_) => Name {
                shown: joined(object),
                whole: None,
            },
            Cow::Owned(cut) => Name {
                shown: joined(&cut),
                whole: Some(joined(object)),
            },
        }
    }

    /// The name as messages show it.
    pub fn as_str(&self) -> &str {
        &self.shown
    }

    /// The whole name, as the file writes it.
    pub fn whole(&self) -> &str {
        self.whole.as_deref().unwrap_or(&self.shown)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.shown == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.shown == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_and_kept_whole() {
        assert_eq!(shown("payments"), "payments");
        let long = "é".repeat(SHOWN_CHARS + 1);
        let cut = shown(&long);
        assert_eq!(cut.chars().count(), SHOWN_CHARS + 1);
        assert!(cut.ends_with('…'));
        let name = Name::of("Istio VirtualService", &long);
        assert!(name.as_str().starts_with("Istio VirtualService éé"));
        assert_eq!(name.whole(), format!("Istio VirtualService {long}"));
        let short = Name::of("Istio VirtualService", "payments");
        assert_eq!(short, "Istio VirtualService payments");
        assert_eq!(short.whole(), "Istio VirtualService payments");
        assert_eq!(Name::new("reads").to_string(), "reads");
    }

    #[test]
    fn long_host_lists_are_cut() {
        let hosts: Vec<String> = (0..5).map(|i| format!("h{i}")).collect();
        assert_eq!(shown_hosts(&hosts[..2]), "h0, h1");
        assert_eq!(shown_hosts(&hosts), "h0, h1, h2, and 2 more");
    }
}
