//! Files generated from the policy field table (`src/input/policy/fields.rs`) are up to date: the
//! JSON Schema that `retrylint schema` prints and the Markdown reference of the fields.
//!
//! After changing the table, rewrite both and review the diff, as with snapshots:
//!
//! ```sh
//! UPDATE_GENERATED=1 cargo test --test cli generated::
//! ```

use std::path::Path;

/// Passes when the checked-in file at `relative` holds `generated`; with `UPDATE_GENERATED`
/// set, writes it instead.
fn up_to_date(relative: &str, generated: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::write(&path, generated).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != generated {
        let line = current
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| current.lines().count().min(generated.lines().count()));
        panic!(
            "{relative} is not what the field table generates (first difference at line {}: \
             checked in {:?}, generated {:?}); run `UPDATE_GENERATED=1 cargo test --test cli generated::`",
            line + 1,
            current.lines().nth(line).unwrap_or(""),
            generated.lines().nth(line).unwrap_or(""),
        );
    }
}

/// `retrylint schema` prints the checked-in file, as it was when the binary was built.
#[test]
fn the_checked_in_json_schema_is_the_generated_one() {
    up_to_date(
        "schema/retry-policy.schema.json",
        &retrylint::input::policy::schema::text(),
    );
}

#[test]
fn the_checked_in_field_reference_is_the_generated_one() {
    up_to_date(
        "docs/src/policy-fields.md",
        &retrylint::input::policy::reference::markdown(),
    );
}

#[test]
fn the_policy_page_points_at_the_field_reference() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/policy.md"))
        .unwrap();
    assert!(page.contains("(policy-fields.md)"));
}
