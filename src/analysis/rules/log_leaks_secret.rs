//! `log-leaks-secret`: retry logs that carry credentials, keys or payloads.

use super::{OperationContext, Rule};
use crate::analysis::rules::finding::{Finding, Label};

declare_rule!(
    /// `log` includes `authorization`, `cookie`, `token`, `idempotencyKey` or `requestBody`.
    LogLeaksSecret,
    "log-leaks-secret",
    Error,
    Policy,
    "the retry log includes a credential, key or request body"
);

/// What a logged field exposes, if anything: credentials, replayable keys, or payloads.
fn exposes(field: &str) -> Option<&'static str> {
    let words = words(field);
    let whole: String = words.concat();
    let last = words.last().map(String::as_str);
    if words.iter().any(|w| w == "authorization") || matches!(last, Some("token" | "cookie")) {
        Some("a credential: anyone who reads the logs can replay it")
    } else if whole == "idempotencykey" {
        Some(
            "the idempotency key: anyone who reads the logs can send a request the server takes for a retry",
        )
    } else if whole == "requestbody" || whole == "body" {
        Some(
            "the request body: whatever the payload carries (card numbers, personal data) lands in the logs",
        )
    } else {
        None
    }
}

/// `accessToken`, `set-cookie`, `Request_Body` → lower-case words.
fn words(field: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in field.chars() {
        if matches!(c, '-' | '_' | '.' | ' ') {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else if c.is_uppercase() && current.chars().last().is_some_and(char::is_lowercase) {
            out.push(std::mem::take(&mut current));
            current.extend(c.to_lowercase());
        } else {
            current.extend(c.to_lowercase());
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

impl Rule for LogLeaksSecret {
    fn check_operation(&self, cx: &OperationContext<'_>, out: &mut Vec<Finding>) {
        let Some(policy) = cx.policy.filter(|p| p.is_retried()) else {
            return;
        };
        let Some(log) = &policy.policy.log else {
            return;
        };
        for field in &log.value {
            let Some(what) = exposes(&field.value) else {
                continue;
            };
            out.push(
                Finding::new(
                    Self::META.id,
                    format!("the retry log includes `{}`, {what}", field.value),
                    Label::new(&field.loc, "leaks into logs"),
                )
                .help(
                    "log the attempt, signal, delay, deadlineRemaining and correlationId instead",
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_found_by_word_not_by_substring() {
        for leak in [
            "authorization",
            "Authorization",
            "accessToken",
            "token",
            "set-cookie",
            "idempotencyKey",
            "idempotency_key",
            "requestBody",
            "request-body",
        ] {
            assert!(exposes(leak).is_some(), "{leak}");
        }
        for fine in [
            "attempt",
            "tokenBucket",
            "correlationId",
            "deadlineRemaining",
            "cookieConsentShown",
        ] {
            assert!(exposes(fine).is_none(), "{fine}");
        }
    }
}
