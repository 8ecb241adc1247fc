# The engine's library part (the frame codec, the C client, the transports it needs) is compiled into the
# core library.  The server and its sessions (server.c, session.c) are `hmasweep serve`'s application:
# the static hmasweep_engine, linked by the CLI (and fuzz_session), never part of libhmasweep.so, which
# no server code reaches (tests/test_layers.sh checks `nm`).
set(HS_ENGINE_APP_SOURCES ${CMAKE_SOURCE_DIR}/engine/server.c ${CMAKE_SOURCE_DIR}/engine/session.c)
file(GLOB HS_ENGINE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/engine/*.c)
list(REMOVE_ITEM HS_ENGINE_SOURCES ${HS_ENGINE_APP_SOURCES})
find_package(Threads REQUIRED)
target_sources(hmasweep_objects PRIVATE ${HS_ENGINE_SOURCES})
target_include_directories(hmasweep_core_headers INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/engine>)
target_link_libraries(hmasweep_core_headers INTERFACE Threads::Threads)

add_library(hmasweep_engine STATIC ${HS_ENGINE_APP_SOURCES})
# engine/'s headers for its users; privately, the two library internals a session needs: hs_fail
# (src/spec/error.h) and the bytes a live session holds, charged to its client (src/live/live.h).
target_include_directories(hmasweep_engine PUBLIC ${CMAKE_SOURCE_DIR}/engine
                           PRIVATE ${CMAKE_SOURCE_DIR}/src/spec ${CMAKE_SOURCE_DIR}/src/live)
target_link_libraries(hmasweep_engine PUBLIC hmasweep_core Threads::Threads)
target_sources(hmasweep PRIVATE ${CMAKE_SOURCE_DIR}/cli/serve.c)
target_link_libraries(hmasweep PRIVATE hmasweep_engine)
# prof/engine_bench: round-trip floors through the C client (reports/engine.md).
add_executable(engine_bench ${CMAKE_SOURCE_DIR}/prof/engine_bench.c)
target_link_libraries(engine_bench PRIVATE hmasweep_internal)
target_compile_definitions(engine_bench PRIVATE HS_CLI="$<TARGET_FILE:hmasweep>")
