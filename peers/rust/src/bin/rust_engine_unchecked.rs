//! The study's engine, `rust_batch_unchecked` build: `get_unchecked` kernel behind docs/spec.md §6 frames.
fn main() {
    std::process::exit(hma_rust_peer::server::main("rust_engine_unchecked", hma_rust_peer::unchecked::sweep));
}
