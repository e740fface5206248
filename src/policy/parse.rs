//! Reads policy files and `x-retry-policy` objects from their spanned trees.
//!
//! Every problem is an input error at the exact span, with a "did you mean" for
//! misspelt keys and values.

use super::fields::{self, Kind};
use super::store::{Read, store};
use super::{
    Duration, IgnoreEntry, Level, LintConfig, PolicyEntry, PolicyFile, PolicyObject, Selector,
    Signal, Spanned,
};
use crate::error::{InputError, did_you_mean};
use crate::load::FileId;
use crate::location::Loc;
use crate::source::{Entry, Map, Node, SourceFile, Value};

/// `service` and `layers` are read by [`crate::layers::settings`].
const TOP_KEYS: &[&str] = &[
    "version",
    "defaults",
    "operations",
    "lint",
    "service",
    "layers",
    "$schema",
];
/// `maxAmplification` is read by [`crate::layers::settings`].
const LINT_KEYS: &[&str] = &[
    "rules",
    "maxAttemptsLimit",
    "maxAmplification",
    "keyHeaders",
    "ignore",
];
const IGNORE_KEYS: &[&str] = &["rule", "operations", "reason"];

/// Reads a whole policy file. `known_rules` are the rule names `lint` may mention.
pub fn parse_policy_file(
    file: &SourceFile,
    id: FileId,
    known_rules: &[&str],
) -> Result<PolicyFile, InputError> {
    let reader = Reader { file };
    let root = Loc::new(id, "", file.root.span);
    let map = reader.mapping(&file.root, "the policy file", TOP_KEYS)?;
    let version = map.entry("version").ok_or_else(|| {
        InputError::at(
            file,
            crate::source::Span::at(file.root.span.start as usize),
            "the policy file has no `version`",
        )
        .with_help("start the file with `version: 1`")
    })?;
    if version.value.scalar_text() != Some("1") {
        return Err(InputError::at(
            file,
            version.value.span,
            format!(
                "unsupported policy version `{}`",
                version.value.scalar_text().unwrap_or("?")
            ),
        )
        .with_help("the only policy version is 1"));
    }
    // An empty section (`operations:` with every entry commented out) is no section.
    let section = |key: &str| map.entry(key).filter(|e| e.value.value != Value::Null);
    let defaults = match section("defaults") {
        Some(e) => Some(reader.policy(&e.value, &root.entry(&e.key, e.key_span, &e.value))?),
        None => None,
    };
    let mut operations = Vec::new();
    if let Some(e) = section("operations") {
        let loc = root.entry(&e.key, e.key_span, &e.value);
        let list = reader.mapping(&e.value, "`operations`", &[])?;
        for entry in list.entries() {
            let selector = Selector::parse(&entry.key).map_err(|why| {
                InputError::at(
                    file,
                    entry.key_span,
                    format!("bad selector `{}`: {why}", entry.key),
                )
            })?;
            let loc = loc.entry(&entry.key, entry.key_span, &entry.value);
            operations.push(PolicyEntry {
                selector,
                policy: reader.policy(&entry.value, &loc)?,
                loc,
            });
        }
    }
    let lint = match section("lint") {
        Some(e) => reader.lint(
            &e.value,
            &root.entry(&e.key, e.key_span, &e.value),
            known_rules,
        )?,
        None => LintConfig::default(),
    };
    Ok(PolicyFile {
        file: id,
        defaults,
        operations,
        lint,
    })
}

/// Reads one policy object (an `operations` entry, `defaults`, or `x-retry-policy`).
pub fn parse_policy_object(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<PolicyObject, InputError> {
    Reader { file }.policy(node, loc)
}

struct Reader<'a> {
    file: &'a SourceFile,
}

impl Reader<'_> {
    fn error(&self, node: &Node, message: impl Into<String>) -> InputError {
        InputError::at(self.file, node.span, message)
    }

    /// The node as a mapping whose keys are all in `allowed` (any key when it is empty).
    fn mapping<'n>(
        &self,
        node: &'n Node,
        what: &str,
        allowed: &[&str],
    ) -> Result<&'n Map, InputError> {
        let Some(map) = node.as_map() else {
            return Err(self.error(
                node,
                format!("{what} must be a mapping, found {}", node.kind()),
            ));
        };
        if allowed.is_empty() {
            return Ok(map);
        }
        for entry in map.entries() {
            if !allowed.contains(&&*entry.key) {
                let mut error = InputError::at(
                    self.file,
                    entry.key_span,
                    format!("unknown key `{}` in {what}", entry.key),
                );
                error = match did_you_mean(&entry.key, allowed.iter().copied()) {
                    Some(near) => error.with_help(format!("did you mean `{near}`?")),
                    None => error.with_help(format!("expected one of: {}", allowed.join(", "))),
                };
                return Err(error);
            }
        }
        Ok(map)
    }

    fn policy(&self, node: &Node, loc: &Loc) -> Result<PolicyObject, InputError> {
        let mut p = PolicyObject::default();
        self.section(node, "", loc, &mut p)?;
        Ok(p)
    }

    /// Reads into `p` the fields of one section of a policy object (`""`: the object
    /// itself), which the field table lists.
    fn section(
        &self,
        node: &Node,
        section: &str,
        loc: &Loc,
        p: &mut PolicyObject,
    ) -> Result<(), InputError> {
        let what = match section {
            "" => "a policy object".to_string(),
            name => format!("`{name}`"),
        };
        let keys: Vec<&str> = fields::in_section(section).map(|f| f.key()).collect();
        let map = self.mapping(node, &what, &keys)?;
        for entry in map.entries() {
            // `mapping` let through only the section's keys.
            let Some(field) = fields::in_section(section).find(|f| f.key() == &*entry.key) else {
                continue;
            };
            let at = loc.entry(&entry.key, entry.key_span, &entry.value);
            let value = match field.kind {
                Kind::Section => {
                    self.section(&entry.value, field.name, &at, p)?;
                    Read::Section
                }
                kind => self.value(entry, kind, &at)?,
            };
            store(p, field, value, at)?;
        }
        Ok(())
    }

    /// A field's value, read as its kind says.
    fn value(&self, entry: &Entry, kind: Kind, at: &Loc) -> Result<Read, InputError> {
        let at = at.clone();
        Ok(match kind {
            Kind::Integer => Read::Integer(self.integer(entry, at)?.value),
            Kind::Duration => Read::Duration(self.duration(entry, at)?.value),
            Kind::Number => Read::Number(self.number(entry, at)?.value),
            Kind::Boolean => Read::Boolean(self.boolean(entry, at)?.value),
            Kind::Enum(names) => Read::Name(names[self.one_of(entry, names)?]),
            Kind::Signals => Read::Signals(self.signals(entry, at)?.value),
            Kind::Strings => Read::Strings(self.strings(entry, at)?.value),
            Kind::String => Read::String(self.string(entry, at)?.value),
            Kind::Section => Read::Section,
        })
    }

    fn integer(&self, entry: &Entry, loc: Loc) -> Result<Spanned<i64>, InputError> {
        let v = &entry.value;
        match &v.value {
            Value::Number(text) => {
                text.parse::<i64>()
                    .map(|n| Spanned::new(n, loc))
                    .map_err(|_| {
                        self.error(
                            v,
                            format!("`{}` must be a whole number, found `{text}`", entry.key),
                        )
                    })
            }
            _ => Err(self.error(
                v,
                format!("`{}` must be a whole number, found {}", entry.key, v.kind()),
            )),
        }
    }

    fn number(&self, entry: &Entry, loc: Loc) -> Result<Spanned<f64>, InputError> {
        let v = &entry.value;
        match &v.value {
            Value::Number(text) => match text.parse::<f64>() {
                Ok(n) if n.is_finite() => Ok(Spanned::new(n, loc)),
                _ => Err(self.error(
                    v,
                    format!("`{}` must be a finite number, found `{text}`", entry.key),
                )),
            },
            _ => Err(self.error(
                v,
                format!("`{}` must be a number, found {}", entry.key, v.kind()),
            )),
        }
    }

    fn boolean(&self, entry: &Entry, loc: Loc) -> Result<Spanned<bool>, InputError> {
        entry
            .value
            .as_bool()
            .map(|b| Spanned::new(b, loc))
            .ok_or_else(|| {
                self.error(
                    &entry.value,
                    format!(
                        "`{}` must be true or false, found {}",
                        entry.key,
                        entry.value.kind()
                    ),
                )
            })
    }

    fn string(&self, entry: &Entry, loc: Loc) -> Result<Spanned<String>, InputError> {
        match &entry.value.value {
            Value::String(s) => Ok(Spanned::new(s.to_string(), loc)),
            _ => Err(self.error(
                &entry.value,
                format!(
                    "`{}` must be a string, found {}",
                    entry.key,
                    entry.value.kind()
                ),
            )),
        }
    }

    fn duration(&self, entry: &Entry, loc: Loc) -> Result<Spanned<Duration>, InputError> {
        let v = &entry.value;
        let text = match &v.value {
            Value::String(s) | Value::Number(s) => s,
            _ => {
                return Err(self.error(
                    v,
                    format!(
                        "`{}` must be a duration such as 500ms or 2s, found {}",
                        entry.key,
                        v.kind()
                    ),
                ));
            }
        };
        Duration::parse(text)
            .map(|d| Spanned::new(d, loc))
            .map_err(|why| self.error(v, format!("bad duration for `{}`: {why}", entry.key)))
    }

    fn choice<T: Copy>(
        &self,
        entry: &Entry,
        loc: Loc,
        options: &[(&str, T)],
    ) -> Result<Spanned<T>, InputError> {
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        let index = self.one_of(entry, &names)?;
        Ok(Spanned::new(options[index].1, loc))
    }

    /// The index in `names` of the entry's value, which must be one of them.
    fn one_of(&self, entry: &Entry, names: &[&str]) -> Result<usize, InputError> {
        let text = entry.value.scalar_text().unwrap_or_default();
        if let Some(index) = names.iter().position(|name| *name == text) {
            return Ok(index);
        }
        let error = self.error(
            &entry.value,
            format!(
                "`{}` cannot be `{text}`: expected one of {}",
                entry.key,
                names.join(", ")
            ),
        );
        Err(match did_you_mean(text, names.iter().copied()) {
            Some(near) => error.with_help(format!("did you mean `{near}`?")),
            None => error,
        })
    }

    fn list<'n>(&self, entry: &'n Entry) -> Result<&'n [Node], InputError> {
        entry.value.as_seq().ok_or_else(|| {
            self.error(
                &entry.value,
                format!(
                    "`{}` must be a list, found {}",
                    entry.key,
                    entry.value.kind()
                ),
            )
        })
    }

    fn strings(
        &self,
        entry: &Entry,
        loc: Loc,
    ) -> Result<Spanned<Vec<Spanned<String>>>, InputError> {
        let mut out = Vec::new();
        for (i, item) in self.list(entry)?.iter().enumerate() {
            let Some(text) = item.as_str() else {
                return Err(self.error(item, format!("items of `{}` must be strings", entry.key)));
            };
            out.push(Spanned::new(text.to_string(), loc.item(i, item)));
        }
        Ok(Spanned::new(out, loc))
    }

    fn signals(
        &self,
        entry: &Entry,
        loc: Loc,
    ) -> Result<Spanned<Vec<Spanned<Signal>>>, InputError> {
        let mut out = Vec::new();
        for (i, item) in self.list(entry)?.iter().enumerate() {
            let text = item.scalar_text().unwrap_or_default();
            let signal = parse_signal(text).ok_or_else(|| {
                let error = self.error(
                    item,
                    format!(
                        "`{text}` is not a retry condition: use a status (503), a class (5xx) or one of {}",
                        fields::SIGNALS.join(", ")
                    ),
                );
                match did_you_mean(text, fields::SIGNALS.iter().copied()) {
                    Some(near) => error.with_help(format!("did you mean `{near}`?")),
                    None => error,
                }
            })?;
            out.push(Spanned::new(signal, loc.item(i, item)));
        }
        Ok(Spanned::new(out, loc))
    }

    fn lint(&self, node: &Node, loc: &Loc, known_rules: &[&str]) -> Result<LintConfig, InputError> {
        let map = self.mapping(node, "`lint`", LINT_KEYS)?;
        let mut lint = LintConfig::default();
        for entry in map.entries() {
            let at = loc.entry(&entry.key, entry.key_span, &entry.value);
            match &*entry.key {
                "rules" => {
                    for e in self.mapping(&entry.value, "`lint.rules`", &[])?.entries() {
                        let rule = self.rule_name(&e.key, e.key_span, known_rules)?;
                        let field = at.entry(&e.key, e.key_span, &e.value);
                        let level = self.choice(
                            e,
                            field.clone(),
                            &[
                                ("off", Level::Off),
                                ("info", Level::Info),
                                ("warning", Level::Warning),
                                ("error", Level::Error),
                            ],
                        )?;
                        lint.rules.push((Spanned::new(rule, field), level));
                    }
                }
                "maxAttemptsLimit" => lint.max_attempts_limit = Some(self.integer(entry, at)?),
                "maxAmplification" => {}
                "keyHeaders" => lint.key_headers = self.strings(entry, at)?.value,
                _ => {
                    for (i, item) in self.list(entry)?.iter().enumerate() {
                        lint.ignore
                            .push(self.ignore_entry(item, at.item(i, item), known_rules)?);
                    }
                }
            }
        }
        Ok(lint)
    }

    fn rule_name(
        &self,
        name: &str,
        span: crate::source::Span,
        known: &[&str],
    ) -> Result<String, InputError> {
        if known.contains(&name) {
            return Ok(name.to_string());
        }
        let error = InputError::at(self.file, span, format!("unknown rule `{name}`"));
        Err(match did_you_mean(name, known.iter().copied()) {
            Some(near) => error.with_help(format!("did you mean `{near}`?")),
            None => error.with_help("`retrylint rules` lists every rule"),
        })
    }

    fn ignore_entry(
        &self,
        node: &Node,
        loc: Loc,
        known_rules: &[&str],
    ) -> Result<IgnoreEntry, InputError> {
        let map = self.mapping(node, "a `lint.ignore` entry", IGNORE_KEYS)?;
        let Some(rule) = map.entry("rule") else {
            return Err(self.error(node, "a `lint.ignore` entry needs a `rule`"));
        };
        let rule_loc = loc.entry("rule", rule.key_span, &rule.value);
        let name = self.string(rule, rule_loc.clone())?;
        let name = Spanned::new(
            self.rule_name(&name.value, rule.value.span, known_rules)?,
            rule_loc,
        );
        let mut operations = Vec::new();
        if let Some(e) = map.entry("operations") {
            let list_loc = loc.entry("operations", e.key_span, &e.value);
            for (i, item) in self.list(e)?.iter().enumerate() {
                let text = item
                    .as_str()
                    .ok_or_else(|| self.error(item, "selectors must be strings"))?;
                let selector = Selector::parse(text)
                    .map_err(|why| self.error(item, format!("bad selector `{text}`: {why}")))?;
                operations.push(Spanned::new(selector, list_loc.item(i, item)));
            }
        }
        let reason = match map.entry("reason") {
            Some(e) => Some(self.string(e, loc.entry("reason", e.key_span, &e.value))?),
            None => None,
        };
        Ok(IgnoreEntry {
            rule: name,
            operations,
            reason,
            loc,
        })
    }
}

/// Parses one `retryOn` item: `503`, `5xx`, or a transport signal.
pub(crate) fn parse_signal(text: &str) -> Option<Signal> {
    match text {
        "connect-failure" => return Some(Signal::ConnectFailure),
        "refused-stream" => return Some(Signal::RefusedStream),
        "reset" => return Some(Signal::Reset),
        "timeout" => return Some(Signal::Timeout),
        _ => {}
    }
    let bytes = text.as_bytes();
    if bytes.len() == 3 && (b'1'..=b'5').contains(&bytes[0]) {
        if text[1..].eq_ignore_ascii_case("xx") {
            return Some(Signal::Class(u16::from(bytes[0] - b'0')));
        }
        if let Ok(code) = text.parse::<u16>() {
            return Some(Signal::Status(code));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transport_signals_of_the_field_table_parse_as_themselves() {
        for name in fields::SIGNALS {
            let signal = parse_signal(name);
            assert_eq!(signal.map(|s| s.to_string()).as_deref(), Some(*name));
        }
    }

    #[test]
    fn signals_parse() {
        assert_eq!(parse_signal("503"), Some(Signal::Status(503)));
        assert_eq!(parse_signal("5xx"), Some(Signal::Class(5)));
        assert_eq!(parse_signal("5XX"), Some(Signal::Class(5)));
        assert_eq!(parse_signal("timeout"), Some(Signal::Timeout));
        assert_eq!(parse_signal("700"), None);
        assert_eq!(parse_signal("timeouts"), None);
    }
}
