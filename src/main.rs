//! The `retrylint` binary: see [`retrylint::cli`].

fn main() -> std::process::ExitCode {
    retrylint::cli::main()
}
