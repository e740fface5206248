//! `cargo bench --bench effects -- [FOLDER…] [--misses]`: how well retrylint reads what a
//! repeat repeats, scored against hand-labelled operations (see `support/effects.rs`).
//!
//! Without folders it scores the project's own labelled set, `tests/data/effects` (the
//! corpus APIs among them need `RETRYLINT_CORPUS`, default `../shared/corpus`; they are
//! left out with a notice when it is missing). Each folder may also be a folder of
//! labelled folders, such as `../shared/effects-dev`. It prints, per API and in all, the
//! effect accuracy, the precision of write findings and the recall of non-idempotent
//! writes, then the confusion of labels and effects; `--misses` lists every operation
//! whose effect is not its label, with the label's quote.

#[path = "support/effects.rs"]
mod effects;

use std::path::{Path, PathBuf};

use effects::{Figures, Scored};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let misses = args.iter().any(|a| a == "--misses");
    let mut roots: Vec<PathBuf> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .collect();
    if roots.is_empty() {
        roots.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/effects"));
    }
    let corpus = std::env::var_os("RETRYLINT_CORPUS")
        .map(PathBuf::from)
        .or_else(|| Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")))
        .filter(|p| p.is_dir());
    let bin = Path::new(env!("CARGO_BIN_EXE_retrylint"));
    let mut all: Vec<Scored> = Vec::new();
    println!(
        "{:<24} {:>6} {:>9} {:>8} {:>10} {:>8}",
        "labelled set", "ops", "accuracy", "unknown", "precision", "recall"
    );
    for root in &roots {
        for folder in effects::folders(root) {
            match effects::score(bin, &folder, corpus.as_deref()) {
                Ok(scored) => {
                    let f = Figures::of(&scored);
                    let name = scored.first().map_or_else(String::new, |s| s.set.clone());
                    print_row(&name, &f);
                    all.extend(scored);
                }
                Err(why) => println!("{:<24} skipped: {why}", folder.display()),
            }
        }
    }
    let total = Figures::of(&all);
    print_row("all", &total);
    println!(
        "\nwrite findings: {} of {} on non-idempotent writes; non-idempotent writes: {} of {} treated as writes that may repeat",
        total.write_finding_true,
        total.with_write_finding,
        total.non_idempotent_caught,
        total.non_idempotent
    );
    confusion(&all);
    if misses {
        println!("\nmisses:");
        for s in all
            .iter()
            .filter(|s| s.got.as_deref() != Some(s.label.as_str()))
        {
            println!(
                "  {:<16} {} {} — label {}, got {}: \"{}\"",
                s.set,
                s.method,
                s.path,
                s.label,
                s.got.as_deref().unwrap_or("missing"),
                s.evidence
            );
        }
    }
}

fn print_row(name: &str, f: &Figures) {
    println!(
        "{:<24} {:>6} {:>8.1}% {:>8} {:>9.1}% {:>7.1}%",
        name,
        f.labelled,
        100.0 * f.accuracy(),
        f.unknown,
        100.0 * f.precision(),
        100.0 * f.recall()
    );
}

/// Labels down, effects across.
fn confusion(all: &[Scored]) {
    const LABELS: [&str; 3] = ["read", "idempotent-write", "non-idempotent-write"];
    const GOT: [&str; 5] = [
        "read",
        "idempotent-write",
        "non-idempotent-write",
        "unknown",
        "missing",
    ];
    println!(
        "\n{:<22} {}",
        "label \\ effect",
        GOT.map(|g| format!("{g:>21}")).join("")
    );
    for label in LABELS {
        let row: Vec<String> = GOT
            .iter()
            .map(|got| {
                let n = all
                    .iter()
                    .filter(|s| s.label == label && s.got.as_deref().unwrap_or("missing") == *got)
                    .count();
                format!("{n:>21}")
            })
            .collect();
        println!("{label:<22} {}", row.join(""));
    }
}
