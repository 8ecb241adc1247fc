# The shared-memory transport (src/engine/transport_shm.{c,h}, docs/engine.md "Shared memory"): its source is
# in the library with every src/engine/*.c; here are its test (ctest label `server`)
# and prof/shm_bench, which measures it against a Unix socket in the same run.
if(BUILD_TESTING)
  add_executable(shm_transport ${CMAKE_SOURCE_DIR}/tests/shm_transport.c)
  target_link_libraries(shm_transport PRIVATE hmasweep_internal)
  add_test(NAME shm_transport COMMAND shm_transport)
  set_tests_properties(shm_transport PROPERTIES LABELS server TIMEOUT 60)
endif()
add_executable(shm_bench ${CMAKE_SOURCE_DIR}/prof/shm_bench.c)
target_link_libraries(shm_bench PRIVATE hmasweep_internal)
if(BUILD_TESTING)
  add_test(NAME shm_bench_smoke COMMAND shm_bench --quick)
  set_tests_properties(shm_bench_smoke PROPERTIES LABELS "server;prof" TIMEOUT 60)
endif()
# shm_relay: stdin/stdout <-> `serve --shm NAME`, so the Python conformance test (docs/spec.md §6 alone) runs
# over shared memory too; it finds the relay next to the hmasweep binary.
add_executable(shm_relay ${CMAKE_SOURCE_DIR}/tests/shm_relay.c)
target_link_libraries(shm_relay PRIVATE hmasweep_internal)
if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
  # A script cannot exec a cross-built binary: give it the relay behind the emulator, as hmasweep-run.
  list(JOIN CMAKE_CROSSCOMPILING_EMULATOR "' '" _hs_relay_emu)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/shm_relay-run
       CONTENT "#!/bin/sh\nexec '${_hs_relay_emu}' '$<TARGET_FILE:shm_relay>' \"$@\"\n"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endif()
