//! `retrylint init`: a starting policy for a description, one that passes `check`.
//!
//! Reads and idempotent writes are retried within a deadline, with full jitter and
//! Retry-After honoured but bounded. A non-idempotent operation is retried only where the
//! description declares an idempotency-key header (the policy names it and retries with
//! the same key); every other one is never retried and fails on an unknown outcome.
//!
//! Text from the description (operationIds, paths, header names, the file name) is data:
//! keys and values are double-quoted YAML scalars, comments are kept on one line, so the
//! file parses back to exactly the intended selectors whatever that text holds.

use std::collections::HashMap;
use std::fmt::Write;

use crate::layers::chain::Bound;
use crate::layers::{Position, UNBOUNDED_ATTEMPTS};
use crate::model::{Api, Operation};
use crate::output::escape::{self, yaml_quoted as quote};
use crate::policy::Selector;
use crate::policy::SideEffect;

/// The most attempts per call a starting policy allows across all layers
/// (`retry-amplification`'s default limit).
const MAX_AMPLIFICATION: u64 = crate::rules::DEFAULT_MAX_AMPLIFICATION;

/// The layers in front of the service, when `init` is given mesh, gateway or proxy files.
pub struct LayersSeen<'a> {
    pub bound: &'a Bound,
    /// `--host` names, written to `service.hosts`.
    pub hosts: &'a [String],
}

/// Writes the starting policy for `api`, described as `name` in its header comment.
pub fn starting_policy(api: &Api, name: &str) -> String {
    starting_policy_with(api, name, None)
}

/// [`starting_policy`], for a service behind the layers given: the client's attempts
/// leave room for the layers' retries within [`MAX_AMPLIFICATION`].
pub fn starting_policy_with(api: &Api, name: &str, layers: Option<&LayersSeen<'_>>) -> String {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for op in &api.operations {
        if let Some(id) = &op.operation_id {
            *ids.entry(id.as_str()).or_default() += 1;
        }
    }
    // An operationId names one operation only when it is unique and reads as one; else
    // `METHOD /path`, when it reads back as exactly that operation (a path with a `*`
    // segment would read as a glob, matching others too). Otherwise there is no selector
    // for the operation alone, and it is listed in a comment.
    let selector = |op: &Operation| match &op.operation_id {
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
    };
    let mut keyed = Vec::new();
    let mut never = Vec::new();
    let mut unnamed = Vec::new();
    for op in &api.operations {
        let effect = match &op.idempotent {
            Some((true, _)) => SideEffect::Idempotent,
            Some((false, _)) => SideEffect::NonIdempotent,
            None => SideEffect::of_method(op.method),
        };
        if effect != SideEffect::NonIdempotent {
            continue;
        }
        let Some(name) = selector(op) else {
            unnamed.push(op.key());
            continue;
        };
        match op.headers.iter().find(|h| is_idempotency_key(&h.name)) {
            Some(header) => keyed.push((name, op.key(), header.name.clone())),
            None => never.push((name, op.key())),
        }
    }
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
    let _ = write!(
        out,
        "\n# Every operation: reads and idempotent writes are retried within one deadline,\n\
         # with exponential backoff and full jitter, honouring Retry-After up to a bound.\n\
         defaults:\n  \
           maxAttempts: {attempts}\n  \
           deadline: 20s\n  \
           perAttemptTimeout: 2s\n  \
           backoff: {{ base: 100ms, cap: 2s, multiplier: 2, jitter: full }}\n  \
           retryOn: [429, 503, connect-failure, timeout]\n  \
           retryAfter: {{ honor: true, max: 5s }}\n  \
           log: [attempt, signal, delay, deadlineRemaining, correlationId]\n",
    );
    if !unnamed.is_empty() {
        out.push_str(
            "\n# Non-idempotent operations that no selector names alone (no unique operationId,\n\
             # and a path that reads as a glob): write their entries by hand.\n",
        );
        for key in &unnamed {
            let _ = writeln!(out, "#   {}", escape::yaml_comment(key));
        }
    }
    if keyed.is_empty() && never.is_empty() {
        out.push_str("\n# The description has no non-idempotent operation named here.\n");
        return out;
    }
    out.push_str("\noperations:\n");
    if !keyed.is_empty() {
        out.push_str(
            "  # Non-idempotent, with an idempotency key the description declares: retried with\n  \
             # the same key on every attempt. Check how long the server keeps keys.\n",
        );
        for (selector, key, header) in &keyed {
            let _ = writeln!(out, "  {}:{}", quote(selector), comment_for(selector, key));
            let _ = writeln!(
                out,
                "    idempotency: {{ keyHeader: {}, keyRetention: 24h }}",
                quote(header)
            );
            out.push_str("    onUnknownOutcome: retry-same-key\n");
        }
    }
    if !never.is_empty() {
        out.push_str(
            "  # Non-idempotent, with nothing that makes a repeat safe: never retried, and a\n  \
             # timed-out call is reported as failed. Add a key or a status endpoint to retry.\n",
        );
        for (selector, key) in &never {
            let _ = writeln!(
                out,
                "  {}: {{ maxAttempts: 1, onUnknownOutcome: fail }}{}",
                quote(selector),
                comment_for(selector, key)
            );
        }
    }
    out
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

/// Whether a header is an idempotency key (not a request or trace id).
fn is_idempotency_key(name: &str) -> bool {
    name.to_ascii_lowercase().contains("idempot")
}

/// `  # POST /orders` after an operationId selector, so the file reads without the API.
fn comment_for(selector: &str, key: &str) -> String {
    if selector == key {
        String::new()
    } else {
        format!("  # {}", escape::yaml_comment(key))
    }
}
