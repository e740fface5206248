//! How results are shown. Each format is one module; all read the same [`CheckResult`]s.

pub mod human;
pub mod plan;

use crate::finding::{Finding, Severity};
use crate::load::Sources;

/// The outcome of checking one description.
#[derive(Debug)]
pub struct CheckResult {
    /// The description's display name.
    pub description: String,
    pub sources: Sources,
    pub findings: Vec<Finding>,
    pub operation_count: usize,
}

/// Counts by severity over several results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub operations: usize,
}

impl Summary {
    pub fn of(results: &[CheckResult]) -> Summary {
        let mut summary = Summary::default();
        for result in results {
            summary.operations += result.operation_count;
            for finding in &result.findings {
                match finding.severity {
                    Severity::Error => summary.errors += 1,
                    Severity::Warning => summary.warnings += 1,
                    Severity::Info => summary.infos += 1,
                }
            }
        }
        summary
    }

    /// `3 errors, 2 warnings in 41 operations`.
    pub fn line(&self) -> String {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let mut parts = vec![
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
        ];
        if self.infos > 0 {
            parts.push(format!("{} info", self.infos));
        }
        format!(
            "{} in {}",
            parts.join(", "),
            plural(self.operations, "operation")
        )
    }
}
