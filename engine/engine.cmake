# The engine (frame codec, sessions, transports, server, C client) is part of the core library: every
# engine/*.c is compiled into it, and engine/ is on the include path of everything that links it.
file(GLOB HS_ENGINE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/engine/*.c)
find_package(Threads REQUIRED)
if(TARGET hmasweep_objects)
  target_sources(hmasweep_objects PRIVATE ${HS_ENGINE_SOURCES})
else()
  target_sources(hmasweep_core PRIVATE ${HS_ENGINE_SOURCES})
endif()
target_include_directories(hmasweep_core_headers INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/engine>)
target_link_libraries(hmasweep_core_headers INTERFACE Threads::Threads)
target_sources(hmasweep PRIVATE ${CMAKE_SOURCE_DIR}/cli/serve.c)
# prof/engine_bench: round-trip floors through the C client (reports/engine.md).
add_executable(engine_bench ${CMAKE_SOURCE_DIR}/prof/engine_bench.c)
target_link_libraries(engine_bench PRIVATE hmasweep_core)
target_compile_definitions(engine_bench PRIVATE HS_CLI="$<TARGET_FILE:hmasweep>")
