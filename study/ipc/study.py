"""The study's own figures (docs/spec.md §7, the article in shared/seed/), in one place, for the report's
"study" columns.  Apple M2 Max, Python 3.14.6, numpy 2.4.3, numba 0.64.0, rustc 1.94.0; medians of 10."""

MACHINE = "Apple M2 Max (macOS), Python 3.14.6, numpy 2.4.3, numba 0.64.0, rustc 1.94.0 (release, zero crates)"

BARS, COMBOS = 150_000, 80    # the default sweep the study timed

# architecture -> sweep seconds (150,000 bars x 80 combos)
SWEEP_S = {
    "in_process": 2.010,
    "rust_batch_unix": 2.276,
    "rust_batch_unchecked": 2.337,
    "rust_spawn_stdin": 2.300,
    "rust_chatty_unix": 2.383,
}

ECHO_FLOOR_US = 14.0          # 8-byte round trip, Python client, Rust server, Unix socket
ECHO_1_TO_1000_US = (14.1, 18.1)
ECHO_150K_US = 2043.4         # the 1.2 MB series both ways
BANDWIDTH_GB_S = 1.2          # derived: 2.4 MB / 2.04 ms
SERIAL_RAW_US = 49.1          # close.astype("<f8").tobytes()
SERIAL_JSON_US = 66243.0      # json.dumps(close.tolist())
SERIAL_RATIO = 1348
SPAWN_MS = 24.0               # derived: rust_spawn_stdin - rust_batch_unix
CHATTY_EXTRA_MS = 107.0       # derived: chatty - batch
PRELOAD_PREDICTED_MS = 1.3    # derived, never built: 80 x ~16 µs
PER_COMBO_US = 25130.0        # in-process compute per combo
PER_BAR_US = 0.17             # derived: 25,130 µs / 150,000
PER_BAR_IPC_S = 2.1           # derived: 150,000 x 14 µs
G_PER_COMBO = 1795            # derived: 25,130 / 14
ZIGBOLT_NS = 39               # quoted: ZigBolt shared-memory ring round trip (see the report's check)
