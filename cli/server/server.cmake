# The server and its sessions (server.c, session.c) are `hmasweep serve`'s application, and `hmasweep
# wire`'s (wire.c: the session loop on stdin/stdout): the static
# hmasweep_engine, linked by the CLI (and fuzz_session), never part of libhmasweep.so, which no server code
# reaches (tests/test_layers.sh checks `nm`).  The engine's library part (the frame codec, the C client, the
# transports) is src/engine/, compiled into the library with every other src/ folder.
add_library(hmasweep_engine STATIC ${CMAKE_CURRENT_LIST_DIR}/server.c ${CMAKE_CURRENT_LIST_DIR}/session.c
            ${CMAKE_CURRENT_LIST_DIR}/wire.c)
# cli/server/'s headers for its users; privately, the library internals a session needs: the codec, stream
# and transports (src/engine), hs_fail (src/spec/error.h) and the bytes a live session holds, charged to its
# client (src/live/live.h).
target_include_directories(hmasweep_engine PUBLIC ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_SOURCE_DIR}/src/engine
                           PRIVATE ${CMAKE_SOURCE_DIR}/src/spec ${CMAKE_SOURCE_DIR}/src/live)
target_link_libraries(hmasweep_engine PUBLIC hmasweep_core Threads::Threads)
target_sources(hmasweep PRIVATE ${CMAKE_SOURCE_DIR}/cli/serve.c)
target_link_libraries(hmasweep PRIVATE hmasweep_engine)
# prof/engine_bench: round-trip floors through the C client (reports/engine.md).
add_executable(engine_bench ${CMAKE_SOURCE_DIR}/prof/engine_bench.c)
target_link_libraries(engine_bench PRIVATE hmasweep_internal)
target_compile_definitions(engine_bench PRIVATE HS_CLI="$<TARGET_FILE:hmasweep>")
