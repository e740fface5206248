//! JSON Pointers (RFC 6901) as they appear in `$ref` fragments and in our output.

/// Splits a pointer such as `/paths/~1orders/get` into decoded tokens.
///
/// A `$ref` fragment is also a URI fragment, so percent-escapes are decoded first
/// (`%7B` → `{`), then `~1` → `/` and `~0` → `~`. Returns `None` for a pointer that does
/// not start with `/` (other than the empty pointer) or that has a bad escape.
pub fn decode(pointer: &str) -> Option<Vec<String>> {
    let pointer = percent_decode(pointer)?;
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').map(unescape_token).collect()
}

fn unescape_token(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Decodes `%XX` escapes; `None` when an escape is malformed or the result is not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_string());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Appends `/token` to a pointer, the token escaped (`~` → `~0`, `/` → `~1`).
pub fn push(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 4);
    push_into(&mut out, pointer, token);
    out
}

/// [`push`], shared: made in a buffer the thread keeps, then copied once into its `Arc`
/// (a location is made for every entry the model reads).
pub fn push_shared(pointer: &str, token: &str) -> std::sync::Arc<str> {
    thread_local! {
        static BUFFER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        push_into(buffer, pointer, token);
        let shared = std::sync::Arc::from(buffer.as_str());
        // Not kept large for the thread's life by one huge key.
        if buffer.capacity() > 1 << 16 {
            *buffer = String::new();
        }
        shared
    })
}

/// Writes `pointer` with `token` escaped after it into `out`.
fn push_into(out: &mut String, pointer: &str, token: &str) {
    out.push_str(pointer);
    out.push('/');
    // Escaped as it is copied: a path such as `/repos/{owner}/{repo}` is a key of every
    // path item's pointer.
    let mut rest = token;
    while let Some(at) = rest.bytes().position(|b| b == b'~' || b == b'/') {
        out.push_str(&rest[..at]);
        out.push_str(if rest.as_bytes()[at] == b'~' {
            "~0"
        } else {
            "~1"
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_in_order() {
        assert_eq!(
            decode("/paths/~1orders~1%7BorderId%7D/get").unwrap(),
            ["paths", "/orders/{orderId}", "get"]
        );
        assert_eq!(decode("/a~01").unwrap(), ["a~1"]);
        assert_eq!(decode("").unwrap(), Vec::<String>::new());
        assert!(decode("a/b").is_none());
        assert!(decode("/a~2").is_none());
        assert!(decode("/%zz").is_none());
    }

    #[test]
    fn push_escapes() {
        assert_eq!(push("/paths", "/a/{b}"), "/paths/~1a~1{b}");
        assert_eq!(push("", "x~y"), "/x~0y");
        // The same as escaping the token alone, whatever it holds.
        for token in ["", "~", "/", "~1", "/~", "a~/b//c~~", "é/~ü", "plain"] {
            assert_eq!(
                push("/p", token),
                format!("/p/{}", token.replace('~', "~0").replace('/', "~1")),
                "{token}"
            );
            assert_eq!(decode(&push("", token)).unwrap(), [token]);
            assert_eq!(*push_shared("/p", token), push("/p", token));
        }
        // After a key larger than the buffer keeps, the next pointer is whole and alone.
        let huge = "k/".repeat(1 << 16);
        assert_eq!(push_shared("", &huge).len(), 1 + 3 * (1 << 16));
        assert_eq!(&*push_shared("/a", "b"), "/a/b");
    }
}
