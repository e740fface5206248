//! `--source-links URL`: each place of a Markdown comment as a link to its file and line
//! at a commit (`URL/<path>#L<line>`), such as
//! `https://github.com/OWNER/REPO/blob/SHA/api/openapi.yaml#L12`.
//!
//! The prefix is the user's and must be a plain http(s) URL; the path is the file as the
//! comment shows it, percent-encoded, so whatever a file name holds it stays inside the
//! link's target. Only a relative path with no `..` is linked (an absolute path, or one
//! that leaves the current folder, names no file of the repository); the link's text is
//! the same code span the place has without the option.

use crate::escape::{markdown_code, uri_path};

/// The URL prefix places are linked under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLinks {
    prefix: String,
}

/// Characters a prefix may hold besides ASCII letters and digits: RFC 3986's unreserved
/// ones, the path's delimiters and percent escapes; never `(`, `)`, `<`, `>`, a space, a
/// quote or a backtick, which could end the Markdown link, nor `?` or `#`, after which
/// a path would not be a path.
const PREFIX_PUNCTUATION: &str = "-._~:/@!$&'*+,;=%";

impl SourceLinks {
    /// Reads `--source-links`: an `http://` or `https://` URL with a host.
    pub fn parse(url: &str) -> Result<SourceLinks, String> {
        let usage = "give the prefix of a file's URL at the head commit, such as https://github.com/OWNER/REPO/blob/SHA";
        let lower = url.to_ascii_lowercase();
        let Some(rest) = ["https://", "http://"]
            .iter()
            .find_map(|scheme| lower.strip_prefix(scheme))
        else {
            return Err(format!("not an http(s) URL; {usage}"));
        };
        if rest.is_empty() || rest.starts_with('/') {
            return Err(format!("the URL names no host; {usage}"));
        }
        if let Some(bad) = url
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || PREFIX_PUNCTUATION.contains(c)))
        {
            return Err(format!(
                "the URL holds {}, which a link prefix may not; percent-encode it",
                crate::escape::terminal(&format!("{bad:?}"))
            ));
        }
        let bytes = url.as_bytes();
        let escapes_ok = bytes.iter().enumerate().all(|(i, &b)| {
            b != b'%'
                || (bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
        });
        if !escapes_ok {
            return Err("the URL holds a `%` that starts no percent escape".to_string());
        }
        Ok(SourceLinks {
            prefix: url.trim_end_matches('/').to_string(),
        })
    }

    /// The link to `file` at `line`, when the file can be named under the prefix.
    pub fn url(&self, file: &str, line: u32) -> Option<String> {
        let mut parts = Vec::new();
        for part in file.split('/') {
            match part {
                "." => {}
                "" | ".." => return None,
                part => parts.push(part),
            }
        }
        let first = parts.first()?;
        // `C:` starts an absolute Windows path.
        if first.len() == 2 && first.ends_with(':') {
            return None;
        }
        Some(format!(
            "{}/{}#L{line}",
            self.prefix,
            uri_path(&parts.join("/"))
        ))
    }
}

/// A place in a comment: `shown` (`file:line:column`) as a code span, linked to `file`
/// at `line` when `links` is given and can name it.
pub fn place(links: Option<&SourceLinks>, shown: &str, file: &str, line: u32) -> String {
    let span = markdown_code(shown);
    match links.and_then(|links| links.url(file, line)) {
        Some(url) => format!("[{span}]({url})"),
        None => span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_http_url_is_a_prefix() {
        let ok = SourceLinks::parse("https://github.com/o/r/blob/abc/").unwrap();
        assert_eq!(ok.prefix, "https://github.com/o/r/blob/abc");
        assert!(SourceLinks::parse("HTTP://example.com/x%20y").is_ok());
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "https://",
            "https:///x",
            "https://e.example/a b",
            "https://e.example/a)(javascript:x",
            "https://e.example/a?x=1",
            "https://e.example/a#x",
            "https://e.example/a%zz",
            "https://e.example/\u{202e}",
            "github.com/o/r",
        ] {
            assert!(SourceLinks::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_path_stays_inside_the_target() {
        let links = SourceLinks::parse("https://e.example/b").unwrap();
        assert_eq!(
            links.url("./api/open api.yaml", 7).as_deref(),
            Some("https://e.example/b/api/open%20api.yaml#L7")
        );
        assert_eq!(
            links.url("x](javascript:alert(1))`<!--.yaml", 1).as_deref(),
            Some("https://e.example/b/x%5D%28javascript%3Aalert%281%29%29%60%3C%21--.yaml#L1")
        );
        assert_eq!(links.url("/etc/x.yaml", 1), None);
        assert_eq!(links.url("../x.yaml", 1), None);
        assert_eq!(links.url("C:/x.yaml", 1), None);
        assert_eq!(
            place(Some(&links), "a.yaml:3:1", "a.yaml", 3),
            "[`a.yaml:3:1`](https://e.example/b/a.yaml#L3)"
        );
        assert_eq!(place(None, "a.yaml:3:1", "a.yaml", 3), "`a.yaml:3:1`");
    }
}
