/* The instruction sets a variant can be built for (isa.def, the one list), and the run-time dispatcher's
 * questions. */
#ifndef HS_ISA_H
#define HS_ISA_H

#include "hmasweep.h"
#include "isa.def"

typedef enum {
#define HS_ISA_ENUM(k, name, NAME, arch, flags, supported) HS_ISA_##NAME,
    HS_ISA_LIST(HS_ISA_ENUM, ~)
#undef HS_ISA_ENUM
    HS_ISA_COUNT
} hs_isa;

/* HS_BUILT(NAME): 1 where CMake built ISA NAME into this binary (it defines HS_BUILT_<NAME>=1 for each
 * ISA of HS_ISAS), else 0, usable inside a macro expansion (the Linux kernel's IS_ENABLED).
 * HS_IF_BUILT(NAME, x): x where it is built, NULL elsewhere (so x's symbol is never referenced). */
#define HS_ONE_IF_1_ 0,
#define HS_SECOND_(a, b, ...) b
#define HS_ONE_IF_(comma_or_junk) HS_SECOND_(comma_or_junk 1, 0, ~)
#define HS_ONE_IF(value) HS_ONE_IF_(HS_ONE_IF_##value##_)
#define HS_BUILT_VALUE_(macro) HS_ONE_IF(macro)
#define HS_BUILT(NAME) HS_BUILT_VALUE_(HS_BUILT_##NAME)
#define HS_IF_BUILT_1_(x) x
#define HS_IF_BUILT_0_(x) NULL
#define HS_IF_BUILT_PICK_(built, x) HS_IF_BUILT_##built##_(x)
#define HS_IF_BUILT_(built, x) HS_IF_BUILT_PICK_(built, x)
#define HS_IF_BUILT(NAME, x) HS_IF_BUILT_(HS_BUILT(NAME), x)

const char *hs_isa_name(hs_isa isa);
/* Parse an ISA's name (isa.def); HS_ERR_USAGE naming the word and the known names otherwise. */
hs_status hs_isa_parse(const char *name, hs_isa *out, hs_error *err);
/* Was this ISA's translation unit built into this binary? */
int hs_isa_built(hs_isa isa);
/* Can this CPU (and OS) execute it?  isa.def's `supported` column. */
int hs_isa_supported(hs_isa isa);
/* The widest ISA that is built and supported, or $HMASWEEP_ISA when set (validated). */
hs_status hs_isa_default(hs_isa *out, hs_error *err);

#endif
