//! Human output: miette diagnostics with snippets of every file a finding touches.
//!
//! A finding's labels in its primary file render in one snippet; labels in other files
//! (the description when the primary is the policy, a shared `$ref` definition) render
//! as related diagnostics, each with its own source. Snippets are cut from the file by
//! its line index, so rendering costs the same in a 13 MB file as in a small one.

use std::borrow::Cow;
use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::{CheckResult, Summary};
use crate::error::{ErrorSite, InputError};
use crate::finding::{Finding, Severity};
use crate::source::{LineIndex, SourceFile};

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
        .with_wrap_lines(false)
        .with_context_lines(1)
        .with_show_related_as_nested(true)
        .without_syntax_highlighting()
}

fn finding_diagnostic<'a>(finding: &Finding, result: &'a CheckResult) -> Report<'a> {
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
        match related.iter_mut().find(|r| r.source.same_file(file)) {
            Some(existing) => existing.labels.push(labeled),
            None => related.push(Report {
                message: format!("see {}", file.name()),
                severity: miette::Severity::Advice,
                help: None,
                source: FileSource::of(file),
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
        source: FileSource::of(&result.sources[primary_file]),
        labels: std::mem::take(&mut labels),
        related,
    }
}

fn error_diagnostic(error: &InputError) -> Report<'_> {
    fn site_report(site: &ErrorSite, message: String, help: Option<String>) -> Report<'_> {
        Report {
            message,
            severity: miette::Severity::Error,
            help,
            source: FileSource {
                name: site.file.clone(),
                text: &site.text,
                lines: Cow::Owned(LineIndex::new(&site.text)),
            },
            labels: vec![LabeledSpan::new_primary_with_span(
                Some(site.label.clone()),
                span(site.span),
            )],
            related: Vec::new(),
        }
    }
    let message = format!("error: {}", error.message);
    let mut report = match &error.site {
        Some(site) => site_report(site, message, error.help.clone()),
        None => Report {
            message,
            severity: miette::Severity::Error,
            help: error.help.clone(),
            source: FileSource {
                name: String::new(),
                text: "",
                lines: Cow::Owned(LineIndex::new("")),
            },
            labels: Vec::new(),
            related: Vec::new(),
        },
    };
    report.related = error
        .related
        .iter()
        .map(|site| {
            let mut r = site_report(site, format!("see {}", site.file), None);
            r.severity = miette::Severity::Advice;
            r
        })
        .collect();
    report
}

fn span(s: crate::source::Span) -> SourceSpan {
    SourceSpan::new((s.start as usize).into(), s.len())
}

/// A finding (or a related part of one) as miette sees it.
#[derive(Debug)]
struct Report<'a> {
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    source: FileSource<'a>,
    labels: Vec<LabeledSpan>,
    related: Vec<Report<'a>>,
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report<'_> {}

impl Diagnostic for Report<'_> {
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

/// A file's text as a miette source: snippets are cut by the file's line index, so a
/// snippet of a 13 MB file costs what one of a small file does, and columns count
/// characters.
#[derive(Debug, Clone)]
struct FileSource<'a> {
    name: String,
    text: &'a str,
    lines: Cow<'a, LineIndex>,
}

impl<'a> FileSource<'a> {
    fn of(file: &'a SourceFile) -> FileSource<'a> {
        FileSource {
            name: file.name(),
            text: &file.text,
            lines: Cow::Borrowed(file.lines()),
        }
    }

    fn same_file(&self, file: &SourceFile) -> bool {
        std::ptr::eq(self.text, &*file.text)
    }
}

/// Longest line shown whole; longer ones are cut around the label.
const MAX_LINE: usize = 240;

impl SourceCode for FileSource<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let text = self.text;
        let lines = &*self.lines;
        let start = span.offset().min(text.len());
        let end = (start + span.len()).min(text.len());
        let first_line = lines.line_of(start as u32);
        let last_line = lines.line_of(end.saturating_sub(usize::from(end > start)) as u32);
        let contents = |from: usize, to: usize, line: u32, column: usize, count: u32| {
            Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                &text.as_bytes()[from..to.max(from)],
                SourceSpan::new(from.into(), to.max(from) - from),
                (line - 1) as usize,
                column,
                count as usize,
            )) as Box<dyn SpanContents<'b> + 'b>
        };
        let line_span = lines.line_span(text, first_line);
        if context_lines_before == 0 && context_lines_after == 0 {
            // The span itself: its position heads the snippet.
            let column = lines.position(text, start as u32).column as usize - 1;
            return Ok(contents(
                start,
                end,
                first_line,
                column,
                last_line - first_line + 1,
            ));
        }
        if first_line == last_line && line_span.len() > MAX_LINE {
            // One very long line (minified JSON): show a window around the label.
            let from = floor_char(
                text,
                start
                    .saturating_sub(MAX_LINE / 3)
                    .max(line_span.start as usize),
            );
            let to = floor_char(text, (end + MAX_LINE / 3).min(line_span.end as usize));
            let column = lines.position(text, from as u32).column as usize - 1;
            return Ok(contents(from, to, first_line, column, 1));
        }
        let first = first_line
            .saturating_sub(context_lines_before as u32)
            .max(1);
        let last = (last_line + context_lines_after as u32).min(lines.line_count());
        let from = lines.line_span(text, first).start as usize;
        let to = lines.line_span(text, last).end as usize;
        Ok(contents(from, to, first, 0, last - first + 1))
    }
}

/// The nearest character boundary at or before `offset`.
fn floor_char(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}
