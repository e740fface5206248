//! NGINX configuration syntax (`nginx.conf`), read into the same [`Node`] tree as YAML so
//! that locations, findings and the editor work unchanged.
//!
//! The grammar is nginx's own (`ngx_conf_read_token` in nginx/nginx
//! `src/core/ngx_conf_file.c`): a directive is words ending in `;`, a block directive is
//! words followed by `{ ... }`, `#` starts a comment to the end of the line, a word is
//! bare or quoted with `"` or `'` (a backslash escapes the next character), and `${name}`
//! may appear inside a bare word.
//!
//! The tree and its pointers: the file is one document, a mapping with the single key
//! `nginx` whose value is the list of top-level directives. Each directive is a mapping
//! `{name, args, block}`: `name` a string, `args` a list of strings, `block` (block
//! directives only) the list of the directives inside. The directive's span runs from its
//! name to its `;` or closing `}`; `name`'s key span is the name, `args`' the arguments.
//! So `/0/nginx/0/block/2/args` is the arguments of the third directive in the first
//! block. `include` is not followed: the included files are not read.
//!
//! Hostile input is bounded: blocks nest at most [`MAX_DEPTH`] deep, a directive has at
//! most [`MAX_ARGS`] arguments, and the text itself is bounded by the reader's size limit.

use std::sync::Arc;

use super::tree::{Entry, Map};
use super::{Node, Span, SyntaxError, Value};

/// Deepest nesting of blocks read (nginx's own configurations rarely pass 5).
pub const MAX_DEPTH: usize = 32;
/// Most arguments of one directive (nginx itself allows 8 to a few dozen).
pub const MAX_ARGS: usize = 256;

/// The key of the document's single entry: the list of top-level directives.
pub const ROOT_KEY: &str = "nginx";

/// Parses an nginx configuration into one document (see the module's docs for its shape).
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
    };
    let (directives, end) = parser.block(0, None)?;
    let span = Span::new(0, text.len());
    let list = Node::new(Span::new(0, end), Value::Seq(directives.into()));
    let entry = Entry {
        key: ROOT_KEY.into(),
        key_span: Span::at(0),
        value: list,
    };
    Ok(Node::new(
        span,
        Value::Map(Map::from_unique(Arc::from(vec![entry]))),
    ))
}

/// A word and where it is written (quotes included).
struct Word {
    text: String,
    span: Span,
}

enum Token {
    Word(Word),
    Semicolon(usize),
    Open(usize),
    Close(usize),
    End,
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    /// The directives up to the `}` that closes a block opened at `opened` (or the end of
    /// the file at the top), and where the block ends.
    fn block(
        &mut self,
        depth: usize,
        opened: Option<usize>,
    ) -> Result<(Vec<Node>, usize), SyntaxError> {
        let mut directives = Vec::new();
        let mut words: Vec<Word> = Vec::new();
        loop {
            match self.token()? {
                Token::Word(word) => {
                    if words.len() > MAX_ARGS {
                        return Err(SyntaxError::new(
                            format!("a directive has more than {MAX_ARGS} arguments"),
                            word.span,
                        ));
                    }
                    words.push(word);
                }
                Token::Semicolon(at) => {
                    if words.is_empty() {
                        return Err(SyntaxError::new("unexpected `;`", Span::new(at, at + 1)));
                    }
                    directives.push(directive(std::mem::take(&mut words), None, at + 1));
                }
                Token::Open(at) => {
                    if words.is_empty() {
                        return Err(SyntaxError::new("unexpected `{`", Span::new(at, at + 1)));
                    }
                    if depth + 1 > MAX_DEPTH {
                        return Err(SyntaxError::new(
                            format!("blocks nest more than {MAX_DEPTH} deep"),
                            Span::new(at, at + 1),
                        ));
                    }
                    let (inner, end) = self.block(depth + 1, Some(at))?;
                    let block = Node::new(Span::new(at, end), Value::Seq(inner.into()));
                    directives.push(directive(std::mem::take(&mut words), Some(block), end));
                }
                Token::Close(at) => {
                    if let Some(word) = words.first() {
                        return Err(SyntaxError::new(
                            "a directive ends without `;`",
                            Span::new(word.span.start as usize, at),
                        ));
                    }
                    if opened.is_none() {
                        return Err(SyntaxError::new("unexpected `}`", Span::new(at, at + 1)));
                    }
                    return Ok((directives, at + 1));
                }
                Token::End => {
                    if let Some(word) = words.first() {
                        return Err(SyntaxError::new(
                            "the file ends inside a directive (no `;`)",
                            word.span,
                        ));
                    }
                    if let Some(open) = opened {
                        return Err(SyntaxError::new(
                            "this `{` is never closed",
                            Span::new(open, open + 1),
                        ));
                    }
                    return Ok((directives, self.text.len()));
                }
            }
        }
    }

    fn token(&mut self) -> Result<Token, SyntaxError> {
        loop {
            let Some(&byte) = self.text.get(self.at) else {
                return Ok(Token::End);
            };
            match byte {
                b' ' | b'\t' | b'\r' | b'\n' => self.at += 1,
                b'#' => {
                    while self.text.get(self.at).is_some_and(|&b| b != b'\n') {
                        self.at += 1;
                    }
                }
                b';' => {
                    self.at += 1;
                    return Ok(Token::Semicolon(self.at - 1));
                }
                b'{' => {
                    self.at += 1;
                    return Ok(Token::Open(self.at - 1));
                }
                b'}' => {
                    self.at += 1;
                    return Ok(Token::Close(self.at - 1));
                }
                b'"' | b'\'' => return self.quoted(byte).map(Token::Word),
                _ => return Ok(Token::Word(self.bare())),
            }
        }
    }

    fn quoted(&mut self, quote: u8) -> Result<Word, SyntaxError> {
        let start = self.at;
        self.at += 1;
        let mut out = Vec::new();
        loop {
            match self.text.get(self.at) {
                None => {
                    return Err(SyntaxError::new(
                        "this quoted string is never closed",
                        Span::new(start, start + 1),
                    ));
                }
                Some(&b) if b == quote => {
                    self.at += 1;
                    break;
                }
                Some(b'\\') => {
                    // nginx keeps `\t`, `\r`, `\n` as control characters and any other
                    // escaped character as itself.
                    let escaped = self.text.get(self.at + 1).copied();
                    match escaped {
                        Some(b't') => out.push(b'\t'),
                        Some(b'r') => out.push(b'\r'),
                        Some(b'n') => out.push(b'\n'),
                        Some(other) => out.push(other),
                        None => {}
                    }
                    self.at += 2;
                }
                Some(&b) => {
                    out.push(b);
                    self.at += 1;
                }
            }
        }
        let end = self.at.min(self.text.len());
        let after = self.text.get(self.at).copied();
        if !matches!(
            after,
            None | Some(b' ' | b'\t' | b'\r' | b'\n' | b';' | b'{' | b'}')
        ) {
            return Err(SyntaxError::new(
                "a quoted string runs into the next word",
                Span::new(end, end + 1),
            ));
        }
        Ok(Word {
            text: String::from_utf8_lossy(&out).into_owned(),
            span: Span::new(start, end),
        })
    }

    fn bare(&mut self) -> Word {
        let start = self.at;
        while let Some(&b) = self.text.get(self.at) {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'{' | b'}' => break,
                b'$' if self.text.get(self.at + 1) == Some(&b'{') => {
                    // `${name}` inside a word: its braces belong to the word.
                    self.at += 2;
                    while self
                        .text
                        .get(self.at)
                        .is_some_and(|&b| b != b'}' && b != b'\n')
                    {
                        self.at += 1;
                    }
                    if self.text.get(self.at) == Some(&b'}') {
                        self.at += 1;
                    }
                }
                b'\\' => self.at = (self.at + 2).min(self.text.len()),
                _ => self.at += 1,
            }
        }
        let text = String::from_utf8_lossy(&self.text[start..self.at]).into_owned();
        Word {
            text,
            span: Span::new(start, self.at),
        }
    }
}

/// One directive as a node: `{name, args, block}`, spanning its name to `end`.
fn directive(words: Vec<Word>, block: Option<Node>, end: usize) -> Node {
    let mut words = words.into_iter();
    let Some(name) = words.next() else {
        return Node::new(Span::at(end), Value::Null);
    };
    let start = name.span.start as usize;
    let args: Vec<Node> = words
        .map(|w| Node::new(w.span, Value::String(w.text.into())))
        .collect();
    let args_span = match (args.first(), args.last()) {
        (Some(first), Some(last)) => Span::new(first.span.start as usize, last.span.end as usize),
        _ => Span::at(name.span.end as usize),
    };
    let mut entries = vec![
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
    if let Some(block) = block {
        entries.push(Entry {
            key: "block".into(),
            key_span: block.span,
            value: block,
        });
    }
    Node::new(
        Span::new(start, end),
        Value::Map(Map::from_unique(entries.into())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directives(node: &Node) -> Vec<Node> {
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

    #[test]
    fn directives_blocks_and_spans() {
        let text = "# top\nworker_processes 1;\nhttp {\n  upstream b { server 127.0.0.1:1; }\n  server { location = /x { proxy_pass http://b; } }\n}\n";
        let root = parse(text).unwrap();
        let top = directives(&root);
        assert_eq!(top.len(), 2);
        assert_eq!(name(&top[0]), "worker_processes");
        assert_eq!(&text[top[0].span.range()], "worker_processes 1;");
        let http = top[1].get("block").and_then(Node::as_seq).unwrap();
        assert_eq!(name(&http[0]), "upstream");
        assert_eq!(args(&http[0]), ["b"]);
        let server = http[1].get("block").and_then(Node::as_seq).unwrap();
        assert_eq!(args(&server[0]), ["=", "/x"]);
        assert_eq!(
            &text[server[0].span.range()],
            "location = /x { proxy_pass http://b; }"
        );
        let pass = server[0].get("block").and_then(Node::as_seq).unwrap();
        let arg = &pass[0].get("args").and_then(Node::as_seq).unwrap()[0];
        assert_eq!(&text[arg.span.range()], "http://b");
    }

    #[test]
    fn quotes_escapes_and_variables() {
        let text = "a \"x y\" 'q\\'s' ${host}x \\; b;\n";
        let root = parse(text).unwrap();
        let top = directives(&root);
        assert_eq!(args(&top[0]), ["x y", "q's", "${host}x", "\\;", "b"]);
    }

    #[test]
    fn syntax_errors_are_located() {
        for (text, message, at) in [
            ("a b", "ends inside a directive", 0),
            ("http {\n a;\n", "never closed", 5),
            ("a;\n}", "unexpected `}`", 3),
            ("a \"b;", "never closed", 2),
            ("a { b }", "without `;`", 4),
            (";", "unexpected `;`", 0),
            ("a \"b\"c;", "runs into", 5),
        ] {
            let error = parse(text).unwrap_err();
            assert!(error.message.contains(message), "{text}: {}", error.message);
            assert_eq!(error.span.start as usize, at, "{text}");
        }
    }

    #[test]
    fn hostile_nesting_is_refused() {
        let text = "a {".repeat(MAX_DEPTH + 1) + &"}".repeat(MAX_DEPTH + 1);
        let error = parse(&text).unwrap_err();
        assert!(error.message.contains("nest"), "{}", error.message);
        let many = format!("a {};", "x ".repeat(MAX_ARGS + 2));
        assert!(parse(&many).unwrap_err().message.contains("arguments"));
    }
}
