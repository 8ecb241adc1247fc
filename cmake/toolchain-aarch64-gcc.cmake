# Cross toolchain: Linux/aarch64 with Debian's gcc-aarch64-linux-gnu (docs/arm.md).
#
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-gcc.cmake   (or --preset aarch64)
#
# The project's CMakeLists picks its ISAs from CMAKE_SYSTEM_PROCESSOR, so this build gets `scalar neon`.
# ctest runs every test binary through CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64, user mode), and
# tests/scripts.cmake hands the same prefix to the shell tests that run the CLI.
#
# qemu-aarch64 runs plain (no -L / QEMU_LD_PREFIX): the binaries' interpreter /lib/ld-linux-aarch64.so.1
# and libgomp.so.1 come from the arm64 multiarch packages (libc6:arm64, libgomp1:arm64; .ci/aarch64.sh
# installs them).  With -L pointing at /usr/aarch64-linux-gnu, threaded (OpenMP) programs hang once
# the multiarch libraries are installed.
#
# Overridable on the command line:  -DHS_CROSS_TRIPLE=...  -DHS_CROSS_EMULATOR="qemu-aarch64;-cpu;max"
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(HS_CROSS_TRIPLE aarch64-linux-gnu CACHE STRING "GNU triple of the aarch64 cross toolchain")
set(CMAKE_C_COMPILER ${HS_CROSS_TRIPLE}-gcc)
# C++ is only for prof/'s Google Benchmark driver, which needs g++-aarch64-linux-gnu and an arm64
# Google Benchmark inside the find root (neither is installed by .ci/aarch64.sh).  Without the
# cross g++, prof/'s check_language(CXX) finds the host's c++; harmless, because find_package(benchmark)
# searches only the cross root, does not find it there and prof/ skips bench_variants.
find_program(HS_CROSS_CXX ${HS_CROSS_TRIPLE}-g++)
if(HS_CROSS_CXX)
  set(CMAKE_CXX_COMPILER ${HS_CROSS_CXX})
endif()

# Headers and libraries from the cross sysroot, programs (qemu, python) from the host.
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-sysroot.cmake)
