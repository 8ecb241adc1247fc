/* cpu_relax.h: the spin-wait hint, one definition for every busy-wait loop (transport_shm.c, prof/engine_bench.c).
 * x86 `pause` and aarch64 `yield` tell the core it is spinning; other targets spin without a hint.  Kept as a
 * header so the aarch64 cross build (CI) never sees an x86 builtin. */
#ifndef HMASWEEP_ENGINE_CPU_RELAX_H
#define HMASWEEP_ENGINE_CPU_RELAX_H

static inline void hs_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
