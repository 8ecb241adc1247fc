/* Run-time ISA selection, from isa.def.  Compiled for the baseline: it only asks questions, never runs a
 * wide op. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "error.h"
#include "isa.h"

static const char *const hs_isa_names[HS_ISA_COUNT] = {
#define HS_ISA_NAME_OF(k, name, ...) #name,
    HS_ISA_LIST(HS_ISA_NAME_OF, ~)
#undef HS_ISA_NAME_OF
};

const char *hs_isa_name(hs_isa isa) { return (unsigned)isa < HS_ISA_COUNT ? hs_isa_names[isa] : "?"; }

hs_status hs_isa_parse(const char *name, hs_isa *out, hs_error *err) {
    for (int i = 0; i < HS_ISA_COUNT; i++)
        if (name && strcmp(name, hs_isa_names[i]) == 0) {
            *out = (hs_isa)i;
            return HS_OK;
        }
    char known[160] = "";
    for (int i = 0; i < HS_ISA_COUNT; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? (i + 1 < HS_ISA_COUNT ? ", " : " or ") : "",
                 hs_isa_names[i]);
    return hs_fail(err, HS_ERR_USAGE, "unknown ISA '%s' (expected %s)", name ? name : "(null)", known);
}

int hs_isa_built(hs_isa isa) {
    static const unsigned char built[HS_ISA_COUNT] = {
#define HS_ISA_BUILT_OF(k, name, NAME, ...) HS_BUILT(NAME),
        HS_ISA_LIST(HS_ISA_BUILT_OF, ~)
#undef HS_ISA_BUILT_OF
    };
    return (unsigned)isa < HS_ISA_COUNT && built[isa];
}

/* isa.def's `supported` column: each check is 0 off its arch, so every line compiles everywhere. */
#define BASELINE 1
#if defined(__x86_64__) || defined(__i386__)
#define ON_x86_64 1
/* CPUID, and for AVX/AVX-512 that the OS saves the wide state. */
#define X86(feature) __builtin_cpu_supports(feature)
#else
#define ON_x86_64 0
#define X86(feature) 0
#endif
#if defined(__aarch64__)
#define ON_aarch64 1
#else
#define ON_aarch64 0
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#define HWCAP(bit) ((getauxval(AT_HWCAP) & (bit)) != 0)
#define HWCAP2(bit) ((getauxval(AT_HWCAP2) & (bit)) != 0)
#else
#define HWCAP(bit) 0
#define HWCAP2(bit) 0
#endif
#if defined(__aarch64__) && defined(__linux__) && defined(PR_SVE_GET_VL)
/* A fixed-length SVE build (-msve-vector-bits=N, so HS_VN is a constant) runs only where the vector
 * length is N bits. */
static int sve_bits(int bits) {
    int vl = prctl(PR_SVE_GET_VL);
    return vl > 0 && (vl & PR_SVE_VL_LEN_MASK) * 8 == bits;
}
#define SVE_BITS(bits) sve_bits(bits)
#else
#define SVE_BITS(bits) 0
#endif
#define ON_any 1

int hs_isa_supported(hs_isa isa) {
    switch (isa) {
#define HS_ISA_SUPPORTED_OF(k, name, NAME, arch, flags, supported) \
    case HS_ISA_##NAME: return ON_##arch && (supported);
        HS_ISA_LIST(HS_ISA_SUPPORTED_OF, ~)
#undef HS_ISA_SUPPORTED_OF
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
