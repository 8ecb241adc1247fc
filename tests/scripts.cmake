# Script tests.  The CLI test needs only the built binary; the peer checks need Python with numba
# (CI installs it) and run only when it is importable, so a machine without it still builds and tests.
add_test(NAME test_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:hmasweep>)
add_test(NAME peers_numba_golden COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/peers_gate.sh $<TARGET_FILE:hmasweep> numba)
add_test(NAME peers_rust_golden COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/peers_gate.sh $<TARGET_FILE:hmasweep> rust)
set_tests_properties(peers_numba_golden peers_rust_golden PROPERTIES SKIP_RETURN_CODE 77 LABELS peers)
