#!/usr/bin/env bash
# Coverage of the library by the fuzz corpora, and reports/fuzz.md (docs/fuzzing.md).
#
#   fuzz/run.sh coverage        (or bash fuzz/coverage.sh; `fuzz/run.sh long` runs it at the end)
#
# Builds build/fuzz-cov: the fuzz targets with clang source-based coverage (-fprofile-instr-generate
# -fcoverage-mapping), no sanitizers, linked with fuzz/replay_main.c instead of libFuzzer, so every input
# runs exactly once.  Replays each target's committed seeds (fuzz/corpus/<target>) plus the corpus the last
# long campaign kept (build/fuzz/corpus/<target>, not committed), merges the profiles with the
# llvm-profdata of clang's own major version, and has fuzz/coverage_summary.py write per-area line,
# branch and function coverage with the uncovered functions named.  The campaign table comes from
# build/fuzz/logs/summary.tsv (written by `fuzz/run.sh long`), when there is one.
# Environment: FUZZ_FAILED=1 (set by run.sh long) marks the campaign as failed in the report.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
cdir=$root/build/fuzz-cov fdir=$root/build/fuzz
prof=$cdir/profiles
cc=${FUZZ_CC:-clang}
# The profile format changes between LLVM releases: the tools must be clang's own version.
ver=$("$cc" -dumpversion | cut -d. -f1)
profdata=$(command -v "llvm-profdata-$ver" || command -v llvm-profdata) || { echo "coverage.sh: no llvm-profdata-$ver" >&2; exit 2; }
llvmcov=$(command -v "llvm-cov-$ver" || command -v llvm-cov) || { echo "coverage.sh: no llvm-cov-$ver" >&2; exit 2; }

flags="-fprofile-instr-generate -fcoverage-mapping"
cmake -S "$root" -B "$cdir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="${cc/clang/clang++}" \
      -DCMAKE_BUILD_TYPE=Debug -DHS_FUZZ=OFF -DBUILD_TESTING=OFF \
      -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
nice -n 19 cmake --build "$cdir" --target fuzz_targets -j2 >/dev/null

rm -rf "$prof"; mkdir -p "$prof"
export OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0 # see fuzz/run.sh
objects=() replay=$prof/replay.tsv
printf 'target\tinputs\tseconds\tstatus\n' >"$replay"
for src in "$root"/fuzz/fuzz_*.c; do
  t=$(basename "$src" .c)
  dirs=()
  [[ -d "$root/fuzz/corpus/$t" ]] && dirs+=("$root/fuzz/corpus/$t")
  [[ -d "$fdir/corpus/$t" ]] && dirs+=("$fdir/corpus/$t")
  (( ${#dirs[@]} )) || continue
  inputs=$(find "${dirs[@]}" -maxdepth 1 -type f | wc -l)
  t0=$SECONDS status=ok
  # A replay that fails is a finding (the input crashed or tripped a check), not a reason to stop here.
  LLVM_PROFILE_FILE="$prof/$t.profraw" nice -n 19 timeout 1200 "$cdir/fuzz/$t" "${dirs[@]}" \
      >/dev/null 2>"$prof/$t.stderr" || status="FAILED (exit $?, $prof/$t.stderr)"
  printf '%s\t%s\t%s\t%s\n' "$t" "$inputs" $((SECONDS - t0)) "$status" >>"$replay"
  echo "coverage: replayed $t: $inputs inputs, $((SECONDS - t0)) s, $status"
  objects+=("$cdir/fuzz/$t")
done
"$profdata" merge -sparse "$prof"/*.profraw -o "$prof/all.profdata"
args=("${objects[0]}")
for o in "${objects[@]:1}"; do args+=(-object "$o"); done
"$llvmcov" export -format=text -instr-profile="$prof/all.profdata" "${args[@]}" >"$prof/export.json"

python3 "$root/fuzz/coverage_summary.py" --root "$root" --export "$prof/export.json" --replay "$replay" \
    --summary "$fdir/logs/summary.tsv" --command "$fdir/logs/command" --failed "${FUZZ_FAILED:-0}" \
    --clang "$("$cc" --version | head -1)" --report "$root/reports/fuzz.md"
echo "wrote reports/fuzz.md"
