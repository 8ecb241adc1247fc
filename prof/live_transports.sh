#!/usr/bin/env bash
# Live mode's per-append latency (prof/live_bench) in process and over `hmasweep serve` on Unix socket,
# TCP loopback and shared memory, for each placement: "same" = server and client pinned to vCPU 0,
# "two" = server on vCPU 0, client on vCPU 1 (a wake-up that crosses vCPUs costs 50-100 us on this VM).
# Interleaved: rep x placement x transport; a fresh server per rep and placement.  Each line ends with
# whether the final state equals the batch reference bit for bit.  Results: reports/live.md.
# usage: prof/live_transports.sh [BUILD_DIR=build/release] [REPS=3] [APPENDS=150000]
set -euo pipefail
build=${1:-build/release} reps=${2:-3} appends=${3:-150000}
cli=$build/hmasweep bench=$build/prof/live_bench
tmp=$(mktemp -d)
server=
cleanup() { [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
echo "# $(date -u +%FT%TZ) $(nproc) vCPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); appends $appends; machine shared"
for rep in $(seq "$reps"); do
  taskset -c 1 "$bench" --appends "$appends" --label "in-process cpu1 r$rep"
  for placement in same two; do
    ccpu=$([[ $placement == same ]] && echo 0 || echo 1)
    shm=hs_live_bench_$$
    taskset -c 0 "$cli" serve --unix "$tmp/s.sock" --tcp 127.0.0.1:0 --shm "$shm" --ready >"$tmp/ready" &
    server=$!
    for _ in $(seq 100); do [[ -s $tmp/ready ]] && break; sleep 0.1; done
    read -r _ unix tcp shmurl <"$tmp/ready"
    for url in "$unix" "$tcp" "$shmurl"; do
      taskset -c "$ccpu" "$bench" --appends "$appends" --url "$url" --label "${url%%:*} $placement r$rep"
    done
    kill "$server"; wait "$server" || true; server=
  done
done
