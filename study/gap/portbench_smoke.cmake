# gap_portbench_smoke: every kernel the registry lists for the gap study runs a 3,000-bar sweep through
# the CMake-built C arm and reports its JSON (cmake -DBIN=... -DWORK=... -P portbench_smoke.cmake).
execute_process(COMMAND ${BIN} --gen ${WORK}/smoke.f64 3000 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "portbench --gen failed (${rc})")
endif()
foreach(k naive unchecked x_recip)
  execute_process(COMMAND ${BIN} ${k} ${WORK}/smoke.f64 1 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\"kernel\": \"${k}\"")
    message(FATAL_ERROR "portbench ${k}: rc ${rc}, output '${out}'")
  endif()
endforeach()
message(STATUS "gap_portbench_smoke: 3 kernels ran: 4 passed, 0 failed")
