//! The study's engine, `rust_batch_unix` build: bounds-checked kernel behind docs/spec.md §6 frames.
fn main() {
    std::process::exit(hma_rust_peer::server::main("rust_engine_safe", hma_rust_peer::safe::sweep));
}
