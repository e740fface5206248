//! Text in the tree: keys, strings and numbers as written.
//!
//! Short text (most keys and scalars: `description`, `$ref`, `200`) lives inline without
//! an allocation of its own; long text is reference-counted, so a YAML alias of a long
//! string, a merged key or a cloned extension node shares the bytes instead of copying them.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use compact_str::CompactString;

/// Text of a key or scalar; cheap to clone whatever its length.
#[derive(Clone, Default)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Inline(CompactString),
    Shared(Arc<str>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Inline(CompactString::default())
    }
}

impl Text {
    /// Longest text kept inline; longer text is shared.
    const INLINE: usize = 24;

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline(s) => s,
            Repr::Shared(s) => s,
        }
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        if s.len() <= Text::INLINE {
            Text(Repr::Inline(CompactString::from(s)))
        } else {
            Text(Repr::Shared(Arc::from(s)))
        }
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        if s.len() <= Text::INLINE {
            Text(Repr::Inline(CompactString::from(s)))
        } else {
            Text(Repr::Shared(Arc::from(s)))
        }
    }
}

impl From<Cow<'_, str>> for Text {
    fn from(s: Cow<'_, str>) -> Text {
        match s {
            Cow::Borrowed(b) => Text::from(b),
            Cow::Owned(o) => Text::from(o),
        }
    }
}

impl From<&Text> for Text {
    fn from(s: &Text) -> Text {
        s.clone()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_shared_and_short_text_inline() {
        let long = Text::from("x".repeat(1000));
        let copy = long.clone();
        assert_eq!(long.as_ptr(), copy.as_ptr());
        assert_eq!(&*Text::from("short"), "short");
        assert_eq!(Text::from("a"), Text::from(String::from("a")));
        let (a, b) = (Text::from("a"), Text::from("b"));
        assert_eq!(a.cmp(&b), std::cmp::Ordering::Less);
    }
}
