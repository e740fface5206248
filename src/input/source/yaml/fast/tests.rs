//! The fast path against `saphyr-parser`'s events: whatever it reads must be read the same
//! (values, spans, the places of scalars holding a `#`), and whatever it leaves must be
//! left whole to the parser. The fast path's rules come from saphyr-parser 0.3.4's own
//! source (github.com/saphyr-rs/saphyr, `parser/src/scanner.rs`: `scan_plain_scalar`,
//! `scan_flow_scalar`, `scan_block_scalar`, `fetch_block_entry`, `skip_ws_to_eol`;
//! `parser/src/parser.rs`: where an empty scalar and an indentless list are placed), and
//! the parser itself, which runs here, is the oracle every text is compared with.

use super::super::super::{Node, ParseLimits, Span, Value};
use super::super::{events, parse_with};
use super::parse;

/// Compares both readers on `text`; gives whether the fast path read it.
fn same(text: &str) -> bool {
    let limits = ParseLimits::default();
    let Some(fast) = parse(text, limits) else {
        return false;
    };
    let full = match events(text, limits, false) {
        Ok(full) => full,
        Err(e) => panic!("the fast path read what the parser refuses ({e:?}):\n{text}"),
    };
    if let Some(difference) = first_difference(text, &fast.root, &full.root, String::new()) {
        panic!("the readers differ at {difference}\nin:\n{text}");
    }
    assert_eq!(fast.hash_scalars, full.hash_scalars, "{text}");
    assert_eq!(fast.expanded, full.expanded, "{text}");
    // Read as a stream of documents (a layer file), the same.
    let (stream, full_stream) = match (parse_with(text, limits, true), events(text, limits, true)) {
        (Ok(stream), Ok(full_stream)) => (stream, full_stream),
        (a, b) => panic!("as a stream, {:?} against {:?}:\n{text}", a.err(), b.err()),
    };
    if let Some(difference) =
        first_difference(text, &stream.root, &full_stream.root, "stream".into())
    {
        panic!("the readers differ at {difference}\nin:\n{text}");
    }
    true
}

/// Where two trees first differ, with what each holds there.
fn first_difference(text: &str, fast: &Node, full: &Node, path: String) -> Option<String> {
    let written = |span: Span| text.get(span.range()).unwrap_or("?").to_string();
    if fast.span != full.span {
        return Some(format!(
            "{path}: span {:?} {:?} (fast) against {:?} {:?} (parser)",
            fast.span,
            written(fast.span),
            full.span,
            written(full.span)
        ));
    }
    match (&fast.value, &full.value) {
        (Value::Map(a), Value::Map(b)) => {
            for (x, y) in a.entries().iter().zip(b.entries()) {
                if x.key != y.key || x.key_span != y.key_span {
                    return Some(format!(
                        "{path}: key {:?} {:?} against {:?} {:?}",
                        x.key, x.key_span, y.key, y.key_span
                    ));
                }
                if let Some(d) =
                    first_difference(text, &x.value, &y.value, format!("{path}/{}", x.key))
                {
                    return Some(d);
                }
            }
            (a.entries().len() != b.entries().len())
                .then(|| format!("{path}: entries differ in number"))
        }
        (Value::Seq(a), Value::Seq(b)) => {
            for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                if let Some(d) = first_difference(text, x, y, format!("{path}/{i}")) {
                    return Some(d);
                }
            }
            (a.len() != b.len()).then(|| format!("{path}: items differ in number"))
        }
        (a, b) => (a != b).then(|| format!("{path}: {a:?} (fast) against {b:?} (parser)")),
    }
}

/// Texts in the subset the fast path reads; each must be read, and read the same.
const READ: &[&str] = &[
    "a: 1\nb:\nc:\n  d: x y\n  e: |\n    lit\n    l2\n\n  f: >-\n    fold\n    more\n\n    para\ng:\n- 1\n-\n- k: v\n  j: \"q\"\nh: plain\n  cont\n\n  more # c\ni: [a, \"b\" , {c: d}]\nz: |\n\n",
    "g:\n  - 1\n  - - a\n    - b\n  -\n    x: 1\n  - # c\n    y\n  - |\n   lit\n  # comment\n\n  - 2\nh: |\n\n\n   text\n\n # c\nk: 1\nm:\n  - k: v\n",
    "a:\n- k: v\n  j: 1\nb:\n-\n- x\nc:\n- - y\nd:\n-   # c\n  z\ne: |\nk: 1\nf: |-\n  \n  x\n   \ng: >\n a\n\n\n b\n c\n",
    "- a\n- b: 1\n",
    "key:   # a comment\nnext: 1\n",
    "key: value # comment\n# full line\nother: 'it''s' # c\n",
    "a: \"tab\\there \\u00e9 \\\" \\\\ \\/\"\nb: 'x # y'\nc: x#y\nd: 'q' \n",
    "\"quoted key\": 1\n'single': 2\nplain key : 3\n",
    "n: -1\nm: -x\nq: :x\nt: true\nf: False\nz: ~\ne: 1e3\nh: 0x1F\no: 0o17\ni: .inf\nnan: .nan\ns: 1.2.3\n",
    "flow: []\nmap: {}\nnested: {a: [1, 2, {b: c}], 'd': \"e\"}\nsp: [ a b , c ]\n",
    "text: >\n  one\n  two\n\n  three\n    indented\n  four\n",
    "lit: |\n  one\n\n    two\n  three\nlast: |-\n  end",
    "at_end: |\n  no newline at the end",
    "unicode: Café ☕ 👍\nnext: \"ünï\"\n",
    "a:\n  b:\n    c:\n      d: deep\n  e: back\nf: top\n",
    "list:\n  - name: a\n    in: query\n  - name: b\n    in: path\n",
    "description: This is a long\n  plain scalar folded\n\n  over lines with a:colon in text - and dashes\nnext: 1\n",
    "a: 'x'\nb: |+x\n",
    "k: >-\n\n  lead\n  text\n",
    "k:\n  plain on its own line\n  and more\nz: 1\n",
    "e: |\n# comment at column 0\nk: 1\n",
    "---\na: 'two\n  lines'\nb: \"x  \n\n\n   y \\u00e9\"  # c\nc:\n  d: 'it''s\n    folded'\n",
    "keep: >+\n  kept\n\n\nnext: |+\n  x\n",
    "--- \n- a\n",
];

#[test]
fn reads_the_subset_as_the_parser_does() {
    for text in READ {
        // One of them (`|+x`) is refused by the parser: the fast path must leave it.
        let read = same(text);
        assert_eq!(read, !text.contains("|+x"), "{text}");
    }
}

#[test]
fn leaves_the_rest_to_the_parser() {
    for text in [
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a:\n\tb: 1\n",
        "a: 1\r\nb: 2\r\n",
        "a: \"escaped\\\n  break\"\n",
        "a:\n  b: 'under\n its key'\n",
        "a: 'at the\ncolumn of its key'\n",
        "--- # c\na: 1\n",
        "a: 1\n---\nb: 1\n",
        "a: [1,\n  2]\n",
        "a: |2\n   x\n",
        "a: |+\n",
        "<<: {a: 1}\nb: 2\n",
        "a: 1\na: 2\n",
        "a: b: c\n",
        "a: 1\n  b: 2\n",
        "? a\n: b\n",
        "a: [1, , 2]\n",
        "a: {b}\n",
        "a: 'x' y\n",
        "\u{feff}a: 1\n",
        "",
        "# only a comment\n",
        "plain scalar document\n",
        "a: \"\\q\"\n",
        "a: 1\n- b\n",
    ] {
        assert!(
            parse(text, ParseLimits::default()).is_none(),
            "read: {text:?}"
        );
    }
    let deep = "a:\n".to_string()
        + &(1..200)
            .map(|i| format!("{}k:\n", " ".repeat(i)))
            .collect::<String>();
    assert!(parse(&deep, ParseLimits::default()).is_none());
}

/// A small deterministic generator (xorshift), so that a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Small edits that move a text in and out of the subset and of YAML itself.
const EDITS: &[&str] = &[
    " ", "  ", "\n", "\n\n", ":", ": ", "- ", "-", "#", " #", "'", "\"", "|", ">", "|-", ">-", "[",
    "]", "{", "}", ",", "x", "\\", "\\n", "''", "? ", "&a ", "*a", "!", "%", "é",
];

/// Mutates `text` `rounds` times and compares both readers on each mutation.
fn mutate_and_compare(text: &str, rng: &mut Rng, rounds: usize) -> usize {
    let mut read = 0;
    for _ in 0..rounds {
        let mut mutated = text.to_string();
        for _ in 0..=rng.below(2) {
            let mut at = rng.below(mutated.len() + 1);
            while !mutated.is_char_boundary(at) {
                at -= 1;
            }
            match rng.below(3) {
                0 => {
                    let mut end = (at + 1 + rng.below(3)).min(mutated.len());
                    while !mutated.is_char_boundary(end) {
                        end += 1;
                    }
                    mutated.replace_range(at..end, "");
                }
                _ => mutated.insert_str(at, EDITS[rng.below(EDITS.len())]),
            }
        }
        if same(&mutated) {
            read += 1;
        }
    }
    read
}

#[test]
fn mutations_of_the_subset_are_read_the_same_or_left() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut read = 0;
    for text in READ {
        read += mutate_and_compare(text, &mut rng, 400);
    }
    // Most mutations are still in the subset: the comparison is not vacuous.
    assert!(read > READ.len() * 100, "{read}");
}

/// Every YAML file of the corpus (`RETRYLINT_CORPUS`), and mutations of a sample of them.
#[test]
fn the_corpus_is_read_the_same() {
    let Some(dir) = std::env::var_os("RETRYLINT_CORPUS") else {
        eprintln!("skipped: RETRYLINT_CORPUS is not set");
        return;
    };
    let mut files = Vec::new();
    let mut folders = vec![std::path::PathBuf::from(dir)];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
    }
    files.sort();
    let (mut read, mut digitalocean, mut digitalocean_read) = (0, 0, 0);
    let mut left = Vec::new();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for (i, path) in files.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let this = same(&text);
        read += usize::from(this);
        if !this {
            left.push(path.display().to_string());
        }
        if path.to_string_lossy().contains("digitalocean") {
            digitalocean += 1;
            digitalocean_read += usize::from(this);
        }
        if i % 25 == 0 && text.len() < 20_000 {
            mutate_and_compare(&text, &mut rng, 40);
        }
    }
    eprintln!(
        "the fast path read {read} of {} YAML files ({digitalocean_read} of DigitalOcean's {digitalocean})",
        files.len()
    );
    eprintln!("left to the parser: {left:#?}");
    // What descriptions are written in is the subset: a change that sends most of them
    // to the slow parser is a regression, not a detail.
    assert!(
        digitalocean_read * 10 >= digitalocean * 9,
        "{digitalocean_read} of {digitalocean}"
    );
}
