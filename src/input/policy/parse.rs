//! Reads policy files and `x-retry-policy` objects from their spanned trees, with the
//! one reader of [`crate::input::read`]: the whole policy file into one [`PolicyFile`] (its policy
//! objects, `service`, `layers` and `lint`), every problem an input error at its span,
//! all of a file's problems at once.

use super::fields::{self, Kind};
use super::sections;
use super::store::{Read, store};
use super::{
    IgnoreEntry, LayerPlacement, Level, LintConfig, PolicyEntry, PolicyFile, PolicyObject,
    Position, Selector, Signal, Spanned,
};
use crate::error::InputError;
use crate::input::load::FileId;
use crate::input::read::{Context, FromNode, Name, Value, Whole, with_suggestion};
use crate::input::source::{Node, SourceFile, Span};
use crate::location::Loc;

/// Reads a whole policy file. `known_rules` are the rule names `lint` may mention.
pub fn parse_policy_file(
    file: &SourceFile,
    id: FileId,
    known_rules: &[&str],
) -> Result<PolicyFile, InputError> {
    let cx = Context::new(file, id);
    let policy = read_file(&cx, known_rules);
    cx.finish(policy)
}

/// Reads one policy object (an `operations` entry, `defaults`, or `x-retry-policy`).
pub fn parse_policy_object(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<PolicyObject, InputError> {
    let cx = Context::new(file, loc.file);
    let key = crate::input::source::pointer::decode(&loc.pointer).and_then(|t| t.last().cloned());
    let name = match key {
        Some(key) => Name::Key(key),
        None => Name::Phrase("a policy object".into()),
    };
    let policy = read_policy(&Value::new(&cx, node, loc.clone(), name));
    cx.finish(policy)
}

fn read_file(cx: &Context<'_>, known_rules: &[&str]) -> Option<PolicyFile> {
    let keys = sections::FILE.names();
    let root = cx.root("the policy file");
    let mut table = root.table(&keys)?;
    match table.entry("version") {
        None => cx.report(
            cx.error(
                Span::at(root.node.span.start as usize),
                format!("{} needs a `version`", root.name()),
            )
            .with_help("start the file with `version: 1`"),
        ),
        Some(version) if version.node.scalar_text() != Some("1") => cx.report(
            version
                .error(format!(
                    "unsupported policy version `{}`",
                    version.node.scalar_text().unwrap_or("?")
                ))
                .with_help("the only policy version is 1"),
        ),
        Some(_) => {}
    }
    table.optional::<String>("$schema");
    let defaults = table.section("defaults").map(|v| read_policy(&v));
    let operations = table.section("operations").map(|v| read_operations(&v));
    let service_hosts = table.section("service").map(|v| read_service(&v));
    let layers = table.section("layers").map(|v| read_layers(&v));
    let lint = table.section("lint").map(|v| read_lint(&v, known_rules));
    table.finish();
    Some(PolicyFile {
        file: root.loc.file,
        defaults: match defaults {
            Some(policy) => Some(policy?),
            None => None,
        },
        operations: operations.unwrap_or_default(),
        service_hosts: service_hosts.unwrap_or_default(),
        layers: layers.unwrap_or_default(),
        lint: lint.unwrap_or_default(),
    })
}

fn read_operations(value: &Value<'_, '_>) -> Vec<PolicyEntry> {
    let cx = value.context();
    let entries = value.entries().unwrap_or_default();
    // Sized up front: the entries live through the whole check, and a doubled list's spare
    // room would stay with them.
    let mut operations = Vec::with_capacity(entries.len());
    for (entry, value) in entries {
        let selector = Selector::parse(&entry.key).map_err(|why| {
            cx.report(cx.error(
                entry.key_span,
                format!("bad selector `{}`: {why}", entry.key),
            ));
        });
        let policy = read_policy(&value);
        if let (Ok(selector), Some(policy)) = (selector, policy) {
            operations.push(PolicyEntry {
                selector,
                policy,
                loc: value.loc,
            });
        }
    }
    operations
}

/// A policy object, whose fields the field table lists.
fn read_policy(value: &Value<'_, '_>) -> Option<PolicyObject> {
    let mut policy = PolicyObject::default();
    read_section(value, "", &mut policy).then_some(policy)
}

/// Reads into `p` the fields of one section of a policy object (`""`: the object itself);
/// whether every field was read.
fn read_section(value: &Value<'_, '_>, section: &str, p: &mut PolicyObject) -> bool {
    let (fields, keys) = fields::section_fields(section);
    let Some(mut table) = value.table(keys) else {
        return false;
    };
    let mut complete = true;
    for field in fields {
        let Some(entry) = table.entry(field.key()) else {
            continue;
        };
        let read = match field.kind {
            Kind::Section => read_section(&entry, field.name, p).then_some(Read::Section),
            kind => read_value(&entry, kind),
        };
        match read.map(|read| store(p, field, read, entry.loc.clone())) {
            Some(Ok(())) => {}
            Some(Err(error)) => {
                value.context().report(error);
                complete = false;
            }
            None => complete = false,
        }
    }
    table.finish();
    complete
}

/// A field's value, read as its kind says.
fn read_value(value: &Value<'_, '_>, kind: Kind) -> Option<Read> {
    match kind {
        Kind::Integer => value.read().map(Read::Integer),
        Kind::Duration => value.read().map(Read::Duration),
        Kind::Number => value.read().map(Read::Number),
        Kind::Boolean => value.read().map(Read::Boolean),
        Kind::Enum(names) => value.one_of(names).map(|i| Read::Name(names[i])),
        Kind::Signals => value.read().map(Read::Signals),
        Kind::Strings => value.read().map(Read::Strings),
        Kind::String => value.read().map(Read::String),
        Kind::Section => Some(Read::Section),
    }
}

/// A `retryOn` item: a status, a class or a transport signal.
impl FromNode for Signal {
    fn from_node(value: &Value<'_, '_>) -> Option<Signal> {
        let text = value.node.scalar_text().unwrap_or_default();
        if let Some(signal) = parse_signal(text) {
            return Some(signal);
        }
        let error = value.error(format!(
            "`{text}` is not a retry condition: use a status (503), a class (5xx) or one of {}",
            fields::SIGNALS.join(", ")
        ));
        value
            .context()
            .report(with_suggestion(error, text, fields::SIGNALS, None));
        None
    }
}

fn read_service(value: &Value<'_, '_>) -> Vec<Spanned<String>> {
    let keys = sections::SERVICE.names();
    let Some(mut table) = value.table(&keys) else {
        return Vec::new();
    };
    let hosts = table.optional("hosts");
    table.finish();
    hosts.unwrap_or_default()
}

fn read_layers(value: &Value<'_, '_>) -> Vec<LayerPlacement> {
    let items = value.items().unwrap_or_default();
    items.iter().filter_map(read_layer).collect()
}

/// One `layers` entry: a position, for the layers of a file, of a name, or of both.
fn read_layer(value: &Value<'_, '_>) -> Option<LayerPlacement> {
    let keys = sections::LAYER.names();
    let mut table = value.table(&keys)?;
    let file = table.optional("file");
    let name = table.optional("name");
    let position = table.required::<Spanned<Position>>("position");
    if value.node.get("file").is_none() && value.node.get("name").is_none() {
        value.fail::<()>(format!(
            "{} needs a `file` or a `name` to say which layers it places",
            value.name()
        ));
    }
    table.finish();
    Some(LayerPlacement {
        file,
        name,
        position: position?,
        loc: value.loc.clone(),
    })
}

fn read_lint(value: &Value<'_, '_>, known_rules: &[&str]) -> LintConfig {
    let keys = sections::LINT.names();
    let Some(mut table) = value.table(&keys) else {
        return LintConfig::default();
    };
    let mut lint = LintConfig::default();
    if let Some(rules) = table.entry("rules") {
        for (entry, level) in rules.entries().unwrap_or_default() {
            let rule = rule_name(&level, &entry.key, entry.key_span, known_rules);
            if let (Some(rule), Some(level)) = (rule, level.read::<Spanned<Level>>()) {
                lint.rules
                    .push((Spanned::new(rule, level.loc.clone()), level));
            }
        }
    }
    lint.max_attempts_limit = table.optional("maxAttemptsLimit");
    lint.max_amplification = table
        .optional::<Spanned<Whole<1>>>("maxAmplification")
        .map(|n| Spanned::new(n.value.0, n.loc));
    lint.key_headers = table.optional("keyHeaders").unwrap_or_default();
    if let Some(ignore) = table.entry("ignore") {
        let items = ignore.items().unwrap_or_default();
        lint.ignore = items
            .iter()
            .filter_map(|item| read_ignore(item, known_rules))
            .collect();
    }
    table.finish();
    lint
}

/// A rule name of `lint`, which must be a rule's.
fn rule_name(at: &Value<'_, '_>, name: &str, span: Span, known: &[&str]) -> Option<String> {
    if known.contains(&name) {
        return Some(name.to_string());
    }
    let cx = at.context();
    let error = cx.error(span, format!("unknown rule `{name}`"));
    let help = "`retrylint rules` lists every rule".to_string();
    cx.report(with_suggestion(error, name, known, Some(help)));
    None
}

fn read_ignore(value: &Value<'_, '_>, known_rules: &[&str]) -> Option<IgnoreEntry> {
    let keys = sections::IGNORE.names();
    let mut table = value.table(&keys)?;
    let rule = table.entry("rule").map_or_else(
        || table.missing("rule"),
        |at| {
            let name = at.read::<String>()?;
            let name = rule_name(&at, &name, at.node.span, known_rules)?;
            Some(Spanned::new(name, at.loc.clone()))
        },
    );
    let operations = table.entry("operations").map(|at| {
        let items = at.items()?;
        let selectors: Vec<Option<Spanned<Selector>>> = items.iter().map(selector).collect();
        selectors.into_iter().collect::<Option<Vec<_>>>()
    });
    let reason = table.optional("reason");
    table.finish();
    Some(IgnoreEntry {
        rule: rule?,
        operations: match operations {
            Some(selectors) => selectors?,
            None => Vec::new(),
        },
        reason,
        loc: value.loc.clone(),
    })
}

/// A selector written as a string.
fn selector(value: &Value<'_, '_>) -> Option<Spanned<Selector>> {
    let text = value.read::<String>()?;
    match Selector::parse(&text) {
        Ok(selector) => Some(Spanned::new(selector, value.loc.clone())),
        Err(why) => value.fail(format!("bad selector `{text}`: {why}")),
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
