/* The one place the library reads its environment (docs/library.md): once, under pthread_once, into
 * copies (a later setenv in the host may free the strings getenv returned). */
#define _POSIX_C_SOURCE 200809L
#include "env.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static hs_env_settings settings;
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

static void copy_var(const char *name, char *dst, size_t size) {
    const char *v = getenv(name);
    snprintf(dst, size, "%s", v ? v : "");
}

static void read_environment(void) {
    copy_var("HMASWEEP_ISA", settings.isa, sizeof settings.isa);
    copy_var("HMASWEEP_OMP_SCHEDULE", settings.omp_schedule, sizeof settings.omp_schedule);
    copy_var("HMASWEEP_THREADS", settings.threads, sizeof settings.threads);
}

const hs_env_settings *hs_env(void) {
    pthread_once(&settings_once, read_environment);
    return &settings;
}
