#!/usr/bin/env bash
# CI step "aarch64": cross-build for Linux/aarch64 and run the ctest suite under qemu-aarch64 (all but
# the CI_SKIP gates named in the log; --full for all), so
# the NEON translation units are proven against the golden file on every submission (docs/arm.md).
#
#   .ci/aarch64.sh                 install what is missing; gcc cross build + the suite under qemu
#                                  without the CI_SKIP gates below; clang --target cross build
#                                  (+ libomp:arm64, unpacked) + its NEON gates
#   .ci/aarch64.sh --full          the gcc suite whole (every registered gate on both ISAs)
#   .ci/aarch64.sh --quick         also without the gates of naive and prealloc, the scalar units of every
#                                  variant gated on neon, and the portable engine/timing tests (see
#                                  quick_skip); the clang half's gates check every 16th combo of the
#                                  default run (not every 4th) and leave out simd_wma_omp (same NEON
#                                  kernel as simd_wma); every test a mode leaves out is named in the log
#   .ci/aarch64.sh --no-clang      the gcc half only
#   .ci/aarch64.sh --clang-all     the clang build's whole suite too, not only its NEON gates
#   .ci/aarch64.sh --no-install    never call apt-get (fail if something is missing)
#
# Environment: JOBS (build and ctest parallelism; default nproc), HS_AARCH64_BUILD (gcc build dir,
# default build/aarch64), HS_AARCH64_CLANG_BUILD (default build/aarch64-clang).
#
# Works as root on a fresh Debian 12 (or with passwordless sudo).  Unpacks libsleef3:arm64 and
# libsleef-dev:arm64 into build/aarch64-sleef (not installed; see fetch_sleef).  Installs, only when missing:
#   cmake python3 gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user   (host tools; the sysroot's
#                                                 headers are only a Recommends of the cross gcc)
#   libc6:arm64 libgomp1:arm64   (after dpkg --add-architecture arm64)     (the target's runtime)
#   clang lld                                                              (the clang half)
# qemu-aarch64 runs PLAIN, never with -L / QEMU_LD_PREFIX: the binaries' interpreter
# /lib/ld-linux-aarch64.so.1 and libgomp.so.1 come from the arm64 multiarch packages.  (With
# -L /usr/aarch64-linux-gnu, threaded programs hang once those packages are installed.)
#
# Cost: the suite is CPU-bound under qemu (TCG runs this FP code ~15-40x slower than the host): about
# 570 CPU-seconds for the gcc suite (each O(n*w) gate 25-35 s, the scalar-only port family alone ~270 s)
# and ~90 s for the clang NEON gates; wall time is that divided by the free cores (docs/arm.md §3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
do_clang=1 clang_all=0 do_install=1 quick=0 full=0
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    --full) full=1 ;;
    --no-clang) do_clang=0 ;;
    --clang-all) clang_all=1 ;;
    --no-install) do_install=0 ;;
    -h | --help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "aarch64.sh: unknown argument '$a' (see --help)" >&2; exit 2 ;;
  esac
done
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
bdir=${HS_AARCH64_BUILD:-build/aarch64}
cdir=${HS_AARCH64_CLANG_BUILD:-build/aarch64-clang}

# ---- timing: wall and CPU (user+sys of the children) per phase -----------------------------------------
t_start=$(date +%s)
declare -a timings=()
times_file=$(mktemp)
cpu_children() { # user+sys seconds of this shell's finished children (`times` must run in this shell)
  times >"$times_file"
  awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } print s }' "$times_file"
}
phase() { # phase NAME CMD...: run, time, record
  local name=$1 t0 t1 c0 c1 rc=0
  shift
  echo "::group::$name"
  echo "+ $*"
  cpu_children >"$times_file.0"
  t0=$(date +%s.%N)
  "$@" || rc=$?
  t1=$(date +%s.%N)
  cpu_children >"$times_file.1"
  c0=$(cat "$times_file.0") c1=$(cat "$times_file.1")
  echo "::endgroup::"
  timings+=("$(awk -v n="$name" -v w="$(awk "BEGIN{print $t1 - $t0}")" -v c="$(awk "BEGIN{print $c1 - $c0}")" \
    -v f="$([[ $rc -eq 0 ]] || echo "   FAILED (exit $rc)")" 'BEGIN { printf "%-46s %7.1f s wall %8.1f s CPU%s", n, w, c, f }')")
  return $rc
}
report() {
  echo
  echo "== aarch64 CI timings ($(nproc 2>/dev/null || echo '?') cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')) =="
  printf '%s\n' "${timings[@]}"
  printf '%-46s %7d s wall\n' "total" "$(($(date +%s) - t_start))"
}
trap 'report; rm -f "$times_file" "$times_file".[01]' EXIT

# ---- 1. what the step needs ---------------------------------------------------------------------------
sudo_=""
[[ $(id -u) -eq 0 ]] || sudo_="sudo"
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
install_missing() {
  local want=(cmake python3 gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
  ((do_clang)) && want+=(clang lld)
  local missing=() arm=() p
  for p in "${want[@]}"; do have_pkg "$p" || missing+=("$p"); done
  for p in libc6:arm64 libgomp1:arm64; do have_pkg "$p" || arm+=("$p"); done
  if [[ ${#missing[@]} -eq 0 && ${#arm[@]} -eq 0 ]]; then
    echo "aarch64.sh: all packages present"
    return 0
  fi
  if ((!do_install)); then
    echo "aarch64.sh: missing packages: ${missing[*]:-} ${arm[*]:-} (and --no-install was given)" >&2
    return 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if [[ ${#arm[@]} -gt 0 ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $sudo_ dpkg --add-architecture arm64
  fi
  $sudo_ apt-get update -qq
  $sudo_ apt-get install -y -qq --no-install-recommends "${missing[@]}" "${arm[@]}" >/dev/null
  echo "aarch64.sh: installed ${missing[*]:-} ${arm[*]:-}"
}
phase "install (apt-get, only what is missing)" install_missing

command -v qemu-aarch64 >/dev/null || { echo "aarch64.sh: qemu-aarch64 not found" >&2; exit 1; }
[[ -e /lib/ld-linux-aarch64.so.1 ]] || { echo "aarch64.sh: /lib/ld-linux-aarch64.so.1 missing (libc6:arm64)" >&2; exit 1; }
unset QEMU_LD_PREFIX  # plain qemu-aarch64: see the header
configure() { # configure DIR PRESET [-D...]: the preset's default generator, as `cmake --workflow` uses
  local dir=$1 preset=$2
  shift 2
  mkdir -p "$dir"
  cmake --preset "$preset" -B "$dir" "$@" >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; return 1; }
  grep -E "^-- (hmasweep ISAs|prof:)" "$dir/configure.log" | sed 's/^/  /'
  grep -E "^CMAKE_C_COMPILER:|^HS_OPENMP:" "$dir/CMakeCache.txt" | sed 's/^/  /'
}
# Tests that cannot run in a cross build as registered: prof_ab_smoke while prof/CMakeLists.txt hands
# prof/ab the aarch64 CLI itself instead of tests/scripts.cmake's emulator wrapper (${HS_CLI_COMMAND}).
cross_broken() {
  local dir=$1
  if [[ -f $dir/prof/CTestTestfile.cmake ]] && grep -q 'prof_ab_smoke' "$dir/prof/CTestTestfile.cmake" &&
    ! grep 'prof_ab_smoke' "$dir/prof/CTestTestfile.cmake" | grep -q 'hmasweep-run'; then
    echo "prof_ab_smoke"
  fi
}
not_run() { # not_run DIR REGEX REASON: say which tests a filter leaves out
  local names
  names=$(ctest --test-dir "$1" -N -R "$2" | awk '/Test +#/{print $3}' | tr '\n' ' ')
  [[ -z $names ]] || echo "aarch64.sh: NOT RUN ($3): $names"
}
gate_stride=4
ctest_run() { # ctest_run DIR PRESET [ctest args]: the test preset's settings, in DIR (HS_AARCH64_BUILD)
  local dir=$1
  shift 2
  # Without --full the gates check every $gate_stride-th combo of the default run (4; 16 in the clang
  # half of --quick: tests/gate_variant.c says why); the other gate data sets run whole.
  ((full)) || export HS_GATE_STRIDE=$gate_stride
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" --timeout 900 "$@"
}
slowest() { # the slowest tests of the last ctest run in DIR
  local log=$1/Testing/Temporary/LastTest.log
  [[ -f $log ]] || return 0
  echo "slowest tests (wall under qemu; includes waiting for a core):"
  awk '/^[0-9]+\/[0-9]+ Testing: /{name=$3} /^Test time = /{printf "  %8.2f s  %s\n", $4, name}' "$log" |
    sort -rn | head -"${2:-10}"
}

# ---- SLEEF for arm64 (cmake/sleef.cmake) ----------------------------------------------------------------
# Debian ships no static libsleef, so the arm64 packages (libsleef3, libsleef-dev) are unpacked into a
# directory of the build tree and linked by full path; CMake's build-tree RUNPATH points the binaries at
# it, so plain qemu-aarch64 finds libsleef.so.3 without -L and without installing it system-wide.
fetch_sleef() { # fetch_sleef DIR: unpack libsleef3:arm64 + libsleef-dev:arm64 into DIR; prints libsleef.so
  local dir=$1 tmp lib=$1/usr/lib/aarch64-linux-gnu/libsleef.so
  if [[ ! -e $lib ]]; then
    tmp=$(mktemp -d)
    chmod 755 "$tmp"
    if ! (cd "$tmp" && apt-get download -qq libsleef3:arm64 libsleef-dev:arm64 >/dev/null 2>&1); then
      ((do_install)) && $sudo_ apt-get update -qq >/dev/null 2>&1 || true
      (cd "$tmp" && apt-get download -qq libsleef3:arm64 libsleef-dev:arm64 >/dev/null 2>&1) || { rm -rf "$tmp"; return 1; }
    fi
    rm -rf "$dir" && mkdir -p "$dir"
    for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$dir"; done
    rm -rf "$tmp"
    echo "aarch64.sh: unpacked libsleef3:arm64 and libsleef-dev:arm64 into $dir" >&2
  fi
  (cd "$(dirname "$lib")" && echo "$(pwd)/$(basename "$lib")")
}
sleef_lib=$(fetch_sleef "$(dirname "$bdir")/aarch64-sleef") || { echo "aarch64.sh: could not fetch arm64 libsleef" >&2; exit 1; }
sleef=("-DHS_SLEEF_LIBRARY=$sleef_lib")

# ---- 2. gcc cross build, the whole suite under qemu ----------------------------------------------------
echo "aarch64.sh: $(aarch64-linux-gnu-gcc --version | head -1); $(qemu-aarch64 --version | head -1); jobs $jobs"
phase "gcc: configure (preset aarch64)" configure "$bdir" aarch64 "${sleef[@]}"
phase "gcc: build" cmake --build "$bdir" -j "$jobs"
! command -v file >/dev/null || file "$bdir/hmasweep" | sed 's/^/  /'
echo "  smoke (simd_wma_omp/neon, 2 threads): $(qemu-aarch64 "$bdir/hmasweep" run --bars 3000 --lengths 6,9 --variant simd_wma_omp --isa neon --threads 2 | grep -m1 '^fingerprint')"
exclude=()
broken=$(cross_broken "$bdir")
[[ -z $broken ]] || exclude+=("$broken")
# CI_SKIP: the CI budget (whole CI < 20 min; this step ~5 min on 2 cores).  Each is a full O(n*w)
# default sweep under qemu (25-35 CPU-s) that proves nothing aarch64-specific beyond what still runs:
# the x_* experiments (scalar-only instruments, gated natively) and the scalar translation units of the
# MULTI variants whose NEON unit is gated here (the same C as the native scalar unit; the aarch64
# compiler's scalar code is proven by unchecked, naive and prealloc, and -ffp-contract=off by all).
ci_skip='gate_(x_.*|simd_wma|simd_wma_dot|simd_wma_omp)_scalar'
((full)) || exclude+=("$ci_skip")
((quick)) && exclude+=('gate_(naive|prealloc)_scalar')
# --quick: the scalar unit of every MULTI variant whose NEON unit is gated here (the list is read from the
# registered gates, so a new MULTI variant joins it): the same C as the native scalar unit, which the
# release suite gates and ASan/UBSan runs; on aarch64 only `--isa scalar` selects it.  The aarch64
# compiler's scalar code is still proven here by gate_unchecked_scalar, gate_sliding(_omp)_scalar (the
# scalar-only production variants) and every other test.  Under qemu in CI (1,990 s run): 80 CPU-s of
# segments, segments_omp, sliding_lanes and sliding_lanes_omp (simd_wma*'s are in ci_skip above).
multi_scalar=$(ctest --test-dir "$bdir" -N -R '^gate_.*_neon$' | awk '/Test +#/{sub(/_neon$/, "_scalar", $3); print $3}' |
  grep -Evx "$ci_skip" | paste -sd'|' -)
[[ -z $multi_scalar ]] || ! ((quick)) || exclude+=("$multi_scalar")
# --quick, both halves: gate_simd_wma_omp_neon calls the very function gate_simd_wma_neon gates
# (hs_combo_simd_wma__neon: registry.def gives simd_wma_omp the kernel simd_wma) through the ISA-neutral
# OpenMP driver, which gate_sliding_omp_scalar (the same COMBO driver) and gate_sliding_lanes_omp_neon
# (BATCH) run here; 36 CPU-s under qemu.  Gated natively on every x86 ISA and run under ASan+UBSan and TSan.
same_kernel='gate_simd_wma_omp_neon'
((quick)) && exclude+=("$same_kernel")
# --quick also leaves out the heaviest tests that prove nothing of aarch64's arithmetic (388 of the gcc
# suite's 886 CPU-s under qemu in CI at 24f4e99): the engine's load, fault and cancel tests (portable C; qemu
# runs the guest with the host's x86 memory order, so it cannot test the shm rings' ordering on real arm64
# either), the timing-ratio tests (emulation distorts the ratios they bound: test_worst_case at every ISA
# and the fair-load smoke), the admission test's bursts, the shared-library copy of
# test_fingerprint, test_live and test_live_many at the default ISA and at scalar (the default is neon, and
# their _neon copies run: live mode's scalar group step is the native scalar unit's C, as above).  All of
# them run natively, under ASan+UBSan and (the engine's) under TSan.
# test_fingerprint too (47-67 CPU-s, one whole 80-combo default sweep of unchecked/scalar, the suite's
# costliest test): gate_unchecked_scalar runs the same variant on the same series here and checks every
# 4th combo of it bit for bit against the golden file, combo 0 (the study's 57,029 trades, -5165.58)
# included; what test_fingerprint adds (combos 1 and 2, the 80 combos' total trades, the grid's lengths)
# is portable integer and scalar code, checked natively and under ASan+UBSan.
quick_skip='test_worst_case(_[a-z0-9]+)?|test_fingerprint|test_fingerprint_shared|test_cancel|engine_reliability|engine_client|engine_hostile_mix|engine_admission|engine_cost_model|prof_fair_load_smoke|test_live|test_live_many|test_live_scalar|test_live_many_scalar'
((quick)) && exclude+=("$quick_skip")
ex=()
if [[ ${#exclude[@]} -gt 0 ]]; then
  re="^($(IFS='|'; echo "${exclude[*]}"))\$"
  ex=(-E "$re")
  [[ -z $broken ]] || not_run "$bdir" "^${broken}\$" "runs the aarch64 CLI without qemu; prof/CMakeLists.txt should pass \${HS_CLI_COMMAND}"
  ((full)) || not_run "$bdir" "^${ci_skip}\$" "CI budget: scalar-only experiments and the scalar units of gated NEON variants; --full runs them"
  ((!quick)) || not_run "$bdir" '^gate_(naive|prealloc)_scalar$' "--quick"
  [[ -z $multi_scalar ]] || ((!quick)) || not_run "$bdir" "^(${multi_scalar})\$" "--quick: scalar units of variants gated on neon here; gated natively (release) and run under ASan+UBSan"
  ((!quick)) || not_run "$bdir" "^${same_kernel}\$" "--quick: simd_wma's NEON kernel through the OpenMP driver; gate_simd_wma_neon and gate_sliding_omp_scalar run both here"
  ((!quick)) || not_run "$bdir" "^(${quick_skip})\$" "--quick: portable engine/timing tests, test_fingerprint (gate_unchecked_scalar checks its sweep here) and live mode's default/scalar copies; all run natively and under ASan+UBSan"
fi
gcc_rc=0
phase "gcc: ctest under qemu ($( ((quick)) && echo quick || { ((full)) && echo 'whole suite' || echo 'CI selection'; }))" ctest_run "$bdir" aarch64 "${ex[@]}" || gcc_rc=$?
slowest "$bdir" 30

# ---- 3. clang --target cross build with libomp, its NEON gates under qemu -------------------------------
# No arm64 libomp can be installed next to the host's (docs/arm.md), so the arm64 runtime package is
# unpacked into a directory of its own; without it (offline) the clang build is HS_OPENMP=OFF.
fetch_libomp() { # fetch_libomp DIR: unpack libomp5-<clang major>:arm64 into DIR; prints the lib directory
  local dir=$1 major pkg tmp lib
  major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
  pkg=libomp5-$major
  lib=$dir/usr/lib/llvm-$major/lib
  if [[ ! -e $lib/libomp.so ]]; then
    tmp=$(mktemp -d)
    chmod 755 "$tmp"
    if ! (cd "$tmp" && apt-get download -qq "$pkg:arm64" 2>/dev/null); then
      ((do_install)) && $sudo_ apt-get update -qq >/dev/null 2>&1 || true
      (cd "$tmp" && apt-get download -qq "$pkg:arm64" >/dev/null 2>&1) || { rm -rf "$tmp"; return 1; }
    fi
    rm -rf "$dir" && mkdir -p "$dir" && dpkg-deb -x "$tmp"/*.deb "$dir" && rm -rf "$tmp"
    ln -sf libomp.so.5 "$lib/libomp.so"
    echo "aarch64.sh: unpacked $pkg:arm64 into $dir" >&2
  fi
  echo "$lib"
}
clang_rc=0
if ((do_clang)); then
  echo "aarch64.sh: $(clang --version | head -1), --target=aarch64-linux-gnu"
  omp=()
  if libomp=$(fetch_libomp "$(dirname "$cdir")/aarch64-libomp"); then
    libomp=$(cd "$libomp" && pwd)
    omp=(-DHS_OPENMP=ON "-DHS_CROSS_LIBOMP_DIR=$libomp")
    # the library directory initialises the link flags: a cache made without it (or with another) goes
    grep -qx "HS_CROSS_LIBOMP_DIR:PATH=$libomp" "$cdir/CMakeCache.txt" 2>/dev/null || rm -rf "$cdir"
  else
    echo "aarch64.sh: could not fetch an arm64 libomp; the clang build is HS_OPENMP=OFF"
  fi
  phase "clang: configure (preset aarch64-clang)" configure "$cdir" aarch64-clang "${omp[@]}" "${sleef[@]}" || clang_rc=$?
  ((clang_rc)) || phase "clang: build" cmake --build "$cdir" -j "$jobs" || clang_rc=$?
  if ((!clang_rc)); then
    if ((clang_all)); then
      cex=()
      broken=$(cross_broken "$cdir")
      [[ -z $broken ]] || { cex=(-E "^${broken}\$"); not_run "$cdir" "^${broken}\$" "see above"; }
      phase "clang: ctest under qemu (whole suite)" ctest_run "$cdir" aarch64-clang "${cex[@]}" || clang_rc=$?
    else
      cex=()
      if ((quick)); then
        # The clang half proves clang's NEON code: each NEON kernel once, so without $same_kernel (as the
        # gcc half above); sliding_lanes_omp stays (clang's libomp:arm64 at run time) and segments_omp (its
        # own threaded sweep in segments.c).  Every 16th combo of the default run: the second compiler's
        # check, beside gcc's every 4th (gate_simd_wma_neon: 35 -> 20 CPU-s under qemu).
        gate_stride=16
        cex=(-E "^${same_kernel}\$")
        not_run "$cdir" "^${same_kernel}\$" "--quick: the clang half runs each NEON kernel once"
      fi
      phase "clang: ctest under qemu (NEON gates$( ((quick)) && echo ', every 16th default combo'))" \
        ctest_run "$cdir" aarch64-clang -R '^gate_.*_neon$' "${cex[@]}" || clang_rc=$?
    fi
    slowest "$cdir"
  fi
fi

if ((gcc_rc || clang_rc)); then
  echo "aarch64.sh: FAILED (gcc suite exit $gcc_rc, clang exit $clang_rc)" >&2
  exit 1
fi
echo "aarch64.sh: OK"
