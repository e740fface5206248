//! The part of a file a diagnostic shows: its labelled lines with one line of context,
//! long lines cut around each label, and every control character shown escaped.
//!
//! Every human diagnostic (findings and input errors alike) renders from an [`Excerpt`],
//! never from the file itself. The excerpt is a small text of its own: each group of
//! nearby labelled lines is one window, a line longer than [`LONG_LINE`] bytes keeps only
//! [`AROUND`] bytes on each side of each label on it (with `…` where text was left out),
//! and a label is at most [`LABEL_BYTES`] bytes long and [`LABEL_LINES`] lines high. So the
//! output for one diagnostic is bounded whatever the file holds: a 5 MB line shows a few
//! hundred characters, and labels far apart on one minified line end up side by side.
//! The labels are moved into the excerpt's coordinates; the header still names each
//! label's line and column in the real file.

use std::ops::Range;

use miette::{LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::escape;
use crate::input::source::{LineIndex, Span};

/// A line longer than this many bytes is cut around its labels.
pub const LONG_LINE: usize = 240;
/// Bytes kept on each side of a label on a long line.
pub const AROUND: usize = 60;
/// The longest label shown, in bytes; a longer one is cut at its start.
pub const LABEL_BYTES: usize = 120;
/// The most lines one label covers; a taller one is cut to its first line.
pub const LABEL_LINES: u32 = 40;
/// What stands for left-out text.
const ELLIPSIS: &str = "…";

/// One label to show.
pub struct Mark {
    pub span: Span,
    pub text: String,
    pub primary: bool,
}

/// Lines shown together, with their place in the real file.
#[derive(Debug, Clone)]
struct Window {
    /// Where the window is in [`Excerpt::data`].
    range: Range<usize>,
    /// The real file's 1-based line of the window's first line.
    first_line: u32,
    line_count: u32,
}

/// Where a label is: in the excerpt, and in the real file (0-based line and column).
#[derive(Debug, Clone)]
struct Placed {
    range: Range<usize>,
    line: u32,
    column: u32,
}

/// The text a diagnostic shows, as a miette source.
#[derive(Debug, Clone)]
pub struct Excerpt {
    name: String,
    data: String,
    windows: Vec<Window>,
    placed: Vec<Placed>,
}

impl Excerpt {
    /// The excerpt of `text` that shows `marks`, and the marks as labels of the excerpt.
    pub fn new(
        name: &str,
        text: &str,
        lines: &LineIndex,
        marks: &[Mark],
    ) -> (Excerpt, Vec<LabeledSpan>) {
        let mut excerpt = Excerpt {
            name: escape::terminal(name).into_owned(),
            data: String::new(),
            windows: Vec::new(),
            placed: Vec::new(),
        };
        // Each mark, clipped, with its first and last line.
        let mut clipped: Vec<(usize, Range<usize>, u32, u32)> = marks
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let start = floor_char(text, (m.span.start as usize).min(text.len()));
                let mut end = floor_char(text, (m.span.end as usize).clamp(start, text.len()));
                let first = lines.line_of(text, start as u32);
                let mut last =
                    lines.line_of(text, end.saturating_sub(usize::from(end > start)) as u32);
                if last - first >= LABEL_LINES {
                    end = (lines.line_span(text, first).end as usize).max(start);
                    last = first;
                }
                if last == first && end - start > LABEL_BYTES {
                    end = floor_char(text, start + LABEL_BYTES);
                }
                (i, start..end, first, last)
            })
            .collect();
        clipped.sort_by_key(|(_, r, _, _)| r.start);
        let mut labels = vec![None; marks.len()];
        // Group marks whose lines (with one line of context) touch.
        let mut group: Vec<(usize, Range<usize>, u32, u32)> = Vec::new();
        let mut group_last = 0u32;
        for mark in clipped {
            let from = mark.2.saturating_sub(1).max(1);
            if !group.is_empty() && from > group_last + 1 {
                excerpt.window(text, lines, &group, marks, &mut labels);
                group.clear();
            }
            let to = (mark.3 + 1).min(lines.line_count());
            group_last = if group.is_empty() {
                to
            } else {
                group_last.max(to)
            };
            group.push(mark);
        }
        if !group.is_empty() {
            excerpt.window(text, lines, &group, marks, &mut labels);
        }
        (excerpt, labels.into_iter().flatten().collect())
    }

    /// Adds the window that shows `group`, and its labels.
    fn window(
        &mut self,
        text: &str,
        lines: &LineIndex,
        group: &[(usize, Range<usize>, u32, u32)],
        marks: &[Mark],
        labels: &mut [Option<LabeledSpan>],
    ) {
        let first = group
            .iter()
            .map(|g| g.2)
            .min()
            .unwrap_or(1)
            .saturating_sub(1)
            .max(1);
        let last = group
            .iter()
            .map(|g| g.3)
            .max()
            .unwrap_or(1)
            .saturating_add(1)
            .min(lines.line_count());
        let start = self.data.len();
        // Pieces of the real text kept, with where each begins in the excerpt.
        let mut pieces: Vec<(Range<usize>, usize)> = Vec::new();
        for (line, span) in (first..=last).zip(lines.line_spans_from(text, first)) {
            if line > first {
                self.data.push('\n');
            }
            let (from, to) = (span.start as usize, span.end as usize);
            let kept: Vec<Range<usize>> = if to - from <= LONG_LINE {
                std::iter::once(from..to).collect()
            } else {
                // Around where each label starts and ends on this line; a label that goes
                // on to later lines keeps at most LABEL_BYTES of this one.
                let mut around: Vec<Range<usize>> = Vec::new();
                for (_, r, _, _) in group {
                    if (from..=to).contains(&r.start) {
                        let end = r.end.min(to).min(r.start + LABEL_BYTES);
                        around.push(r.start..floor_char(text, end));
                    } else if (from..=to).contains(&r.end) {
                        around.push(r.end..r.end);
                    }
                }
                around.sort_by_key(|r| r.start);
                let mut kept: Vec<Range<usize>> = Vec::new();
                for r in around {
                    let piece = floor_char(text, r.start.saturating_sub(AROUND).max(from))
                        ..floor_char(text, (r.end + AROUND).min(to));
                    match kept.last_mut() {
                        Some(prev) if piece.start <= prev.end => prev.end = prev.end.max(piece.end),
                        _ => kept.push(piece),
                    }
                }
                if kept.is_empty() {
                    kept.push(from..floor_char(text, from + 2 * AROUND));
                }
                kept
            };
            let mut at = from;
            for piece in kept {
                if piece.start > at {
                    self.data.push_str(ELLIPSIS);
                }
                pieces.push((piece.clone(), self.data.len()));
                self.data.push_str(&escape::terminal(
                    text.get(piece.clone()).unwrap_or_default(),
                ));
                at = piece.end;
            }
            if at < to {
                self.data.push_str(ELLIPSIS);
            }
        }
        let map = |offset: usize| -> usize {
            for (piece, base) in &pieces {
                if offset < piece.start {
                    return *base;
                }
                if offset <= piece.end {
                    return base + escape::terminal(&text[piece.start..offset]).len();
                }
            }
            pieces.last().map_or(start, |(p, base)| {
                base + escape::terminal(&text[p.clone()]).len()
            })
        };
        for (index, range, _, _) in group {
            let (a, b) = (map(range.start), map(range.end));
            let position = lines.position(text, range.start as u32);
            self.placed.push(Placed {
                range: a..b.max(a),
                line: position.line - 1,
                column: position.column - 1,
            });
            let mark = &marks[*index];
            let label_text = Some(escape::terminal(&mark.text).into_owned());
            let span = SourceSpan::new(a.into(), b.max(a) - a);
            labels[*index] = Some(if mark.primary {
                LabeledSpan::new_primary_with_span(label_text, span)
            } else {
                LabeledSpan::new_with_span(label_text, span)
            });
        }
        self.windows.push(Window {
            range: start..self.data.len(),
            first_line: first,
            line_count: last - first + 1,
        });
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let start = span.offset();
        let end = start + span.len();
        let window = self
            .windows
            .iter()
            .find(|w| w.range.start <= start && end <= w.range.end)
            .ok_or(MietteError::OutOfBounds)?;
        if context_lines_before == 0 && context_lines_after == 0 {
            // The label itself: its real line and column head the snippet.
            let placed = self.placed.iter().find(|p| p.range.start == start);
            let (line, column) = placed.map_or_else(
                || {
                    let before = &self.data[window.range.start..start];
                    (
                        window.first_line - 1 + before.matches('\n').count() as u32,
                        0,
                    )
                },
                |p| (p.line, p.column),
            );
            let data = self.data.get(start..end).ok_or(MietteError::OutOfBounds)?;
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                data.as_bytes(),
                *span,
                line as usize,
                column as usize,
                data.matches('\n').count() + 1,
            )));
        }
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            self.data[window.range.clone()].as_bytes(),
            SourceSpan::new(window.range.start.into(), window.range.len()),
            (window.first_line - 1) as usize,
            0,
            window.line_count as usize,
        )))
    }
}

/// The nearest character boundary at or before `offset`.
fn floor_char(text: &str, mut offset: usize) -> usize {
    offset = offset.min(text.len());
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excerpt(text: &str, spans: &[(usize, usize)]) -> (Excerpt, Vec<LabeledSpan>) {
        let marks: Vec<Mark> = spans
            .iter()
            .map(|&(a, b)| Mark {
                span: Span::new(a, b),
                text: "here".into(),
                primary: true,
            })
            .collect();
        Excerpt::new("f.yaml", text, &LineIndex::new(text), &marks)
    }

    #[test]
    fn short_lines_are_shown_whole_with_one_line_of_context() {
        let text = "a: 1\nb: 2\nc: 3\nd: 4\n";
        let (e, labels) = excerpt(text, &[(10, 11)]);
        assert_eq!(e.data, "b: 2\nc: 3\nd: 4");
        assert_eq!(&e.data[labels[0].offset()..][..1], "c");
        assert_eq!(e.windows[0].first_line, 2);
    }

    #[test]
    fn far_labels_on_one_long_line_are_cut_side_by_side() {
        let text = format!("{{\"a\":1,{}\"b\":2}}", "x".repeat(100_000));
        let b = text.find("\"b\"").unwrap();
        let (e, labels) = excerpt(&text, &[(1, 4), (b, b + 3)]);
        assert!(e.data.len() < 400, "{}", e.data.len());
        assert!(e.data.contains('…'));
        assert_eq!(&e.data[labels[0].offset()..][..3], "\"a\"");
        assert_eq!(&e.data[labels[1].offset()..][..3], "\"b\"");
        assert_eq!(e.placed[1].column as usize, b);
    }

    #[test]
    fn long_labels_are_cut_and_controls_escaped() {
        let text = format!("k: \u{1b}[2J{}\n", "y".repeat(10_000));
        let (e, labels) = excerpt(&text, &[(3, text.len() - 1)]);
        assert!(e.data.starts_with("k: \\e[2J"));
        assert!(labels[0].len() <= LABEL_BYTES + 8);
        assert!(!e.data.contains('\u{1b}'));
    }

    #[test]
    fn a_label_that_starts_on_a_long_line_and_goes_on_is_cut() {
        let text = format!("- name: {}\n  route: x\n", "r".repeat(100_000));
        let (e, labels) = excerpt(&text, &[(2, text.len() - 1)]);
        assert!(e.data.len() < 400, "{}", e.data.len());
        assert!(e.data.contains("route: x"));
        assert_eq!(&e.data[labels[0].offset()..][..4], "name");
    }

    #[test]
    fn labels_far_apart_get_windows_of_their_own() {
        let text = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let (e, _) = excerpt(text, &[(0, 1), (14, 15)]);
        assert_eq!(e.windows.len(), 2);
        assert_eq!(e.windows[1].first_line, 7);
    }
}
