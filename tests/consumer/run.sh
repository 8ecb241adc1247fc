#!/usr/bin/env bash
# The installed-prefix consumer test: `cmake --install` the build into a fresh prefix, then build
# tests/consumer/consumer.c against that prefix two ways and run it:
#   1. CMake: find_package(hmasweep) -> hmasweep::hmasweep (shared) and hmasweep::hmasweep_static
#   2. pkg-config: `pkg-config --cflags --libs hmasweep` (shared), and --static with libhmasweep.a
# and check the installed CLI runs from the prefix and the installed .so has its SONAME; that every
# exported hs_* symbol is declared in an installed header; that hmasweep-mpi is installed where it was
# built; and build tests/consumer/client.c (the engine's C client) and run it against the installed
# `hmasweep serve`.
# Usage: run.sh BUILD_DIR C_COMPILER "C_FLAGS"    (skipped without pkg-config: tests/skip.sh; in CI a failure)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../skip.sh"
build=$1 cc=$2 cflags=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hs_consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
step() { echo "--- $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir=$(dirname "$(find "$prefix" -name 'libhmasweep.so.1' | head -1)")
want_mpi=()
[[ ! -x $build/mpi/hmasweep-mpi ]] || want_mpi=("$prefix/bin/hmasweep-mpi")  # built, so installed
for f in "$prefix/include/hmasweep.h" "$prefix/include/hmasweep_client.h" "${want_mpi[@]}" "$libdir/libhmasweep.a" "$libdir/libhmasweep.so" "$prefix/bin/hmasweep" \
  "$libdir/pkgconfig/hmasweep.pc" "$libdir/cmake/hmasweep/hmasweepConfig.cmake"; do
  [[ -e $f ]] || { echo "missing after install: $f"; exit 1; }
done
! ls "$prefix/include" | grep -Ev '^hmasweep(_client)?\.h$' || { echo "private headers installed"; exit 1; }
# Every exported name is declared in an installed header (else a consumer cannot call it).
exported=$(nm -D --defined-only "$libdir/libhmasweep.so.1" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sed 's/@.*//' | sort -u)
[[ -n $exported ]] || { echo "no exported symbols found in libhmasweep.so.1"; exit 1; }
for sym in $exported; do
  grep -qw "$sym" "$prefix"/include/*.h || { echo "exported $sym is declared in no installed header"; exit 1; }
done
echo "exported: $(wc -w <<<"$exported") symbols, each declared in $(cd "$prefix/include" && echo *.h)"
soname=$(readelf -d "$libdir/libhmasweep.so.1" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[[ $soname == libhmasweep.so.1 ]] || { echo "SONAME is '$soname'"; exit 1; }
"$prefix/bin/hmasweep" run --bars 3000 --lengths 6 | grep >/dev/null '^fingerprint' || { echo "installed CLI failed"; exit 1; }
echo "installed: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"

step "CMake consumer: find_package(hmasweep)"
cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" \
  -DCMAKE_BUILD_TYPE=Release >"$work/cmake.log" || { cat "$work/cmake.log"; exit 1; }
cmake --build "$work/cmake" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/cmake/consumer_shared"
ldd "$work/cmake/consumer_shared" | grep >/dev/null "$libdir/libhmasweep.so.1" || { echo "consumer_shared does not load the installed .so"; ldd "$work/cmake/consumer_shared"; exit 1; }
"$work/cmake/consumer_static"
! ldd "$work/cmake/consumer_static" | grep >/dev/null libhmasweep || { echo "consumer_static loads libhmasweep.so"; exit 1; }

step "C client consumer against the installed hmasweep serve"
"$prefix/bin/hmasweep" serve --unix "$work/hs.sock" --ready >"$work/ready" 2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 100); do [[ -s $work/ready ]] && break; sleep 0.1; done
[[ -s $work/ready ]] || { echo "installed hmasweep serve did not report ready"; cat "$work/serve.log"; kill "$serve_pid"; exit 1; }
client_rc=0
"$work/cmake/consumer_client" "unix:$work/hs.sock" || client_rc=$?
kill "$serve_pid" && wait "$serve_pid" || true
[[ $client_rc == 0 ]] || { echo "consumer_client failed ($client_rc)"; cat "$work/serve.log"; exit 1; }

step "pkg-config consumer"
command -v pkg-config >/dev/null || hs_skip pkg-config "pkg-config is not installed: the pkg-config half did not run"
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2046,SC2086
"$cc" $cflags "$here/consumer.c" -o "$work/pc_shared" $(pkg-config --cflags --libs hmasweep) -Wl,-rpath,"$libdir"
"$work/pc_shared"
# shellcheck disable=SC2046,SC2086
"$cc" $cflags "$here/consumer.c" -o "$work/pc_static" $(pkg-config --cflags hmasweep) "$libdir/libhmasweep.a" \
  $(pkg-config --libs-only-other --static hmasweep) $(pkg-config --static --libs-only-l hmasweep | sed 's/-lhmasweep//')
"$work/pc_static"
echo "consumer: OK (CMake shared + static + C client, pkg-config shared + static)"
