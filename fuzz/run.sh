#!/usr/bin/env bash
# Run the fuzz targets (fuzz/fuzz_*.c) under libFuzzer with ASan + UBSan (docs/fuzzing.md).
#
#   fuzz/run.sh ci                 bounded: every target for ~60 s in all, on top of the committed corpora
#                                  (a scratch copy: the committed corpora are not changed); CI runs this
#   fuzz/run.sh long [SECONDS] [TARGET=SECONDS ...]
#                                  the long campaign: every target for SECONDS (default 1800), or what a
#                                  TARGET=SECONDS names (those run first, in the order given); one libFuzzer
#                                  process at a time, single worker, at nice 19 so it barely disturbs others'
#                                  timings; corpora kept in build/fuzz/corpus/<target>; one line per target
#                                  in build/fuzz/logs/summary.tsv; then fuzz/coverage.sh writes reports/fuzz.md
#   fuzz/run.sh coverage           only the coverage step and the report (fuzz/coverage.sh), from the corpora
#                                  and logs the last `long` left
#   fuzz/run.sh build              just configure and build build/fuzz
# Environment: FUZZ_TARGETS="fuzz_diff fuzz_cli" to run only some; FUZZ_CI_SECONDS (default 60).
# A target may bound its input size with a line `hs:fuzz-max-len N` in its source (default 8192): fuzz_diff
# reads at most ~1.4 KB, and longer inputs would only spend mutations on bytes it never looks at.
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
  local max_len
  max_len=$(sed -n 's/.*hs:fuzz-max-len[ \t]*\([0-9]*\).*/\1/p' "$root/fuzz/$name.c" | head -1)
  # No -jobs/-fork: one in-process libFuzzer worker, i.e. one core.  The outer timeout is a backstop
  # only: libFuzzer stops itself after -max_total_time.
  ${FUZZ_NICE:-} timeout -k 10 $((secs + 300)) \
  "$bdir/fuzz/$name" "${dict[@]}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len="${max_len:-8192}" \
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
  secs=1800
  declare -A plan=()
  order=()
  shift
  for a in "$@"; do
    if [[ $a == *=* ]]; then plan[${a%%=*}]=${a#*=}; order+=("${a%%=*}"); else secs=$a; fi
  done
  for t in $(targets); do [[ -n ${plan[$t]:-} ]] || order+=("$t"); done
  build
  mkdir -p "$bdir/logs"
  summary=$bdir/logs/summary.tsv
  printf 'target\tseconds\twall_s\texecutions\texec_per_s\tcov\tft\tcorpus_files\tresult\n' >"$summary"
  echo "fuzz/run.sh long $*" >"$bdir/logs/command"
  export FUZZ_NICE="nice -n 19"
  failed=0
  for t in "${order[@]}"; do
    s=${plan[$t]:-$secs} log=$bdir/logs/$t.log result=ok t0=$SECONDS
    run_target "$t" "$s" "$bdir/corpus/$t" "$log" || { echo "fuzz $t: FAILED (see $log)"; failed=1; result=FAILED; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$s" $((SECONDS - t0)) "$(execs_of "$log")" \
      "$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)" \
      "$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)" "$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)" \
      "$(ls "$bdir/corpus/$t" | wc -l)" "$result" >>"$summary"
    printf 'fuzz %-16s %6ds  %12s execs  %s\n' "$t" "$s" "$(execs_of "$log")" "$(cov_of "$log")"
  done
  FUZZ_FAILED=$failed bash "$root/fuzz/coverage.sh"
  exit $failed
  ;;
coverage)
  bash "$root/fuzz/coverage.sh"
  ;;
*)
  echo "usage: fuzz/run.sh ci | long [SECONDS] [TARGET=SECONDS ...] | coverage | build" >&2; exit 2
  ;;
esac
