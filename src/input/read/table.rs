//! [`Table`]: a mapping read key by key, whose unknown keys are reported when it is
//! finished.

use super::{FromNode, Name, Value, with_suggestion};

/// A mapping with a fixed set of keys, read key by key.
///
/// Each key the reader asks for must be one of the table's `keys` (asking for another is
/// an internal error: the key list, which the JSON Schema is made from too, would not
/// describe it). [`Table::finish`] reports every key of the mapping outside that list,
/// with a "did you mean", and every key of the list that was written but never asked for.
#[derive(Debug)]
pub(crate) struct Table<'a, 'f> {
    value: Value<'a, 'f>,
    map: &'a crate::input::source::Map,
    keys: &'a [&'a str],
    asked: Vec<&'a str>,
}

impl<'a, 'f> Table<'a, 'f> {
    /// The value as a table of `keys`; `None` (an error recorded) when it is no mapping.
    pub(crate) fn new(value: Value<'a, 'f>, keys: &'a [&'a str]) -> Option<Table<'a, 'f>> {
        let Some(map) = value.node.as_map() else {
            return value.expected("a mapping");
        };
        Some(Table {
            value,
            map,
            keys,
            asked: Vec::new(),
        })
    }

    /// The value under `key`, when it is written (a null included).
    pub(crate) fn entry(&mut self, key: &'a str) -> Option<Value<'a, 'f>> {
        if !self.keys.contains(&key) {
            return self.value.fail(format!(
                "internal error: the reader of {} asks for `{key}`, which its key list does not name",
                self.value.name()
            ));
        }
        self.asked.push(key);
        let entry = self.map.entry(key)?;
        let loc = self.value.loc.entry(key, entry.key_span, &entry.value);
        Some(Value::new(
            self.value.context(),
            &entry.value,
            loc,
            Name::Key(key.into()),
        ))
    }

    /// The value under `key`, when it is written and not null: an empty section
    /// (`operations:` with every entry commented out) is no section.
    pub(crate) fn section(&mut self, key: &'a str) -> Option<Value<'a, 'f>> {
        self.entry(key)
            .filter(|v| !matches!(v.node.value, crate::input::source::Value::Null))
    }

    /// The value under `key`, which must be written.
    pub(crate) fn required<T: FromNode>(&mut self, key: &'a str) -> Option<T> {
        match self.entry(key) {
            Some(value) => value.read(),
            None => self.missing(key),
        }
    }

    /// Records that `key` is missing; `None`, for `return`.
    pub(crate) fn missing<T>(&self, key: &str) -> Option<T> {
        self.value
            .fail(format!("{} needs a `{key}`", self.value.name()))
    }

    /// The value under `key`, when it is written and reads as `T` (an error is recorded
    /// when it does not).
    pub(crate) fn optional<T: FromNode>(&mut self, key: &'a str) -> Option<T> {
        self.entry(key)?.read()
    }

    /// Reports every key outside the table's list, and any key of the list that is
    /// written but was never asked for.
    pub(crate) fn finish(self) {
        let cx = self.value.context();
        for entry in self.map.entries() {
            let key = &*entry.key;
            if !self.keys.contains(&key) {
                let error = cx.error(
                    entry.key_span,
                    format!("unknown key `{key}` in {}", self.value.name()),
                );
                let expected = format!("expected one of: {}", self.keys.join(", "));
                cx.report(with_suggestion(error, key, self.keys, Some(expected)));
            } else if !self.asked.contains(&key) {
                cx.report(cx.error(
                    entry.key_span,
                    format!(
                        "internal error: `{key}` is a key of {} that nothing reads",
                        self.value.name()
                    ),
                ));
            }
        }
    }
}
