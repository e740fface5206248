//! The `retrylint` binary: see [`retrylint::cli`].

/// mimalloc rather than the system's allocator: a check builds and frees a tree of small
/// nodes for every file, on every core (see `Cargo.toml`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    retrylint::cli::main()
}
