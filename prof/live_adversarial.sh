#!/usr/bin/env bash
# Live mode on the adversarial series (issue 21 §1, prof/adversarial.h) against the plain walk and against
# the reference, one interleaved run: per rep, every series and every arm, pinned to one vCPU.
#   one symbol (80 combos):   live (the ISA's lanes), live with HMASWEEP_ISA=scalar (one lane), and
#                             batch_us (unchecked's own cost of one bar, measured in the same process)
#   N symbols x 80 combos:    live many (symbols in lanes), one session per symbol (--per-symbol), batch_us
# Prints every live_bench line, then per series the ratios' median [min-max] over the reps:
#   /walk   this series' p50 over the walk's p50 (same arm, same rep)
#   /scalar the lanes' p50 over the scalar ISA's (one symbol) or over one session per symbol (many)
#   /batch  p50 over batch_us: issue 21's "no slower than the reference by more than a small constant (3x)"
# usage: prof/live_adversarial.sh [BUILD_DIR=build/release] [REPS=5] [SYMBOLS=500] [APPENDS=3000] [CALLS=100] [CPU=1]
set -euo pipefail
build=${1:-build/release} reps=${2:-5} symbols=${3:-500} appends=${4:-3000} calls=${5:-100} cpu=${6:-1}
bench=$build/prof/live_bench
series="walk flat ulp out-of-range spike vol-0.3"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "# $(date -u +%FT%TZ) $(nproc) vCPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); taskset -c $cpu; load $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq "$reps"); do
  for s in $series; do
    taskset -c "$cpu" "$bench" --series "$s" --appends "$appends" --label "one:lanes:$s:$rep"
    HMASWEEP_ISA=scalar taskset -c "$cpu" "$bench" --series "$s" --appends "$appends" --label "one:scalar:$s:$rep"
    taskset -c "$cpu" "$bench" --series "$s" --symbols "$symbols" --appends "$calls" --label "many:lanes:$s:$rep"
    taskset -c "$cpu" "$bench" --series "$s" --symbols "$symbols" --appends "$calls" --per-symbol \
      --label "many:scalar:$s:$rep"
  done
done | tee "$out"
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" <<'EOF'
import re, statistics, sys
p50, p99, batch, same = {}, {}, {}, True
for line in open(sys.argv[1]):
    f = line.split()
    where, arm, s, rep = f[0].split(":")
    p50[where, arm, s, rep] = float(re.search(r"p50 (\S+)", line).group(1))
    p99[where, arm, s, rep] = float(re.search(r"p99 (\S+)", line).group(1))
    batch[where, arm, s, rep] = float(re.search(r"batch_us (\S+)", line).group(1))
    same &= "identical-to-batch yes" in line
def fmt(xs):
    return "%.2f [%.2f-%.2f]" % (statistics.median(xs), min(xs), max(xs)) if xs else "-"
print("| where | series | p50 us, median [min-max] | p99 us, median | /walk | /scalar (one) or /per-symbol (many) | /batch |")
print("|---|---|---|---|---|---|---|")
for where in ("one", "many"):
    for s in "walk flat ulp out-of-range spike vol-0.3".split():
        reps = sorted({k[3] for k in p50 if k[0] == where and k[2] == s})
        lanes = [p50[where, "lanes", s, r] for r in reps]
        tail = statistics.median([p99[where, "lanes", s, r] for r in reps])
        walk = [p50[where, "lanes", s, r] / p50[where, "lanes", "walk", r] for r in reps]
        ref = [p50[where, "lanes", s, r] / p50[where, "scalar", s, r] for r in reps]
        bat = [p50[where, "lanes", s, r] / batch[where, "lanes", s, r] for r in reps]
        print(f"| {where} | {s} | {fmt(lanes)} | {tail:.2f} | {fmt(walk)} | {fmt(ref)} | {fmt(bat)} |")
print("final state = batch in every run:", "yes" if same else "NO")
EOF
