/* The registry's expansion macros: registry.def's lines (and those of any list in its format) into
 * declarations and hs_variant table entries.  Shared by the library's table (registry.c) and the gap study's
 * (study/gap/instruments/instruments.c), so a table entry is spelt once. */
#ifndef HS_REGISTRY_TABLE_H
#define HS_REGISTRY_TABLE_H
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

/* X-macros for HS_VARIANT: a list's declarations, then its table entries. */
#define HS_REGISTRY_DECLARE(name, kernel, tier, driver, scratch, isas, shape, role, summary) \
    HS_DECLARE_##isas##_##shape(kernel)
#define HS_REGISTRY_ENTRY(name, kernel, tier, driver, scratch, isas, shape, role, summary)                        \
    {#name, #kernel, summary, tier, HS_DRIVER_##driver, scratch, HS_SHAPE_##shape, HS_ROLE_##role,            \
     HS_FNS_##isas(kernel), HS_BATCHES_##shape(kernel), HS_SWEEPS_##shape(kernel), HS_SCRATCHES_##isas(kernel)},
#endif
