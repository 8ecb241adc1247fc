/* The library's environment variables, read once per process (env.c).  In src/spec, the lowest layer, because
 * the ISA dispatcher (src/simd) reads HMASWEEP_ISA and the API (src/api) the rest. */
#ifndef HS_ENV_H
#define HS_ENV_H

typedef struct {
    char isa[32];          /* HMASWEEP_ISA: caps the default ISA ("" = unset) */
    char omp_schedule[32]; /* HMASWEEP_OMP_SCHEDULE: lpt, dynamic, static, static1 ("" = unset) */
    char threads[32];      /* HMASWEEP_THREADS: the default thread count ("" = unset: src/team/team.c) */
} hs_env_settings;

/* The settings, read from the environment on the first call (thread-safe) and never again, so a host
 * process that changes its environment later does not change a library already in use. */
const hs_env_settings *hs_env(void);
#endif
