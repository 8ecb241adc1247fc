# The shared library libhmasweep.so.1 (target hmasweep_shared, exported as hmasweep::hmasweep): the same
# objects as the static hmasweep_core, linked once more.  Compiled with -fvisibility=hidden, it exports only
# what include/hmasweep.h marks HS_API; tests/test_exports.sh holds `nm -D` to exactly that list.
#   SONAME  libhmasweep.so.${PROJECT_VERSION_MAJOR}: bumped when a public signature or struct changes
#           incompatibly (docs/library.md, "Extending the API").
add_library(hmasweep_shared SHARED)
foreach(_obj ${HS_LIBRARY_OBJECTS})
  target_sources(hmasweep_shared PRIVATE $<TARGET_OBJECTS:${_obj}>)
endforeach()
target_link_libraries(hmasweep_shared PRIVATE hmasweep_core_headers)
target_include_directories(hmasweep_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>)
set_target_properties(hmasweep_shared PROPERTIES
  OUTPUT_NAME hmasweep
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  C_VISIBILITY_PRESET hidden)
# Symbol versions (ELF): the pre-1.3 options rule for binaries linked before 1.3 (src/api/abi_compat.c).
# Elsewhere (Mach-O, PE) there is one symbol each, with the 1.3 rule: rebuild callers older than 1.3.
include(CheckLinkerFlag)
check_linker_flag(C "-Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/hmasweep.map" HS_HAVE_VERSION_SCRIPT)
if(HS_HAVE_VERSION_SCRIPT)
  target_sources(hmasweep_shared PRIVATE ${CMAKE_SOURCE_DIR}/src/api/abi_compat.c)
  target_compile_definitions(hmasweep_shared PRIVATE HS_SYMBOL_VERSIONS=1)
  target_link_options(hmasweep_shared PRIVATE "-Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/hmasweep.map")
  set_property(TARGET hmasweep_shared APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/hmasweep.map)
endif()
add_library(hmasweep::hmasweep ALIAS hmasweep_shared)
add_library(hmasweep::hmasweep_static ALIAS hmasweep_core)
