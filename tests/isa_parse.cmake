# The strict isa.def reader (cmake/isa.cmake): the real list is read whole, a scratch list with a wrapped
# entry and an aarch64 HWCAP check is read field by field, and each malformed list fails with a message
# naming the problem, as configuration does (the same function reads the real file there).
#   cmake -DISA_DEF=<path of isa.def> -DWORK=<scratch dir> -P tests/isa_parse.cmake
cmake_minimum_required(VERSION 3.20)
get_filename_component(_root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
include(${_root}/cmake/isa.cmake)
file(MAKE_DIRECTORY ${WORK})

hs_read_isas(${ISA_DEF})
list(GET HS_ISA_ALL 0 first)
if(NOT first STREQUAL "scalar" OR NOT "avx2" IN_LIST HS_ISA_ALL OR NOT "neon" IN_LIST HS_ISA_ALL
   OR NOT HS_ISA_FLAGS_avx2 STREQUAL "-mavx2;-mfma" OR NOT HS_ISA_ARCH_neon STREQUAL "aarch64")
  message(FATAL_ERROR "the real isa.def misread: ${HS_ISA_ALL}, avx2 flags '${HS_ISA_FLAGS_avx2}'")
endif()

# Scratch lists need their vector headers beside them.
foreach(isa scalar wide sve)
  file(WRITE ${WORK}/vec_${isa}.h "")
endforeach()
set(head "/* comment; with a semicolon */\n#define HS_ISA_LIST(HS_ISA, k) \\\n")
set(scalar "    HS_ISA(k, scalar, SCALAR, any, \"\", BASELINE)")
file(WRITE ${WORK}/good.def "${head}${scalar} \\\n    HS_ISA(k, wide, WIDE, x86_64, \"-mwide -mfma\", \\\n           X86(\"wide\") && X86(\"fma\")) \\\n    HS_ISA(k, sve, SVE, aarch64, \"-march=armv8.2-a+sve\", HWCAP(HWCAP_SVE) && SVE_BITS(256))\n")
hs_read_isas(${WORK}/good.def)
if(NOT HS_ISA_ALL STREQUAL "scalar;wide;sve" OR NOT HS_ISA_FLAGS_wide STREQUAL "-mwide;-mfma"
   OR NOT HS_ISA_ARCH_sve STREQUAL "aarch64" OR NOT HS_ISA_FLAGS_sve STREQUAL "-march=armv8.2-a+sve")
  message(FATAL_ERROR "good list misread: ${HS_ISA_ALL}, wide flags '${HS_ISA_FLAGS_wide}', sve ${HS_ISA_ARCH_sve}")
endif()

# Each bad list must fail, naming what is wrong (in a child cmake, since FATAL_ERROR ends it).
set(bad_1 "${scalar} \\\n    HS_ISA(k, wide, WIDE, x86_64, \"-mwide\")")  # five fields
set(want_1 "cannot read this entry")
set(bad_2 "${scalar} \\\n    HS_ISA(k, wide, WYDE, x86_64, \"\", X86(\"wide\"))")
set(want_2 "NAME must be 'WIDE'")
set(bad_3 "${scalar} \\\n    HS_ISA(k, wide, WIDE, riscv, \"\", BASELINE)")
set(want_3 "arch 'riscv'")
set(bad_4 "${scalar} \\\n    HS_ISA(k, wide, WIDE, aarch64, \"\", X86(\"wide\"))")
set(want_4 "X86(...) checks need arch x86_64")
set(bad_5 "${scalar} \\\n    HS_ISA(k, scalar, SCALAR, any, \"\", BASELINE)")
set(want_5 "listed twice")
set(bad_6 "${scalar} \\\n    HS_ISA(k, nohdr, NOHDR, x86_64, \"\", X86(\"f\"))")
set(want_6 "no vector header")
set(bad_7 "    HS_ISA(k, wide, WIDE, x86_64, \"\", X86(\"wide\"))")
set(want_7 "the first ISA must be scalar")
set(bad_8 "${scalar} \\\n    HS_ISA(k, wide, WIDE, x86_64, \"\", cpu_has_wide())")
set(want_8 "cannot read this entry")
set(bad_9 "${scalar}\nstray text")  # a line without its backslash ends the macro
set(want_9 "cannot read this entry")
foreach(k RANGE 1 9)
  file(WRITE ${WORK}/bad_${k}.def "${head}${bad_${k}}\n")
  file(WRITE ${WORK}/bad_${k}.cmake "cmake_minimum_required(VERSION 3.20)\ninclude(${_root}/cmake/isa.cmake)\nhs_read_isas(${WORK}/bad_${k}.def)\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -P ${WORK}/bad_${k}.cmake RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(rc EQUAL 0)
    message(FATAL_ERROR "bad isa list ${k} was accepted:\n${bad_${k}}")
  endif()
  string(FIND "${err}" "${want_${k}}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "bad isa list ${k}: the error does not say '${want_${k}}':\n${err}")
  endif()
endforeach()
message(STATUS "isa_parse: the real isa.def and a wrapped scratch list read whole, 9 malformed lists refused: 11 passed, 0 failed")
