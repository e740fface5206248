//! Hovers: on an operation's method or path key in a description, the plan `retrylint
//! plan` prints for it; on a selector of the policy, the operations it matches. Both read
//! the last check of the open descriptions; text from the files is shown as data.

use std::fmt::Write;

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind, Uri};

use super::state::{Analysed, State};
use super::text::Lines;
use crate::escape::{markdown_block, markdown_code};
use crate::rendering::output::plan::render_operation;

/// The hover at a place of an open document, if there is one.
pub(super) fn hover(state: &State, params: &HoverParams) -> Option<Hover> {
    let at = &params.text_document_position_params;
    let uri = &at.text_document.uri;
    let markdown = operation_plans(state, uri, at.position)
        .or_else(|| selector_matches(state, uri, at.position))?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: None,
    })
}

/// The plans of the operation whose method key is at `position`, or of every operation
/// of the path whose key is on that line.
fn operation_plans(state: &State, uri: &Uri, position: lsp_types::Position) -> Option<String> {
    let linted = state.linted.get(uri)?;
    // Places are those of the text last checked: none while an edit waits for its check.
    if *linted.text != *state.documents.get(uri)?.text {
        return None;
    }
    let analysis = &linted.analysed.as_ref()?.analysis;
    let lines = Lines::new(&linted.text);
    let offset = lines.offset(position) as u32;
    let root = analysis.api.root_file;
    let in_root = |op: &&crate::input::model::Operation| op.loc.file == root;
    let on_method = analysis
        .api
        .operations
        .iter()
        .position(|op| in_root(&op) && op.loc.span.start <= offset && offset < op.loc.span.end);
    let chosen: Vec<usize> = if let Some(index) = on_method {
        vec![index]
    } else {
        let key = key_of(lines.line(position.line))?;
        analysis
            .api
            .operations
            .iter()
            .enumerate()
            .filter(|(_, op)| in_root(op) && op.path == key)
            .map(|(index, _)| index)
            .collect()
    };
    if chosen.is_empty() {
        return None;
    }
    let plans: Vec<String> = chosen
        .into_iter()
        .map(|index| {
            let mut plan = render_operation(analysis, index);
            plan.push_str(&value_places(analysis, index));
            plan
        })
        .collect();
    Some(markdown_block(&plans.join("\n")))
}

/// Where each value of the operation's effective policy is written: `maxAttempts:
/// retry-policy.yaml:4:3`, and what a built-in default stands for.
fn value_places(analysis: &crate::analysis::check::Analysis, index: usize) -> String {
    let Some(policy) = analysis.effective.get(index) else {
        return String::new();
    };
    // Named from the description's folder, as a user sees the files beside it.
    let folder = analysis
        .sources
        .get(analysis.api.root_file)
        .and_then(|root| root.canonical.as_deref()?.parent());
    let mut out = String::from("  where the values come from:\n");
    for (name, loc) in policy.policy.places() {
        let Some(file) = analysis.sources.get(loc.file) else {
            continue;
        };
        // A section (`backoff:`) holds values; it is none itself.
        if matches!(name, "backoff" | "retryAfter" | "idempotency") {
            continue;
        }
        let shown = match (folder, file.canonical.as_deref()) {
            (Some(folder), Some(path)) => path
                .strip_prefix(folder)
                .map_or_else(|_| file.name(), crate::input::source::path_text),
            _ => file.name(),
        };
        let at = file.position(loc.span.start);
        let _ = write!(out, "    {name}: {shown}:{}:{}", at.line, at.column);
        if let Some(note) = loc.note_text() {
            let _ = write!(out, " ({note})");
        }
        out.push('\n');
    }
    out
}

/// The key a line of YAML or JSON starts with (`/orders:`, `"/orders": {`), unquoted.
fn key_of(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let first = line.chars().next()?;
    let (key, rest) = if first == '"' || first == '\'' {
        let end = line[1..].find(first)? + 1;
        (&line[1..end], &line[end + 1..])
    } else {
        let end = line.find(':')?;
        (line[..end].trim_end(), &line[end..])
    };
    rest.trim_start().starts_with(':').then_some(key)
}

/// The operations the policy selector at `position` matches, in every open description
/// whose last check read this policy.
fn selector_matches(state: &State, uri: &Uri, position: lsp_types::Position) -> Option<String> {
    let document = state.documents.get(uri)?;
    let canonical = document.canonical.as_ref()?;
    let mut sections = Vec::new();
    let mut descriptions: Vec<(&Uri, &Analysed)> = state
        .linted
        .iter()
        .filter_map(|(uri, linted)| Some((uri, linted.analysed.as_deref()?)))
        .collect();
    descriptions.sort_by(|a, b| a.0.cmp(b.0));
    for (_, analysed) in descriptions {
        let Some(policy) = &analysed.policy else {
            continue;
        };
        if policy.file.canonical.as_ref() != Some(canonical) || *policy.file.text != *document.text
        {
            continue;
        }
        let offset = Lines::new(&policy.file.text).offset(position) as u32;
        let Some((entry_index, entry)) = policy
            .policy
            .operations
            .iter()
            .enumerate()
            .find(|(_, entry)| entry.loc.span.start <= offset && offset < entry.loc.span.end)
        else {
            continue;
        };
        let analysis = &analysed.analysis;
        let matched: Vec<String> = analysis
            .api
            .operations
            .iter()
            .zip(&analysis.matches.per_operation)
            .filter(|(_, entries)| entries.contains(&entry_index))
            .map(|(op, _)| format!("- {}", markdown_code(&op.title())))
            .collect();
        let description = analysis.sources[analysis.api.root_file].name();
        let mut section = format!(
            "{} matches {} in {}",
            markdown_code(&entry.selector.to_string()),
            match matched.len() {
                1 => "1 operation".to_string(),
                n => format!("{n} operations"),
            },
            markdown_code(&description),
        );
        if matched.is_empty() {
            section.push('.');
        } else {
            section.push_str(":\n\n");
        }
        for line in matched {
            let _ = writeln!(section, "{line}");
        }
        sections.push(section);
    }
    (!sections.is_empty()).then(|| sections.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_read_from_yaml_and_json_lines() {
        assert_eq!(key_of("  /orders/{id}:"), Some("/orders/{id}"));
        assert_eq!(key_of("    \"/orders\": {"), Some("/orders"));
        assert_eq!(key_of("  '/a:b' :"), Some("/a:b"));
        assert_eq!(key_of("  - item"), None);
        assert_eq!(key_of(""), None);
    }
}
