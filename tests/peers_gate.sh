#!/usr/bin/env bash
# The golden file against the independent peers: the canonical series written by `hmasweep gen`, every
# available peer run on those bytes, each checked against tests/golden/default_run.json (trades equal,
# |dPnL| <= 1e-6; tests/peers_golden_check.py).  Skipped (tests/skip.sh: exit 77, or a failure in CI when
# the tool is not on tests/skips.allow) when no wanted peer's tool is present: numba, cargo.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/skip.sh"
cli=${1:?usage: peers_gate.sh path/to/hmasweep PEERS(numba,rust)}
want=${2:-numba,rust}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cli" gen --output "$tmp/series.f64"
peers=() absent=()
if [[ $want == *numba* ]] && ! python3 -c 'import numba' 2>/dev/null; then absent+=("numba: numba is not importable (pip install numba)"); want=${want//numba/}; fi
if [[ $want == *rust* ]] && ! command -v cargo >/dev/null 2>&1; then absent+=("cargo: cargo is not on PATH (https://rustup.rs)"); want=${want//rust/}; fi
if [[ $want == *numba* ]]; then
  python3 "$root/peers/numba/hma_numba.py" --input "$tmp/series.f64" --output "$tmp/numba.json"
  peers+=("$tmp/numba.json")
fi
if [[ $want == *rust* ]]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/peers/rust/target}"
  (cd "$root/peers/rust" && cargo build --release --offline --quiet)
  for b in rust_safe rust_unchecked; do
    "$CARGO_TARGET_DIR/release/$b" --input "$tmp/series.f64" >"$tmp/$b.json"
    peers+=("$tmp/$b.json")
  done
fi
if [[ ${#peers[@]} -eq 0 ]]; then
  hs_skip "${absent[0]%%:*}" "${absent[0]#*: }"
fi
python3 "$root/tests/peers_golden_check.py" "$root/tests/golden/default_run.json" "${peers[@]}"
