//! Bad and unusual gRPC `.proto` input through the real binary (docs/src/proto.md):
//! empty, binary, huge and broken files, unknown values, imports that are missing, cyclic
//! or leave the root, FIFOs, standard input, folders and `check --base` — exit 2 with the
//! place where there is one, never a panic.

use crate::common;
use crate::proto::{PROTO, repository};

use std::path::Path;

use common::{retrylint, retrylint_in, scratch};

#[test]
fn a_folder_finds_the_proto_files_that_declare_a_service() {
    let run = retrylint(&["check", "fixtures/proto/payments", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    // payments.proto is checked; resources.proto (messages only) is not a description.
    assert!(run.stdout.contains("payments.proto"), "{}", run.stdout);
    assert!(!run.stdout.contains("resources.proto\""), "{}", run.stdout);
}

/// Checks `name` in a scratch repository holding `files`: exit 2, a message, no panic.
fn refused(test: &str, files: &[(&str, &str)], name: &str) -> common::Run {
    let dir = repository(test, files);
    let run = retrylint_in(&dir, &["check", name]);
    assert_eq!(run.code, 2, "{test}: {}", run.transcript());
    assert!(run.stdout.is_empty(), "{test}: {}", run.transcript());
    assert!(!run.stderr.contains("panicked"), "{test}: {}", run.stderr);
    run
}

#[test]
fn bad_proto_input_is_exit_2_with_its_place() {
    let run = refused("proto-empty", &[("e.proto", "")], "e.proto");
    assert!(
        run.stderr
            .contains("`e.proto` is empty: expected a protobuf source"),
        "{}",
        run.stderr
    );

    let run = refused(
        "proto-syntax",
        &[(
            "x.proto",
            "syntax = \"proto3\";\nservice S {\n  rpc M(A) returns B;\n}\n",
        )],
        "x.proto",
    );
    assert!(
        run.stderr
            .contains("`x.proto` cannot be parsed: expected '(', but found 'B'"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("[x.proto:3:20]"), "{}", run.stderr);

    let run = refused(
        "proto-level",
        &[(
            "l.proto",
            "syntax = \"proto3\";\nservice S {\n  rpc M(A) returns (B) { option idempotency_level = SAFE; }\n}\n",
        )],
        "l.proto",
    );
    assert!(
        run.stderr.contains(
            "`idempotency_level` must be NO_SIDE_EFFECTS, IDEMPOTENT or IDEMPOTENCY_UNKNOWN"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("[l.proto:3:26]"), "{}", run.stderr);

    let run = refused(
        "proto-import",
        &[(
            "i.proto",
            "syntax = \"proto3\";\nimport \"missing/types.proto\";\nservice S { rpc M(A) returns (B); }\n",
        )],
        "i.proto",
    );
    assert!(
        run.stderr
            .contains("the import `missing/types.proto` is found neither beside `i.proto`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("[i.proto:2:1]") && run.stderr.contains("imported here"),
        "{}",
        run.stderr
    );

    let run = refused(
        "proto-cycle",
        &[
            (
                "a.proto",
                "syntax = \"proto3\";\nimport \"b.proto\";\nservice S { rpc M(A) returns (B); }\n",
            ),
            ("b.proto", "syntax = \"proto3\";\nimport \"a.proto\";\n"),
        ],
        "a.proto",
    );
    assert!(
        run.stderr
            .contains("import cycle: a.proto → b.proto → a.proto"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("[b.proto:2:1]"), "{}", run.stderr);

    let run = refused(
        "proto-escape",
        &[(
            "in/e.proto",
            "syntax = \"proto3\";\nimport \"../../x.proto\";\n",
        )],
        "in/e.proto",
    );
    assert!(run.stderr.contains("invalid import path"), "{}", run.stderr);

    let run = refused(
        "proto-twice",
        &[(
            "t.proto",
            "syntax = \"proto3\";\nservice S {\n  rpc M(A) returns (B);\n  rpc M(A) returns (B);\n}\n",
        )],
        "t.proto",
    );
    assert!(
        run.stderr.contains("has two rpcs named `M`"),
        "{}",
        run.stderr
    );
}

#[test]
fn binary_huge_and_markup_protos_are_refused_before_they_reach_an_output() {
    let dir = repository("proto-binary", &[]);
    std::fs::write(dir.join("b.proto"), b"\x00\x01syntax").expect("written");
    let run = retrylint_in(&dir, &["check", "b.proto"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("looks like a binary file, not a protobuf source"),
        "{}",
        run.stderr
    );

    let big = format!("syntax = \"proto3\";\n{}", "// padding\n".repeat(2000));
    std::fs::write(dir.join("big.proto"), big).expect("written");
    let run = retrylint_in(&dir, &["check", "big.proto", "--max-file-size", "1000"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("over the limit of 1000 bytes"),
        "{}",
        run.stderr
    );

    // A method name is an identifier: markup and control characters are syntax errors,
    // with a span, and never reach an output.
    for (name, text) in [
        (
            "markup.proto",
            "syntax = \"proto3\";\nservice S { rpc <b>M</b>(A) returns (B); }\n",
        ),
        (
            "control.proto",
            "syntax = \"proto3\";\nservice S { rpc M\u{1b}[31m(A) returns (B); }\n",
        ),
    ] {
        std::fs::write(dir.join(name), text).expect("written");
        for format in ["human", "json", "sarif", "github"] {
            let run = retrylint_in(&dir, &["check", name, "--format", format]);
            assert_eq!(run.code, 2, "{name} {format}: {}", run.transcript());
            assert!(run.stdout.is_empty(), "{name} {format}: {}", run.stdout);
            assert!(
                run.stderr.contains("cannot be parsed"),
                "{name}: {}",
                run.stderr
            );
            // The excerpt quotes the line with its control characters escaped.
            assert!(!run.stderr.contains('\u{1b}'), "{name}: {}", run.stderr);
        }
    }
}

#[cfg(unix)]
#[test]
fn imports_obey_the_root_symbolic_links_and_fifos() {
    let dir = repository(
        "proto-links",
        &[
            (
                "link.proto",
                "syntax = \"proto3\";\nimport \"out.proto\";\nservice S { rpc M(A) returns (B); }\n",
            ),
            (
                "fifo.proto",
                "syntax = \"proto3\";\nimport \"pipe.proto\";\nservice S { rpc M(A) returns (B); }\n",
            ),
        ],
    );
    let outside = scratch("proto-links-outside");
    std::fs::write(outside.join("o.proto"), "syntax = \"proto3\";\n").expect("written");
    std::os::unix::fs::symlink(outside.join("o.proto"), dir.join("out.proto")).expect("a link");
    let run = retrylint_in(&dir, &["check", "link.proto"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("`out.proto` leads outside the root folder"),
        "{}",
        run.stderr
    );

    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("pipe.proto"))
        .status();
    if made.is_ok_and(|s| s.success()) {
        let run = retrylint_in(&dir, &["check", "fifo.proto"]);
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(
            run.stderr.contains("is a named pipe (FIFO)"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn imports_resolve_from_the_folder_above_that_holds_them() {
    // `acme/payments/v1/payments.proto` imports `acme/payments/v1/resources.proto` from
    // the folder above `acme`, as protoc's include path does.
    let run = retrylint(&["check", PROTO]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(Path::new("fixtures/proto/payments/acme/payments/v1/resources.proto").exists());
}

#[test]
fn standard_input_named_proto_is_read_as_one() {
    let dir = repository("proto-stdin", &[]);
    let text = "syntax = \"proto3\";\npackage p;\nservice S { rpc M(A) returns (B) { option idempotency_level = IDEMPOTENT; } }\n";
    let run = common::retrylint_with(
        &dir,
        &["plan", "-", "--stdin-filename", "api.proto"],
        &[],
        text,
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout.contains(
            "gRPC p.S/M (unary): idempotent (option idempotency_level = IDEMPOTENT, api.proto:3:36)"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn check_base_compares_a_proto_with_its_imports_at_a_revision() {
    if !common::have_git() {
        return;
    }
    let dir = scratch("proto-base");
    common::git(&dir, &["init", "-q"]);
    let v1 = dir.join("acme/payments/v1");
    std::fs::create_dir_all(&v1).expect("a folder");
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/proto/payments/acme/payments/v1");
    let payments = std::fs::read_to_string(source.join("payments.proto")).expect("the fixture");
    for name in ["payments.proto", "resources.proto"] {
        std::fs::copy(source.join(name), v1.join(name)).expect("copied");
    }
    common::git(&dir, &["add", "-A"]);
    common::git(&dir, &["commit", "-qm", "base"]);
    // The capture loses its IDEMPOTENT: a write that now promises nothing.
    let changed = payments.replacen("    option idempotency_level = IDEMPOTENT;\n", "", 1);
    assert_ne!(changed, payments);
    std::fs::write(v1.join("payments.proto"), changed).expect("written");
    let run = retrylint_in(
        &dir,
        &["check", "--base", "HEAD", "acme/payments/v1/payments.proto"],
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stdout.contains("POST /acme.payments.v1.Payments/CapturePayment (Payments_CapturePayment)  [retry-safe → unprotected]"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("base HEAD:acme/payments/v1/payments.proto:33:5"),
        "{}",
        run.stdout
    );
}
