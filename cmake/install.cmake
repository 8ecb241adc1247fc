# `cmake --install`: what a prefix gets (docs/library.md).
#   lib/libhmasweep.so.1 (+ .so link)   the shared library, exports only HS_API (target hmasweep::hmasweep)
#   lib/libhmasweep.a                   the static library (target hmasweep::hmasweep_static)
#   include/hmasweep.h                  the library's public header
#   include/hmasweep_client.h           the engine's C client (hs_client_*, exported by the same .so)
#   lib/cmake/hmasweep/                 the CMake package: find_package(hmasweep) -> hmasweep::hmasweep
#   lib/pkgconfig/hmasweep.pc           pkg-config (--static adds what libhmasweep.a needs)
#   bin/hmasweep                        the CLI
#   bin/hmasweep-mpi                    the universe across MPI ranks, where MPI was found (mpi/)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(hmasweep_shared PROPERTIES EXPORT_NAME hmasweep)
set_target_properties(hmasweep_core PROPERTIES EXPORT_NAME hmasweep_static)
target_include_directories(hmasweep_shared INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_include_directories(hmasweep_core INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# What a consumer of the static library must link besides it (the build tree gets these through
# hmasweep_core_headers).  HS_PC_PRIVATE is the same list for pkg-config's Libs.private.
set(HS_PC_PRIVATE "-lm")
target_link_libraries(hmasweep_core INTERFACE $<INSTALL_INTERFACE:m>)
if(HS_OPENMP)
  target_link_libraries(hmasweep_core INTERFACE $<INSTALL_INTERFACE:OpenMP::OpenMP_C>)
  string(PREPEND HS_PC_PRIVATE "${OpenMP_C_FLAGS} ")
endif()
foreach(_extra IN LISTS HS_INSTALL_LINK_EXTRA)  # further dependencies (cmake/sleef.cmake appends -lsleef)
  string(APPEND HS_PC_PRIVATE " ${_extra}")
  string(REGEX REPLACE "^-l" "" _name "${_extra}")
  target_link_libraries(hmasweep_core INTERFACE $<INSTALL_INTERFACE:${_name}>)
endforeach()

install(TARGETS hmasweep_shared hmasweep_core EXPORT hmasweepTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Every header an exported symbol is declared in (tests/consumer/run.sh checks each exported hs_* name
# against the installed headers).
install(FILES ${CMAKE_SOURCE_DIR}/include/hmasweep.h ${CMAKE_SOURCE_DIR}/include/hmasweep_client.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS hmasweep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The installed CLI finds the installed library wherever the prefix is moved.
set_target_properties(hmasweep PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
# hmasweep-mpi is defined later (mpi/ is added after this file, and only when MPI is found), so its
# install rule is deferred to the end of the top directory.  It links the static library: no RPATH.
function(_hs_install_mpi)
  if(TARGET hmasweep-mpi)
    install(TARGETS hmasweep-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _hs_install_mpi)

set(HS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hmasweep)
install(EXPORT hmasweepTargets NAMESPACE hmasweep:: DESTINATION ${HS_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/hmasweepConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/hmasweepConfig.cmake INSTALL_DESTINATION ${HS_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/hmasweepConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/hmasweepConfig.cmake ${CMAKE_BINARY_DIR}/hmasweepConfigVersion.cmake
        DESTINATION ${HS_CMAKE_DIR})

# The .pc file finds its prefix from where it lies (${pcfiledir}), so `cmake --install --prefix P` into
# any P gives a working hmasweep.pc.
file(RELATIVE_PATH HS_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${CMAKE_SOURCE_DIR}/cmake/hmasweep.pc.in ${CMAKE_BINARY_DIR}/hmasweep.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/hmasweep.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
