//! Human output: miette diagnostics with snippets of every file a finding touches.
//!
//! A finding's labels in its primary file render in one snippet; labels in other files
//! (the description when the primary is the policy, a shared `$ref` definition) render
//! as related diagnostics, each with its own source. Snippets are cut from the file by
//! its line index, so rendering costs the same in a 13 MB file as in a small one.

use std::fmt;
use std::sync::Arc;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::{CheckResult, Summary};
use crate::error::InputError;
use crate::finding::{Finding, Severity};
use crate::source::SourceFile;

/// Renders findings of every result and the summary line.
pub fn render(results: &[CheckResult], color: bool) -> String {
    let handler = handler(color);
    let mut out = String::new();
    for result in results {
        for finding in &result.findings {
            let diagnostic = finding_diagnostic(finding, result);
            // Rendering into a String cannot fail.
            let _ = handler.render_report(&mut out, &diagnostic);
            out.push('\n');
        }
    }
    out.push_str(&Summary::of(results).line());
    out.push('\n');
    out
}

/// Renders an input error.
pub fn render_error(error: &InputError, color: bool) -> String {
    let mut out = String::new();
    let diagnostic = error_diagnostic(error);
    let _ = handler(color).render_report(&mut out, &diagnostic);
    out
}

fn handler(color: bool) -> GraphicalReportHandler {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_context_lines(1)
        .with_show_related_as_nested(true)
        .without_syntax_highlighting()
}

fn finding_diagnostic(finding: &Finding, result: &CheckResult) -> Report {
    let primary_file = finding.primary.loc.file;
    let mut labels = vec![LabeledSpan::new_primary_with_span(
        Some(finding.primary.text.clone()),
        span(finding.primary.loc.span),
    )];
    let mut related: Vec<Report> = Vec::new();
    for label in &finding.related {
        if label.loc.file == primary_file {
            labels.push(LabeledSpan::new_with_span(
                Some(label.text.clone()),
                span(label.loc.span),
            ));
            continue;
        }
        // One related diagnostic per other file, holding all its labels.
        let file = &result.sources[label.loc.file];
        let labeled =
            LabeledSpan::new_primary_with_span(Some(label.text.clone()), span(label.loc.span));
        match related.iter_mut().find(|r| Arc::ptr_eq(&r.source.0, file)) {
            Some(existing) => existing.labels.push(labeled),
            None => related.push(Report {
                message: format!("see {}", file.name()),
                severity: miette::Severity::Advice,
                help: None,
                source: FileSource(file.clone()),
                labels: vec![labeled],
                related: Vec::new(),
            }),
        }
    }
    Report {
        message: format!(
            "{}[{}]: {}",
            finding.severity, finding.rule, finding.message
        ),
        severity: match finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        },
        help: finding.help.clone(),
        source: FileSource(result.sources[primary_file].clone()),
        labels: std::mem::take(&mut labels),
        related,
    }
}

fn error_diagnostic(error: &InputError) -> ErrorReport {
    ErrorReport {
        message: format!("error: {}", error.message),
        help: error.help.clone(),
        site: error.site.as_ref().map(|s| {
            (
                miette::NamedSource::new(&s.file, s.text.clone()),
                LabeledSpan::new_primary_with_span(Some(s.label.clone()), span(s.span)),
            )
        }),
        related: error
            .related
            .iter()
            .map(|s| ErrorReport {
                message: format!("in {}", s.file),
                help: None,
                site: Some((
                    miette::NamedSource::new(&s.file, s.text.clone()),
                    LabeledSpan::new_primary_with_span(Some(s.label.clone()), span(s.span)),
                )),
                related: Vec::new(),
            })
            .collect(),
    }
}

fn span(s: crate::source::Span) -> SourceSpan {
    SourceSpan::new((s.start as usize).into(), s.len())
}

/// A finding (or a related part of one) as miette sees it.
#[derive(Debug)]
struct Report {
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    source: FileSource,
    labels: Vec<LabeledSpan>,
    related: Vec<Report>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report {}

impl Diagnostic for Report {
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
    }
}

/// An input error as miette sees it.
#[derive(Debug)]
struct ErrorReport {
    message: String,
    help: Option<String>,
    site: Option<(miette::NamedSource<Arc<str>>, LabeledSpan)>,
    related: Vec<ErrorReport>,
}

impl fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ErrorReport {}

impl Diagnostic for ErrorReport {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.site.as_ref().map(|(s, _)| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let (_, label) = self.site.as_ref()?;
        Some(Box::new(std::iter::once(label.clone())))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
    }
}

/// A loaded file as a miette source: snippets are cut by the file's line index.
#[derive(Debug, Clone)]
struct FileSource(Arc<SourceFile>);

impl SourceCode for FileSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let file = &self.0;
        let start = span.offset().min(file.text.len());
        let end = (start + span.len()).min(file.text.len());
        let first = file
            .line_of(start as u32)
            .saturating_sub(context_lines_before as u32)
            .max(1);
        let last_of_span = file.line_of(end.saturating_sub(usize::from(end > start)) as u32);
        let last = (last_of_span + context_lines_after as u32).min(file.line_count());
        let data_start = file.line_span(first).start as usize;
        let data_end = file.line_span(last).end as usize;
        let data = &file.text.as_bytes()[data_start..data_end.max(data_start)];
        Ok(Box::new(MietteSpanContents::new_named(
            file.name(),
            data,
            SourceSpan::new(data_start.into(), data.len()),
            (first - 1) as usize,
            0,
            (last - first + 1) as usize,
        )))
    }
}
