//! Where a layer sits on a request's way: a policy file's `layers` entries name it, and
//! every imported layer has one.

use std::fmt;

/// Where a layer sits on a request's way, client first.
///
/// Each position retries on its own, so attempts multiply across positions. Layers at the
/// same position are alternatives (the generated SDK or a hand-written client): the worst
/// of them counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Position {
    /// The caller: retrylint's policy, or the generated SDK.
    Client,
    /// An edge proxy in front of everything (Envoy).
    Edge,
    /// An API gateway (Gateway API `HTTPRoute` on a `Gateway`, Istio ingress).
    Gateway,
    /// The service mesh's sidecar in front of the backend (Istio, Linkerd).
    Mesh,
}

impl Position {
    pub const ALL: [Position; 4] = [
        Position::Client,
        Position::Edge,
        Position::Gateway,
        Position::Mesh,
    ];

    /// The names a file writes, in the order of [`Position::ALL`].
    pub const NAMES: [&'static str; 4] = ["client", "edge", "gateway", "mesh"];

    pub fn as_str(self) -> &'static str {
        match self {
            Position::Client => "client",
            Position::Edge => "edge",
            Position::Gateway => "gateway",
            Position::Mesh => "mesh",
        }
    }

    pub fn parse(text: &str) -> Option<Position> {
        Position::ALL.into_iter().find(|p| p.as_str() == text)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A position written by its name (`mesh`).
impl crate::input::read::FromNode for Position {
    fn from_node(value: &crate::input::read::Value<'_, '_>) -> Option<Position> {
        value
            .one_of(&Position::NAMES)
            .and_then(|i| Position::ALL.get(i).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_position_is_written_by_its_name() {
        for (position, name) in Position::ALL.iter().zip(Position::NAMES) {
            assert_eq!(position.as_str(), name);
            assert_eq!(Position::parse(name), Some(*position));
        }
    }
}
