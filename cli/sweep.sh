#!/usr/bin/env bash
# The main job: build (Release, quietly) and run the study's default sweep — 150,000 bars x 80 combos —
# with `best` (the fastest tier-0 variant this CPU runs), printing the per-combo table, the fingerprint
# line, the variant and the wall time.  Any arguments go to `hmasweep run` (e.g. --variant unchecked for
# the reference, --format json); see `build/release/hmasweep run --help`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source cmake/build_deps.sh >&2  # libsleef-dev, pkg-config when missing
cmake --preset release >/dev/null
cmake --build --preset release -j "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)" >/dev/null
exec build/release/hmasweep run "$@"
