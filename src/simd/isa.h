/* The instruction sets a variant can be built for, and the run-time dispatcher's questions. */
#ifndef HS_ISA_H
#define HS_ISA_H

#include "hmasweep.h"

typedef enum { HS_ISA_SCALAR, HS_ISA_SSE2, HS_ISA_AVX2, HS_ISA_AVX512, HS_ISA_NEON, HS_ISA_COUNT } hs_isa;

const char *hs_isa_name(hs_isa isa);
/* Parse "scalar", "sse2", "avx2", "avx512", "neon"; HS_ERR_USAGE naming the word otherwise. */
hs_status hs_isa_parse(const char *name, hs_isa *out, hs_error *err);
/* Was this ISA's translation unit built into this binary? */
int hs_isa_built(hs_isa isa);
/* Can this CPU (and OS) execute it?  CPUID on x86; NEON is baseline on aarch64. */
int hs_isa_supported(hs_isa isa);
/* The widest ISA that is built and supported, or $HMASWEEP_ISA when set (validated). */
hs_status hs_isa_default(hs_isa *out, hs_error *err);

#endif
