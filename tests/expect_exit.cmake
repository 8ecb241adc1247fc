# A refusal test that checks the exit status AND the message: ctest ignores the exit status of a test
# with PASS_REGULAR_EXPRESSION, so a tool that printed the message and exited 0 would pass.  Use
#
#   hs_refusal_test(NAME EXIT REGEX COMMAND target args...)
#
# instead: it runs this file as a script, which runs the command, prints its output and fails unless the
# status is EXIT and the output matches REGEX.  A cross build runs the target under its emulator.
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.25)  # the policies of the project (IN_LIST, ...)
  set(_cmd "")
  set(_on FALSE)
  math(EXPR _last "${CMAKE_ARGC} - 1")
  foreach(i RANGE ${_last})
    if(_on)
      list(APPEND _cmd "${CMAKE_ARGV${i}}")
    elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
      set(_on TRUE)
    endif()
  endforeach()
  execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  message("${_out}")
  if(NOT "${_rc}" STREQUAL "${EXIT}")
    message(FATAL_ERROR "exit status ${_rc}, expected ${EXIT}")
  endif()
  if(NOT _out MATCHES "${REGEX}")
    message(FATAL_ERROR "the output does not match '${REGEX}'")
  endif()
  message("exit ${_rc} and the message, as expected")
  return()
endif()

include_guard(GLOBAL)
function(hs_refusal_test)
  cmake_parse_arguments(PARSE_ARGV 0 a "" "NAME;EXIT;REGEX" "COMMAND")
  list(POP_FRONT a_COMMAND target)
  add_test(NAME ${a_NAME} COMMAND ${CMAKE_COMMAND} -DEXIT=${a_EXIT} "-DREGEX=${a_REGEX}" -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE} --
                                  ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:${target}> ${a_COMMAND})
endfunction()
