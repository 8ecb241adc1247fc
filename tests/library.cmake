# The library's own tests (cmake/library.cmake, docs/library.md).
# test_exports: libhmasweep.so exports exactly the HS_API functions of include/hmasweep.h (nm -D).
find_program(HS_NM NAMES ${CMAKE_NM} nm)
if(HS_NM AND NOT APPLE)
  add_test(NAME test_exports COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_exports.sh ${HS_NM}
                                     $<TARGET_FILE:hmasweep_shared> ${CMAKE_SOURCE_DIR}/include/hmasweep.h
                                     ${CMAKE_SOURCE_DIR}/include/hmasweep_client.h)
  set_tests_properties(test_exports PROPERTIES LABELS library)
endif()
# The fingerprint test once more, linked against libhmasweep.so instead of the static library: the shared
# library alone (public header, exported symbols) reproduces the study's fingerprint.
add_executable(test_fingerprint_shared ${CMAKE_CURRENT_SOURCE_DIR}/test_fingerprint.c)
target_link_libraries(test_fingerprint_shared PRIVATE hmasweep_shared m)
target_include_directories(test_fingerprint_shared PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(test_fingerprint_shared PRIVATE HS_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
add_test(NAME test_fingerprint_shared COMMAND test_fingerprint_shared)
set_tests_properties(test_fingerprint_shared PROPERTIES LABELS library ENVIRONMENT "HS_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# abi_options: the options' struct_size rule (issue 29 item 4) against libhmasweep.so, and its pre-1.3
# symbols (HMASWEEP_1.0, src/api/abi_compat.c) where the library has symbol versions.
add_executable(abi_options ${CMAKE_CURRENT_SOURCE_DIR}/abi_options.c)
target_link_libraries(abi_options PRIVATE hmasweep_shared m ${CMAKE_DL_LIBS})
target_include_directories(abi_options PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
if(HS_HAVE_VERSION_SCRIPT)
  target_compile_definitions(abi_options PRIVATE HS_SYMBOL_VERSIONS=1)
endif()
add_test(NAME abi_options COMMAND abi_options)
set_tests_properties(abi_options PROPERTIES LABELS library)
# abi_deprecated: every deprecated 1.x call (HS_DEPRECATED) against libhmasweep.so, each equal to the call
# its message names (the client's against a real `hmasweep serve`); test_deprecated: the same calls do warn
# (-Werror=deprecated-declarations fails naming each one the headers mark), and HS_NO_DEPRECATION_WARNINGS
# silences them.
add_executable(abi_deprecated ${CMAKE_CURRENT_SOURCE_DIR}/abi_deprecated.c)
target_link_libraries(abi_deprecated PRIVATE hmasweep_shared m ${CMAKE_DL_LIBS})
target_include_directories(abi_deprecated PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_options(abi_deprecated PRIVATE -Wno-deprecated-declarations)
target_compile_definitions(abi_deprecated PRIVATE HS_CLI="${HS_CLI_COMMAND}")
if(HS_HAVE_VERSION_SCRIPT)
  target_compile_definitions(abi_deprecated PRIVATE HS_SYMBOL_VERSIONS=1)
endif()
add_test(NAME abi_deprecated COMMAND abi_deprecated)
set_tests_properties(abi_deprecated PROPERTIES LABELS "library;server" TIMEOUT 120)
add_test(NAME test_deprecated COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_deprecated.sh ${CMAKE_C_COMPILER}
                                      ${CMAKE_SOURCE_DIR})
set_tests_properties(test_deprecated PROPERTIES LABELS library)
# `hmasweep trades`: json/csv/table logs agree with `hmasweep run` (tests/test_trades_cli.py).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME test_trades_cli COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_trades_cli.py ${HS_CLI_COMMAND})
  set_tests_properties(test_trades_cli PROPERTIES LABELS library)
endif()
# The installed-prefix consumer (tests/consumer/): install, then build and run a tiny project against
# the prefix with find_package(hmasweep) and with pkg-config.  Host builds only (a cross build's consumer
# would need the cross toolchain passed on; the library's own tests already run under the emulator).
if(NOT CMAKE_CROSSCOMPILING AND NOT APPLE)
  add_test(NAME test_consumer COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run.sh ${CMAKE_BINARY_DIR}
                                      ${CMAKE_C_COMPILER} "${CMAKE_C_FLAGS}")
  set_tests_properties(test_consumer PROPERTIES LABELS "library;consumer" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# `hmasweep variants` shows the ISA `hmasweep run` uses, under HMASWEEP_ISA too.
if(Python3_Interpreter_FOUND)
  add_test(NAME test_introspect_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_introspect_cli.sh ${HS_CLI_COMMAND})
  set_tests_properties(test_introspect_cli PROPERTIES LABELS library)
endif()
# test_public_headers: the CLI and prof/bench_variants include no header of src/
# (issue 8 §4).  bench_variants is also linked against libhmasweep.so, whose interface has include/ only.
add_test(NAME test_public_headers COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_public_headers.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(test_public_headers PROPERTIES LABELS library)
# test_layers: the targets are the layers (issue 19 §1, issue 30 §1): no include upward in HS_LAYERS' order,
# nothing of study/ cli/ tests/ in the library, front ends on include/ only, and no server code or
# experiment in libhmasweep.
if(HS_NM AND NOT APPLE)
  add_test(NAME test_layers COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_layers.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}
                                    ${HS_NM} $<TARGET_FILE:hmasweep_shared> $<TARGET_FILE:hmasweep_engine>
                                    $<TARGET_FILE:hmasweep_core> ${HS_LAYERS})
  set_tests_properties(test_layers PROPERTIES LABELS library)
endif()
# Run by hand without its arguments, test_layers.sh says what it needs and exits 2 (expect_exit.cmake
# checks both: a pass regex alone would let a usage line with exit 0, or set -u's error, through).
add_test(NAME test_layers_usage COMMAND ${CMAKE_COMMAND} -DEXIT=2 "-DREGEX=usage: test_layers.sh SOURCE_DIR BUILD_DIR NM"
                                        -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.cmake -- bash ${CMAKE_CURRENT_SOURCE_DIR}/test_layers.sh)
set_tests_properties(test_layers_usage PROPERTIES LABELS library)
