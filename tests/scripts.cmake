# Script tests.  The CLI test needs only the built binary; the peer checks need Python with numba
# (CI installs it) and run only when it is importable, so a machine without it still builds and tests.
add_test(NAME test_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:hmasweep>)
