//! The SDK layer: `x-speakeasy-retries` in the description (document root and operations).
//!
//! A Speakeasy-generated SDK retries on its own, on the client's side of every other
//! layer. The document root's setting applies to every operation without its own; an
//! operation's replaces it whole (the two are never merged). The setting has no count:
//! the SDK retries until `maxElapsedTime` has passed, and how many attempts that allows
//! depends on the SDK's language ([`sdk`]). Speakeasy's documented defaults (500 ms,
//! 60 s, 1 h, 1.5) apply to what `backoff` leaves out, noted as such.
//! (speakeasy.com/docs/customize-sdks/retries.)
//!
//! One SDK is generated per language for the whole description, and the description does
//! not say which: the layer assumes the language whose SDK makes the most attempts on any
//! of its operations, names it (`Speakeasy TypeScript SDK with x-speakeasy-retries`), and
//! says in the count's note that it is assumed.

mod sdk;
#[cfg(test)]
mod tests;

use std::cmp::Reverse;

pub use sdk::Language;

use super::format::{DocsRow, FormatSpec, RetryAfter};
use super::names::Name;
use super::values::{bad_value, boolean, field, list, mapping, text, whole_number};
use super::{Format, Layer, PathMatch, Route, RouteMatch, StringMatch};
use crate::analysis::layers::format::Fix;
use crate::error::InputError;
use crate::input::load::Sources;
use crate::input::model::{Api, Extension, Operation};
use crate::input::policy::{Duration, PolicyObject, Signal, Spanned, parse_signal};
use crate::input::source::{Node, SourceFile, Value};
use crate::location::Loc;

/// The extension, as layers and messages name it.
const NAME: &str = "x-speakeasy-retries";

/// What `x-speakeasy-retries` is as a format: read from the description, not with `-p`.
pub static SPEC: FormatSpec = FormatSpec {
    label: NAME,
    position: super::Position::Client,
    objects: &[],
    understood: None,
    family: "Speakeasy",
    importer: None,
    // The SDKs Speakeasy generates honour it, each language in its own way.
    retry_after: RetryAfter::Can,
    budget: false,
    retries_off: None,
    docs: DocsRow {
        format: "`x-speakeasy-retries` in the description",
        position_note: "",
        read: "root and operation settings",
        defaults: "Speakeasy's backoff defaults; the attempts of the generated SDK's loop for the language that retries the most (named in every finding); `Retry-After` as that SDK honours it",
    },
    help: &[
        (Fix::Deadline, "set `backoff.maxElapsedTime`"),
        (
            Fix::WriteRetries,
            "give the operation `x-speakeasy-retries: {strategy: none}`, or have the SDK send an idempotency key the server deduplicates on",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from `statusCodes`",
        ),
        (
            Fix::TooManyAttempts,
            "lower `backoff.maxElapsedTime`, or raise `initialInterval`: the SDK retries until maxElapsedTime has passed",
        ),
        (
            Fix::RetryAfterUnbounded,
            "bound Retry-After in an SDK hook, or use the TypeScript SDK, which waits at most `maxInterval`",
        ),
        (
            Fix::NoWait,
            "set `backoff.initialInterval` and `backoff.maxInterval`",
        ),
        (
            Fix::Backoff,
            "set `backoff.initialInterval` and `backoff.maxInterval`",
        ),
    ],
};

/// Speakeasy's documented backoff defaults: (field, milliseconds or exponent, note).
const DEFAULT_INITIAL: (&str, i64, &str) = (
    "initialInterval",
    500,
    "Speakeasy's default initialInterval",
);
const DEFAULT_MAX: (&str, i64, &str) = ("maxInterval", 60_000, "Speakeasy's default maxInterval");
const DEFAULT_ELAPSED: (&str, i64, &str) = (
    "maxElapsedTime",
    3_600_000,
    "Speakeasy's default maxElapsedTime",
);
const DEFAULT_EXPONENT: (&str, f64, &str) = ("exponent", 1.5, "Speakeasy's default exponent");

/// The SDK layer the description's `x-speakeasy-retries` declare, if any: one route per
/// operation that says something (its own extension, or the document's).
pub fn import(api: &Api, sources: &Sources) -> Result<Option<Layer>, InputError> {
    let root = match &api.speakeasy_retries {
        Some(ext) => Some((read(sources, ext)?, ext)),
        None => None,
    };
    let mut settings = Vec::new();
    for op in &api.operations {
        let (setting, ext) = match (&op.speakeasy_retries, &root) {
            (Some(own), _) => (read(sources, own)?, &**own),
            (None, Some((setting, ext))) => (setting.clone(), *ext),
            (None, None) => continue,
        };
        settings.push((op, setting, ext));
    }
    let counts = Counts::of(settings.iter().map(|(_, setting, _)| setting));
    let language = counts.most();
    let mut routes: Vec<Route> = settings
        .into_iter()
        .map(|(op, setting, ext)| route(op, setting.finish(language, &counts), ext))
        .collect();
    // Binding reads a route's exact path as a request path, in which a template parameter
    // takes any segment: the route of `/payments/search` also takes `/payments/{id}`. Each
    // operation must meet its own route first, so routes with more parameters come first
    // (the SDK has no order of its own: each operation has its setting).
    routes.sort_by_key(|route| Reverse(parameters(route)));
    let Some(loc) = root
        .map(|(_, ext)| ext.loc.clone())
        .or_else(|| routes.first().map(|r| r.loc.clone()))
    else {
        return Ok(None);
    };
    Ok(Some(Layer {
        format: Format::Speakeasy,
        position: Format::Speakeasy.default_position(),
        name: Name::of(&format!("Speakeasy {} SDK with", language.name()), NAME),
        loc,
        hosts: Vec::new(),
        routes,
        budget: None,
    }))
}

/// The route of one operation: exactly its method and path.
fn route(op: &Operation, policy: PolicyObject, ext: &Extension) -> Route {
    Route {
        loc: ext.loc.clone(),
        name: Name::new(&op.key()),
        matches: vec![RouteMatch {
            path: PathMatch::Exact(op.path.clone()),
            method: Some(StringMatch::Exact(op.method.as_str().to_string())),
            condition: None,
            loc: op.loc.clone(),
        }],
        policy,
        implicit: false,
        budget_only: false,
        retried_methods: None,
        unsupported: Vec::new(),
    }
}

/// How many template parameters a route's path has.
fn parameters(route: &Route) -> usize {
    match route.matches.first().map(|m| &m.path) {
        Some(PathMatch::Exact(path)) => path.matches('{').count(),
        _ => 0,
    }
}

/// One `x-speakeasy-retries` value: its policy, and what the SDK's language decides.
#[derive(Debug, Clone)]
struct Setting {
    policy: PolicyObject,
    /// The backoff of a setting that retries (`strategy: backoff`).
    backoff: Option<Pending>,
}

/// What a backoff leaves to the SDK's language: the count, and `Retry-After`.
#[derive(Debug, Clone)]
struct Pending {
    numbers: sdk::Backoff,
    /// Where the count stands: `maxElapsedTime`, or where its default is noted.
    attempts_at: Loc,
    /// `maxElapsedTime` is Speakeasy's default.
    default_window: bool,
    /// The extension, where the SDK's reading of `Retry-After` is noted.
    extension: Loc,
}

/// One `x-speakeasy-retries` value read.
fn read(sources: &Sources, ext: &Extension) -> Result<Setting, InputError> {
    let file: &SourceFile = &sources[ext.loc.file];
    let (node, loc) = (&ext.node, &ext.loc);
    mapping(file, node, loc, NAME)?;
    let Some((strategy, strategy_loc)) = field(node, loc, "strategy") else {
        return Err(bad_value(
            file,
            loc,
            "`x-speakeasy-retries` needs a `strategy`: backoff or none",
        ));
    };
    match text(file, strategy, &strategy_loc, "strategy")? {
        "none" => {
            return Ok(Setting {
                policy: PolicyObject {
                    max_attempts: Some(Spanned::new(1, strategy_loc).into()),
                    ..PolicyObject::default()
                },
                backoff: None,
            });
        }
        "backoff" => {}
        other => {
            return Err(bad_value(
                file,
                &strategy_loc,
                format!("`{other}` is not a Speakeasy retry strategy: backoff or none"),
            ));
        }
    }
    let mut policy = PolicyObject::default();
    let pending = backoff(file, node, loc, &mut policy)?;
    policy.retry_on = Some(conditions(file, node, loc)?.into());
    Ok(Setting {
        policy,
        backoff: Some(pending),
    })
}

/// `backoff`: waits, their growth and the time retries may take.
fn backoff(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    policy: &mut PolicyObject,
) -> Result<Pending, InputError> {
    let section = match field(node, loc, "backoff") {
        Some((section, section_loc)) => {
            mapping(file, section, &section_loc, "backoff")?;
            policy.backoff = Some(Spanned::new((), section_loc.clone()).into());
            Some((section, section_loc))
        }
        None => None,
    };
    // Defaults are noted at the `backoff` section, or at the extension without one.
    let anchor = section.as_ref().map_or(loc, |(_, at)| at);
    let written = |key: &str| section.as_ref().and_then(|(s, at)| field(s, at, key));
    let millis = |(key, default, note): (&str, i64, &str)| -> Result<_, InputError> {
        Ok(match written(key) {
            Some((value, at)) => {
                let ms = whole_number(file, value, &at, key)?;
                Spanned::new(
                    Duration::from_millis(i64::try_from(ms).unwrap_or(i64::MAX)),
                    at,
                )
            }
            None => Spanned::new(Duration::from_millis(default), anchor.noted(note)),
        })
    };
    let initial = millis(DEFAULT_INITIAL)?;
    let cap = millis(DEFAULT_MAX)?;
    let elapsed = millis(DEFAULT_ELAPSED)?;
    let (key, default, note) = DEFAULT_EXPONENT;
    let exponent = match written(key) {
        Some((value, at)) => Spanned::new(exponent_value(file, value, &at)?, at),
        None => Spanned::new(default, anchor.noted(note)),
    };
    let pending = Pending {
        numbers: sdk::Backoff {
            initial_interval: as_ms(initial.value),
            max_interval: as_ms(cap.value),
            exponent: exponent.value,
            max_elapsed_time: as_ms(elapsed.value),
        },
        attempts_at: written(DEFAULT_ELAPSED.0).map_or_else(|| anchor.clone(), |(_, at)| at),
        default_window: written(DEFAULT_ELAPSED.0).is_none(),
        extension: loc.clone(),
    };
    // Speakeasy's first retry waits `initialInterval` in Python; retrylint's model has no
    // other shape, and the note on each field says how the assumed language waits.
    policy.backoff_base =
        Some(crate::analysis::layers::values::base_for_first_wait(initial, exponent.value).into());
    policy.backoff_cap = Some(cap.into());
    policy.backoff_multiplier = Some(exponent.into());
    policy.deadline = Some(elapsed.into());
    // Jitter stays unset: the documentation says nothing of it, and the generated SDKs add
    // up to a second of random wait to each backoff (Python `random.uniform(0, 1)` s,
    // TypeScript `Math.random() * 1000` ms) or take a quarter off or on (Go), shapes none
    // of retrylint's jitter kinds is.
    Ok(pending)
}

impl Setting {
    /// The policy as the SDK of `language` retries: its count, its waits and
    /// `Retry-After`, each noted with the language.
    fn finish(self, language: Language, counts: &Counts) -> PolicyObject {
        let Setting {
            mut policy,
            backoff,
        } = self;
        let Some(pending) = backoff else {
            return policy;
        };
        let sdk = format!("the Speakeasy {} SDK", language.name());
        let window = if pending.default_window {
            "before Speakeasy's default maxElapsedTime (1h) has passed"
        } else {
            "before maxElapsedTime has passed"
        };
        let note = format!(
            "{sdk}'s attempts: each one that starts {window}, x-speakeasy-retries sets no count; {}",
            counts.assumption(language)
        );
        policy.max_attempts = Some(
            Spanned::new(
                sdk::attempts(language, &pending.numbers),
                pending.attempts_at.noted(note),
            )
            .into(),
        );
        let honoured = pending.extension.noted(language.retry_after());
        policy.retry_after = Some(Spanned::new((), honoured.clone()).into());
        policy.retry_after_honor = Some(Spanned::new(true, honoured).into());
        if language.caps_retry_after()
            && let Some(cap) = &policy.backoff_cap
        {
            policy.retry_after_max =
                Some(Spanned::new(cap.value, add_note(&cap.loc, language.retry_after())).into());
        }
        for value in [&mut policy.backoff_base, &mut policy.backoff_cap]
            .into_iter()
            .flatten()
        {
            let noted = add_note(&value.loc, language.growth());
            std::sync::Arc::make_mut(value).loc = noted;
        }
        if let Some(exponent) = &mut policy.backoff_multiplier {
            let noted = add_note(&exponent.loc, language.growth());
            std::sync::Arc::make_mut(exponent).loc = noted;
        }
        policy
    }
}

/// `loc` with `note` added to the note it has.
fn add_note(loc: &Loc, note: &str) -> Loc {
    match loc.note_text() {
        Some(old) => loc.noted(format!("{old}; {note}")),
        None => loc.noted(note),
    }
}

/// The most attempts each language's SDK makes on any operation.
struct Counts {
    /// Per language, in [`Language::ALL`]'s order: the most attempts, and their total.
    most: Vec<(Language, i64, i64)>,
}

impl Counts {
    fn of<'a>(settings: impl Iterator<Item = &'a Setting> + Clone) -> Counts {
        let most = Language::ALL
            .into_iter()
            .map(|language| {
                let counts = settings
                    .clone()
                    .filter_map(|s| s.backoff.as_ref())
                    .map(|pending| sdk::attempts(language, &pending.numbers));
                let (most, total) = counts.fold((1_i64, 0_i64), |(most, total), n| {
                    (most.max(n), total.saturating_add(n))
                });
                (language, most, total)
            })
            .collect();
        Counts { most }
    }

    /// The language whose SDK retries the most (the first of a tie).
    fn most(&self) -> Language {
        let mut best: Option<(Language, i64, i64)> = None;
        for &(language, most, total) in &self.most {
            if best.is_none_or(|(_, m, t)| (most, total) > (m, t)) {
                best = Some((language, most, total));
            }
        }
        best.map_or(Language::TypeScript, |(language, _, _)| language)
    }

    /// Why `language` is assumed: each language's most attempts.
    fn assumption(&self, language: Language) -> String {
        let each: Vec<String> = self
            .most
            .iter()
            .map(|(l, most, _)| format!("{} {}", l.name(), attempts_text(*most)))
            .collect();
        format!(
            "the description does not say the SDK's language, and {}'s retries the most ({})",
            language.name(),
            each.join(", ")
        )
    }
}

fn attempts_text(attempts: i64) -> String {
    if attempts == super::UNBOUNDED_ATTEMPTS {
        "without end".to_string()
    } else {
        attempts.to_string()
    }
}

fn as_ms(d: Duration) -> f64 {
    d.as_micros() as f64 / 1_000.0
}

/// `exponent`: a number of zero or more. One too large for a double (`1e400`) saturates to
/// the largest: waits reach `maxInterval` at once either way.
fn exponent_value(file: &SourceFile, node: &Node, loc: &Loc) -> Result<f64, InputError> {
    let text = match &node.value {
        Value::Number(t) => Some(&**t),
        _ => None,
    };
    text.and_then(|t| t.parse::<f64>().ok())
        .filter(|e| *e >= 0.0)
        .map(|e| e.min(f64::MAX))
        .ok_or_else(|| {
            let found = text.map_or_else(|| node.kind().to_string(), |t| format!("`{t}`"));
            bad_value(
                file,
                loc,
                format!("`exponent` must be a number of zero or more, found {found}"),
            )
        })
}

/// `statusCodes` (codes, and wildcards such as `5XX`) and `retryConnectionErrors`.
fn conditions(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
) -> Result<Spanned<Vec<Spanned<Signal>>>, InputError> {
    let Some((codes, codes_loc)) = field(node, loc, "statusCodes") else {
        return Err(bad_value(
            file,
            loc,
            "`x-speakeasy-retries` needs `statusCodes`: the statuses to retry, such as 5XX or 429",
        ));
    };
    let mut signals = Vec::new();
    for (i, item) in list(file, codes, &codes_loc, "statusCodes")?
        .iter()
        .enumerate()
    {
        let at = codes_loc.item(i, item);
        let written = text(file, item, &at, "statusCodes[]")?;
        let signal = parse_signal(written.trim())
            .filter(|s| matches!(s, Signal::Status(_) | Signal::Class(_)))
            .ok_or_else(|| {
                bad_value(
                    file,
                    &at,
                    format!("`{written}` is not a status code or a range such as 5XX"),
                )
            })?;
        super::values::push_signals(&mut signals, [signal], &at);
    }
    if let Some((flag, at)) = field(node, loc, "retryConnectionErrors")
        && boolean(file, flag, &at, "retryConnectionErrors")?
    {
        // The documentation speaks of DNS and refused connections, but the generated SDKs
        // retry every connection error and timeout (Python: `ConnectionError`, `Timeout`;
        // TypeScript: connection and request timeout errors), and a connection can fail
        // after the request was sent: a reset, or a timeout waiting for the response.
        super::values::push_signals(
            &mut signals,
            [Signal::ConnectFailure, Signal::Reset, Signal::Timeout],
            &at,
        );
    }
    Ok(Spanned::new(signals, codes_loc))
}
