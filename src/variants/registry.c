/* The registry table, expanded from registry.def and the gap study's instruments.def.  Nothing here is written per variant. */
#include <string.h>

#include "variant.h"

/* Declarations by isas and shape, from the kernel types of variant.h: one function per ISA of isa.def for
 * MULTI kernels, one scalar function otherwise; BATCH and SWEEP kernels also declare their batch or
 * whole-sweep function per ISA, and every kernel its scratch declaration.  A combination that has no macro
 * here (SCALAR_ONLY with BATCH or SWEEP) does not compile. */
#define HS_DECLARE_COMBO(kernel, isa, ...) hs_combo_kernel HS_COMBO_ISA(kernel, isa);
#define HS_DECLARE_BATCH(kernel, isa, ...) hs_batch_kernel HS_BATCH_ISA(kernel, isa);
#define HS_DECLARE_SWEEP(kernel, isa, ...) hs_sweep_kernel HS_SWEEP_ISA(kernel, isa);
#define HS_DECLARE_SCRATCH(kernel, isa, ...) hs_scratch_kernel HS_SCRATCH_ISA(kernel, isa);
#define HS_DECLARE_SCALAR_ONLY_COMBO(kernel) HS_DECLARE_COMBO(kernel, scalar, SCALAR) HS_DECLARE_SCRATCH(kernel, scalar, SCALAR)
#define HS_DECLARE_MULTI_COMBO(kernel) HS_ISA_LIST(HS_DECLARE_COMBO, kernel) HS_ISA_LIST(HS_DECLARE_SCRATCH, kernel)
#define HS_DECLARE_MULTI_BATCH(kernel) HS_DECLARE_MULTI_COMBO(kernel) HS_ISA_LIST(HS_DECLARE_BATCH, kernel)
#define HS_DECLARE_MULTI_SWEEP(kernel) HS_DECLARE_MULTI_COMBO(kernel) HS_ISA_LIST(HS_DECLARE_SWEEP, kernel)
#define HS_VARIANT(name, kernel, tier, driver, scratch, isas, shape, role, summary) HS_DECLARE_##isas##_##shape(kernel)
#include "registry.def"
#include "instruments.def"
#undef HS_VARIANT

/* The per-ISA tables: each ISA's function where CMake built that ISA (HS_IF_BUILT, isa.h), NULL elsewhere
 * and past what a shape has. */
#define HS_COMBO_IF_BUILT(kernel, isa, ISA, ...) HS_IF_BUILT(ISA, HS_COMBO_ISA(kernel, isa)),
#define HS_BATCH_IF_BUILT(kernel, isa, ISA, ...) HS_IF_BUILT(ISA, HS_BATCH_ISA(kernel, isa)),
#define HS_SWEEP_IF_BUILT(kernel, isa, ISA, ...) HS_IF_BUILT(ISA, HS_SWEEP_ISA(kernel, isa)),
#define HS_SCRATCH_IF_BUILT(kernel, isa, ISA, ...) HS_IF_BUILT(ISA, HS_SCRATCH_ISA(kernel, isa)),
#define HS_SCRATCHES_SCALAR_ONLY(kernel) {HS_SCRATCH_ISA(kernel, scalar)}
#define HS_SCRATCHES_MULTI(kernel) {HS_ISA_LIST(HS_SCRATCH_IF_BUILT, kernel)}
#define HS_FNS_SCALAR_ONLY(kernel) {HS_COMBO_ISA(kernel, scalar)}
#define HS_FNS_MULTI(kernel) {HS_ISA_LIST(HS_COMBO_IF_BUILT, kernel)}
#define HS_BATCHES_COMBO(kernel) {NULL}
#define HS_BATCHES_SWEEP(kernel) {NULL}
#define HS_BATCHES_BATCH(kernel) {HS_ISA_LIST(HS_BATCH_IF_BUILT, kernel)}
#define HS_SWEEPS_COMBO(kernel) {NULL}
#define HS_SWEEPS_BATCH(kernel) {NULL}
#define HS_SWEEPS_SWEEP(kernel) {HS_ISA_LIST(HS_SWEEP_IF_BUILT, kernel)}

static const hs_variant hs_registry[] = {
#define HS_VARIANT(name, kernel, tier, driver, scratch, isas, shape, role, summary)                          \
    {#name, #kernel, summary, tier, HS_DRIVER_##driver, scratch, HS_SHAPE_##shape, HS_ROLE_##role,            \
     HS_FNS_##isas(kernel), HS_BATCHES_##shape(kernel), HS_SWEEPS_##shape(kernel), HS_SCRATCHES_##isas(kernel)},
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
