#!/usr/bin/env bash
# Instruments recordings of the gap-study arms on macOS (the M2 Max half of issue 4; see M2MAX.md).
#
#   study/gap/xctrace.sh [ARM ...]          default: numba rust_safe rust_unchecked rust_unchecked@i64 unchecked@clang
#   XCTRACE_TEMPLATE="CPU Counters" study/gap/xctrace.sh rust_safe      (any Instruments template name or a
#                                                                     .tracetemplate saved from Instruments)
# For each arm: builds it (study/gap/arms.py), records one full sweep with
#   xcrun xctrace record --template "$XCTRACE_TEMPLATE" --output build/gap/xctrace/<arm>.trace --launch -- CMD
# (default template: Time Profiler), then exports the sample table to <arm>.time-profile.xml and prints the
# heaviest frames (study/gap/xctrace_top.py).  Open the .trace in Instruments to see the hot loop's
# disassembly with per-instruction samples (the counterpart of perf annotate).  numba's JIT frames have no
# symbols there either: compare with reports/gap/asm/numba.host.loop.s from `study/gap/asm.py` on the Mac.
# For counters, record with a template made in Instruments > CPU Counters (e.g. cycles, instructions,
# INST_BRANCH, BRANCH_MISPRED_NONSPEC, and the "CPU Bottlenecks" mode on M2/M3) saved as a .tracetemplate.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[[ "$(uname)" == Darwin ]] || { echo "xctrace.sh: macOS only (Instruments); on Linux use study/gap/perf.sh" >&2; exit 2; }
command -v xcrun >/dev/null || { echo "xctrace.sh: xcrun not found (install Xcode)" >&2; exit 2; }
template="${XCTRACE_TEMPLATE:-Time Profiler}"
series="$root/build/gap/series.f64"
out="$root/build/gap/xctrace"
mkdir -p "$out"
arms=("$@")
((${#arms[@]})) || arms=(numba rust_safe rust_unchecked rust_unchecked@i64 unchecked@clang)
python3 "$here/arms.py" build "${arms[@]}" unchecked@clang >&2
[[ -f "$series" ]] || "$root/build/gap/c/clang/portbench" --gen "$series"
for arm in "${arms[@]}"; do
  name="${arm//@/.}"
  cmd="$(python3 "$here/arms.py" cmd "$arm" "$series" 1)"
  rm -rf "$out/$name.trace"
  echo "xctrace.sh: $arm: xcrun xctrace record --template '$template' -- $cmd" >&2
  eval "xcrun xctrace record --template '$template' --output '$out/$name.trace' --launch -- $cmd" > "$out/$name.stdout" 2> "$out/$name.log" || {
    tail -5 "$out/$name.log" >&2; continue; }
  xcrun xctrace export --input "$out/$name.trace" \
    --xpath '/trace-toc/run[@number="1"]/data/table[@schema="time-profile"]' > "$out/$name.time-profile.xml" 2>/dev/null || true
  if [[ -s "$out/$name.time-profile.xml" ]]; then
    python3 "$here/xctrace_top.py" "$out/$name.time-profile.xml" > "$out/$name.top.txt" || true
    echo "== $arm"; head -12 "$out/$name.top.txt"
  fi
done
echo "xctrace.sh: traces in $out (open with: open $out/<arm>.trace)" >&2
