# SLEEF, the library (src/data/exp.c calls Sleef_expd1_u10purecfma; docs/spec.md §1).
#   Debian/Ubuntu: apt install libsleef-dev     macOS: brew install sleef
# Found through pkg-config (sleef.pc) on native builds, else find_library/find_path; a cross build gives
# its own with -DHS_SLEEF_LIBRARY=/path/libsleef.so (.ci/aarch64.sh unpacks Debian's arm64 libsleef3 and
# libsleef-dev into build/aarch64-sleef, found below without -D; Debian has no static libsleef, so the
# binaries get a build-tree RUNPATH to it and plain qemu-aarch64 loads it).
# Sets HS_SLEEF (what to link) and appends what an installed static libhmasweep.a needs.
if(NOT HS_SLEEF_LIBRARY AND NOT CMAKE_CROSSCOMPILING)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(HS_SLEEF_PC QUIET sleef)
    if(HS_SLEEF_PC_FOUND)
      find_library(HS_SLEEF_LIBRARY NAMES sleef HINTS ${HS_SLEEF_PC_LIBRARY_DIRS} NO_DEFAULT_PATH)
      find_path(HS_SLEEF_INCLUDE_DIR sleef.h HINTS ${HS_SLEEF_PC_INCLUDE_DIRS})
    endif()
  endif()
endif()
if(NOT HS_SLEEF_LIBRARY AND CMAKE_CROSSCOMPILING)
  # Where .ci/aarch64.sh unpacks the target's packages (fetch_sleef): outside the sysroot, so not re-rooted.
  set(_hs_sleef_unpacked ${CMAKE_BINARY_DIR}/../${CMAKE_SYSTEM_PROCESSOR}-sleef/usr)
  find_library(HS_SLEEF_LIBRARY NAMES sleef HINTS ${_hs_sleef_unpacked}/lib/${CMAKE_LIBRARY_ARCHITECTURE}
               NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
endif()
find_library(HS_SLEEF_LIBRARY NAMES sleef)
find_path(HS_SLEEF_INCLUDE_DIR sleef.h)
if(NOT HS_SLEEF_LIBRARY)
  message(FATAL_ERROR "SLEEF not found (the series' exp, docs/spec.md §1): apt install libsleef-dev (Debian/Ubuntu), "
                      "brew install sleef (macOS), or pass -DHS_SLEEF_LIBRARY=/path/to/libsleef.so "
                      "(cross build: .ci/aarch64.sh unpacks the arm64 one into build/aarch64-sleef)")
endif()
message(STATUS "SLEEF: ${HS_SLEEF_LIBRARY}")
add_library(hs_sleef INTERFACE)
target_link_libraries(hs_sleef INTERFACE ${HS_SLEEF_LIBRARY})
if(HS_SLEEF_INCLUDE_DIR)
  target_include_directories(hs_sleef INTERFACE ${HS_SLEEF_INCLUDE_DIR})
endif()
target_link_libraries(hmasweep_core_headers INTERFACE $<BUILD_INTERFACE:hs_sleef>)
list(APPEND HS_INSTALL_LINK_EXTRA -lsleef)
