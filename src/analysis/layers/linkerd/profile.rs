//! A Linkerd `ServiceProfile`: one layer for the service its name is (the FQDN), a route
//! per `spec.routes[]` entry, in file order.
//!
//! Linkerd counts no retries per request: a route marked `isRetryable` is retried as long
//! as the service's retry budget (`retryBudget`, or Linkerd's default of 20% of requests,
//! at least 10 a second, over 10s) allows, on the responses its `responseClasses` call
//! failures (5xx unless a class says otherwise; the first class that matches a response
//! decides). A route's `timeout` bounds the request with its retries (10s unless written).
//! Linkerd exposes no backoff, no per-attempt timeout and no `Retry-After` handling.

use std::sync::Arc;

use super::status::StatusSet;
use crate::analysis::layers::UNBOUNDED_ATTEMPTS;
use crate::analysis::layers::k8s::{self, RETRY_AFTER, built_in};
use crate::analysis::layers::values::{bad_value, field, k8s_duration, push_signals, route_regex};
use crate::analysis::layers::{
    Format, Layer, PathMatch, Position, RegexEngine, Route, RouteMatch, StringMatch,
};
use crate::error::InputError;
use crate::input::policy::{Duration, PolicyObject, Signal, Spanned};
use crate::input::source::{Node, SourceFile};
use crate::location::Loc;

const NOTE_DEFAULT_BUDGET: &str =
    "built-in default of Linkerd: the default retry budget (20%, 10/s, 10s)";
const NOTE_NOT_RETRYABLE: &str =
    "built-in default of Linkerd: Linkerd retries only routes marked isRetryable";
const NOTE_DEFAULT_TIMEOUT: &str =
    "built-in default of Linkerd: a route without `timeout` gives up after 10s, retries included";
const NOTE_DEFAULT_FAILURES: &str =
    "built-in default of Linkerd: 5xx responses no response class claims are failures";

/// How deep `all`, `any` and `not` may nest in a condition.
const MAX_DEPTH: usize = 16;
/// How many alternatives a route's condition may expand to (`any` inside `all` multiplies).
const MAX_ALTERNATIVES: usize = 256;

/// The layer of one `ServiceProfile`.
pub(super) fn import(file: &SourceFile, doc: &Node, loc: &Loc) -> Result<Vec<Layer>, InputError> {
    let meta = k8s::metadata(file, doc, loc)?;
    let Some((spec, spec_at)) = k8s::spec(file, doc, loc)? else {
        return Ok(Vec::new());
    };
    let mut routes = Vec::new();
    if let Some((list, list_at)) = field(spec, &spec_at, "routes") {
        for (index, entry) in k8s::list(file, list, &list_at, "routes")?
            .iter()
            .enumerate()
        {
            routes.extend(route(file, entry, &list_at.item(index, entry), index)?);
        }
    }
    let budget = match field(spec, &spec_at, "retryBudget") {
        Some((budget, at)) => {
            read_budget(file, budget, &at)?;
            at
        }
        None => meta.loc.noted(NOTE_DEFAULT_BUDGET),
    };
    Ok(vec![Layer {
        format: Format::LinkerdProfile,
        position: Position::Mesh,
        name: meta.layer_name("Linkerd ServiceProfile"),
        hosts: meta.name.iter().cloned().collect(),
        loc: meta.loc,
        routes,
        budget: Some(budget),
    }])
}

/// `retryBudget`: `retryRatio`, `minRetriesPerSecond`, `ttl`.
fn read_budget(file: &SourceFile, node: &Node, at: &Loc) -> Result<(), InputError> {
    k8s::mapping(file, node, at, "retryBudget")?;
    if let Some((ratio, ratio_at)) = field(node, at, "retryRatio") {
        let valid = ratio
            .scalar_text()
            .and_then(|t| t.parse::<f64>().ok())
            .is_some_and(|r| r.is_finite() && r >= 0.0);
        if !valid {
            return Err(bad_value(
                file,
                &ratio_at,
                "`retryRatio` is a number of 0 or more (0.2 allows 20% extra requests)",
            ));
        }
    }
    if let Some((rate, rate_at)) = field(node, at, "minRetriesPerSecond") {
        k8s::whole_number(file, rate, &rate_at, "minRetriesPerSecond")?;
    }
    if let Some((ttl, ttl_at)) = field(node, at, "ttl") {
        k8s_duration(file, ttl, &ttl_at)?;
    }
    Ok(())
}

/// One `routes[]` entry; `None` when its condition can match no request (it asks for two
/// methods at once).
fn route(
    file: &SourceFile,
    entry: &Node,
    loc: &Loc,
    index: usize,
) -> Result<Option<Route>, InputError> {
    k8s::mapping(file, entry, loc, "routes[]")?;
    let name = k8s::entry_name(file, entry, loc, || format!("routes[{index}]"))?;
    let matches = match field(entry, loc, "condition") {
        None => Vec::new(),
        Some((condition, at)) => {
            let alternatives = request_match(file, condition, &at, 0)?;
            if alternatives.is_empty() {
                return Ok(None);
            }
            alternatives
                .into_iter()
                .map(Alternative::into_match)
                .collect()
        }
    };
    let failures = failures(file, entry, loc)?;
    let mut policy = PolicyObject {
        deadline: match field(entry, loc, "timeout") {
            Some(_) => k8s::timeout(file, entry, loc, "timeout")?.map(Into::into),
            None => Some(built_in(Duration::from_millis(10_000), loc, NOTE_DEFAULT_TIMEOUT).into()),
        },
        ..PolicyObject::default()
    };
    let retryable = match field(entry, loc, "isRetryable") {
        Some((flag, at)) => Spanned::new(k8s::boolean(file, flag, &at, "isRetryable")?, at),
        None => built_in(false, loc, NOTE_NOT_RETRYABLE),
    };
    let budget_only = retryable.value;
    if budget_only {
        policy.max_attempts = Some(Spanned::new(UNBOUNDED_ATTEMPTS, retryable.loc.clone()).into());
        policy.retry_on = Some(Spanned::new(failures, retryable.loc).into());
    } else {
        policy.max_attempts = Some(Spanned::new(1, retryable.loc).into());
    }
    Ok(Some(Route {
        loc: loc.clone(),
        name,
        matches,
        budget_only,
        policy,
        implicit: false,
        retried_methods: None,
        unsupported: vec![RETRY_AFTER],
    }))
}

/// One way a request can satisfy a route's condition: all of its tests hold.
#[derive(Debug, Clone)]
struct Alternative {
    path: Option<Arc<crate::analysis::layers::RouteRegex>>,
    method: Option<String>,
    loc: Loc,
}

impl Alternative {
    fn any(loc: &Loc) -> Alternative {
        Alternative {
            path: None,
            method: None,
            loc: loc.clone(),
        }
    }

    fn tests_something(&self) -> bool {
        self.path.is_some() || self.method.is_some()
    }

    /// Both alternatives at once; `None` when they ask for different methods. Of two path
    /// patterns only the first is kept: the route is then taken to match a little more
    /// than it does.
    fn and(&self, other: &Alternative) -> Option<Alternative> {
        if let (Some(a), Some(b)) = (&self.method, &other.method)
            && a != b
        {
            return None;
        }
        Some(Alternative {
            path: self.path.clone().or_else(|| other.path.clone()),
            method: self.method.clone().or_else(|| other.method.clone()),
            loc: if self.tests_something() {
                self.loc.clone()
            } else {
                other.loc.clone()
            },
        })
    }

    fn into_match(self) -> RouteMatch {
        RouteMatch {
            path: self.path.map_or(PathMatch::Any, PathMatch::Regex),
            method: self.method.map(StringMatch::Exact),
            condition: None,
            loc: self.loc,
        }
    }
}

/// Every alternative of `left` with every alternative of `right`.
fn and_all(
    file: &SourceFile,
    left: &[Alternative],
    right: &[Alternative],
    loc: &Loc,
) -> Result<Vec<Alternative>, InputError> {
    let combined: Vec<Alternative> = left
        .iter()
        .flat_map(|l| right.iter().filter_map(move |r| l.and(r)))
        .take(MAX_ALTERNATIVES + 1)
        .collect();
    if combined.len() > MAX_ALTERNATIVES {
        return Err(bad_value(
            file,
            loc,
            format!("the condition expands to more than {MAX_ALTERNATIVES} alternatives"),
        ));
    }
    Ok(combined)
}

/// A request match (`pathRegex`, `method`, `all`, `any`, `not`) as alternatives: the route
/// takes a request that any of them matches; none means no request. Several fields in one
/// mapping must all hold. `not` is not read: the route is taken to match what it excludes
/// too, so it may take operations Linkerd sends elsewhere.
fn request_match(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    depth: usize,
) -> Result<Vec<Alternative>, InputError> {
    if depth > MAX_DEPTH {
        return Err(bad_value(
            file,
            loc,
            format!("the condition nests more than {MAX_DEPTH} levels deep"),
        ));
    }
    k8s::mapping(file, node, loc, "condition")?;
    let mut alternatives = vec![Alternative::any(loc)];
    if let Some((pattern, at)) = field(node, loc, "pathRegex") {
        let regex = route_regex(
            file,
            k8s::text(file, pattern, &at, "pathRegex")?,
            &at,
            RegexEngine::Linkerd,
        )?;
        let test = Alternative {
            path: Some(regex),
            ..Alternative::any(loc)
        };
        alternatives = and_all(file, &alternatives, &[test], loc)?;
    }
    if let Some((method, at)) = field(node, loc, "method") {
        let test = Alternative {
            method: Some(k8s::text(file, method, &at, "method")?.to_string()),
            ..Alternative::any(loc)
        };
        alternatives = and_all(file, &alternatives, &[test], loc)?;
    }
    if let Some((all, at)) = field(node, loc, "all") {
        for (i, item) in k8s::list(file, all, &at, "all")?.iter().enumerate() {
            let inner = request_match(file, item, &at.item(i, item), depth + 1)?;
            alternatives = and_all(file, &alternatives, &inner, loc)?;
        }
    }
    if let Some((any, at)) = field(node, loc, "any") {
        let mut union = Vec::new();
        for (i, item) in k8s::list(file, any, &at, "any")?.iter().enumerate() {
            union.extend(request_match(file, item, &at.item(i, item), depth + 1)?);
        }
        alternatives = and_all(file, &alternatives, &union, loc)?;
    }
    Ok(alternatives)
}

/// What the route's `responseClasses` call failures, each located at its class, and the
/// 5xx no class claims, noted as Linkerd's default.
fn failures(
    file: &SourceFile,
    entry: &Node,
    loc: &Loc,
) -> Result<Vec<Spanned<Signal>>, InputError> {
    let mut claimed = StatusSet::default();
    let mut signals = Vec::new();
    if let Some((classes, at)) = field(entry, loc, "responseClasses") {
        for (i, class) in k8s::list(file, classes, &at, "responseClasses")?
            .iter()
            .enumerate()
        {
            let class_at = at.item(i, class);
            k8s::mapping(file, class, &class_at, "responseClasses[]")?;
            let statuses = match field(class, &class_at, "condition") {
                Some((condition, cond_at)) => response_match(file, condition, &cond_at, 0)?,
                None => StatusSet::default(),
            };
            let is_failure = match field(class, &class_at, "isFailure") {
                Some((flag, flag_at)) => k8s::boolean(file, flag, &flag_at, "isFailure")?,
                None => false,
            };
            if is_failure {
                push_signals(&mut signals, statuses.minus(claimed).signals(), &class_at);
            }
            claimed = claimed.union(statuses);
        }
    }
    let unclaimed = StatusSet::server_errors().minus(claimed);
    push_signals(
        &mut signals,
        unclaimed.signals(),
        &loc.noted(NOTE_DEFAULT_FAILURES),
    );
    Ok(signals)
}

/// A response match (`status {min, max}`, `all`, `any`, `not`) as the statuses it takes.
fn response_match(
    file: &SourceFile,
    node: &Node,
    loc: &Loc,
    depth: usize,
) -> Result<StatusSet, InputError> {
    if depth > MAX_DEPTH {
        return Err(bad_value(
            file,
            loc,
            format!("the condition nests more than {MAX_DEPTH} levels deep"),
        ));
    }
    k8s::mapping(file, node, loc, "condition")?;
    let mut set = StatusSet::all();
    if let Some((status, at)) = field(node, loc, "status") {
        set = set.intersection(status_range(file, status, &at)?);
    }
    if let Some((all, at)) = field(node, loc, "all") {
        for (i, item) in k8s::list(file, all, &at, "all")?.iter().enumerate() {
            set = set.intersection(response_match(file, item, &at.item(i, item), depth + 1)?);
        }
    }
    if let Some((any, at)) = field(node, loc, "any") {
        let mut union = StatusSet::default();
        for (i, item) in k8s::list(file, any, &at, "any")?.iter().enumerate() {
            union = union.union(response_match(file, item, &at.item(i, item), depth + 1)?);
        }
        set = set.intersection(union);
    }
    if let Some((not, at)) = field(node, loc, "not") {
        set = set.intersection(response_match(file, not, &at, depth + 1)?.complement());
    }
    Ok(set)
}

/// `status: {min, max}`: either bound may be left out.
fn status_range(file: &SourceFile, node: &Node, loc: &Loc) -> Result<StatusSet, InputError> {
    k8s::mapping(file, node, loc, "status")?;
    let bound = |key: &str, default: u16| -> Result<u16, InputError> {
        let Some((value, at)) = field(node, loc, key) else {
            return Ok(default);
        };
        k8s::whole_number(file, value, &at, key)
            .ok()
            .and_then(|v| u16::try_from(v).ok())
            .filter(|v| (100..=599).contains(v))
            .ok_or_else(|| bad_value(file, &at, format!("`{key}` is a status code, 100 to 599")))
    };
    let (min, max) = (bound("min", 100)?, bound("max", 599)?);
    if min > max {
        return Err(bad_value(
            file,
            loc,
            format!("`min` ({min}) is above `max` ({max})"),
        ));
    }
    Ok(StatusSet::range(min, max))
}
