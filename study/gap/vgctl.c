/* Callgrind's client requests as a tiny shared library, so that a Python process (the numba peer) can
 * switch instrumentation on around the one call it wants counted: import numba and compile first
 * (uncounted, and fast under --instr-atstart=no), then start(), sweep, stop().  Outside valgrind each
 * request is a few no-op instructions.  Built by study/gap/valgrind.py into build/gap/libvgctl.so. */
#include <valgrind/callgrind.h>

void vgctl_start(void) {
    CALLGRIND_ZERO_STATS;
    CALLGRIND_START_INSTRUMENTATION;
}

void vgctl_stop(void) {
    CALLGRIND_STOP_INSTRUMENTATION;
    CALLGRIND_DUMP_STATS_AT("sweep");
}
