/* The registry table, expanded from registry.def (registry_table.h).  Nothing here is written per variant.
 * The library's table is the product's variants only; the gap study's instruments (role EXPERIMENT,
 * study/gap/instruments) are registered by their own object, which only the study, test and benchmark
 * binaries link (hmasweep_internal): it installs a table of both lists before main. */
#include <string.h>

#include "registry_table.h"

#define HS_VARIANT HS_REGISTRY_DECLARE
#include "registry.def"
#undef HS_VARIANT

static const hs_variant hs_product_registry[] = {
#define HS_VARIANT HS_REGISTRY_ENTRY
#include "registry.def"
#undef HS_VARIANT
};

static const hs_variant *hs_registry = hs_product_registry;
static size_t hs_registry_count = sizeof hs_product_registry / sizeof hs_product_registry[0];

void hs_registry_install(const hs_variant *table, size_t count) {
    hs_registry = table;
    hs_registry_count = count;
}

const hs_variant *hs_variants(size_t *count) {
    *count = hs_registry_count;
    return hs_registry;
}

typedef struct {
    const char *name, *target, *summary;
} hs_alias;

static const hs_alias hs_aliases[] = {
#define HS_ALIAS(name, target, summary) {#name, #target, summary},
#define HS_VARIANT(name, kernel, tier, driver, scratch, isas, shape, role, summary)
#include "registry.def"
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
