//! The gRPC service config importer: `methodConfig` and `retryThrottling` (JSON, or YAML of
//! the same shape), the client's own retries of each method.
//!
//! What it means is read from gRPC's source: grpc/proposal `A6-client-retries.md`, grpc/grpc-proto
//! `grpc/service_config/service_config.proto`, gRPC's C-core client that Python's grpcio runs
//! (grpc/grpc `src/core/client_channel/retry_service_config.cc`,
//! `src/core/service_config/service_config_impl.cc`) and grpc/grpc-go `service_config.go`:
//!
//! - `name` entries bind a `methodConfig`: `{service, method}` the call `POST /service/method`,
//!   `{service}` every method of the service (the prefix `/service/`), `{}` (or an empty
//!   service) every call. The most specific wins, whole (`GetMethodParsedConfigVector`:
//!   the exact path, then `/service/`, then the default), so an exact entry without
//!   `retryPolicy` turns off its service's retries. The same path twice, or two defaults,
//!   and a method without a service, are refused; an entry without `name` binds nothing.
//! - `retryPolicy.maxAttempts` counts every attempt, the first included; it must be 2 or more,
//!   and clients treat more than 5 as 5 (`MAX_MAX_RETRY_ATTEMPTS`; grpc-go's
//!   `defaultMaxCallAttempts`). `initialBackoff`, `maxBackoff` and `backoffMultiplier` are
//!   required and above zero; `retryableStatusCodes` is required and non-empty.
//! - A6 has the n-th retry wait random(0, min(initialBackoff × multiplier^(n−1),
//!   maxBackoff)); C-core (`src/core/util/backoff.cc`, `BackOff::NextAttemptDelay` with the
//!   retry filter's jitter of 0.2) and grpc-go (`stream.go`) wait that nominal delay ×
//!   random(0.8, 1.2) instead, which retrylint reads (as equal jitter up to 1.2 × the
//!   nominal delay); grpc-java draws as A6 does.
//! - `timeout` is the call's deadline, over every attempt.
//! - `hedgingPolicy` sends the call again after each `hedgingDelay` without waiting for an
//!   answer, up to `maxAttempts` (clamped to 5): every hedged method is repeated by design.
//!   A `methodConfig` with both policies is refused (the proto's `oneof`; grpc/grpc-node
//!   `service-config.ts`). C-core and grpc-go do not implement hedging (C-core reads no
//!   `hedgingPolicy`): their calls go once; grpc-java hedges.
//! - `retryThrottling` is a token bucket per server: a budget.
//! - A server asks for a wait, or for no retry, with `grpc-retry-pushback-ms` trailing
//!   metadata; no gRPC client reads HTTP's `Retry-After`.
//!
//! Simplified: transparent retries (of a call that never reached the server's application,
//! which gRPC repeats whatever the config) are not modelled; a call is committed once
//! response headers arrive, and then not retried: retrylint counts attempts as if the
//! server failed before sending headers, as servers do when they fail a call
//! (Trailers-Only).

use foldhash::{HashSet, HashSetExt};

use super::format::{DocsRow, Fix, FormatSpec, RetryAfter};
use super::k8s::RETRY_AFTER;
use super::names::Name;
use super::values::{bad_value, base_for_first_wait, field};
use super::{Format, ImportFile, Importer, Layer, PathMatch, Position, Route, RouteMatch};
use crate::error::InputError;
use crate::input::policy::{Duration, Jitter, PolicyObject, Signal, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

mod values;

#[cfg(test)]
mod tests;

use values::{REFUSED, duration, number, status_codes, whole};

/// The most attempts gRPC clients make, whatever `maxAttempts` says.
pub const MAX_ATTEMPTS: i64 = 5;

const NOTE_CLAMPED: &str = "gRPC clients treat maxAttempts above 5 as 5 (grpc/grpc `retry_service_config.cc`, MAX_MAX_RETRY_ATTEMPTS)";
const NOTE_NO_POLICY: &str = "no retryPolicy or hedgingPolicy: gRPC does not retry the call";
const NOTE_JITTER: &str = "C-core (grpcio, C++) and grpc-go wait min(initialBackoff × multiplier^(n−1), maxBackoff) × random(0.8, 1.2) (grpc/grpc `src/core/util/backoff.cc`): read as equal jitter up to 1.2 × that delay";

/// The most C-core and grpc-go stretch a nominal delay (the retry filter's jitter of 0.2).
const JITTER_HIGH: f64 = 1.2;
const NOTE_HEDGE: &str = "a hedged call is sent again after each hedgingDelay, answered or not (A6); grpc-java hedges, C-core (grpcio, C++) and grpc-go send the call once";

/// What a gRPC service config is as a format.
pub static SPEC: FormatSpec = FormatSpec {
    label: "gRPC service config",
    position: Position::Client,
    objects: &[],
    understood: Some("a gRPC service config (`methodConfig` or `retryThrottling`)"),
    family: "gRPC",
    importer: Some(&ServiceConfig),
    retry_after: RetryAfter::Cannot,
    budget: true,
    retries_off: None,
    docs: DocsRow {
        format: "gRPC service config (`methodConfig`, JSON or YAML)",
        position_note: "",
        read: "`name` (`{service, method}`, `{service}`, `{}`) as `POST /service/method` paths, `retryPolicy`, `hedgingPolicy`, `timeout` (deadline), `retryThrottling` (budget)",
        defaults: "`maxAttempts` above 5 read as 5; waits of min(`initialBackoff` × multiplier^(n−1), `maxBackoff`) × random(0.8, 1.2), as C-core and grpc-go draw them; no `Retry-After` (`grpc-retry-pushback-ms` only); the most specific `name` wins",
    },
    help: &[
        (
            Fix::WriteRetries,
            "give the method its own `methodConfig` without `retryPolicy`, or keep only statuses that say the call was not processed",
        ),
        (
            Fix::NonTransientStatus,
            "remove the status from `retryableStatusCodes`",
        ),
        (Fix::TooManyAttempts, "lower `retryPolicy.maxAttempts`"),
        (Fix::Deadline, "set `timeout` in the `methodConfig`"),
        (
            Fix::RetryAfterIgnored,
            "gRPC clients read no `Retry-After`: have the server send `grpc-retry-pushback-ms`",
        ),
        (Fix::NoWait, "raise `initialBackoff` (or `hedgingDelay`)"),
    ],
};

/// The importer of gRPC service configs.
pub struct ServiceConfig;

impl Importer for ServiceConfig {
    fn recognises(&self, doc: &Node) -> bool {
        doc.as_map().is_some_and(|m| {
            (m.get("methodConfig").is_some() || m.get("retryThrottling").is_some())
                && ["apiVersion", "kind", "version", "openapi", "swagger"]
                    .iter()
                    .all(|k| m.get(k).is_none())
        })
    }

    fn import(
        &self,
        file: &ImportFile<'_>,
        doc: &Node,
        loc: &Loc,
    ) -> Result<Vec<Layer>, InputError> {
        let source = file.file;
        let budget = match field(doc, loc, "retryThrottling") {
            Some((node, at)) => Some(throttling(source, node, &at)?),
            None => None,
        };
        let mut routes: Vec<(u8, Route)> = Vec::new();
        let mut paths: HashSet<String> = HashSet::new();
        if let Some((configs, at)) = field(doc, loc, "methodConfig") {
            let Some(items) = configs.as_seq() else {
                return Err(bad_value(
                    source,
                    &at,
                    format!("`methodConfig` must be of type array: {REFUSED}"),
                ));
            };
            for (i, config) in items.iter().enumerate() {
                let config_at = at.item(i, config);
                method_config(source, config, &config_at, &mut paths, &mut routes)?;
            }
        }
        routes.sort_by_key(|(rank, _)| *rank);
        // A service config names no object: the layer is named by its file.
        let file_name = source
            .display
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(vec![Layer {
            format: Format::Grpc,
            position: Position::Client,
            name: Name::of("gRPC service config", &file_name),
            loc: loc.clone(),
            hosts: Vec::new(),
            routes: routes.into_iter().map(|(_, r)| r).collect(),
            budget,
        }])
    }
}

/// `retryThrottling`: `maxTokens` (a whole number above 0) and `tokenRatio` (above 0), as
/// C-core's `RetryGlobalConfig::JsonPostLoad` checks them. Its location is the budget's.
fn throttling(file: &SourceFile, node: &Node, at: &Loc) -> Result<Loc, InputError> {
    if node.as_map().is_none() {
        return Err(bad_value(
            file,
            at,
            format!("`retryThrottling` is an object: {REFUSED}"),
        ));
    }
    let Some((tokens, tokens_at)) = field(node, at, "maxTokens") else {
        return Err(bad_value(
            file,
            at,
            format!("`retryThrottling.maxTokens` is required: {REFUSED}"),
        ));
    };
    let max = whole(file, tokens, &tokens_at, "maxTokens")?;
    if max <= 0 || max > i64::from(u32::MAX) {
        return Err(bad_value(
            file,
            &tokens_at,
            format!("`maxTokens` must be greater than 0: {REFUSED}"),
        ));
    }
    let Some((ratio, ratio_at)) = field(node, at, "tokenRatio") else {
        return Err(bad_value(
            file,
            at,
            format!("`retryThrottling.tokenRatio` is required: {REFUSED}"),
        ));
    };
    // C-core keeps three decimals: 0.0001 reads as 0, which it refuses.
    if (number(file, ratio, &ratio_at, "tokenRatio")? * 1000.0).trunc() <= 0.0 {
        return Err(bad_value(
            file,
            &ratio_at,
            format!("`tokenRatio` must be greater than 0 (three decimals are read): {REFUSED}"),
        ));
    }
    Ok(at.clone())
}

/// One `methodConfig` entry: its policy, and a route for each of its names.
fn method_config(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    paths: &mut HashSet<String>,
    routes: &mut Vec<(u8, Route)>,
) -> Result<(), InputError> {
    if node.as_map().is_none() {
        return Err(bad_value(
            file,
            at,
            format!("a `methodConfig` entry is an object: {REFUSED}"),
        ));
    }
    let policy = policy(file, node, at)?;
    let Some((names, names_at)) = field(node, at, "name") else {
        return Ok(());
    };
    let Some(names) = names.as_seq() else {
        return Err(bad_value(
            file,
            &names_at,
            format!("`name` must be of type array: {REFUSED}"),
        ));
    };
    for (j, name) in names.iter().enumerate() {
        let name_at = names_at.item(j, name);
        let path = method_path(file, name, &name_at)?;
        if !paths.insert(path.clone()) {
            let what = if path.is_empty() {
                "duplicate default method config".to_string()
            } else {
                format!(
                    "multiple method configs for path {}",
                    super::names::shown(&path)
                )
            };
            return Err(bad_value(file, &name_at, format!("{what}: {REFUSED}")));
        }
        let (rank, matched, shown, method) = if path.is_empty() {
            (2, PathMatch::Any, "default".to_string(), None)
        } else if path.ends_with('/') {
            let service = path.trim_matches('/');
            (
                1,
                PathMatch::Prefix(path.clone()),
                format!("{service}/*"),
                Some(super::gateway::grpc::post()),
            )
        } else {
            (
                0,
                PathMatch::Exact(path.clone()),
                path.trim_start_matches('/').to_string(),
                Some(super::gateway::grpc::post()),
            )
        };
        routes.push((
            rank,
            Route {
                loc: name_at.clone(),
                name: Name::new(&shown),
                matches: vec![RouteMatch {
                    path: matched,
                    method,
                    condition: None,
                    loc: name_at.clone(),
                }],
                policy: policy.clone(),
                implicit: false,
                budget_only: false,
                retried_methods: None,
                unsupported: vec![RETRY_AFTER],
            },
        ));
    }
    Ok(())
}

/// The path a `name` entry stands for: `/service/method`, `/service/`, or `""` for the
/// default (C-core's `ParseJsonMethodName`).
fn method_path(file: &SourceFile, node: &Node, at: &Loc) -> Result<String, InputError> {
    if node.as_map().is_none() {
        return Err(bad_value(
            file,
            at,
            format!("a `name` entry is an object such as {{\"service\": \"pkg.Svc\"}}: {REFUSED}"),
        ));
    }
    let part = |key: &str| -> Result<String, InputError> {
        match field(node, at, key) {
            None => Ok(String::new()),
            Some((value, value_at)) => match &value.value {
                crate::input::source::Value::Null => Ok(String::new()),
                crate::input::source::Value::String(text) => Ok(text.to_string()),
                _ => Err(bad_value(
                    file,
                    &value_at,
                    format!("`{key}` is not of type string: {REFUSED}"),
                )),
            },
        }
    };
    let (service, method) = (part("service")?, part("method")?);
    if service.is_empty() {
        if !method.is_empty() {
            return Err(bad_value(
                file,
                at,
                format!("method name populated without service name: {REFUSED}"),
            ));
        }
        return Ok(String::new());
    }
    Ok(format!("/{service}/{method}"))
}

/// The policy of one `methodConfig` entry, in retrylint's model.
fn policy(file: &SourceFile, node: &Node, at: &Loc) -> Result<PolicyObject, InputError> {
    let mut policy = PolicyObject::default();
    if let Some((timeout, timeout_at)) = field(node, at, "timeout") {
        let deadline = duration(file, timeout, &timeout_at, "timeout")?;
        if deadline.value > Duration::ZERO {
            policy.deadline = Some(deadline.into());
        }
    }
    if let Some((ready, ready_at)) = field(node, at, "waitForReady")
        && ready.as_bool().is_none()
    {
        return Err(bad_value(
            file,
            &ready_at,
            format!("`waitForReady` is not a boolean: {REFUSED}"),
        ));
    }
    let retry = field(node, at, "retryPolicy");
    let hedge = field(node, at, "hedgingPolicy");
    match (retry, hedge) {
        (Some(_), Some((_, hedge_at))) => Err(bad_value(
            file,
            &hedge_at,
            "retryPolicy and hedgingPolicy cannot both be specified (the proto's `oneof`): one `methodConfig` takes one of them; grpcio would read only `retryPolicy`",
        )),
        (Some((retry, retry_at)), None) => {
            retry_policy(file, retry, &retry_at, &mut policy)?;
            Ok(policy)
        }
        (None, Some((hedge, hedge_at))) => {
            hedging_policy(file, hedge, &hedge_at, &mut policy)?;
            Ok(policy)
        }
        (None, None) => {
            policy.max_attempts = Some(Spanned::new(1, at.noted(NOTE_NO_POLICY)).into());
            Ok(policy)
        }
    }
}

/// A required field of a policy object, or the refusal naming it.
fn required<'a>(
    file: &SourceFile,
    node: &'a Node,
    at: &Loc,
    section: &str,
    key: &str,
) -> Result<(&'a Node, Loc), InputError> {
    field(node, at, key).ok_or_else(|| {
        bad_value(
            file,
            at,
            format!("`{section}.{key}` is required (field not present): {REFUSED}"),
        )
    })
}

/// `maxAttempts` of either policy: 2 or more, more than 5 read as 5.
fn max_attempts(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    section: &str,
) -> Result<Spanned<i64>, InputError> {
    let (value, value_at) = required(file, node, at, section, "maxAttempts")?;
    let attempts = whole(file, value, &value_at, "maxAttempts")?;
    if attempts <= 1 {
        return Err(bad_value(
            file,
            &value_at,
            format!(
                "`maxAttempts` must be at least 2 (it counts the first attempt; leave out `{section}` for none): {REFUSED}"
            ),
        ));
    }
    Ok(if attempts > MAX_ATTEMPTS {
        Spanned::new(MAX_ATTEMPTS, value_at.noted(NOTE_CLAMPED))
    } else {
        Spanned::new(attempts, value_at)
    })
}

/// A required Duration above zero (`initialBackoff`, `maxBackoff`).
fn positive(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    section: &str,
    key: &str,
) -> Result<Spanned<Duration>, InputError> {
    let (value, value_at) = required(file, node, at, section, key)?;
    let d = duration(file, value, &value_at, key)?;
    if d.value <= Duration::ZERO {
        return Err(bad_value(
            file,
            &value_at,
            format!("`{key}` must be greater than 0: {REFUSED}"),
        ));
    }
    Ok(d)
}

/// The statuses of a policy as the signals retrylint retries on, each where it is written.
fn signals(codes: &[Spanned<crate::input::policy::GrpcCode>]) -> Vec<Spanned<Signal>> {
    codes
        .iter()
        .map(|c| Spanned::new(Signal::Grpc(c.value), c.loc.clone()))
        .collect()
}

/// A retry policy: attempts, the backoff (as C-core draws it) and the statuses retried.
fn retry_policy(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    policy: &mut PolicyObject,
) -> Result<(), InputError> {
    const SECTION: &str = "retryPolicy";
    if node.as_map().is_none() {
        return Err(bad_value(
            file,
            at,
            format!("`retryPolicy` is an object: {REFUSED}"),
        ));
    }
    let attempts = max_attempts(file, node, at, SECTION)?;
    let initial = positive(file, node, at, SECTION, "initialBackoff")?;
    let max = positive(file, node, at, SECTION, "maxBackoff")?;
    let (multiplier, multiplier_at) = required(file, node, at, SECTION, "backoffMultiplier")?;
    let multiplier = number(file, multiplier, &multiplier_at, "backoffMultiplier")?;
    if multiplier <= 0.0 {
        return Err(bad_value(
            file,
            &multiplier_at,
            format!("`backoffMultiplier` must be greater than 0: {REFUSED}"),
        ));
    }
    let (codes, codes_at) = required(file, node, at, SECTION, "retryableStatusCodes")?;
    let codes = status_codes(file, codes, &codes_at, "retryableStatusCodes")?;
    // A nominal delay d is waited as d × random(0.8, 1.2): retrylint's equal jitter of
    // 1.2 × d waits from 0.6 × d to 1.2 × d, the same longest wait.
    let stretched = |d: Spanned<Duration>| {
        let micros = (d.value.as_micros() as f64 * JITTER_HIGH).min(i64::MAX as f64) as i64;
        Spanned::new(Duration::from_micros(micros), d.loc.noted(NOTE_JITTER))
    };
    policy.max_attempts = Some(attempts.into());
    policy.backoff = Some(Spanned::new((), at.clone()).into());
    policy.backoff_base = Some(base_for_first_wait(stretched(initial), multiplier).into());
    policy.backoff_cap = Some(stretched(max).into());
    policy.backoff_multiplier = Some(Spanned::new(multiplier, multiplier_at).into());
    policy.jitter = Some(Spanned::new(Jitter::Equal, at.noted(NOTE_JITTER)).into());
    policy.retry_on = Some(Spanned::new(signals(&codes), codes_at).into());
    Ok(())
}

/// A hedging policy: another attempt after each `hedgingDelay` (a timeout of the attempt
/// under way that does not end it) or at once on a non-fatal status.
fn hedging_policy(
    file: &SourceFile,
    node: &Node,
    at: &Loc,
    policy: &mut PolicyObject,
) -> Result<(), InputError> {
    const SECTION: &str = "hedgingPolicy";
    if node.as_map().is_none() {
        return Err(bad_value(
            file,
            at,
            format!("`hedgingPolicy` is an object: {REFUSED}"),
        ));
    }
    let attempts = max_attempts(file, node, at, SECTION)?;
    let delay = match field(node, at, "hedgingDelay") {
        Some((value, value_at)) => duration(file, value, &value_at, "hedgingDelay")?,
        None => Spanned::new(
            Duration::ZERO,
            at.noted("no hedgingDelay: every hedged attempt is sent at once (A6)"),
        ),
    };
    let codes = match field(node, at, "nonFatalStatusCodes") {
        Some((codes, codes_at)) => status_codes(file, codes, &codes_at, "nonFatalStatusCodes")?,
        None => Vec::new(),
    };
    let attempts_note = attempts.loc.note_text().map_or_else(
        || NOTE_HEDGE.to_string(),
        |clamp| format!("{clamp}; {NOTE_HEDGE}"),
    );
    policy.max_attempts =
        Some(Spanned::new(attempts.value, attempts.loc.noted(attempts_note)).into());
    let mut on = signals(&codes);
    on.push(Spanned::new(Signal::Timeout, delay.loc.clone()));
    policy.retry_on = Some(Spanned::new(on, at.clone()).into());
    if delay.value > Duration::ZERO {
        policy.per_attempt_timeout = Some(delay.clone().into());
    }
    policy.backoff = Some(Spanned::new((), at.clone()).into());
    policy.backoff_base = Some(delay.clone().into());
    policy.backoff_cap = Some(delay.into());
    policy.backoff_multiplier = Some(Spanned::new(1.0, at.noted(NOTE_HEDGE)).into());
    policy.jitter = Some(Spanned::new(Jitter::None, at.noted(NOTE_HEDGE)).into());
    Ok(())
}
