//! HAProxy configuration syntax (`haproxy.cfg`), read into the same [`Node`] tree as YAML
//! so that locations, findings and the editor work unchanged.
//!
//! The grammar is HAProxy's own (`parse_line` in haproxy/haproxy `src/tools.c`, called by
//! `readcfgfile` in `src/cfgparse.c`): a line is words separated by unquoted blanks; `#`
//! outside quotes starts a comment to the end of the line; `"…"` and `'…'` quote (a quoted
//! part may run into the rest of its word: `a"b c"d` is one word); outside single quotes a
//! backslash escapes a blank, `\`, `#`, `'`, `"` and writes `\t`, `\n`, `\r` and `\xHH`,
//! any other pair being kept as it is; `$NAME` and `"${NAME}"` environment variables are
//! kept as written (they are not expanded). A line whose first word is a section keyword
//! (`global`, `defaults`, `frontend`, `backend`, `listen`, …) opens that section; every
//! other line belongs to the section above it.
//!
//! The tree and its pointers: the file is one document, a mapping with the single key
//! `haproxy` whose value is the list of sections. Each section is a mapping
//! `{name, args, block}` (`frontend`, its name, the list of its lines) and each line a
//! mapping `{name, args}`: its first word and the others. A section's span runs from its
//! keyword to the end of its last line, a line's from its first word to its last. So
//! `/0/haproxy/2/block/1/args/0` is the first argument of the second line of the third
//! section.
//!
//! Hostile input is bounded: a line has at most [`MAX_ARGS`] words (HAProxy's
//! `MAX_LINE_ARGS`), and the text itself is bounded by the reader's size limit.

use std::sync::Arc;

use super::tree::{Entry, Map};
use super::{Node, Span, SyntaxError, Value};

/// Most words of one line (`MAX_LINE_ARGS` in haproxy/haproxy `include/haproxy/defaults.h`).
pub const MAX_ARGS: usize = 64;

/// The key of the document's single entry: the list of sections.
pub const ROOT_KEY: &str = "haproxy";

/// The keywords that open a section (the `cfg_register_section` calls of HAProxy 2.6).
pub const SECTIONS: &[&str] = &[
    "global",
    "defaults",
    "frontend",
    "backend",
    "listen",
    "userlist",
    "peers",
    "mailers",
    "resolvers",
    "namespace_list",
    "http-errors",
    "ring",
    "program",
    "cache",
];

/// A word and where it is written (quotes included).
struct Word {
    text: String,
    span: Span,
}

/// Parses an HAProxy configuration into one document (see the module's docs for its shape).
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let bytes = text.as_bytes();
    let mut sections: Vec<(Vec<Word>, Vec<Node>, usize)> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| at + n);
        let words = line_words(bytes, at, end)?;
        at = end + 1;
        let Some(first) = words.first() else {
            continue;
        };
        if SECTIONS.contains(&first.text.as_str()) {
            let line_end = words.last().map_or(0, |w| w.span.end as usize);
            sections.push((words, Vec::new(), line_end));
            continue;
        }
        // `.if`, `.else`, `.endif`, `.notice`…: the conditional blocks and messages of
        // `readcfgfile` (`src/cfgparse.c`), which may stand before any section.
        if first.text.starts_with('.') && sections.is_empty() {
            continue;
        }
        let Some((_, lines, section_end)) = sections.last_mut() else {
            return Err(SyntaxError::new(
                "this line stands outside any section: a configuration opens with `global`, `defaults`, `frontend`, `backend` or `listen`",
                first.span,
            ));
        };
        let node = line(words);
        *section_end = node.span.end as usize;
        lines.push(node);
    }
    let nodes: Vec<Node> = sections
        .into_iter()
        .map(|(words, lines, end)| {
            let start = words.first().map_or(0, |w| w.span.start as usize);
            let block_span = match (lines.first(), lines.last()) {
                (Some(first), Some(last)) => {
                    Span::new(first.span.start as usize, last.span.end as usize)
                }
                _ => Span::at(end),
            };
            let block = Node::new(block_span, Value::Seq(lines.into()));
            let mut node = line(words);
            if let Value::Map(map) = &node.value {
                let mut entries: Vec<Entry> = map.entries().to_vec();
                entries.push(Entry {
                    key: "block".into(),
                    key_span: block_span,
                    value: block,
                });
                node = Node::new(
                    Span::new(start, end),
                    Value::Map(Map::from_unique(entries.into())),
                );
            }
            node
        })
        .collect();
    let list = Node::new(Span::new(0, text.len()), Value::Seq(nodes.into()));
    let entry = Entry {
        key: ROOT_KEY.into(),
        key_span: Span::at(0),
        value: list,
    };
    Ok(Node::new(
        Span::new(0, text.len()),
        Value::Map(Map::from_unique(Arc::from(vec![entry]))),
    ))
}

/// The words of the line `bytes[start..end]`, as `parse_line` splits and unescapes them.
fn line_words(bytes: &[u8], start: usize, end: usize) -> Result<Vec<Word>, SyntaxError> {
    let mut words = Vec::new();
    let mut at = start;
    let mut current: Option<(usize, Vec<u8>)> = None;
    let mut quote: Option<(u8, usize)> = None;
    let finish = |current: &mut Option<(usize, Vec<u8>)>, words: &mut Vec<Word>, at: usize| {
        if let Some((from, text)) = current.take() {
            words.push(Word {
                text: String::from_utf8_lossy(&text).into_owned(),
                span: Span::new(from, at),
            });
        }
    };
    while at < end {
        let byte = bytes[at];
        if let Some((q, _)) = quote {
            if byte == q {
                quote = None;
                at += 1;
                continue;
            }
            if q == b'\'' || byte != b'\\' {
                current.get_or_insert_with(|| (at, Vec::new())).1.push(byte);
                at += 1;
                continue;
            }
        }
        match byte {
            b'\r' if quote.is_none() => break,
            b'#' if quote.is_none() => break,
            b'"' | b'\'' if quote.is_none() => {
                current.get_or_insert_with(|| (at, Vec::new()));
                quote = Some((byte, at));
                at += 1;
            }
            b' ' | b'\t' | b'\x0b' | b'\x0c' if quote.is_none() => {
                finish(&mut current, &mut words, at);
                at += 1;
            }
            b'\\' => {
                let (out, used) = escaped(bytes, at, end, quote.is_some())?;
                current.get_or_insert_with(|| (at, Vec::new())).1.push(out);
                at += used;
            }
            _ => {
                current.get_or_insert_with(|| (at, Vec::new())).1.push(byte);
                at += 1;
            }
        }
        if words.len() > MAX_ARGS {
            return Err(SyntaxError::new(
                format!("a line has more than {MAX_ARGS} words"),
                Span::new(start, end),
            ));
        }
    }
    if let Some((q, opened)) = quote {
        let which = if q == b'"' { "double" } else { "single" };
        return Err(SyntaxError::new(
            format!("this {which} quote is never closed on its line"),
            Span::new(opened, opened + 1),
        ));
    }
    let stop = at.min(end);
    finish(&mut current, &mut words, stop);
    if words.len() > MAX_ARGS {
        return Err(SyntaxError::new(
            format!("a line has more than {MAX_ARGS} words"),
            Span::new(start, end),
        ));
    }
    Ok(words)
}

/// The byte a backslash at `at` writes and how many bytes it takes, outside single
/// quotes (`in_double`: inside double quotes, where `\$` escapes too).
fn escaped(
    bytes: &[u8],
    at: usize,
    end: usize,
    in_double: bool,
) -> Result<(u8, usize), SyntaxError> {
    let next = bytes.get(at + 1).copied().filter(|_| at + 1 < end);
    Ok(match next {
        Some(b @ (b' ' | b'\\' | b'#' | b'\'' | b'"')) => (b, 2),
        Some(b'$') if in_double => (b'$', 2),
        Some(b't') => (b'\t', 2),
        Some(b'n') => (b'\n', 2),
        Some(b'r') => (b'\r', 2),
        Some(b'x') => {
            let hex = bytes
                .get(at + 2..at + 4)
                .filter(|_| at + 4 <= end)
                .and_then(|h| std::str::from_utf8(h).ok())
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(value) = hex else {
                return Err(SyntaxError::new(
                    "`\\x` must be followed by two hexadecimal digits",
                    Span::new(at, at + 2),
                ));
            };
            (value, 4)
        }
        _ => (b'\\', 1),
    })
}

/// One line as a node: `{name, args}`, spanning its first word to its last.
fn line(words: Vec<Word>) -> Node {
    let mut words = words.into_iter();
    let Some(name) = words.next() else {
        return Node::new(Span::at(0), Value::Null);
    };
    let args: Vec<Node> = words
        .map(|w| Node::new(w.span, Value::String(w.text.into())))
        .collect();
    let end = args.last().map_or(name.span.end, |a| a.span.end) as usize;
    let args_span = match (args.first(), args.last()) {
        (Some(first), Some(last)) => Span::new(first.span.start as usize, last.span.end as usize),
        _ => Span::at(name.span.end as usize),
    };
    let entries = vec![
        Entry {
            key: "name".into(),
            key_span: name.span,
            value: Node::new(name.span, Value::String(name.text.into())),
        },
        Entry {
            key: "args".into(),
            key_span: args_span,
            value: Node::new(args_span, Value::Seq(args.into())),
        },
    ];
    Node::new(
        Span::new(name.span.start as usize, end),
        Value::Map(Map::from_unique(entries.into())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections(node: &Node) -> Vec<Node> {
        node.get(ROOT_KEY)
            .and_then(Node::as_seq)
            .map(<[Node]>::to_vec)
            .unwrap()
    }

    fn name(node: &Node) -> &str {
        node.get("name").and_then(Node::as_str).unwrap()
    }

    fn args(node: &Node) -> Vec<String> {
        node.get("args")
            .and_then(Node::as_seq)
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect()
    }

    fn lines(node: &Node) -> Vec<Node> {
        node.get("block").and_then(Node::as_seq).unwrap().to_vec()
    }

    #[test]
    fn sections_lines_and_spans() {
        let text = "# top\nglobal\n  maxconn 100\n\ndefaults web\n  mode http # here\n  timeout server 5s\nbackend api\n  retries 2\n";
        let root = parse(text).unwrap();
        let all = sections(&root);
        assert_eq!(all.len(), 3);
        assert_eq!(name(&all[1]), "defaults");
        assert_eq!(args(&all[1]), ["web"]);
        assert_eq!(
            &text[all[1].span.range()],
            "defaults web\n  mode http # here\n  timeout server 5s"
        );
        let inner = lines(&all[1]);
        assert_eq!(name(&inner[0]), "mode");
        assert_eq!(&text[inner[0].span.range()], "mode http");
        assert_eq!(args(&inner[1]), ["server", "5s"]);
        let retries = &lines(&all[2])[0];
        let arg = &retries.get("args").and_then(Node::as_seq).unwrap()[0];
        assert_eq!(&text[arg.span.range()], "2");
        assert!(lines(&all[0]).len() == 1);
    }

    #[test]
    fn quotes_and_escapes_as_parse_line_reads_them() {
        let text =
            "backend b\n  x \"a b\" 'c\\d' e\\ f a\"b c\"d \\# \"\\x41\" '$HOME' \"${X}\" \\q\n";
        let root = parse(text).unwrap();
        let line = &lines(&sections(&root)[0])[0];
        assert_eq!(
            args(line),
            [
                "a b", "c\\d", "e f", "ab cd", "#", "A", "$HOME", "${X}", "\\q"
            ]
        );
        let crlf = parse(".if defined(X)\r\n.endif\r\nbackend b\r\n  retries 3\r\n").unwrap();
        assert_eq!(args(&lines(&sections(&crlf)[0])[0]), ["3"]);
    }

    #[test]
    fn syntax_errors_are_located() {
        for (text, message, at) in [
            ("retries 3\n", "outside any section", 0),
            ("backend b\n  x \"a b\n", "never closed", 14),
            ("backend b\n  x 'a\n", "never closed", 14),
            ("backend b\n  x \\xZ1\n", "hexadecimal", 14),
        ] {
            let error = parse(text).unwrap_err();
            assert!(error.message.contains(message), "{text}: {}", error.message);
            assert_eq!(error.span.start as usize, at, "{text}");
        }
    }

    #[test]
    fn any_text_parses_or_fails_without_panicking() {
        let pieces = [
            "backend b\n",
            " ",
            "\"",
            "'",
            "\\",
            "\\x",
            "é",
            "#",
            "\r\n",
            "x",
            "{",
            "}",
            "$",
            "\\x4",
            "\t",
            "retries 3\n",
        ];
        let mut state = 7u64;
        for _ in 0..2_000 {
            let mut text = String::new();
            for _ in 0..12 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                text.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            match parse(&text) {
                Ok(root) => assert!(root.span.end as usize == text.len()),
                Err(e) => {
                    assert!(text.is_char_boundary(e.span.start as usize), "{text:?}");
                    assert!(text.is_char_boundary(e.span.end as usize), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn hostile_lines_are_refused() {
        let many = format!("backend b\n  x {}\n", "y ".repeat(MAX_ARGS + 2));
        assert!(parse(&many).unwrap_err().message.contains("words"));
    }
}
