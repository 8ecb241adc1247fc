# Cross toolchain: Linux/aarch64 with clang --target=aarch64-linux-gnu (docs/arm.md).
#
#   cmake -S . -B build/aarch64-clang -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-clang.cmake   (or --preset aarch64-clang)
#
# clang brings no aarch64 C library of its own: it uses the GNU cross sysroot /usr/aarch64-linux-gnu
# (libc6-dev-arm64-cross, installed with gcc-aarch64-linux-gnu) and that gcc's crt files and libgcc
# (found through --gcc-toolchain=/usr, which holds lib/gcc-cross/aarch64-linux-gnu/<ver>; clang looks
# there by itself, the flag only pins it).  Linking uses lld when present (ld.lld), otherwise the GNU
# cross linker aarch64-linux-gnu-ld.
#
# OpenMP: clang's -fopenmp links libomp, and there is no arm64 libomp in the cross sysroot.  Debian's
# libomp5-14:arm64 cannot be installed next to the host's libomp5-14 (both put their libomp.so.5 at
# /usr/lib/llvm-14/lib/, not under an arch directory), so the aarch64-clang preset builds with
# HS_OPENMP=OFF: the OpenMP variants then run their serial driver and are still gated.  To build the
# OpenMP path too, unpack the arm64 runtime somewhere and name the directory on the FIRST configure
# (the flags below initialise the cache):
#   apt-get download libomp5-14:arm64 && dpkg-deb -x libomp5-14_*_arm64.deb DIR
#   ln -s libomp.so.5 DIR/usr/lib/llvm-14/lib/libomp.so
#   cmake --preset aarch64-clang -DHS_OPENMP=ON -DHS_CROSS_LIBOMP_DIR=DIR/usr/lib/llvm-14/lib
# (.ci/aarch64.sh does exactly this; the binaries get an rpath to DIR so qemu's loader finds libomp.so.5.)
#
# Overridable: -DHS_CLANG=clang-19  -DHS_CROSS_TRIPLE=...  -DHS_CROSS_EMULATOR="qemu-aarch64;-cpu;max"
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(HS_CROSS_TRIPLE aarch64-linux-gnu CACHE STRING "GNU triple of the aarch64 cross sysroot")
set(HS_CLANG clang CACHE STRING "clang driver to use (clang, clang-14, clang-19, ...)")
set(CMAKE_C_COMPILER ${HS_CLANG})
set(CMAKE_C_COMPILER_TARGET ${HS_CROSS_TRIPLE})
# C++ (only prof/'s Google Benchmark driver) needs the cross libstdc++ (g++-aarch64-linux-gnu); without
# it prof/'s check_language(CXX) finds the host's c++ and prof/ skips bench_variants (no arm64 benchmark
# in the find root), as in the gcc toolchain.
file(GLOB _hs_cross_libstdcxx /usr/lib/gcc-cross/${HS_CROSS_TRIPLE}/*/libstdc++.so)
if(_hs_cross_libstdcxx)
  set(CMAKE_CXX_COMPILER ${HS_CLANG}++)
  set(CMAKE_CXX_COMPILER_TARGET ${HS_CROSS_TRIPLE})
endif()
# Compile against the sysroot only (without it clang also searches the host's /usr/include).  The link
# must not get --sysroot: the sysroot's libc.so is a linker script naming /usr/aarch64-linux-gnu/lib/...
# by absolute path, which a sysroot-relative linker would look for under the sysroot a second time.
set(CMAKE_SYSROOT_COMPILE /usr/${HS_CROSS_TRIPLE})

# The GNU cross toolchain's gcc installation (crtbegin.o, libgcc) lives under /usr/lib/gcc-cross.
set(_hs_gcc_flags "--gcc-toolchain=/usr")
find_program(HS_LD_LLD ld.lld)
if(HS_LD_LLD)
  set(_hs_link_flags "-fuse-ld=lld")
else()
  set(_hs_link_flags "-fuse-ld=/usr/bin/${HS_CROSS_TRIPLE}-ld")
endif()
set(HS_CROSS_LIBOMP_DIR "" CACHE PATH "Directory with an aarch64 libomp.so, for HS_OPENMP=ON (see above)")
if(HS_CROSS_LIBOMP_DIR)
  string(APPEND _hs_link_flags " -L${HS_CROSS_LIBOMP_DIR} -Wl,-rpath,${HS_CROSS_LIBOMP_DIR}")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES HS_CLANG HS_CROSS_TRIPLE HS_CROSS_LIBOMP_DIR)
set(CMAKE_C_FLAGS_INIT "${_hs_gcc_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_hs_gcc_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_hs_link_flags}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_hs_link_flags}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${_hs_link_flags}")

include(${CMAKE_CURRENT_LIST_DIR}/aarch64-sysroot.cmake)
