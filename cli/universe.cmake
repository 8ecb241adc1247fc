# The universe sweep's shared half: `hmasweep run --inputs` and `hmasweep-mpi` (mpi/) both link it.
# Built on the public API (include/ only; the grid and fee options in grid_args.c, which the CLI's `run`
# parses with too: one parser for every front end, issue 28 item 9).
set(_hs_cli ${CMAKE_SOURCE_DIR}/cli)
add_library(hmasweep_universe STATIC ${_hs_cli}/universe.c ${_hs_cli}/rows.c ${_hs_cli}/grid_args.c
            ${_hs_cli}/inputs_options.c ${_hs_cli}/inputs.c ${_hs_cli}/interrupt.c)
target_include_directories(hmasweep_universe PUBLIC ${_hs_cli})
target_link_libraries(hmasweep_universe PUBLIC hmasweep_core)

if(BUILD_TESTING AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME test_universe COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_universe.sh $<TARGET_FILE:hmasweep>)
  set_tests_properties(test_universe PROPERTIES LABELS universe)
endif()

# Many short series: hs_sweep_many against a loop of hs_sweep (mpi/universe_report runs it).
add_executable(hs_bench_many ${CMAKE_SOURCE_DIR}/prof/bench_many.c)
target_link_libraries(hs_bench_many PRIVATE hmasweep_core)
