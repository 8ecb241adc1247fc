#!/usr/bin/env bash
# The test command: configure, build (Release) and run the whole ctest suite — fingerprint, numpy-exact
# data, readers, API and CLI errors, allocation counts, the golden gate of every registered variant on
# every ISA built, and the independent peers (numba, Rust) against the golden file.
# Set-up it does itself: the test tools from tests/deps.sh (Open MPI, jansson, numpy, numba, pytest, ...;
# without one, the tests needing it are reported as skipped, not passed); SLEEF (libsleef-dev, the series' exp) and pkg-config
# (the consumer test) through apt-get when missing on Debian/Ubuntu (root or passwordless sudo).
# Needs cmake >= 3.25 and a C compiler with OpenMP.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source cmake/build_deps.sh  # libsleef-dev, pkg-config when missing
source tests/deps.sh        # what the tests use (Open MPI, jansson, pytest, numba, ...) when missing
cmake --preset release >/dev/null
cmake --build --preset release -j "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
# Every skip is listed with its reason after ctest's summary; in CI (CI=true) a skip whose tool is not on
# tests/skips.allow fails its test (the skip policy).
rc=0
ctest --preset release --output-junit "$PWD/build/release/ctest_junit.xml" "$@" || rc=$?
python3 tests/skip_policy.py report build/release/ctest_junit.xml || true
exit $rc
