#!/usr/bin/env bash
# Build and run the peers (peers/README.md): the numba reference (single thread and prange) and the
# Rust port (safe and get_unchecked builds), all on one close series.
#
#   peers/run_peers.sh                       build the Rust peer (both binaries), check numba imports
#   peers/run_peers.sh --series FILE.f64 --out DIR [--repeat N] [--rounds R] [--lengths a,b,..]
#                      [--golden GOLDEN.json] [--peers numba,numba_prange,rust_safe,rust_unchecked]
#
# With --series every peer runs on FILE (raw little-endian f64) and writes DIR/<peer>.json.  --rounds R
# interleaves: R rounds, each running every peer once (in order) with --repeat N; per-round JSONs go to
# DIR/round<k>/ and DIR/<peer>.json gets "seconds_all" = every timed run of every round and "seconds"
# = their median.  Then the peers are checked against each other (numba as golden) with
# tests/peers_golden_check.py, and against --golden too when given; DIR/summary.txt has the table.
#
# Exit: 0 ok, 1 a peer failed or the equivalence gate failed, 2 usage / missing tool.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
checker="$root/tests/peers_golden_check.py"
python="${PYTHON:-python3}"

series="" out="" repeat=1 rounds=1 lengths="" golden="" peers="numba,numba_prange,rust_safe,rust_unchecked"

die() { echo "run_peers.sh: $*" >&2; exit 2; }
usage() { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --series) [[ $# -ge 2 ]] || die "--series needs a file"; series="$2"; shift 2 ;;
    --out) [[ $# -ge 2 ]] || die "--out needs a directory"; out="$2"; shift 2 ;;
    --repeat) [[ $# -ge 2 ]] || die "--repeat needs a number"; repeat="$2"; shift 2 ;;
    --rounds) [[ $# -ge 2 ]] || die "--rounds needs a number"; rounds="$2"; shift 2 ;;
    --lengths) [[ $# -ge 2 ]] || die "--lengths needs a list"; lengths="$2"; shift 2 ;;
    --golden) [[ $# -ge 2 ]] || die "--golden needs a file"; golden="$2"; shift 2 ;;
    --peers) [[ $# -ge 2 ]] || die "--peers needs a list"; peers="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
  esac
done
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "--repeat must be an integer >= 1, got '$repeat'"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds must be an integer >= 1, got '$rounds'"
IFS=',' read -r -a peer_list <<< "$peers"
for p in "${peer_list[@]}"; do
  case "$p" in numba|numba_prange|rust_safe|rust_unchecked) ;; *) die "unknown peer '$p'" ;; esac
done

# ---- tools ---------------------------------------------------------------------------------------
command -v "$python" >/dev/null 2>&1 || die "python3 not found (set PYTHON=...)"
if ! nv="$("$python" -c 'import numpy, numba, llvmlite; print("numpy", numpy.__version__, "numba", numba.__version__, "llvmlite", llvmlite.__version__)' 2>&1)"; then
  die "numba is not importable with $python: ${nv##*$'\n'} (pip install numba)"
fi
command -v cargo >/dev/null 2>&1 || die "cargo not found: install a Rust toolchain (rustup) to build peers/rust"
echo "run_peers.sh: $nv; $(rustc -V 2>/dev/null || echo 'rustc ?'); $(cargo -V)"

# ---- build -----------------------------------------------------------------------------------------
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/rust/target}"
echo "run_peers.sh: cargo build --release (offline) in peers/rust"
(cd "$here/rust" && cargo build --release --offline --quiet) || die "cargo build --release failed"
bin="$CARGO_TARGET_DIR/release"
for b in rust_safe rust_unchecked; do
  [[ -x "$bin/$b" ]] || die "built binary $bin/$b is missing"
done

if [[ -z "$series" ]]; then
  echo "run_peers.sh: built; numba imports.  Pass --series FILE.f64 --out DIR to run the peers."
  exit 0
fi
[[ -f "$series" ]] || die "--series: no such file '$series'"
[[ -n "$out" ]] || die "--series needs --out DIR"
mkdir -p "$out"

peer_cmd() {  # peer json-path
  local extra=()
  [[ -n "$lengths" ]] && extra+=(--lengths "$lengths")
  case "$1" in
    numba) "$python" "$here/numba/hma_numba.py" --input "$series" --repeat "$repeat" "${extra[@]}" --output "$2" ;;
    numba_prange) "$python" "$here/numba/hma_numba.py" --parallel --input "$series" --repeat "$repeat" "${extra[@]}" --output "$2" ;;
    rust_safe|rust_unchecked) "$bin/$1" --input "$series" --repeat "$repeat" "${extra[@]}" --output "$2" ;;
  esac
}

# ---- run (interleaved rounds) -----------------------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm); cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //' || echo '?'); cores: $(nproc 2>/dev/null || echo '?')"
  echo "$nv; $(rustc -V 2>/dev/null || echo 'rustc ?')"
  echo "series: $series ($(wc -c < "$series") bytes); repeat $repeat x rounds $rounds; peers ${peers}"
  echo "NUMBA_NUM_THREADS=${NUMBA_NUM_THREADS:-default}"
} > "$out/env.txt"

for ((r = 1; r <= rounds; r++)); do
  dir="$out"
  if ((rounds > 1)); then dir="$out/round$r"; mkdir -p "$dir"; fi
  for p in "${peer_list[@]}"; do
    echo "run_peers.sh: round $r/$rounds: $p"
    if ! peer_cmd "$p" "$dir/$p.json"; then
      echo "run_peers.sh: peer $p failed (round $r)" >&2
      exit 1
    fi
  done
done

if ((rounds > 1)); then
  "$python" - "$out" "$rounds" "${peer_list[@]}" <<'EOF'
import json, statistics, sys
out, rounds, peers = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for p in peers:
    docs = [json.load(open("%s/round%d/%s.json" % (out, r, p))) for r in range(1, rounds + 1)]
    merged = dict(docs[-1])
    merged["seconds_all"] = [t for d in docs for t in d["seconds_all"]]
    merged["seconds"] = statistics.median(merged["seconds_all"])
    for d in docs[:-1]:  # every round must give the same results
        if d["combos"] != merged["combos"]:
            sys.exit("run_peers.sh: %s gave different results in different rounds" % p)
    with open("%s/%s.json" % (out, p), "w") as f:
        json.dump(merged, f, indent=1)
        f.write("\n")
EOF
fi

# ---- check and summarise ----------------------------------------------------------------------------
status=0
jsons=()
for p in "${peer_list[@]}"; do jsons+=("$out/$p.json"); done
ref="${jsons[0]}"
{
  cat "$out/env.txt"
  echo
  "$python" - "${jsons[@]}" <<'EOF'
import json, sys
docs = [json.load(open(p)) for p in sys.argv[1:]]
base = docs[0]["seconds"]
print("%-16s %10s %10s %10s  %s" % ("peer", "median s", "min s", "max s", "vs %s" % docs[0]["variant"]))
for d in docs:
    s = d["seconds_all"]
    print("%-16s %10.4f %10.4f %10.4f  %.3fx" % (d["variant"], d["seconds"], min(s), max(s), d["seconds"] / base))
c = docs[0]["combos"]
print()
for d in docs:
    c = d["combos"]
    print("%-16s combo0 L=%d %d trades pnl %r | total %d trades over %d combos"
          % (d["variant"], c[0]["length"], c[0]["trades"], c[0]["pnl"], sum(x["trades"] for x in c), len(c)))
EOF
  echo
  echo "equivalence gate vs $ref:"
  "$python" "$checker" --quiet "$ref" "${jsons[@]}" || status=1
  if [[ -n "$golden" ]]; then
    echo
    echo "equivalence gate vs $golden:"
    "$python" "$checker" --quiet "$golden" "${jsons[@]}" || status=1
  fi
} > "$out/summary.txt" 2>&1   # a brace group, not a subshell: $status survives
cat "$out/summary.txt"
exit "$status"
