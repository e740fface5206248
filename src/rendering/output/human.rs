//! Human output: miette diagnostics with snippets of every file a finding touches.
//!
//! A finding's labels in its primary file render in one snippet; labels in other files
//! (the description when the primary is the policy, a shared `$ref` definition) render
//! as related diagnostics, each with its own source. Snippets come from an [`Excerpt`]:
//! long lines cut around the labels, control characters escaped, so rendering costs the
//! same in a 13 MB file as in a small one and nothing in a file can drive the terminal.
//! Messages, labels and help are escaped the same way: each is one line of plain text.

use std::fmt;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};

use super::excerpt::{Excerpt, Mark};
use super::{CheckResult, Shown, Summary};
use crate::analysis::rules::finding::{Finding, Severity};
use crate::error::{ErrorSite, InputError};
use crate::escape;
use crate::input::source::LineIndex;

/// Renders the findings `shown` selects, then the summary line.
pub fn render(results: &[CheckResult], color: bool, shown: Shown) -> String {
    let (picked, cut) = shown.select(results);
    // Each finding renders on its own (on every core), then they are joined in order.
    let one = |&(r, f): &(usize, usize)| {
        let mut out = String::new();
        let diagnostic = finding_diagnostic(&results[r].findings[f], &results[r]);
        // Rendering into a String cannot fail.
        let _ = handler(color).render_report(&mut out, &diagnostic);
        out.push('\n');
        out
    };
    let rendered = crate::parallel::map_in_order_here(&picked, one);
    let mut out = String::with_capacity(rendered.iter().flatten().map(String::len).sum());
    for (text, pick) in rendered.into_iter().zip(&picked) {
        out.push_str(&text.unwrap_or_else(|| one(pick)));
    }
    if let Some(notice) = cut_notice(cut, shown) {
        out.push_str(&notice);
        out.push('\n');
    }
    out.push_str(&Summary::of(results).line_for(shown));
    out.push('\n');
    out
}

/// What `--max-findings` left out, in one line.
pub fn cut_notice(cut: usize, shown: Shown) -> Option<String> {
    let max = shown.max?;
    (cut > 0).then(|| {
        format!(
            "… {cut} more finding{} not shown (--max-findings {max}); --statistics counts every one by rule",
            if cut == 1 { "" } else { "s" }
        )
    })
}

/// Renders an input error, and each further error found with it.
pub fn render_error(error: &InputError, color: bool) -> String {
    let mut out = String::new();
    for error in error.each() {
        let diagnostic = error_diagnostic(error);
        let _ = handler(color).render_report(&mut out, &diagnostic);
    }
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

fn finding_diagnostic(finding: &Finding, result: &CheckResult) -> Report {
    let primary_file = finding.primary.loc.file;
    // The labels of each file, the primary file first.
    let mut files: Vec<(usize, Vec<Mark>)> = vec![(
        primary_file,
        vec![Mark {
            span: finding.primary.loc.span,
            text: finding.primary.text.clone(),
            primary: true,
        }],
    )];
    // A grouped finding lists a place per operation: the first few are shown.
    let shown_related = super::related_shown(finding);
    let hidden = finding.related.len() - shown_related;
    for label in &finding.related[..shown_related] {
        let mark = Mark {
            span: label.loc.span,
            text: label.text.clone(),
            primary: false,
        };
        match files.iter_mut().find(|(file, _)| *file == label.loc.file) {
            Some((_, marks)) => marks.push(mark),
            None => files.push((label.loc.file, vec![mark])),
        }
    }
    let mut reports = files.into_iter().map(|(index, mut marks)| {
        let file = &result.sources[index];
        if index != primary_file {
            // One related diagnostic per other file, holding all its labels.
            marks[0].primary = true;
        }
        let (source, labels) = Excerpt::new(&file.name(), &file.text, file.lines(), &marks);
        Report {
            message: format!("see {}", escape::terminal(&file.name())),
            severity: miette::Severity::Advice,
            help: None,
            source,
            labels,
            related: Vec::new(),
        }
    });
    let mut report = reports
        .next()
        .unwrap_or_else(|| Report::bare(String::new()));
    report.related = reports.collect();
    report.message = escape::terminal(&format!(
        "{}[{}]: {}",
        finding.severity, finding.rule, finding.message
    ))
    .into_owned();
    report.severity = match finding.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    };
    // Every finding ends with where to learn more.
    let mut hint = super::explain_hint(finding.rule);
    if hidden > 0 {
        hint = format!(
            "… and {hidden} more place{} ({} operations in all; --format json lists every one)\n{hint}",
            if hidden == 1 { "" } else { "s" },
            finding.affected.len()
        );
    }
    report.help = Some(match finding.help.as_deref() {
        Some(help) => format!("{}\n{hint}", escape::terminal(help)),
        None => hint,
    });
    report
}

fn error_diagnostic(error: &InputError) -> Report {
    fn site_report(site: &ErrorSite, message: String, help: Option<String>) -> Report {
        let marks = [Mark {
            span: site.span,
            text: site.label.clone(),
            primary: true,
        }];
        let (source, labels) =
            Excerpt::new(&site.file, &site.text, &LineIndex::new(&site.text), &marks);
        Report {
            message,
            severity: miette::Severity::Error,
            help,
            source,
            labels,
            related: Vec::new(),
        }
    }
    let message = escape::terminal(&format!("error: {}", error.message)).into_owned();
    let help = error
        .help
        .as_deref()
        .map(|h| escape::terminal(h).into_owned());
    let mut report = if let Some(site) = &error.site {
        site_report(site, message, help)
    } else {
        let mut report = Report::bare(message);
        report.help = help;
        report
    };
    report.related = error
        .related
        .iter()
        .map(|site| {
            let mut r = site_report(site, format!("see {}", escape::terminal(&site.file)), None);
            r.severity = miette::Severity::Advice;
            r
        })
        .collect();
    report
}

/// A finding (or a related part of one) as miette sees it.
#[derive(Debug)]
struct Report {
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    source: Excerpt,
    labels: Vec<LabeledSpan>,
    related: Vec<Report>,
}

impl Report {
    /// A diagnostic with no snippet.
    fn bare(message: String) -> Report {
        let (source, labels) = Excerpt::new("", "", &LineIndex::new(""), &[]);
        Report {
            message,
            severity: miette::Severity::Error,
            help: None,
            source,
            labels,
            related: Vec::new(),
        }
    }
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
