# study/ipc — the boundary study (docs/ipc.md, reports/ipc.md).  Built when its optional pieces are present:
#   hs_json_server  the JSON "microservice" (needs jansson: apt libjansson-dev)
# ctest prof_ipc_quick runs `study/ipc/run.py --quick` (a smoke run of every architecture available,
# through the equivalence gate; no timing is asserted).
# Not when cross-compiling: the host's pkg-config describes the host's jansson (an aarch64 link then
# fails on -ljansson), and the study runs on the host anyway (prof_ipc_quick is native only).
if(NOT CMAKE_CROSSCOMPILING)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(JANSSON QUIET IMPORTED_TARGET jansson)
  endif()
endif()
if(JANSSON_FOUND AND NOT CMAKE_CROSSCOMPILING)
  add_executable(hs_json_server ${CMAKE_CURRENT_LIST_DIR}/json_server.c)
  target_link_libraries(hs_json_server PRIVATE hmasweep_internal PkgConfig::JANSSON)
  if(BUILD_TESTING AND Python3_Interpreter_FOUND)
    # Each malformed request gets an error reply naming the problem; then a sweep equal to `hmasweep run`.
    add_test(NAME prof_json_server_errors
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/json_server_errors.py
                     $<TARGET_FILE:hs_json_server> $<TARGET_FILE:hmasweep>)
    set_tests_properties(prof_json_server_errors PROPERTIES LABELS "prof;ipc" TIMEOUT 60)
  endif()
else()
  message(STATUS "study/ipc: jansson not found (apt install libjansson-dev) or cross build; json_batch is skipped")
  if(BUILD_TESTING AND NOT CMAKE_CROSSCOMPILING)
    # Listed as Skipped (tool "jansson" on tests/skips.allow), not left out.
    include(${CMAKE_SOURCE_DIR}/tests/skip_policy.cmake)
    hs_skipped_test(NAME prof_json_server_errors TOOL jansson LABELS prof ipc
                    REASON "jansson was not found at configure time (apt-get install libjansson-dev)")
  endif()
endif()
if(BUILD_TESTING AND Python3_Interpreter_FOUND AND NOT CMAKE_CROSSCOMPILING)
  # The study's grid comes from the numba peer (peers/numba), so without numba it is Skipped, not failed.
  add_test(NAME prof_ipc_quick
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/skip_policy.py needs numba --
                   ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/run.py --quick --no-build --build ${CMAKE_BINARY_DIR})
  set_tests_properties(prof_ipc_quick PROPERTIES LABELS "prof;ipc" TIMEOUT 600 RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
  if(CMAKE_C_FLAGS MATCHES "-fsanitize")
    # The extension of a sanitizer build aborts an interpreter without its runtime preloaded, and with it
    # preloaded matplotlib's C++ exceptions trip ASan's interceptor: the in-process rows are left out here.
    set_tests_properties(prof_ipc_quick PROPERTIES
                         ENVIRONMENT "HS_IPC_NO_IN_PROCESS=a sanitizer build: its extension needs the runtime preloaded")
  endif()
endif()
# hs_ipc_client: the C client's side of the study (sweep, echo curve, per-bar live appends), on the engine's
# public C client.  Live mode over the wire is used when the client header declares it.
if(EXISTS ${CMAKE_SOURCE_DIR}/include/hmasweep_client.h)
  add_executable(hs_ipc_client ${CMAKE_CURRENT_LIST_DIR}/ipc_client.c)
  target_link_libraries(hs_ipc_client PRIVATE hmasweep_internal)
  file(STRINGS ${CMAKE_SOURCE_DIR}/include/hmasweep_client.h _hs_client_live REGEX "hs_client_live_open")
  if(_hs_client_live)
    target_compile_definitions(hs_ipc_client PRIVATE HS_HAVE_CLIENT_LIVE=1)
  endif()
endif()
