//! The reference of the policy fields, checked in as `docs/src/policy-fields.md`: one table row
//! per field of the field table.
//!
//! `tests/cli/generated.rs` fails when the checked-in file differs from [`markdown`], and
//! rewrites it when asked to (see there).

use std::fmt::Write;

use super::fields::{self, Kind};

/// The whole page.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Policy fields\n\
         \n\
         <!-- Generated from src/input/policy/fields.rs by `UPDATE_GENERATED=1 cargo test --test cli generated::`: edit the table there. -->\n\
         \n\
         Every field of a policy object, as `defaults`, each `operations` entry and a description's\n\
         `x-retry-policy` write it; they merge field by field ([the retry policy](policy.md) says\n\
         which wins). A dotted name is a key inside a section: `backoff.base` is `base` under\n\
         `backoff:`. Durations are strings with units (`250ms`, `2s`, `1m30s`, `24h`).\n\
         \n\
         The default is what the tool assumes when nothing sets the field. `retrylint simulate\n\
         --compare KEY=VALUE` changes the fields with a key in the `--compare` column, by that key\n\
         or by the dotted name (`none` removes an optional field).\n\
         \n\
         | field | value | default | `--compare` | meaning |\n\
         | --- | --- | --- | --- | --- |\n",
    );
    for field in fields::FIELDS {
        let value = match field.kind {
            Kind::Signals => format!(
                "list of statuses (`503`), classes (`5xx`) and transport signals: {}",
                fields::SIGNALS
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            kind => kind.describe(),
        };
        let code = |text: Option<&str>| text.map_or(String::new(), |t| format!("`{t}`"));
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            field.name,
            cell(&value),
            code(field.default),
            code(field.compare),
            cell(field.doc)
        );
    }
    out
}

/// Text that stays in its table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_per_field() {
        let page = markdown();
        for field in fields::FIELDS {
            assert!(
                page.contains(&format!("\n| `{}` |", field.name)),
                "{}",
                field.name
            );
        }
        assert!(page.contains("| `backoff.base` | duration |  | `base` |"));
    }
}
