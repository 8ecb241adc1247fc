//! The study's `rust_batch_unix` kernel: bounds-checked indexing.
fn main() {
    std::process::exit(hma_rust_peer::cli::main("rust_safe", hma_rust_peer::safe::sweep));
}
