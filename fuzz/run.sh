#!/usr/bin/env bash
# Run the fuzz targets (fuzz/fuzz_*.c) under libFuzzer with ASan + UBSan (docs/fuzzing.md).
#
#   fuzz/run.sh ci                 bounded: every target for ~60 s in all, on top of the committed corpora
#                                  (a scratch copy: the committed corpora are not changed); CI runs this
#   fuzz/run.sh long [SECONDS]     the long campaign: every target for SECONDS (default 1800), corpora kept
#                                  in build/fuzz/corpus/<target>, then line coverage of the library from a
#                                  coverage build replaying those corpora; writes reports/fuzz.md
#   fuzz/run.sh build              just configure and build build/fuzz
# Environment: FUZZ_TARGETS="fuzz_diff fuzz_cli" to run only some; FUZZ_CI_SECONDS (default 60).
# Exit status: non-zero when a target crashes, hangs, leaks or a sanitizer reports (the input that did it
# is under build/fuzz/artifacts/).  Needs clang and libFuzzer (Debian: clang, libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
mode=${1:-ci}
bdir=$root/build/fuzz
cc=${FUZZ_CC:-clang}
# OpenMP threads that spin between parallel regions took 87% of fuzz_diff's time on the shared 2-vCPU box
# (perf: libgomp spin loop; 13 ms per input, 1.5 ms with passive waiting).
export OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0

build() {
  cmake -S "$root" -B "$bdir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHS_FUZZ=ON \
        -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$bdir" --target fuzz_targets -j2 >/dev/null
}

targets() {
  if [[ -n "${FUZZ_TARGETS:-}" ]]; then echo $FUZZ_TARGETS; return; fi
  for f in "$root"/fuzz/fuzz_*.c; do basename "$f" .c; done
}

# run_target NAME SECONDS CORPUS_DIR LOG: libFuzzer on CORPUS_DIR (written to) plus the committed seeds.
run_target() {
  local name=$1 secs=$2 corpus=$3 log=$4 dict=()
  [[ -f "$root/fuzz/$name.dict" ]] && dict=(-dict="$root/fuzz/$name.dict")
  mkdir -p "$corpus" "$bdir/artifacts"
  local seeds=()
  [[ -d "$root/fuzz/corpus/$name" ]] && seeds=("$root/fuzz/corpus/$name")
  # -rss_limit_mb and -timeout make a runaway allocation or a hang a reported failure, not a stall.
  "$bdir/fuzz/$name" "${dict[@]}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="$bdir/artifacts/$name-" "$corpus" "${seeds[@]}" >"$log" 2>&1
}

execs_of() { sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1; }
cov_of() { grep -o 'cov: [0-9]* ft: [0-9]*' "$1" | tail -1; }

case "$mode" in
build)
  build
  ;;
ci)
  build
  list=($(targets))
  per=$(( ${FUZZ_CI_SECONDS:-60} / ${#list[@]} )); (( per >= 5 )) || per=5
  scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
  failed=0
  for t in "${list[@]}"; do
    if run_target "$t" "$per" "$scratch/$t" "$scratch/$t.log"; then
      printf 'fuzz %-16s %3ds  %10s execs  %s\n' "$t" "$per" "$(execs_of "$scratch/$t.log")" "$(cov_of "$scratch/$t.log")"
    else
      echo "fuzz $t: FAILED"; tail -40 "$scratch/$t.log"; failed=1
    fi
  done
  exit $failed
  ;;
long)
  secs=${2:-1800}
  build
  mkdir -p "$bdir/logs"
  failed=0
  for t in $(targets); do
    log=$bdir/logs/$t.log
    run_target "$t" "$secs" "$bdir/corpus/$t" "$log" || { echo "fuzz $t: FAILED (see $log)"; failed=1; }
    printf 'fuzz %-16s %6ds  %12s execs  %s\n' "$t" "$secs" "$(execs_of "$log")" "$(cov_of "$log")"
  done
  bash "$root/fuzz/coverage.sh" "$secs" $failed
  exit $failed
  ;;
*)
  echo "usage: fuzz/run.sh ci | long [SECONDS] | build" >&2; exit 2
  ;;
esac
