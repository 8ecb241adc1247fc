# The part both aarch64 toolchain files share (toolchain-aarch64-gcc.cmake, toolchain-aarch64-clang.cmake):
# headers and libraries from the GNU cross sysroot /usr/${HS_CROSS_TRIPLE}, programs (qemu, python) from
# the host, and qemu-aarch64 as the emulator that ctest runs every test binary through.
set(CMAKE_FIND_ROOT_PATH /usr/${HS_CROSS_TRIPLE})
set(CMAKE_LIBRARY_ARCHITECTURE ${HS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(HS_QEMU_AARCH64 qemu-aarch64)
if(HS_QEMU_AARCH64)
  set(HS_CROSS_EMULATOR ${HS_QEMU_AARCH64} CACHE STRING "Command (a ;-list) that runs an aarch64 binary here")
  set(CMAKE_CROSSCOMPILING_EMULATOR ${HS_CROSS_EMULATOR})
endif()
