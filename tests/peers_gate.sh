#!/usr/bin/env bash
# The golden file against the independent peers: the canonical series written by `hmasweep gen`, every
# available peer run on those bytes, each checked against tests/golden/default_run.json (trades equal,
# |dPnL| <= 1e-6; tests/peers_golden_check.py).  Exit 77 (skipped) when no peer toolchain is present.
set -euo pipefail
cli=${1:?usage: peers_gate.sh path/to/hmasweep PEERS(numba,rust)}
want=${2:-numba,rust}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cli" gen --output "$tmp/series.f64"
peers=()
if [[ $want == *numba* ]] && python3 -c 'import numba' 2>/dev/null; then
  python3 "$root/peers/numba/hma_numba.py" --input "$tmp/series.f64" --output "$tmp/numba.json"
  peers+=("$tmp/numba.json")
fi
if [[ $want == *rust* ]] && command -v cargo >/dev/null 2>&1; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/peers/rust/target}"
  (cd "$root/peers/rust" && cargo build --release --offline --quiet)
  for b in rust_safe rust_unchecked; do
    "$CARGO_TARGET_DIR/release/$b" --input "$tmp/series.f64" >"$tmp/$b.json"
    peers+=("$tmp/$b.json")
  done
fi
if [[ ${#peers[@]} -eq 0 ]]; then
  echo "peers_gate: skipped: neither numba nor cargo is available"
  exit 77
fi
python3 "$root/tests/peers_golden_check.py" "$root/tests/golden/default_run.json" "${peers[@]}"
