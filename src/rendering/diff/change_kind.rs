//! What kind of change a diff reports: a stable name each output prints (`key-removed`,
//! `deadline-removed`, …), as the text and JSON outputs and the GitHub annotations' titles
//! show it.

use std::fmt;

/// Declares [`ChangeKind`] with each kind's printed name.
macro_rules! change_kinds {
    ($($kind:ident => $name:literal,)+) => {
        /// The kind of one change.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum ChangeKind {
            $($kind,)+
        }

        impl ChangeKind {
            /// Every kind, in the order the comparison looks for them.
            #[cfg(test)]
            pub(crate) const ALL: &'static [ChangeKind] = &[$(ChangeKind::$kind,)+];

            /// The printed name.
            pub(crate) fn as_str(self) -> &'static str {
                match self {
                    $(ChangeKind::$kind => $name,)+
                }
            }
        }
    };
}

change_kinds! {
    NewUnprotectedWrite => "new-unprotected-write",
    OperationAdded => "operation-added",
    OperationRemoved => "operation-removed",
    IdempotencyChanged => "idempotency-changed",
    KeyRemoved => "key-removed",
    KeyAdded => "key-added",
    KeyRenamed => "key-renamed",
    KeyMadeOptional => "key-made-optional",
    KeyMadeRequired => "key-made-required",
    StatusEndpointRemoved => "status-endpoint-removed",
    StatusEndpointAdded => "status-endpoint-added",
    ThrottleStatusRemoved => "throttle-status-removed",
    ThrottleStatusAdded => "throttle-status-added",
    WaitHintRemoved => "wait-hint-removed",
    WaitHintAdded => "wait-hint-added",
    ConflictResponseRemoved => "conflict-response-removed",
    ConflictResponseAdded => "conflict-response-added",
    NewlyRetried => "newly-retried",
    NoLongerRetried => "no-longer-retried",
    RetriedOnNewSignal => "retried-on-new-signal",
    MaxAttemptsUp => "max-attempts-up",
    MaxAttemptsDown => "max-attempts-down",
    AmplificationUp => "amplification-up",
    AmplificationDown => "amplification-down",
    DeadlineRemoved => "deadline-removed",
    DeadlineAdded => "deadline-added",
    DeadlineBelowWorstCase => "deadline-below-worst-case",
    DeadlineShortened => "deadline-shortened",
    JitterRemoved => "jitter-removed",
    JitterAdded => "jitter-added",
    RetryAfterIgnored => "retry-after-ignored",
    RetryAfterHonoured => "retry-after-honoured",
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl serde::Serialize for ChangeKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_print_unique_kebab_case_names() {
        let mut names: Vec<&str> = ChangeKind::ALL.iter().map(|k| k.as_str()).collect();
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        );
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ChangeKind::ALL.len());
        assert_eq!(format!("{:<12}|", ChangeKind::KeyAdded), "key-added   |");
    }
}
