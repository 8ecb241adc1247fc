/* The gap study's instruments join the registry here, not in the library: this object is linked only by
 * the binaries of hmasweep_internal (tests, studies, benchmarks, fuzz targets), so libhmasweep and the
 * product's front ends list, count and run product variants only (tests/test_layers.sh checks `nm`).
 * Before main, it installs one table: registry.def's variants in their order, then instruments.def's. */
#include "registry_table.h"

#define HS_VARIANT HS_REGISTRY_DECLARE
#include "registry.def"
#include "instruments.def"
#undef HS_VARIANT

static const hs_variant hs_registry_with_instruments[] = {
#define HS_VARIANT HS_REGISTRY_ENTRY
#include "registry.def"
#include "instruments.def"
#undef HS_VARIANT
};

__attribute__((constructor)) static void hs_instruments_register(void) {
    hs_registry_install(hs_registry_with_instruments,
                        sizeof hs_registry_with_instruments / sizeof hs_registry_with_instruments[0]);
}
