/* Run-time ISA selection.  Compiled for the baseline: it only asks questions, never runs a wide op. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "error.h"
#include "isa.h"

static const char *const hs_isa_names[HS_ISA_COUNT] = {"scalar", "sse2", "avx2", "avx512", "neon"};

const char *hs_isa_name(hs_isa isa) { return (unsigned)isa < HS_ISA_COUNT ? hs_isa_names[isa] : "?"; }

hs_status hs_isa_parse(const char *name, hs_isa *out, hs_error *err) {
    for (int i = 0; i < HS_ISA_COUNT; i++)
        if (name && strcmp(name, hs_isa_names[i]) == 0) {
            *out = (hs_isa)i;
            return HS_OK;
        }
    return hs_fail(err, HS_ERR_USAGE, "unknown ISA '%s' (expected scalar, sse2, avx2, avx512 or neon)",
                   name ? name : "(null)");
}

int hs_isa_built(hs_isa isa) {
    switch (isa) {
    case HS_ISA_SCALAR: return 1;
#ifdef HS_BUILT_SSE2
    case HS_ISA_SSE2: return 1;
#endif
#ifdef HS_BUILT_AVX2
    case HS_ISA_AVX2: return 1;
#endif
#ifdef HS_BUILT_AVX512
    case HS_ISA_AVX512: return 1;
#endif
#ifdef HS_BUILT_NEON
    case HS_ISA_NEON: return 1;
#endif
    default: return 0;
    }
}

int hs_isa_supported(hs_isa isa) {
    switch (isa) {
    case HS_ISA_SCALAR: return 1;
#if defined(__x86_64__) || defined(__i386__)
    /* __builtin_cpu_supports checks CPUID and, for AVX/AVX-512, that the OS saves the wide state. */
    case HS_ISA_SSE2: return __builtin_cpu_supports("sse2");
    case HS_ISA_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case HS_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
#endif
#if defined(__aarch64__)
    case HS_ISA_NEON: return 1;
#endif
    default: return 0;
    }
}

hs_status hs_isa_default(hs_isa *out, hs_error *err) {
    const char *forced = hs_env()->isa;
    if (forced && *forced) {
        hs_status st = hs_isa_parse(forced, out, err);
        if (st != HS_OK) return st;
        if (!hs_isa_supported(*out)) {
            return hs_fail(err, HS_ERR_ISA, "HMASWEEP_ISA=%s: this CPU cannot run %s", forced, forced);
        }
        return HS_OK;
    }
    for (int i = HS_ISA_COUNT - 1; i >= 0; i--)
        if (hs_isa_built((hs_isa)i) && hs_isa_supported((hs_isa)i)) {
            *out = (hs_isa)i;
            return HS_OK;
        }
    *out = HS_ISA_SCALAR;
    return HS_OK;
}
