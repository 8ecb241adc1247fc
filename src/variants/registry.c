/* The registry table, expanded from registry.def and the gap study's instruments.def.  Nothing here is written per variant. */
#include <string.h>

#include "variant.h"

/* Declarations by isas and shape: one function per ISA for MULTI kernels, one scalar function otherwise;
 * BATCH and SWEEP kernels also declare their batch or whole-sweep function per ISA.  A combination that
 * has no macro here (SCALAR_ONLY with BATCH or SWEEP) does not compile. */
#define HS_DECLARE_SCALAR_ONLY_COMBO(kernel) hs_outcome HS_COMBO_ISA(kernel, scalar)(const double *, size_t, const hs_windows *, double, double *);
#define HS_DECLARE_MULTI_COMBO(kernel)                                                                        \
    hs_outcome HS_COMBO_ISA(kernel, scalar)(const double *, size_t, const hs_windows *, double, double *);          \
    hs_outcome HS_COMBO_ISA(kernel, sse2)(const double *, size_t, const hs_windows *, double, double *);            \
    hs_outcome HS_COMBO_ISA(kernel, avx2)(const double *, size_t, const hs_windows *, double, double *);            \
    hs_outcome HS_COMBO_ISA(kernel, avx512)(const double *, size_t, const hs_windows *, double, double *);          \
    hs_outcome HS_COMBO_ISA(kernel, neon)(const double *, size_t, const hs_windows *, double, double *);
#define HS_BATCH_ISA(kernel, isa) HS_CAT3(hs_batch_, kernel, HS_CAT3(__, isa, ))
#define HS_DECLARE_BATCH(kernel, isa) \
    void HS_BATCH_ISA(kernel, isa)(const double *, size_t, const hs_windows *, size_t, double, hs_outcome *, double *);
#define HS_DECLARE_MULTI_BATCH(kernel)                                                                     \
    HS_DECLARE_MULTI_COMBO(kernel)                                                                         \
    HS_DECLARE_BATCH(kernel, scalar) HS_DECLARE_BATCH(kernel, sse2) HS_DECLARE_BATCH(kernel, avx2)         \
    HS_DECLARE_BATCH(kernel, avx512) HS_DECLARE_BATCH(kernel, neon)
#define HS_SWEEP_ISA(kernel, isa) HS_CAT3(hs_sweep_, kernel, HS_CAT3(__, isa, ))
#define HS_DECLARE_SWEEP(kernel, isa) \
    hs_status HS_SWEEP_ISA(kernel, isa)(const double *, size_t, const hs_windows *, size_t, double, hs_result *,  \
                                        hs_stats *, int, hs_cancel *, hs_error *);
#define HS_DECLARE_MULTI_SWEEP(kernel)                                                                     \
    HS_DECLARE_MULTI_COMBO(kernel)                                                                         \
    HS_DECLARE_SWEEP(kernel, scalar) HS_DECLARE_SWEEP(kernel, sse2) HS_DECLARE_SWEEP(kernel, avx2)         \
    HS_DECLARE_SWEEP(kernel, avx512) HS_DECLARE_SWEEP(kernel, neon)
#define HS_VARIANT(name, kernel, tier, driver, scratch, isas, shape, role, summary) HS_DECLARE_##isas##_##shape(kernel)
#include "registry.def"
#include "instruments.def"
#undef HS_VARIANT

#ifdef HS_BUILT_SSE2
#define HS_IF_SSE2(f) f
#else
#define HS_IF_SSE2(f) NULL
#endif
#ifdef HS_BUILT_AVX2
#define HS_IF_AVX2(f) f
#else
#define HS_IF_AVX2(f) NULL
#endif
#ifdef HS_BUILT_AVX512
#define HS_IF_AVX512(f) f
#else
#define HS_IF_AVX512(f) NULL
#endif
#ifdef HS_BUILT_NEON
#define HS_IF_NEON(f) f
#else
#define HS_IF_NEON(f) NULL
#endif

#define HS_FNS_SCALAR_ONLY(kernel) {HS_COMBO_ISA(kernel, scalar), NULL, NULL, NULL, NULL}
#define HS_FNS_MULTI(kernel)                                                                               \
    {HS_COMBO_ISA(kernel, scalar), HS_IF_SSE2(HS_COMBO_ISA(kernel, sse2)), HS_IF_AVX2(HS_COMBO_ISA(kernel, avx2)), \
     HS_IF_AVX512(HS_COMBO_ISA(kernel, avx512)), HS_IF_NEON(HS_COMBO_ISA(kernel, neon))}

#define HS_BATCHES_COMBO(kernel) {NULL, NULL, NULL, NULL, NULL}
#define HS_BATCHES_SWEEP(kernel) {NULL, NULL, NULL, NULL, NULL}
#define HS_BATCHES_BATCH(kernel)                                                                           \
    {HS_BATCH_ISA(kernel, scalar), HS_IF_SSE2(HS_BATCH_ISA(kernel, sse2)), HS_IF_AVX2(HS_BATCH_ISA(kernel, avx2)), \
     HS_IF_AVX512(HS_BATCH_ISA(kernel, avx512)), HS_IF_NEON(HS_BATCH_ISA(kernel, neon))}
#define HS_SWEEPS_COMBO(kernel) {NULL, NULL, NULL, NULL, NULL}
#define HS_SWEEPS_BATCH(kernel) {NULL, NULL, NULL, NULL, NULL}
#define HS_SWEEPS_SWEEP(kernel)                                                                            \
    {HS_SWEEP_ISA(kernel, scalar), HS_IF_SSE2(HS_SWEEP_ISA(kernel, sse2)), HS_IF_AVX2(HS_SWEEP_ISA(kernel, avx2)), \
     HS_IF_AVX512(HS_SWEEP_ISA(kernel, avx512)), HS_IF_NEON(HS_SWEEP_ISA(kernel, neon))}

static const hs_variant hs_registry[] = {
#define HS_VARIANT(name, kernel, tier, driver, scratch, isas, shape, role, summary)                          \
    {#name, #kernel, summary, tier, HS_DRIVER_##driver, scratch, HS_SHAPE_##shape, HS_ROLE_##role,            \
     HS_FNS_##isas(kernel), HS_BATCHES_##shape(kernel), HS_SWEEPS_##shape(kernel)},
#include "registry.def"
#include "instruments.def"
#undef HS_VARIANT
};

const hs_variant *hs_variants(size_t *count) {
    *count = sizeof hs_registry / sizeof hs_registry[0];
    return hs_registry;
}

typedef struct {
    const char *name, *target, *summary;
} hs_alias;

static const hs_alias hs_aliases[] = {
#define HS_ALIAS(name, target, summary) {#name, #target, summary},
#define HS_VARIANT(name, kernel, tier, driver, scratch, isas, shape, role, summary)
#include "registry.def"
#include "instruments.def"
#undef HS_VARIANT
#undef HS_ALIAS
};

const char *hs_variant_alias(const char *name, const char **summary) {
    for (size_t i = 0; name && i < sizeof hs_aliases / sizeof hs_aliases[0]; i++)
        if (strcmp(hs_aliases[i].name, name) == 0) {
            if (summary) *summary = hs_aliases[i].summary;
            return hs_aliases[i].target;
        }
    return NULL;
}

const hs_variant *hs_variant_find(const char *name) {
    size_t n;
    const hs_variant *v = hs_variants(&n);
    const char *target = hs_variant_alias(name, NULL);
    if (target) name = target;
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(v[i].name, name) == 0) return &v[i];
    return NULL;
}
