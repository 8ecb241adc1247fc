# The strict registry reader (cmake/registry.cmake) on scratch registries: a wrapped entry is read whole
# (an OPENMP driver on the second physical line is seen: issue 9 found such a line gated on scalar only
# and without its openmp label), and each malformed registry fails with a message naming the problem.
#   cmake -DHS_SOURCE_DIR=<tree> -DWORK=<scratch dir> -P tests/registry_parse.cmake
include(${HS_SOURCE_DIR}/cmake/registry.cmake)
set(HS_REGISTRY_ROOT ${HS_SOURCE_DIR})
file(MAKE_DIRECTORY ${WORK})

file(WRITE ${WORK}/good.def "/* comment */\nHS_VARIANT(alpha, unchecked, 0, SERIAL, 0, SCALAR_ONLY, COMBO, REFERENCE, \"a, b\")\nHS_VARIANT(beta,\n   simd_wma, 0,\n   OPENMP, 4, MULTI,\n   COMBO, PRODUCTION,\n   \"wrapped over lines\")\n#ifdef HS_ALIAS\nHS_ALIAS(fast, beta, \"alias\")\n#endif\n")
hs_read_registry(${WORK}/good.def)
if(NOT HS_REGISTRY_VARIANTS STREQUAL "alpha;beta" OR NOT HS_REGISTRY_beta_DRIVER STREQUAL "OPENMP"
   OR NOT HS_REGISTRY_beta_ISAS STREQUAL "MULTI" OR NOT HS_REGISTRY_beta_SUMMARY STREQUAL "wrapped over lines"
   OR NOT HS_REGISTRY_alpha_SUMMARY STREQUAL "a, b" OR NOT HS_REGISTRY_ALIAS_fast STREQUAL "beta")
  message(FATAL_ERROR "good registry misread: ${HS_REGISTRY_VARIANTS} driver=${HS_REGISTRY_beta_DRIVER} isas=${HS_REGISTRY_beta_ISAS}")
endif()

# Each bad registry must fail, naming what is wrong (checked in a child cmake, since FATAL_ERROR ends it).
set(bad_1 "HS_VARIANT(alpha, unchecked, 0, SERIAL, 0, SCALAR_ONLY, REFERENCE, \"eight fields\")")
set(want_1 "needs 9 fields")
set(bad_2 "HS_VARIANT(alpha, unchecked, 0, THREADS, 0, SCALAR_ONLY, COMBO, REFERENCE, \"bad driver\")")
set(want_2 "field driver")
set(bad_3 "HS_VARIANT(alpha, unchecked, 0, SERIAL, 0, SCALAR_ONLY, COMBO, REFERENCE, \"ok\")\nstray text")
set(want_3 "cannot read")
set(bad_4 "HS_VARIANT(alpha, unchecked, 0, SERIAL, 0, SCALAR_ONLY, COMBO, REFERENCE, \"x\")\nHS_VARIANT(alpha, unchecked, 0, SERIAL, 0, SCALAR_ONLY, COMBO, REFERENCE, \"y\")")
set(want_4 "registered twice")
set(bad_5 "HS_VARIANT(alpha, nosuchkernel, 0, SERIAL, 0, SCALAR_ONLY, COMBO, REFERENCE, \"x\")")
set(want_5 "no file src/variants/nosuchkernel.c")
set(bad_6 "HS_VARIANT(alpha, unchecked, 0, SERIAL, 0, SCALAR_ONLY, COMBO, REFERENCE, \"x\")\nHS_ALIAS(best, gamma, \"x\")")
set(want_6 "must name a variant")
set(bad_7 "HS_VARIANT(alpha, unchecked, 0, SERIAL, 0, SCALAR_ONLY, COMBO, REFERENCE, \"unterminated)\n")
set(want_7 "cannot read")
foreach(k RANGE 1 7)
  file(WRITE ${WORK}/bad_${k}.def "${bad_${k}}\n")
  file(WRITE ${WORK}/bad_${k}.cmake "cmake_policy(SET CMP0057 NEW)\ninclude(${HS_SOURCE_DIR}/cmake/registry.cmake)\nset(HS_REGISTRY_ROOT ${HS_SOURCE_DIR})\nhs_read_registry(${WORK}/bad_${k}.def)\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -P ${WORK}/bad_${k}.cmake RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(rc EQUAL 0)
    message(FATAL_ERROR "bad registry ${k} was accepted:\n${bad_${k}}")
  endif()
  string(FIND "${err}" "${want_${k}}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "bad registry ${k}: the error does not say '${want_${k}}':\n${err}")
  endif()
endforeach()
message(STATUS "registry_parse: good registry read whole (wrapped entry, alias), 7 malformed registries refused: 8 passed, 0 failed")
