#!/usr/bin/env bash
# Issue 7's "What it must show", in one run: round-trip floors and the 1.2 MB echo (prof/engine_bench:
# unix, tcp, shm x same / two vCPUs, memcpy in the same run, the bare cache-line round trip per rep),
# then live mode's 150,000 one-bar appends x 80 combos per transport and placement (prof/live_transports.sh,
# final state against the batch sweep).  The load average is printed before, between and after: the
# machine is shared.  Raw output to stdout; reports/engine.md quotes it.
# usage: prof/engine_figures.sh [BUILD_DIR=build/release] [REPS=5] [LIVE_REPS=2] [APPENDS=150000]
set -euo pipefail
build=${1:-build/release} reps=${2:-5} live_reps=${3:-2} appends=${4:-150000}
echo "# engine_figures $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo ?); $(nproc) vCPUs"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/engine_bench" --reps "$reps" --rounds 5000 --big-rounds 40
echo "# load after engine_bench: $(cut -d' ' -f1-3 /proc/loadavg)"
"$(dirname "$0")/live_transports.sh" "$build" "$live_reps" "$appends"
echo "# load after live: $(cut -d' ' -f1-3 /proc/loadavg)"
