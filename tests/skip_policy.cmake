# The skip policy for tests whose tool was absent at configure time (tests/skips.allow says it in full).
#
#   hs_skipped_test(NAME TOOL REASON [LABELS ...])
#     registers NAME as a placeholder that shows in ctest as Skipped, printing "SKIPPED: TOOL: REASON", so
#     a test whose tool is missing is listed as skipped instead of vanishing.  In CI (CI set at test time,
#     not "false"/"0") a TOOL that is not on tests/skips.allow makes the placeholder fail instead.
#
# Run as a script (cmake -DTOOL=.. -DREASON=.. -P skip_policy.cmake) it is that placeholder.
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.25)  # the policies of the project (IN_LIST, ...)
  file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/skips.allow _lines REGEX "^[a-z]")
  set(_allowed "")
  foreach(_l ${_lines})
    string(REGEX MATCH "^[^ \t]+" _t "${_l}")
    list(APPEND _allowed ${_t})
  endforeach()
  set(_ci "$ENV{CI}")
  if(NOT _ci STREQUAL "" AND NOT _ci STREQUAL "false" AND NOT _ci STREQUAL "0" AND NOT TOOL IN_LIST _allowed)
    # No "SKIPPED:" in this text: the placeholder's SKIP_REGULAR_EXPRESSION would turn it into a skip.
    message(FATAL_ERROR "FAIL: unexpected skip in CI (CI=${_ci}): ${TOOL}: ${REASON} "
                        "('${TOOL}' is not on tests/skips.allow)")
  endif()
  message("SKIPPED: ${TOOL}: ${REASON}")
  return()
endif()

include_guard(GLOBAL)
function(hs_skipped_test)
  cmake_parse_arguments(PARSE_ARGV 0 a "" "NAME;TOOL;REASON" "LABELS")
  add_test(NAME ${a_NAME} COMMAND ${CMAKE_COMMAND} -DTOOL=${a_TOOL} "-DREASON=${a_REASON}"
                                  -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE})
  set_tests_properties(${a_NAME} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED: " LABELS "${a_LABELS}")
endfunction()
