//! The HTML report: one self-contained file.

use super::Report;

/// Renders the report as one HTML page.
pub fn render(report: &Report) -> String {
    format!("<!doctype html><title>{}</title>\n", report.description)
}
