//! Path items built on another core while the model reads the ones before them.
//!
//! A large JSON description's path items are left unbuilt by its parse (see
//! [`crate::input::source::deferred`]); the model builds each, reads its operations and
//! lets it go. Building a path item needs nothing but its text, so a helper builds them
//! in order, a few ahead of the model, and frees each one the model is done with (on the
//! thread that made it, which its allocator prefers). The model sees the same nodes in the
//! same order as building them itself. At most [`AHEAD`] path items wait built, and no
//! more than that wait to be freed (the helper frees them after each one it hands over).

use std::sync::mpsc;

use crate::error::InputError;
use crate::input::source::{Entry, Node, Value};

/// Path items built ahead of the model, at most.
const AHEAD: usize = 32;

/// Fewer unbuilt path items than this are built by the model itself: a helper would cost
/// more than it saves.
const WORTH_A_HELPER: usize = 64;

/// Calls `read` with each entry of `entries` and its path item built, in order, stopping
/// at the first error. `text_checked_beside`: the file's text is being checked on another
/// core (see [`crate::input::source::SourceFile::read_ahead`]); a helper then needs a
/// third core, as on two it would only take turns with that check while the model waits
/// for both (GitHub's description on two cores: the check in 0.58 to 0.65 of the time of
/// a `serde_json::Value` parse without a helper, 0.63 to 0.74 with one, interleaved).
pub(super) fn each_built<'a>(
    entries: &[&'a Entry],
    text_checked_beside: bool,
    mut read: impl FnMut(&'a Entry, &Node) -> Result<(), InputError>,
) -> Result<(), InputError> {
    let unbuilt = entries
        .iter()
        .filter(|e| matches!(e.value.value, Value::Deferred(_)))
        .count();
    let cores_wanted = if text_checked_beside { 3 } else { 2 };
    if unbuilt < WORTH_A_HELPER || crate::parallel::cores() < cores_wanted {
        return entries
            .iter()
            .try_for_each(|entry| read(entry, &entry.value.built_alone()));
    }
    std::thread::scope(|scope| {
        let (built_tx, built_rx) = mpsc::sync_channel::<Node>(AHEAD);
        let (spent_tx, spent_rx) = mpsc::channel::<Node>();
        let helper = std::thread::Builder::new()
            .name("path items".into())
            .spawn_scoped(scope, move || {
                for entry in entries {
                    // The model stopped (an error): nothing more to build.
                    if built_tx.send(entry.value.built_alone()).is_err() {
                        break;
                    }
                    spent_rx.try_iter().for_each(drop);
                }
                drop(built_tx);
                spent_rx.into_iter().for_each(drop);
            });
        let Ok(helper) = helper else {
            return entries
                .iter()
                .try_for_each(|entry| read(entry, &entry.value.built_alone()));
        };
        let read_all = entries.iter().try_for_each(|entry| {
            // Only a helper that stopped (a panic) sends nothing: build it here.
            let node = built_rx
                .recv()
                .unwrap_or_else(|_| entry.value.built_alone());
            read(entry, &node)?;
            // Freed by the helper; here, should it be gone.
            let _ = spent_tx.send(node);
            Ok(())
        });
        // The helper stops building (its sends fail), frees what it was given, and ends;
        // joined here, a panic of its own is not the model's.
        drop(built_rx);
        drop(spent_tx);
        let _ = helper.join();
        read_all
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::source::{ParseLimits, SourceFile};

    /// A JSON description of `n` path items, parsed as a description (path items left
    /// unbuilt).
    fn paths(n: usize) -> SourceFile {
        let items: Vec<String> = (0..n)
            .map(|i| format!(r#""/p{i}": {{"get": {{"operationId": "op{i}"}}}}"#))
            .collect();
        let text = format!(
            r#"{{"openapi": "3.0.3", "paths": {{{}}}}}"#,
            items.join(", ")
        );
        SourceFile::parse_description("openapi.json".into(), text, ParseLimits::default())
            .unwrap_or_else(|(_, e)| panic!("{e:?}"))
    }

    fn entries(file: &SourceFile) -> Vec<&Entry> {
        let Some(Value::Map(paths)) = file.root.get("paths").map(|n| &n.value) else {
            panic!("paths")
        };
        paths.entries().iter().collect()
    }

    #[test]
    fn every_path_item_comes_built_in_order_with_or_without_a_helper() {
        for (n, checked_beside) in [
            (3, false),
            (WORTH_A_HELPER + AHEAD * 3, false),
            (WORTH_A_HELPER + AHEAD * 3, true),
        ] {
            let file = paths(n);
            let entries = entries(&file);
            assert!(matches!(entries[0].value.value, Value::Deferred(_)));
            let mut seen = Vec::new();
            each_built(&entries, checked_beside, |entry, node| {
                assert!(!matches!(node.value, Value::Deferred(_)));
                assert_eq!(*node, entry.value.built_alone());
                seen.push(entry.key.to_string());
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{e}"));
            let expected: Vec<String> = (0..n).map(|i| format!("/p{i}")).collect();
            assert_eq!(seen, expected);
        }
    }

    #[test]
    fn the_first_error_stops_the_reading() {
        let file = paths(WORTH_A_HELPER * 2);
        let entries = entries(&file);
        let mut read = 0;
        let result = each_built(&entries, false, |entry, _| {
            read += 1;
            if &*entry.key == "/p70" {
                return Err(InputError::new("stop"));
            }
            Ok(())
        });
        assert_eq!(result.map_err(|e| e.to_string()), Err("stop".to_string()));
        assert_eq!(read, 71);
    }
}
