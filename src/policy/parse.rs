//! Reads policy files and `x-retry-policy` objects from their spanned trees.
//!
//! Every problem is an input error at the exact span, with a "did you mean" for
//! misspelt keys and values.

use super::{
    Duration, IgnoreEntry, Jitter, Level, LintConfig, PolicyEntry, PolicyFile, PolicyObject,
    RetryAfterFallback, Selector, SideEffect, Signal, Spanned, UnknownOutcome,
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
const POLICY_KEYS: &[&str] = &[
    "maxAttempts",
    "deadline",
    "perAttemptTimeout",
    "backoff",
    "retryOn",
    "retryAfter",
    "log",
    "sideEffect",
    "idempotency",
    "onUnknownOutcome",
];
const BACKOFF_KEYS: &[&str] = &["base", "cap", "multiplier", "jitter"];
const RETRY_AFTER_KEYS: &[&str] = &["honor", "max", "onMissing", "onInvalid"];
const FALLBACKS: &[(&str, RetryAfterFallback)] = &[
    ("backoff", RetryAfterFallback::Backoff),
    ("stop", RetryAfterFallback::Stop),
];
const IDEMPOTENCY_KEYS: &[&str] = &["keyHeader", "keyRetention", "statusEndpoint"];
/// `maxAmplification` is read by [`crate::layers::settings`].
const LINT_KEYS: &[&str] = &["rules", "maxAttemptsLimit", "maxAmplification", "ignore"];
const IGNORE_KEYS: &[&str] = &["rule", "operations", "reason"];
const SIGNALS: &[&str] = &["connect-failure", "refused-stream", "reset", "timeout"];

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
        let map = self.mapping(node, "a policy object", POLICY_KEYS)?;
        let mut p = PolicyObject::default();
        for entry in map.entries() {
            let at = loc.entry(&entry.key, entry.key_span, &entry.value);
            let v = &entry.value;
            match &*entry.key {
                "maxAttempts" => p.max_attempts = Some(self.integer(entry, at)?),
                "deadline" => p.deadline = Some(self.duration(entry, at)?),
                "perAttemptTimeout" => p.per_attempt_timeout = Some(self.duration(entry, at)?),
                "backoff" => {
                    let section = self.mapping(v, "`backoff`", BACKOFF_KEYS)?;
                    for e in section.entries() {
                        let field = at.entry(&e.key, e.key_span, &e.value);
                        match &*e.key {
                            "base" => p.backoff_base = Some(self.duration(e, field)?),
                            "cap" => p.backoff_cap = Some(self.duration(e, field)?),
                            "multiplier" => p.backoff_multiplier = Some(self.number(e, field)?),
                            _ => p.jitter = Some(self.jitter(e, field)?),
                        }
                    }
                    p.backoff = Some(Spanned::new((), at));
                }
                "retryOn" => p.retry_on = Some(self.signals(entry, at)?),
                "retryAfter" => {
                    let section = self.mapping(v, "`retryAfter`", RETRY_AFTER_KEYS)?;
                    for e in section.entries() {
                        let field = at.entry(&e.key, e.key_span, &e.value);
                        match &*e.key {
                            "honor" => p.retry_after_honor = Some(self.boolean(e, field)?),
                            "onMissing" => {
                                p.retry_after_on_missing = Some(self.choice(e, field, FALLBACKS)?)
                            }
                            "onInvalid" => {
                                p.retry_after_on_invalid = Some(self.choice(e, field, FALLBACKS)?)
                            }
                            _ => p.retry_after_max = Some(self.duration(e, field)?),
                        }
                    }
                    p.retry_after = Some(Spanned::new((), at));
                }
                "log" => p.log = Some(self.strings(entry, at)?),
                "sideEffect" => {
                    p.side_effect = Some(self.choice(
                        entry,
                        at,
                        &[
                            ("none", SideEffect::None),
                            ("idempotent", SideEffect::Idempotent),
                            ("non-idempotent", SideEffect::NonIdempotent),
                        ],
                    )?)
                }
                "idempotency" => {
                    let section = self.mapping(v, "`idempotency`", IDEMPOTENCY_KEYS)?;
                    for e in section.entries() {
                        let field = at.entry(&e.key, e.key_span, &e.value);
                        match &*e.key {
                            "keyHeader" => p.key_header = Some(self.string(e, field)?),
                            "keyRetention" => p.key_retention = Some(self.duration(e, field)?),
                            _ => p.status_endpoint = Some(self.string(e, field)?),
                        }
                    }
                    p.idempotency = Some(Spanned::new((), at));
                }
                _ => {
                    p.on_unknown_outcome = Some(self.choice(
                        entry,
                        at,
                        &[
                            ("fail", UnknownOutcome::Fail),
                            ("reconcile", UnknownOutcome::Reconcile),
                            ("retry-same-key", UnknownOutcome::RetrySameKey),
                        ],
                    )?)
                }
            }
        }
        Ok(p)
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
        let text = entry.value.scalar_text().unwrap_or_default();
        if let Some((_, value)) = options.iter().find(|(name, _)| *name == text) {
            return Ok(Spanned::new(*value, loc));
        }
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
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

    fn jitter(&self, entry: &Entry, loc: Loc) -> Result<Spanned<Jitter>, InputError> {
        self.choice(
            entry,
            loc,
            &[
                ("none", Jitter::None),
                ("full", Jitter::Full),
                ("equal", Jitter::Equal),
                ("decorrelated", Jitter::Decorrelated),
            ],
        )
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
                        SIGNALS.join(", ")
                    ),
                );
                match did_you_mean(text, SIGNALS.iter().copied()) {
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
    fn signals_parse() {
        assert_eq!(parse_signal("503"), Some(Signal::Status(503)));
        assert_eq!(parse_signal("5xx"), Some(Signal::Class(5)));
        assert_eq!(parse_signal("5XX"), Some(Signal::Class(5)));
        assert_eq!(parse_signal("timeout"), Some(Signal::Timeout));
        assert_eq!(parse_signal("700"), None);
        assert_eq!(parse_signal("timeouts"), None);
    }
}
