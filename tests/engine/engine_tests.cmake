# The engine's tests (label `server`; the TSan preset runs them too): the C client with free windows,
# errors, timeouts and a 32-client load; conformance of a docs/spec.md §6-only client over every transport;
# faults.  The Python ones need only python3 (struct, socket).
add_executable(test_engine_client ${CMAKE_CURRENT_LIST_DIR}/test_engine_client.c)
target_link_libraries(test_engine_client PRIVATE hmasweep_internal)
target_compile_definitions(test_engine_client PRIVATE HS_CLI="${HS_CLI_COMMAND}")  # tests/cli_command.cmake
add_test(NAME engine_client COMMAND test_engine_client)
add_test(NAME engine_conformance COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_conformance.py ${CMAKE_SOURCE_DIR} ${HS_CLI_COMMAND})
add_test(NAME engine_faults COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_faults.py ${HS_CLI_COMMAND})
# serve --listen URL: every scheme of the transport table (src/engine/transport.h), the old flags as sugar, and
# the refusals of a bad URL (exit 2, named).
add_test(NAME engine_transports_listen COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_listen.py ${HS_CLI_COMMAND})
set_tests_properties(engine_client engine_conformance engine_faults engine_transports_listen PROPERTIES LABELS server TIMEOUT 300)
# Issue 20's server items, each a case that failed before (LOAD pinning, work and deadline bounds,
# pre-auth lockout, lost replies on stdio, serve on a terminal); fd exhaustion in the hostile mix.
add_test(NAME engine_reliability COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_reliability.py ${HS_CLI_COMMAND})
set_tests_properties(engine_reliability PROPERTIES LABELS server TIMEOUT 300)
# The cost model (issue 29 item 2): a sweep, live append or live open that may not finish within the frame
# deadline is refused before it runs, naming the estimate and the limit; --cost-margin 0 turns it off.
add_test(NAME engine_cost_model COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_cost_model.py ${HS_CLI_COMMAND})
set_tests_properties(engine_cost_model PROPERTIES LABELS server TIMEOUT 300)
# Admission cannot be starved (issue 29 item 3): a burst queues, each listener its own budget, another
# user's loopback TCP refused without a token, one peer's pending connections bounded (as root).
add_test(NAME engine_admission COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_admission.py ${HS_CLI_COMMAND})
set_tests_properties(engine_admission PROPERTIES LABELS server TIMEOUT 300)
# Issue 20's hostile mix: fd exhaustion (the server's own fd limit 96), mute and unauthenticated peers,
# memory pinning and oversized work at once; a witness is served throughout, RSS and CPU stay bounded.
add_test(NAME engine_hostile_mix COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_hostile_mix.py ${HS_CLI_COMMAND})
set_tests_properties(engine_hostile_mix PROPERTIES LABELS server TIMEOUT 300 RUN_SERIAL TRUE)
