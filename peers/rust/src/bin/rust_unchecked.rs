//! The study's `rust_batch_unchecked` kernel: the same kernel text with `get_unchecked` indexing.
fn main() {
    std::process::exit(hma_rust_peer::cli::main("rust_unchecked", hma_rust_peer::unchecked::sweep));
}
