//! The SDK layer: `x-speakeasy-retries` in the description (document root and operations).
//!
//! A Speakeasy-generated SDK retries on its own, on the client's side of every other
//! layer. The document root's setting applies to every operation without its own; an
//! operation's replaces it whole (the two are never merged). The setting has no count:
//! the SDK retries until `maxElapsedTime` has passed, waiting `initialInterval` ×
//! `exponent`ⁿ capped at `maxInterval` between attempts. Speakeasy's documented defaults
//! (500 ms, 60 s, 1 h, 1.5) apply to what `backoff` leaves out, noted as such.
//! (speakeasy.com/docs/customize-sdks/retries.)

#[cfg(test)]
mod tests;

use std::cmp::Reverse;

use super::names::Name;
use super::values::{bad_value, boolean, field, list, mapping, text, whole_number};
use super::{Format, Layer, PathMatch, Route, RouteMatch, StringMatch, UNBOUNDED_ATTEMPTS};
use crate::error::InputError;
use crate::load::Sources;
use crate::location::Loc;
use crate::model::{Api, Extension, Operation};
use crate::policy::{Duration, PolicyObject, Signal, Spanned, parse_signal};
use crate::source::{Node, SourceFile, Value};

/// The extension, as layers and messages name it.
const NAME: &str = "x-speakeasy-retries";
/// What the setting cannot say: generated SDKs read `Retry-After` in some languages (the
/// TypeScript SDK reads seconds and HTTP-dates) and not in others.
const RETRY_AFTER: &str = "Retry-After (depends on the SDK's language)";
const NO_COUNT: &str =
    "attempts whose waits fit in maxElapsedTime: x-speakeasy-retries sets no count";
const NO_COUNT_DEFAULT: &str = "attempts whose waits fit in Speakeasy's default maxElapsedTime (1h): x-speakeasy-retries sets no count";

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
    let mut routes = Vec::new();
    for op in &api.operations {
        let (policy, ext) = match (&op.speakeasy_retries, &root) {
            (Some(own), _) => (read(sources, own)?, own),
            (None, Some((policy, ext))) => (policy.clone(), *ext),
            (None, None) => continue,
        };
        routes.push(route(op, policy, ext));
    }
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
        name: Name::new(NAME),
        loc,
        hosts: Vec::new(),
        routes,
        budget: None,
    }))
}

/// The route of one operation: exactly its method and path.
fn route(op: &Operation, policy: PolicyObject, ext: &Extension) -> Route {
    let retries = policy.max_attempts.as_ref().is_none_or(|m| m.value > 1);
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
        unsupported: if retries {
            vec![RETRY_AFTER]
        } else {
            Vec::new()
        },
    }
}

/// How many template parameters a route's path has.
fn parameters(route: &Route) -> usize {
    match route.matches.first().map(|m| &m.path) {
        Some(PathMatch::Exact(path)) => path.matches('{').count(),
        _ => 0,
    }
}

/// One `x-speakeasy-retries` value as a policy.
fn read(sources: &Sources, ext: &Extension) -> Result<PolicyObject, InputError> {
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
            return Ok(PolicyObject {
                max_attempts: Some(Spanned::new(1, strategy_loc)),
                ..PolicyObject::default()
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
    backoff(file, node, loc, &mut policy)?;
    policy.retry_on = Some(conditions(file, node, loc)?);
    Ok(policy)
}

/// `backoff`: waits, their growth, the time retries may take, and what that allows.
fn backoff(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    policy: &mut PolicyObject,
) -> Result<(), InputError> {
    let section = match field(node, loc, "backoff") {
        Some((section, section_loc)) => {
            mapping(file, section, &section_loc, "backoff")?;
            policy.backoff = Some(Spanned::new((), section_loc.clone()));
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
    let attempts = attempts_within(
        as_ms(initial.value),
        as_ms(cap.value),
        exponent.value,
        as_ms(elapsed.value),
    );
    let attempts_loc = match written(DEFAULT_ELAPSED.0) {
        Some((_, at)) => at.noted(NO_COUNT),
        None => anchor.noted(NO_COUNT_DEFAULT),
    };
    policy.max_attempts = Some(Spanned::new(attempts, attempts_loc));
    // Speakeasy's first retry waits `initialInterval`.
    policy.backoff_base = Some(crate::layers::values::base_for_first_wait(
        initial,
        exponent.value,
    ));
    policy.backoff_cap = Some(cap);
    policy.backoff_multiplier = Some(exponent);
    policy.deadline = Some(elapsed);
    // Jitter stays unset: the documentation says nothing of it, and the generated SDKs add
    // up to a second of random wait to each backoff (Python `random.uniform(0, 1)` s,
    // TypeScript `Math.random() * 1000` ms), a shape none of retrylint's jitter kinds is.
    Ok(())
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

/// The most attempts whose waits fit in `window` (all in milliseconds): the first attempt
/// and one more for each wait `initial × exponentⁿ` (capped at `cap`) that still ends
/// within it. Waits of nothing, or shrinking waits whose sum stays within the window,
/// allow attempts without end: [`UNBOUNDED_ATTEMPTS`].
fn attempts_within(initial: f64, cap: f64, exponent: f64, window: f64) -> i64 {
    if initial.min(cap) <= 0.0 {
        return UNBOUNDED_ATTEMPTS;
    }
    let linear = (exponent - 1.0).abs() < 1e-12;
    // The total of the first `k` waits while they are below the cap. The geometric factor
    // is divided before it is multiplied: with a huge exponent, `initial × (exponentᵏ − 1)`
    // alone would overflow where the total does not. An overflowing total is infinite,
    // which is right: it fits no window.
    let sum = |k: f64| {
        if linear {
            initial * k
        } else {
            initial * ((exponent.powf(k) - 1.0) / (exponent - 1.0))
        }
    };
    // How many waits stay below the cap.
    let uncapped = if initial >= cap {
        0.0
    } else if exponent > 1.0 && !linear {
        ((cap / initial).ln() / exponent.ln()).ceil()
    } else {
        f64::INFINITY
    };
    // How many of those fit: solve sum(k) <= window, then correct rounding.
    let mut fitting = if linear {
        (window / initial).floor()
    } else {
        let argument = 1.0 + (window / initial) * (exponent - 1.0);
        if argument <= 0.0 {
            f64::INFINITY
        } else {
            (argument.ln() / exponent.ln()).floor().max(0.0)
        }
    }
    .min(uncapped);
    if fitting.is_finite() {
        // The closed form is off by one at most; a few steps set it right.
        for _ in 0..8 {
            if fitting > 0.0 && sum(fitting) > window {
                fitting -= 1.0;
            } else if fitting < uncapped && sum(fitting + 1.0) <= window {
                fitting += 1.0;
            } else {
                break;
            }
        }
    }
    let waits = if fitting < uncapped {
        fitting
    } else {
        // Every wait below the cap fits; the rest wait the cap each.
        uncapped + ((window - sum(uncapped)) / cap).floor().max(0.0)
    };
    let attempts = 1.0 + waits;
    if attempts.is_finite() && attempts < UNBOUNDED_ATTEMPTS as f64 {
        attempts as i64
    } else {
        UNBOUNDED_ATTEMPTS
    }
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
