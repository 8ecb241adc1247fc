# HS_FUZZ=ON: the libFuzzer build (fuzz/run.sh configures it in build/fuzz; docs/fuzzing.md).  Every
# translation unit — the library included, so its branches feed the fuzzer's coverage — is built with
# clang's coverage instrumentation plus ASan and UBSan; fuzz/CMakeLists.txt links each fuzz/fuzz_*.c
# with libFuzzer.  With HS_FUZZ=OFF (the default) fuzz/ builds the same targets with a plain main()
# that replays the committed corpora as ctest tests (label fuzz), with whatever compiler is in use.
option(HS_FUZZ "Build the libFuzzer targets in fuzz/ (clang; instruments everything with ASan+UBSan)" OFF)
if(HS_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "HS_FUZZ needs clang (libFuzzer): configure with -DCMAKE_C_COMPILER=clang")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
  # The kernels' inner loops compare integers every iteration; with libFuzzer's comparison tracing there
  # 64% of fuzz_diff's time went to __sanitizer_cov_trace_cmp8 (perf, 4 exec/s).  Their coverage (edge
  # counters) stays; the comparison hints matter for the parsers, which keep them.
  file(GLOB _hs_numeric_sources ${CMAKE_SOURCE_DIR}/src/variants/*.c ${CMAKE_SOURCE_DIR}/study/gap/instruments/*.c
       ${CMAKE_SOURCE_DIR}/src/data/rng.c ${CMAKE_SOURCE_DIR}/src/data/series.c)
  set_source_files_properties(${_hs_numeric_sources} PROPERTIES COMPILE_OPTIONS -fno-sanitize-coverage=trace-cmp)
endif()
