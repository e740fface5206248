//! `retrylint init`: a starting policy for a description, one that passes `check`.
//!
//! Each operation's entry follows from what its contract offers (see [`crate::analysis::contract`]),
//! so that `check` has nothing to say about the choices `init` made. Reads and idempotent
//! writes are retried within a deadline, with full jitter and Retry-After honoured but
//! bounded, on connection failures, timeouts and the 429 and 503 each one declares. A
//! non-idempotent operation is retried only with an idempotency key header the description
//! requires (named as it is declared, and sent again on every attempt); one with a status
//! endpoint reconciles an unknown outcome through it; every other one is never retried and
//! fails on an unknown outcome, with a comment saying why (an optional key, a key in the
//! request body or query string that only the application can send, a status
//! followed through a 202's `Location` or `Operation-Location`, or nothing at all).
//!
//! Text from the description (operationIds, paths, header names, the file name) is data:
//! keys and values are double-quoted YAML scalars, comments are kept on one line, so the
//! file parses back to exactly the intended selectors whatever that text holds.

use std::collections::BTreeMap;
use std::fmt::Write;

use foldhash::{HashMap, HashMapExt};

use crate::analysis::contract::Contract;
use crate::analysis::layers::chain::Bound;
use crate::analysis::layers::{Position, UNBOUNDED_ATTEMPTS};
use crate::escape::{self, yaml_quoted as quote};
use crate::input::model::{Api, Operation};
use crate::input::policy::Selector;

mod choice;

use choice::{Choice, Why};

/// The most attempts per call a starting policy allows across all layers
/// (`retry-amplification`'s default limit).
const MAX_AMPLIFICATION: u64 = crate::analysis::rules::DEFAULT_MAX_AMPLIFICATION;

/// The layers in front of the service, when `init` is given mesh, gateway or proxy files.
pub(crate) struct LayersSeen<'a> {
    pub bound: &'a Bound,
    /// `--host` names, written to `service.hosts`.
    pub hosts: &'a [String],
}

/// The starting policy for `api`, described as `name` in its header comment, from the
/// operations' contracts (in the order of `api.operations`), for a service behind the
/// layers given (the client's attempts leave room for the layers' retries within
/// [`MAX_AMPLIFICATION`]), with `key_headers` written to `lint.keyHeaders`.
pub(crate) fn starting_policy_with(
    api: &Api,
    contracts: &[Contract],
    name: &str,
    layers: Option<&LayersSeen<'_>>,
    key_headers: &[String],
) -> String {
    let selector = selectors(api);
    let mut plan = Plan::default();
    for (op, contract) in api.operations.iter().zip(contracts) {
        let choice = choice::choose(contract);
        let statuses = if choice.retries() {
            choice::statuses(op)
        } else {
            Vec::new()
        };
        if choice.retries() {
            *plan.sets.entry(statuses.clone()).or_default() += 1;
            if statuses.is_empty() {
                plan.without_throttle += 1;
            }
        }
        plan.entries.push(Entry {
            selector: selector(op),
            key: op.key(),
            choice,
            statuses,
        });
    }
    // The defaults retry on what most retried operations declare; the others say
    // exactly what they declare in an entry of their own.
    let common = plan
        .sets
        .iter()
        .max_by_key(|(set, n)| (**n, std::cmp::Reverse(set.len())))
        .map(|(set, _)| set.clone())
        .unwrap_or_default();
    let needs_entry = |e: &Entry| !(e.choice == Choice::Retry && e.statuses == common);
    let unnamed: Vec<&str> = plan
        .entries
        .iter()
        .filter(|e| e.selector.is_none() && needs_entry(e))
        .map(|e| e.key.as_str())
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Retry policy for {}, as written by `retrylint init`.",
        escape::yaml_comment(name)
    );
    out.push_str(
        "# It is a starting point: review each entry against what your client really does,\n\
         # then run `retrylint check` on the description.\n\
         version: 1\n",
    );
    let attempts = match layers {
        Some(seen) => layer_section(&mut out, api, seen),
        None => 3,
    };
    out.push_str(
        "\n# Every operation: reads and idempotent writes are retried within one deadline,\n\
         # with exponential backoff and full jitter, honouring Retry-After up to a bound,\n\
         # on connection failures, timeouts and the 429 and 503 they declare.\n",
    );
    let others = plan
        .entries
        .iter()
        .filter(|e| e.choice.retries() && e.statuses != common)
        .count();
    if others > 0 {
        let (declare, entries, retry) = if others == 1 {
            ("operation declares", "its entry", "retries")
        } else {
            ("operations declare", "their entries", "retry")
        };
        let _ = writeln!(
            out,
            "# The defaults retry on the statuses most of them declare; {others} {declare}\n\
             # others, and {entries} below {retry} on exactly those."
        );
    }
    if plan.without_throttle > 0 {
        let _ = writeln!(
            out,
            "# {} retried {} neither 429 nor 503: retried on connection failures\n\
             # and timeouts only, until the description says how the server throttles.",
            plan.without_throttle,
            if plan.without_throttle == 1 {
                "operation declares"
            } else {
                "operations declare"
            }
        );
    }
    let _ = write!(
        out,
        "defaults:\n  \
           maxAttempts: {attempts}\n  \
           deadline: 20s\n  \
           perAttemptTimeout: 2s\n  \
           backoff: {{ base: 100ms, cap: 2s, multiplier: 2, jitter: full }}\n  \
           retryOn: {}\n  \
           retryAfter: {{ honor: true, max: 5s }}\n  \
           log: [attempt, signal, delay, deadlineRemaining, correlationId]\n",
        choice::retry_on(&common)
    );
    let named: Vec<&Entry> = plan
        .entries
        .iter()
        .filter(|e| e.selector.is_some() && needs_entry(e))
        .collect();
    let unanswered: Vec<&Entry> = named
        .iter()
        .copied()
        .filter(|e| {
            matches!(
                e.choice,
                Choice::Keyed {
                    no_conflict_response: true,
                    ..
                }
            )
        })
        .collect();
    if !key_headers.is_empty() || !unanswered.is_empty() {
        out.push_str("\nlint:\n");
    }
    if !key_headers.is_empty() {
        out.push_str(
            "  # Idempotency key headers besides the known names (--key-header).\n  keyHeaders:\n",
        );
        for header in key_headers {
            let _ = writeln!(out, "    - {}", quote(header));
        }
    }
    write_unanswered(&mut out, &unanswered);
    if !unnamed.is_empty() {
        out.push_str(
            "\n# Operations that no selector names alone (no unique operationId, and a path\n\
             # that reads as a glob): write their entries by hand.\n",
        );
        for key in &unnamed {
            let _ = writeln!(out, "#   {}", escape::yaml_comment(key));
        }
    }
    write_entries(&mut out, &named, &common);
    out
}

/// The keyed operations whose description declares no answer to a reused or in-flight
/// key: the policy retries them with their key (each entry says the answer is unsaid), so
/// `key-conflict-response-undeclared` is set aside for them with the reason, rather than
/// repeated on every check of the policy. Removing the entry brings the reminder back.
fn write_unanswered(out: &mut String, entries: &[&Entry]) {
    if entries.is_empty() {
        return;
    }
    out.push_str(
        "  # These keyed operations declare no 409, 422 or 400: what a reused or in-flight\n  \
         # key gets is the API's to document. Remove this entry to be reminded on every check.\n  \
         ignore:\n    \
         - rule: key-conflict-response-undeclared\n      \
         reason: \"the description declares no response for a reused or in-flight key\"\n      \
         operations:\n",
    );
    for e in entries {
        let _ = writeln!(
            out,
            "        - {}{}",
            quote(e.name()),
            comment_for(e.name(), &e.key)
        );
    }
}

/// Every operation's entry, grouped by what the policy does with it.
#[derive(Default)]
struct Plan {
    entries: Vec<Entry>,
    /// How many retried operations declare each set of throttling statuses.
    sets: BTreeMap<Vec<u16>, usize>,
    /// Retried operations that declare neither 429 nor 503.
    without_throttle: usize,
}

/// One operation, and what the policy does with it.
struct Entry {
    /// The selector that names it alone, if there is one.
    selector: Option<String>,
    /// `POST /orders`, for a comment beside an operationId.
    key: String,
    choice: Choice,
    /// The 429 and 503 it declares, when it is retried.
    statuses: Vec<u16>,
}

impl Entry {
    /// Its selector (only entries with one are written).
    fn name(&self) -> &str {
        self.selector.as_deref().unwrap_or(&self.key)
    }
}

/// The `operations:` section, one group per kind of entry, each with why.
fn write_entries(out: &mut String, entries: &[&Entry], common: &[u16]) {
    let group = |f: &dyn Fn(&Entry) -> bool| {
        entries
            .iter()
            .copied()
            .filter(|e| f(e))
            .collect::<Vec<&Entry>>()
    };
    let more_statuses = group(&|e| e.choice == Choice::Retry && e.statuses != common);
    let keyed = group(&|e| matches!(e.choice, Choice::Keyed { .. }));
    let reconcile = group(&|e| matches!(e.choice, Choice::Reconcile { .. }));
    let optional = group(&|e| matches!(e.choice, Choice::Never(Why::OptionalKey(_))));
    let outside = group(&|e| matches!(e.choice, Choice::Never(Why::KeyOutsideHeaders(_))));
    let by_location = group(&|e| matches!(e.choice, Choice::Never(Why::StatusByLocation)));
    let unprotected = group(&|e| matches!(e.choice, Choice::Never(Why::Unprotected)));
    if [
        &more_statuses,
        &keyed,
        &reconcile,
        &optional,
        &outside,
        &by_location,
        &unprotected,
    ]
    .iter()
    .all(|g| g.is_empty())
    {
        out.push_str("\n# No operation needs an entry of its own: the defaults say it all.\n");
        return;
    }
    out.push_str("\noperations:\n");
    if !more_statuses.is_empty() {
        out.push_str("  # Retried on the throttling statuses they declare, not the defaults'.\n");
        for e in &more_statuses {
            let _ = writeln!(
                out,
                "  {}: {{ retryOn: {} }}{}",
                quote(e.name()),
                choice::retry_on(&e.statuses),
                comment_for(e.name(), &e.key)
            );
        }
    }
    if !keyed.is_empty() {
        out.push_str(
            "  # Non-idempotent, with an idempotency key the description requires: retried with\n  \
             # the same key on every attempt (a key in the body or the query is named in\n  \
             # keyHeader too, read in its place). Check how long the server keeps keys.\n",
        );
        for e in &keyed {
            let Choice::Keyed {
                header,
                no_conflict_response,
            } = &e.choice
            else {
                continue;
            };
            let _ = writeln!(
                out,
                "  {}:{}",
                quote(e.name()),
                comment_for(e.name(), &e.key)
            );
            if *no_conflict_response {
                out.push_str(
                    "    # No 409, 422 or 400 is declared: what a reused or in-flight key gets is unsaid.\n",
                );
            }
            let _ = writeln!(
                out,
                "    idempotency: {{ keyHeader: {}, keyRetention: 24h }}",
                quote(header)
            );
            out.push_str("    onUnknownOutcome: retry-same-key\n");
            if e.statuses != common {
                let _ = writeln!(out, "    retryOn: {}", choice::retry_on(&e.statuses));
            }
        }
    }
    if !reconcile.is_empty() {
        out.push_str(
            "  # Non-idempotent, with a status endpoint and no required key: never retried; a\n  \
             # timed-out call asks the status endpoint whether it happened.\n",
        );
        for e in &reconcile {
            let Choice::Reconcile { endpoint } = &e.choice else {
                continue;
            };
            let _ = writeln!(
                out,
                "  {}: {{ maxAttempts: 1, onUnknownOutcome: reconcile, idempotency: {{ statusEndpoint: {} }} }}{}",
                quote(e.name()),
                quote(endpoint),
                comment_for(e.name(), &e.key)
            );
        }
    }
    never(
        out,
        &optional,
        "Non-idempotent, with an idempotency key the description declares optional: never\n  \
         # retried. A client that always sends the key may retry with it (keyHeader, and\n  \
         # onUnknownOutcome: retry-same-key) once the description requires it.",
    );
    never(
        out,
        &outside,
        "Non-idempotent, with an optional idempotency key the description takes in the\n  \
         # request body or the query string: never retried. The application, not a retrying\n  \
         # client, puts that key in the request: once it sends the same key on every attempt,\n  \
         # name the key in idempotency.keyHeader (read as the key in its place) and retry with it.",
    );
    never(
        out,
        &by_location,
        "Non-idempotent; the outcome is found through a 202's Location (Operation-Location,\n  \
         # Azure-AsyncOperation) or a long-running operation, which no selector names: never\n  \
         # retried; a timed-out call is reported as failed until the client follows that location.",
    );
    never(
        out,
        &unprotected,
        "Non-idempotent, with nothing that makes a repeat safe: never retried, and a\n  \
         # timed-out call is reported as failed. Add a key or a status endpoint to retry.",
    );
}

/// Entries that are never retried and fail on an unknown outcome, under one comment.
fn never(out: &mut String, entries: &[&Entry], why: &str) {
    if entries.is_empty() {
        return;
    }
    let _ = writeln!(out, "  # {why}");
    for e in entries {
        let mut comment = comment_for(e.name(), &e.key);
        let note = match &e.choice {
            Choice::Never(Why::OptionalKey(header)) => Some(format!("optional {header}")),
            Choice::Never(Why::KeyOutsideHeaders(note)) => Some(note.clone()),
            _ => None,
        };
        if let Some(note) = note {
            comment = if comment.is_empty() {
                format!("  # {}", escape::yaml_comment(&note))
            } else {
                format!("{comment}, {}", escape::yaml_comment(&note))
            };
        }
        let _ = writeln!(
            out,
            "  {}: {{ maxAttempts: 1, onUnknownOutcome: fail }}{comment}",
            quote(e.name())
        );
    }
}

/// Names each operation by a selector that reads back as that operation alone: its
/// operationId when unique and read as one, else `METHOD /path` when that reads back as
/// exactly it (a path with a `*` segment would read as a glob). `None` otherwise.
fn selectors(api: &Api) -> impl Fn(&Operation) -> Option<String> + '_ {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for op in &api.operations {
        if let Some(id) = &op.operation_id {
            *ids.entry(id.as_str()).or_default() += 1;
        }
    }
    move |op: &Operation| match &op.operation_id {
        Some(id)
            if ids.get(id.as_str()) == Some(&1)
                && Selector::parse(id) == Ok(Selector::OperationId(id.clone())) =>
        {
            Some(id.clone())
        }
        _ => {
            let key = op.key();
            let exact = Selector::Exact {
                method: op.method,
                path: op.path.clone(),
            };
            (Selector::parse(&key) == Ok(exact)).then_some(key)
        }
    }
}

/// Writes `service.hosts` and a summary of the layers; returns the client's attempts: 3,
/// or fewer when the layers already retry (their attempts multiply with the client's).
fn layer_section(out: &mut String, api: &Api, seen: &LayersSeen<'_>) -> i64 {
    if !seen.hosts.is_empty() {
        out.push_str(
            "\n# The names the mesh and gateways know the service by.\nservice:\n  hosts:\n",
        );
        for host in seen.hosts {
            let _ = writeln!(out, "    - {}", quote(host));
        }
    }
    let bound = seen.bound;
    let mut worst: Option<u64> = Some(1);
    let mut unbounded = false;
    for index in 0..api.operations.len() {
        // Layers at the client's position (the SDK) are alternatives to this client.
        let chain = bound.chain(index, None);
        let product = chain
            .hops
            .iter()
            .filter(|h| h.position != Position::Client)
            .try_fold(1u64, |total, h| {
                (h.attempts != UNBOUNDED_ATTEMPTS)
                    .then(|| total.saturating_mul(h.attempts.max(1) as u64))
            });
        match product {
            Some(n) => worst = worst.map(|w| w.max(n)),
            None => unbounded = true,
        }
    }
    out.push_str("\n# Layers in front of the service (from -p), each retrying on its own:\n");
    for (layer, serves) in bound.layers.iter().zip(&bound.serves) {
        let state = if *serves {
            ""
        } else {
            " (serves none of the service's hosts)"
        };
        let text = format!("{}: {}{state}", layer.position, layer.name);
        let _ = writeln!(out, "#   {}", escape::yaml_comment(&text));
    }
    let layer_attempts = if unbounded { None } else { worst };
    let attempts = match layer_attempts {
        Some(n) => (MAX_AMPLIFICATION / n.max(1)).clamp(1, 3),
        None => 1,
    };
    let why = match layer_attempts {
        Some(1) => "no layer retries: the client may".to_string(),
        Some(n) => format!("the layers already make up to {n} requests per call"),
        None => "a layer's retries are bounded only by a budget".to_string(),
    };
    let _ = writeln!(
        out,
        "# maxAttempts below is {attempts}: {why}, and attempts multiply across layers\n\
         # (retry-amplification warns above {MAX_AMPLIFICATION} requests per call)."
    );
    attempts as i64
}

/// `  # POST /orders` after an operationId selector, so the file reads without the API.
fn comment_for(selector: &str, key: &str) -> String {
    if selector == key {
        String::new()
    } else {
        format!("  # {}", escape::yaml_comment(key))
    }
}
