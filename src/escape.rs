//! Escaping for every place retrylint prints to: one function per destination.
//!
//! Text from a description or a file name is data. Whatever it holds, it must not become a
//! terminal control sequence, a GitHub Actions workflow command, YAML structure, Markdown
//! or HTML markup, or a second shell argument. Each printer calls the function for its
//! destination at the point where it writes such text.

use std::borrow::Cow;
use std::fmt::{self, Write};

/// Whether a character may not reach a terminal as it is: C0 and C1 controls and DEL
/// (tab aside), line and paragraph separators, and the invisible bidirectional controls
/// that reorder what a reader sees.
pub(crate) fn is_unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// Whether every byte of `text` is printable ASCII or a tab: then no character of it is
/// unsafe (a check over bytes, much quicker than one over characters).
fn is_printable_ascii(text: &str) -> bool {
    text.bytes()
        .all(|b| (b' '..=b'~').contains(&b) || b == b'\t')
}

/// Writes the visible form of an unsafe character: `\n`, `\r`, `\e` or `\u{…}`.
fn push_visible(out: &mut String, c: char) {
    let _ = write_visible(out, c);
}

/// [`push_visible`] for any writer.
fn write_visible(out: &mut impl Write, c: char) -> fmt::Result {
    match c {
        '\n' => out.write_str("\\n"),
        '\r' => out.write_str("\\r"),
        '\u{1b}' => out.write_str("\\e"),
        c => write!(out, "\\u{{{:x}}}", c as u32),
    }
}

/// Text for one line of a terminal: every unsafe character (a line break included) is
/// shown escaped, so a value can neither move the cursor, change colours, ring the bell,
/// nor start a new line.
pub(crate) fn terminal(text: &str) -> Cow<'_, str> {
    if is_printable_ascii(text) || !text.chars().any(is_unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe_char(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`terminal`] for a text of several lines: `\n` and a `\r` just before it stay
/// (they are the text's own line breaks); everything else unsafe is escaped.
pub(crate) fn terminal_lines(text: &str) -> Cow<'_, str> {
    let unsafe_at = |i: usize, c: char| {
        is_unsafe_char(c) && c != '\n' && !(c == '\r' && text[i + 1..].starts_with('\n'))
    };
    if !text.char_indices().any(|(i, c)| unsafe_at(i, c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        if unsafe_at(i, c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The data of a GitHub Actions workflow command (after the second `::`): `%`, CR and LF
/// encoded as GitHub decodes them, any other control character shown escaped (the log
/// viewer reads ANSI sequences).
pub(crate) fn github_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if is_unsafe_char(c) => push_visible(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// A property value of a GitHub Actions workflow command (`file=`, `title=`).
pub(crate) fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// HTML-escapes a string for text and double- or single-quoted attributes; a NUL,
/// which HTML refuses, becomes U+FFFD, and line breaks become character references, so
/// that text from a description never starts a line of the page's source. Any other
/// unsafe character (ESC, BEL, a C1 control, a bidirectional control) is shown escaped as
/// on a terminal: the page's source is as safe to print as the page is to view.
pub(crate) struct Html<'a>(pub &'a str);

impl fmt::Display for Html<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut last = 0;
        for (i, c) in self.0.char_indices() {
            let replacement = match c {
                '&' => Some("&amp;"),
                '<' => Some("&lt;"),
                '>' => Some("&gt;"),
                '"' => Some("&quot;"),
                '\'' => Some("&#39;"),
                '\0' => Some("\u{fffd}"),
                '\n' => Some("&#10;"),
                '\r' => Some("&#13;"),
                c if is_unsafe_char(c) => None,
                _ => continue,
            };
            f.write_str(&self.0[last..i])?;
            match replacement {
                Some(text) => f.write_str(text)?,
                None => write_visible(f, c)?,
            }
            last = i + c.len_utf8();
        }
        f.write_str(&self.0[last..])
    }
}

/// Text escaped for HTML content and attribute values.
pub(crate) fn html(text: &str) -> Html<'_> {
    Html(text)
}

/// Text for XML 1.0 content and attribute values (JUnit): unsafe characters are shown
/// escaped as on a terminal (the text's own line breaks kept, as character references),
/// markup characters become entities, and the two non-characters XML forbids are dropped.
pub(crate) fn xml(text: &str) -> String {
    let visible = terminal_lines(text);
    let mut out = String::with_capacity(visible.len());
    for c in visible.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\u{fffe}' | '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// A SARIF plain-text message: `[`, `]` and `\` are backslash-escaped, so that text from
/// a description cannot become an embedded link (`[text](https://…)`) in code scanning.
pub(crate) fn sarif_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if matches!(c, '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Word joiner: put after `@` so GitHub does not read `@name` as a mention.
const NO_MENTION: char = '\u{2060}';

/// Plain Markdown text: line breaks and other unsafe characters are shown escaped, every
/// ASCII punctuation character is backslash-escaped (so no emphasis, link, image, HTML,
/// code span, heading, list or table cell can start), `@` cannot mention anyone and `#`
/// cannot refer to an issue.
pub(crate) fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in terminal(text).chars() {
        if c == '@' {
            out.push('@');
            out.push(NO_MENTION);
        } else if c == '#' {
            // Nor `#123` as a reference to an issue.
            out.push_str("\\#");
            out.push(NO_MENTION);
        } else if c.is_ascii_punctuation() {
            out.push('\\');
            out.push(c);
        } else {
            out.push(c);
        }
    }
    out
}

/// A Markdown code span holding `text` literally: the fence is one backtick longer than
/// the longest run inside, line breaks are shown escaped, and a table pipe is escaped
/// (GitHub splits table cells on `|` even inside code spans).
pub(crate) fn markdown_code(text: &str) -> String {
    let body = terminal(text).replace('|', "\\|");
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // A space on both sides is stripped again by the reader; it keeps a backtick at
    // either end from joining the fence.
    let pad = if body.starts_with('`') || body.ends_with('`') || body.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// A fenced Markdown code block holding `text` literally (lines kept): the fence is one
/// backtick longer than the longest run inside (at least three), so no line of the text
/// can close it, and unsafe characters are shown escaped.
pub(crate) fn markdown_block(text: &str) -> String {
    let body = terminal_lines(text);
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    let newline = if body.ends_with('\n') { "" } else { "\n" };
    format!("{fence}text\n{body}{newline}{fence}\n")
}

/// Text inside an HTML element of a Markdown document (`<summary>`, `<code>`): shown on
/// one line (a blank line would end the HTML block), HTML-escaped, no mentions.
pub(crate) fn markdown_html(text: &str) -> String {
    let one_line = terminal(text);
    let mut out = String::with_capacity(one_line.len() + 16);
    for c in html(&one_line).to_string().chars() {
        match c {
            '@' => {
                out.push('@');
                out.push(NO_MENTION);
            }
            // Markdown is not read inside an HTML block, but a reader of the raw text
            // should not see a link or an image either.
            '[' | ']' | '|' | '`' | '*' | '_' | '~' | '\\' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// What a URI path keeps as it is: RFC 3986's unreserved characters and `/`.
const URI_PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// A path for a URI (a SARIF artifact, a link to a source file): every character but
/// RFC 3986's unreserved ones and `/` percent-encoded, so it can neither end a Markdown
/// link nor add a query or a fragment.
pub(crate) fn uri_path(path: &str) -> String {
    percent_encoding::utf8_percent_encode(path, URI_PATH).to_string()
}

/// One argument for a POSIX shell: single-quoted unless it is made only of characters
/// no shell treats specially; a `'` inside becomes `'\''`.
pub(crate) fn shell(text: &str) -> Cow<'_, str> {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        return Cow::Borrowed(text);
    }
    Cow::Owned(format!("'{}'", text.replace('\'', "'\\''")))
}

/// A double-quoted YAML scalar holding `text` exactly: `"` and `\` are escaped, and every
/// character that is a line break to some YAML reader (or invisible) is written as an escape.
pub(crate) fn yaml_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe_char(c) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text for a YAML comment: one line, whatever it holds.
pub(crate) fn yaml_comment(text: &str) -> Cow<'_, str> {
    terminal(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_markdown_block_cannot_be_closed_by_its_text() {
        let block = markdown_block("GET /a````b\n  retried\u{1b}[31m");
        assert!(block.starts_with("`````text\n"), "{block}");
        assert!(block.ends_with("\n`````\n"), "{block}");
        assert!(!block.contains('\u{1b}'), "{block}");
        assert!(markdown_block("plain\n").starts_with("```text\nplain\n```"));
    }

    #[test]
    fn xml_shows_controls_and_escapes_markup() {
        assert_eq!(
            xml("<a href=\"x\">'&'\n\u{1b}[2J\u{85}\u{7f}\u{202e}\u{ffff}"),
            "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&#10;\\e[2J\\u{85}\\u{7f}\\u{202e}"
        );
    }

    #[test]
    fn markdown_text_mentions_and_refers_to_nothing() {
        assert_eq!(
            markdown_text("@octocat #123"),
            "@\u{2060}octocat \\#\u{2060}123"
        );
    }

    #[test]
    fn sarif_text_makes_no_embedded_link() {
        assert_eq!(
            sarif_text("see [here](https://e.example) \\ [1](0)"),
            "see \\[here\\](https://e.example) \\\\ \\[1\\](0)"
        );
    }

    #[test]
    fn html_shows_controls_escaped() {
        let shown = html("a\u{1b}[2J\u{7}\u{9b}<b>\0\n\tz").to_string();
        assert_eq!(shown, "a\\e[2J\\u{7}\\u{9b}&lt;b&gt;\u{fffd}&#10;\tz");
    }

    #[test]
    fn printable_ascii_holds_no_unsafe_character() {
        for b in 0u8..=127 {
            let text = char::from(b).to_string();
            if is_printable_ascii(&text) {
                assert!(!is_unsafe_char(char::from(b)), "{b:#x}");
            }
        }
        assert!(!is_printable_ascii("a\u{7f}"));
        assert!(!is_printable_ascii("é"));
    }

    #[test]
    fn terminal_shows_controls_escaped() {
        assert_eq!(
            terminal("a\u{1b}[31mb\u{7}\r\nc\u{85}d\u{7f}"),
            "a\\e[31mb\\u{7}\\r\\nc\\u{85}d\\u{7f}"
        );
        assert_eq!(terminal("plain\ttext"), "plain\ttext");
        assert_eq!(terminal_lines("a\r\nb\rc\u{1b}\n"), "a\r\nb\\rc\\e\n");
    }

    #[test]
    fn github_escapes_what_github_requires() {
        assert_eq!(github_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(github_property("a:b,c%"), "a%3Ab%2Cc%25");
    }

    #[test]
    fn markdown_neutralises_markup() {
        assert_eq!(
            markdown_text("![x](y) <b> @bob"),
            "\\!\\[x\\]\\(y\\) \\<b\\> @\u{2060}bob"
        );
        assert_eq!(markdown_code("a`b``c"), "```a`b``c```");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_code("a|b\nc"), "`a\\|b\\nc`");
    }

    #[test]
    fn shell_quotes_one_argument() {
        assert_eq!(shell("api/openapi.yaml"), "api/openapi.yaml");
        assert_eq!(shell("/x;rm -rf ~"), "'/x;rm -rf ~'");
        assert_eq!(shell("it's"), "'it'\\''s'");
        assert_eq!(shell(""), "''");
    }

    #[test]
    fn yaml_quoted_keeps_one_line() {
        assert_eq!(
            yaml_quoted("a\"b\\c\nd\u{2028}e"),
            "\"a\\\"b\\\\c\\nd\\u2028e\""
        );
    }
}
