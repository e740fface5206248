//! From a [`Change`] to text edits that keep the file as it is written: a key added to a
//! block mapping goes on a line of its own after the last entry, at that entry's
//! indentation, and after any comment ending its line; one added to a flow mapping or a
//! JSON object follows the last entry, on a new line when the entries are on lines of
//! their own; an item taken out of a list takes its separator with it.

use super::{Change, NewValue};
use crate::input::source::{Node, Span, Syntax, pointer};

/// Text to put in place of a span (an insertion is an empty span).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TextEdit {
    pub span: Span,
    pub text: String,
}

impl TextEdit {
    fn insert(at: usize, text: String) -> TextEdit {
        TextEdit {
            span: Span::at(at),
            text,
        }
    }

    fn replace(span: Span, text: String) -> TextEdit {
        TextEdit { span, text }
    }

    fn delete(start: usize, end: usize) -> TextEdit {
        TextEdit {
            span: Span::new(start, end),
            text: String::new(),
        }
    }
}

/// A file's text with its tree, as a change is made to it.
pub struct Target<'a> {
    pub text: &'a str,
    pub root: &'a Node,
    pub syntax: Syntax,
}

impl Target<'_> {
    /// The edits that make `change`, or why it cannot be made.
    pub fn edits(&self, change: &Change) -> Result<Vec<TextEdit>, String> {
        if self.syntax == Syntax::Proto {
            // A fix is said as a YAML or JSON change: a `.proto` file is changed by hand.
            return Err("a `.proto` file is not edited: make the change by hand".into());
        }
        match change {
            Change::Set {
                map, key, value, ..
            } => {
                if let Ok(node) = self.node(map) {
                    return self.set(node, key, value).map(|edit| vec![edit]);
                }
                // A mapping not written yet (a response's `headers`): written in its
                // parent, with the entry.
                let (parent, last) = map
                    .rsplit_once('/')
                    .ok_or_else(|| format!("nothing is written at `{map}`"))?;
                let last = pointer::decode(&format!("/{last}"))
                    .and_then(|mut t| t.pop())
                    .ok_or_else(|| format!("`{map}` is no JSON Pointer"))?;
                let entry = NewValue::Map(vec![(key.clone(), value.clone())]);
                self.set(self.node(parent)?, &last, &entry)
                    .map(|edit| vec![edit])
            }
            Change::RemoveItems { list, items, .. } => {
                let node = self.node(list)?;
                self.remove_items(node, items)
            }
            Change::Append {
                map, key, value, ..
            } => {
                let node = self.node(map)?;
                match node.get(key) {
                    Some(list) => self.append(list, value),
                    None => self.set(node, key, &NewValue::Seq(vec![value.clone()])),
                }
                .map(|edit| vec![edit])
            }
        }
    }

    fn node(&self, at: &str) -> Result<&Node, String> {
        let tokens = pointer::decode(at).ok_or_else(|| format!("`{at}` is no JSON Pointer"))?;
        self.root
            .at(tokens.iter())
            .ok_or_else(|| format!("nothing is written at `{at}`"))
    }

    /// Whether the list or mapping at `span` is written in flow style (`{…}`, `[…]`, JSON).
    fn is_flow(&self, span: Span) -> bool {
        matches!(
            self.text.as_bytes().get(span.start as usize),
            Some(b'{' | b'[')
        )
    }

    fn set(&self, map: &Node, key: &str, value: &NewValue) -> Result<TextEdit, String> {
        let entries = map
            .as_map()
            .ok_or_else(|| format!("expected a mapping, found {}", map.kind()))?
            .entries();
        if let Some(entry) = entries.iter().find(|e| &*e.key == key) {
            return Ok(TextEdit::replace(entry.value.span, self.flow(value)));
        }
        let entry_text = format!("{}: {}", self.key(key), self.flow(value));
        let Some(last) = entries.iter().max_by_key(|e| e.value.span.end) else {
            // An empty mapping is written `{}`, whatever the style around it.
            return Ok(TextEdit::replace(map.span, format!("{{{entry_text}}}")));
        };
        if self.is_flow(map.span) {
            return Ok(self.after_in_flow(
                map.span,
                last.key_span.start,
                last.value.span.end,
                entry_text,
            ));
        }
        let at = self.line_end(last.value.span.end as usize);
        let indent = " ".repeat(self.column_of(last.key_span.start as usize));
        let newline = self.newline();
        // A mapping or list goes in block style too, an entry or item a line, two spaces
        // further in.
        let text = match value {
            NewValue::Seq(items) if !items.is_empty() => {
                let mut text = format!("{newline}{indent}{}:", self.key(key));
                for item in items {
                    text.push_str(&format!("{newline}{indent}  - {}", self.flow(item)));
                }
                text
            }
            NewValue::Map(entries) if !entries.is_empty() => {
                let mut text = format!("{newline}{indent}{}:", self.key(key));
                for (k, v) in entries {
                    text.push_str(&format!(
                        "{newline}{indent}  {}: {}",
                        self.key(k),
                        self.flow(v)
                    ));
                }
                text
            }
            _ => format!("{newline}{indent}{entry_text}"),
        };
        Ok(TextEdit::insert(at, text))
    }

    fn remove_items(&self, list: &Node, remove: &[usize]) -> Result<Vec<TextEdit>, String> {
        let items = list
            .as_seq()
            .ok_or_else(|| format!("expected a list, found {}", list.kind()))?;
        let removed = |i: usize| remove.contains(&i);
        if (0..items.len()).all(removed) {
            return Err("every item would be taken out, leaving an empty list".into());
        }
        if !self.is_flow(list.span) {
            // A block list: each item's lines go.
            return Ok(remove
                .iter()
                .filter_map(|&i| items.get(i))
                .map(|item| {
                    let start = self.line_start(item.span.start as usize);
                    let end = self.next_line(item.span.end as usize);
                    TextEdit::delete(start, end)
                })
                .collect());
        }
        // A flow list: each run of removed items goes with the separator after it, or,
        // at the end of the list, with the one before it.
        let mut edits = Vec::new();
        let mut i = 0;
        while i < items.len() {
            if !removed(i) {
                i += 1;
                continue;
            }
            let first = i;
            while i < items.len() && removed(i) {
                i += 1;
            }
            let edit = match (
                items.get(i),
                first.checked_sub(1).and_then(|p| items.get(p)),
            ) {
                (Some(next), _) => {
                    TextEdit::delete(items[first].span.start as usize, next.span.start as usize)
                }
                (None, Some(previous)) => {
                    TextEdit::delete(previous.span.end as usize, items[i - 1].span.end as usize)
                }
                (None, None) => return Err("every item would be taken out".into()),
            };
            edits.push(edit);
        }
        Ok(edits)
    }

    fn append(&self, list: &Node, value: &NewValue) -> Result<TextEdit, String> {
        let items = list
            .as_seq()
            .ok_or_else(|| format!("expected a list, found {}", list.kind()))?;
        let Some(last) = items.last() else {
            return Ok(TextEdit::replace(
                list.span,
                format!("[{}]", self.flow(value)),
            ));
        };
        if self.is_flow(list.span) {
            return Ok(self.after_in_flow(
                list.span,
                last.span.start,
                last.span.end,
                self.flow(value),
            ));
        }
        // A block list: a new `- ` line at the column of the last item's dash.
        let dash = self.text[..last.span.start as usize]
            .rfind('-')
            .unwrap_or(last.span.start as usize);
        let at = self.line_end(last.span.end as usize);
        Ok(TextEdit::insert(
            at,
            format!(
                "{}{}- {}",
                self.newline(),
                " ".repeat(self.column_of(dash)),
                self.flow(value)
            ),
        ))
    }

    /// `text` added after the last entry or item of a flow mapping or list written at
    /// `container` (the last one's key or value starting at `last_start`, ending at
    /// `last_end`): on a line of its own, at the last one's indentation, when the entries
    /// are spread over lines; else on the same line.
    fn after_in_flow(
        &self,
        container: Span,
        last_start: u32,
        last_end: u32,
        text: String,
    ) -> TextEdit {
        let spread = self.text[container.start as usize..last_start as usize].contains('\n');
        let text = if spread {
            format!(
                ",{}{}{text}",
                self.newline(),
                self.indent_of(last_start as usize)
            )
        } else {
            format!(", {text}")
        };
        TextEdit::insert(last_end as usize, text)
    }

    /// A key as the syntax writes it.
    fn key(&self, key: &str) -> String {
        match self.syntax {
            Syntax::Json => json_string(key),
            Syntax::Yaml | Syntax::Proto => yaml_string(key),
        }
    }

    /// A value on one line, in the syntax's flow style.
    fn flow(&self, value: &NewValue) -> String {
        match value {
            NewValue::Str(s) => self.key(s),
            NewValue::Plain(text) => text.clone(),
            NewValue::Map(entries) => {
                let inner: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", self.key(k), self.flow(v)))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
            NewValue::Seq(items) => {
                let inner: Vec<String> = items.iter().map(|v| self.flow(v)).collect();
                format!("[{}]", inner.join(", "))
            }
        }
    }

    /// The line break the file uses.
    fn newline(&self) -> &'static str {
        if self.text.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        }
    }

    fn line_start(&self, offset: usize) -> usize {
        self.text[..offset].rfind('\n').map_or(0, |i| i + 1)
    }

    /// Where the line holding `offset` ends (before its break), past any comment on it. A
    /// span that ends with its line's break ends the line before it.
    fn line_end(&self, offset: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut at = offset;
        if at > 0 && bytes.get(at - 1) == Some(&b'\n') {
            at -= 1;
        } else {
            at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        }
        if at > 0 && bytes.get(at - 1) == Some(&b'\r') {
            at -= 1;
        }
        at
    }

    /// The start of the line after the one holding `offset` (or the end of the text).
    fn next_line(&self, offset: usize) -> usize {
        let end = self.line_end(offset);
        let bytes = self.text.as_bytes();
        match bytes.get(end) {
            Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
            Some(_) => end + 1,
            None => end,
        }
    }

    /// The column (in characters) of `offset` on its line.
    fn column_of(&self, offset: usize) -> usize {
        self.text[self.line_start(offset)..offset].chars().count()
    }

    /// The whitespace that starts the line holding `offset`.
    fn indent_of(&self, offset: usize) -> &str {
        let line = &self.text[self.line_start(offset)..offset];
        &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
    }
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// A string as YAML writes it: plain when it cannot be read as anything else, else
/// double-quoted (JSON's escapes are YAML's).
fn yaml_string(text: &str) -> String {
    let numeric = text.parse::<f64>().is_ok()
        || text.starts_with("0x")
        || text.starts_with("0o")
        || text.chars().all(|c| c.is_ascii_digit() || c == '_');
    let plain = !numeric
        && text
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain {
        text.to_string()
    } else {
        json_string(text)
    }
}

#[cfg(test)]
mod tests;
