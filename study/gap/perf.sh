#!/usr/bin/env bash
# perf record / report / annotate of one gap-study arm (any peer or C variant, study/gap/arms.py).
#
#   study/gap/perf.sh ARM [SERIES.f64] [OUTDIR]
#
# Samples with the software cpu-clock event (this VM has no hardware counters: `perf stat -e cycles` is
# not supported, `perf record -e cpu-clock` works), one full sweep of the arm (numba: 3, PERF_REPEAT=N to
# change), call graphs off.
# Writes to OUTDIR (default build/gap/perf/<arm>/):
#   perf.data            the samples
#   report_dso.txt       perf report --stdio --sort dso (numba: the [JIT] share is its compiled code)
#   report.txt           perf report --stdio --sort dso,symbol (where the time goes: kernel page faults,
#                        libc memset/malloc, the kernel's hot function)
#   annotate.txt         perf annotate --stdio of the hottest symbol of the arm's own code: the hot loop's
#                        assembly with the share of samples on each instruction
# numba: its JIT code has no symbols for perf (the report shows it as an anonymous region), so there
# annotate.txt only says so: read the loop numba's own inspect_asm gives (study/gap/asm.py) instead.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
arm="${1:?usage: perf.sh ARM [SERIES.f64] [OUTDIR]}"
series="${2:-$root/build/gap/series.f64}"
out="${3:-$root/build/gap/perf/${arm//@/.}}"
command -v perf >/dev/null || { echo "perf.sh: perf not found" >&2; exit 2; }
mkdir -p "$out"
if [[ ! -f "$series" ]]; then
  python3 "$here/arms.py" build unchecked >&2
  "$root/build/gap/c/gcc/portbench" --gen "$series"
fi
python3 "$here/arms.py" build "$arm" >&2
# numba's process spends ~2-3 s importing and compiling before the sweep: time 3 sweeps so they dominate.
repeat="${PERF_REPEAT:-1}"
[[ "$arm" == numba* && -z "${PERF_REPEAT:-}" ]] && repeat=3
cmdline="$(python3 "$here/arms.py" cmd "$arm" "$series" "$repeat")"
echo "perf.sh: perf record -e cpu-clock -F 2000 -- $cmdline" >&2
# The C binary prints JSON on stdout; numba and Rust write it to a file only with --output: drop it.
eval "perf record -q -e cpu-clock -F 2000 -o '$out/perf.data' -- $cmdline" > /dev/null 2> "$out/record.log" || {
  cat "$out/record.log" >&2; exit 1; }
perf report --stdio -i "$out/perf.data" --sort dso --percent-limit 0.5 2>/dev/null \
  | grep -v '^$' > "$out/report_dso.txt" || true
perf report --stdio -i "$out/perf.data" --sort dso,symbol --percent-limit 0.5 2>/dev/null \
  | grep -v '^$' > "$out/report.txt" || true
# The hottest symbol that belongs to the arm's code (not the kernel, not libc).
sym="$(perf report --stdio -i "$out/perf.data" --sort dso,symbol 2>/dev/null \
  | awk '/^ +[0-9.]+%/ && !done && $2 !~ /kernel|libc|ld-linux|python|libm|unknown|perf-|JIT/ {
      line = $0; sub(/^.*\[\.\] /, "", line); sub(/ +-? +-? *$/, "", line); print line; done = 1 }' || true)"
if [[ -n "$sym" && "$arm" != numba* ]]; then
  perf annotate --stdio -i "$out/perf.data" "$sym" 2>/dev/null > "$out/annotate.txt" || true
else
  echo "(no symbolised hot function: JIT code -- see reports/gap/asm/ for its loop)" > "$out/annotate.txt"
fi
echo "perf.sh: $out/report.txt, $out/annotate.txt (hot symbol: ${sym:-none})" >&2
