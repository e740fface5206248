//! `retry-on-non-transient`: retrying a status that a retry cannot fix.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};
use crate::analysis::plan::is_transient_status;
use crate::analysis::fix::{Change, Fix, Safety};
use crate::input::policy::{Effective, Signal};

declare_rule!(
    /// `retryOn` lists a 4xx other than 408, 409, 425 and 429, or 501 or 505 (or a class
    /// of such statuses).
    RetryOnNonTransient,
    "retry-on-non-transient",
    Error,
    Policy,
    "retryOn has a status that retrying cannot fix",
    layer_fix: NonTransientStatus,
    fix: Safe
);

impl Rule for RetryOnNonTransient {
    fn judges_layer(&self, _layer: &crate::analysis::layers::Layer, _route: &crate::analysis::layers::Route) -> bool {
        true
    }

    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy else { return };
        if !policy.is_retried() {
            return;
        }
        let fix = if cx.layer.is_none() { narrowed(policy) } else { None };
        for signal in policy.retry_on() {
            let Some(why) = why_not_transient(signal.value) else {
                continue;
            };
            // One finding per place: the message names no operation, so every operation
            // that inherits this value shares it.
            out.push(
                Finding::new(
                    Self::META.id,
                    format!("retryOn includes {}: {why}", signal.value),
                    Label::new(&signal.loc, "retrying cannot fix this"),
                )
                .help("retry only what can pass: 408, 409, 425, 429, 5xx (but 501 and 505), connect-failure, refused-stream, reset, timeout")
                .fix(fix.clone()),
            );
        }
    }
}

/// Why retrying this condition cannot help, or `None` when it can.
/// The fix: `retryOn` without what retrying cannot fix (one fix for the whole list, so
/// that every finding of it makes the same edits). None when nothing would be left.
fn narrowed(policy: &Effective) -> Option<Fix> {
    let list = policy.policy.retry_on.as_ref()?;
    let mut removed = Vec::new();
    for signal in &list.value {
        if why_not_transient(signal.value).is_some() {
            let (_, index) = signal.loc.pointer.rsplit_once('/')?;
            removed.push(index.parse::<usize>().ok()?);
        }
    }
    if removed.is_empty() || removed.len() == list.value.len() || list.loc.note.is_some() {
        return None;
    }
    let names: Vec<String> = list
        .value
        .iter()
        .filter(|s| why_not_transient(s.value).is_some())
        .map(|s| s.value.to_string())
        .collect();
    Some(Fix::new(
        Safety::Safe,
        format!("take {} out of retryOn", names.join(", ")),
        vec![Change::RemoveItems {
            file: list.loc.file,
            list: list.loc.pointer.to_string(),
            items: removed,
        }],
    ))
}

fn why_not_transient(signal: Signal) -> Option<String> {
    Some(match signal {
        Signal::Status(code) if is_transient_status(code) => return None,
        Signal::Status(501) => "501 Not Implemented will not become implemented on a retry".into(),
        Signal::Status(505) => "505 HTTP Version Not Supported does not change on a retry".into(),
        Signal::Status(code) if (400..500).contains(&code) => {
            format!(
                "{code} says the request itself is wrong; sending it again gets the same answer"
            )
        }
        Signal::Status(code) if (100..400).contains(&code) => {
            format!("{code} is not a failure; there is nothing to retry")
        }
        Signal::Status(code) => format!("{code} is not a status retrying can fix"),
        Signal::Class(4) => {
            "4xx includes statuses that say the request itself is wrong (400, 401, 403, 404, 422…)"
                .into()
        }
        Signal::Class(class @ 1..=3) => {
            format!("{class}xx statuses are not failures; there is nothing to retry")
        }
        _ => return None,
    })
}
