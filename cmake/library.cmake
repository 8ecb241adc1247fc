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
add_library(hmasweep::hmasweep ALIAS hmasweep_shared)
add_library(hmasweep::hmasweep_static ALIAS hmasweep_core)
