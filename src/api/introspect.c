/* Introspection for bindings, servers and the CLI: version, the registry as hs_sweep sees it on this CPU,
 * the series hash.  The default ISA is hs_choose_isa's answer, the same call hs_sweep makes, so what is
 * listed is what runs (`HMASWEEP_ISA=sse2 hmasweep variants` shows sse2; tests/test_introspect.c). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "sha256.h"
#include "variant.h"

#define HS_STR_(x) #x
#define HS_STR(x) HS_STR_(x)

const char *hs_version(void) { return HS_STR(HS_VERSION_MAJOR) "." HS_STR(HS_VERSION_MINOR) "." HS_STR(HS_VERSION_PATCH); }

size_t hs_variant_count(void) {
    size_t n;
    hs_variants(&n);
    return n;
}

static void append_isa(char *buf, size_t size, hs_isa isa) {
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s", len ? "," : "", hs_isa_name(isa));
}

/* Every field of `v`, as hs_sweep would run it here. */
static hs_status describe(const hs_variant *v, hs_variant_info *out, hs_error *err) {
    memset(out, 0, sizeof *out);
    out->name = v->name;
    out->kernel = v->kernel;
    out->summary = v->summary;
    out->tier = v->tier;
    out->threaded = v->driver == HS_DRIVER_OPENMP;
    static const char *const roles[] = {"reference", "port", "production", "experiment"};
    out->role = (unsigned)v->role < sizeof roles / sizeof roles[0] ? roles[v->role] : "?";
    for (int i = 0; i < HS_ISA_COUNT; i++) {
        if (!v->fn[i]) continue;
        append_isa(out->isas_built, sizeof out->isas_built, (hs_isa)i);
        if (hs_isa_supported((hs_isa)i)) append_isa(out->isas_runnable, sizeof out->isas_runnable, (hs_isa)i);
    }
    hs_isa isa;
    hs_status st = hs_choose_isa(v, NULL, &isa, err);
    if (st == HS_OK) snprintf(out->default_isa, sizeof out->default_isa, "%s", hs_isa_name(isa));
    return st;
}

/* The size of hs_variant_info in 1.1 (name .. role), what hs_variant_describe writes. */
#define HS_VARIANT_INFO_1_1_SIZE offsetof(hs_variant_info, kernel)

hs_status hs_variant_describe_sized(size_t index, hs_variant_info *out, size_t out_size, hs_error *err) {
    size_t n;
    const hs_variant *all = hs_variants(&n);
    if (!out) return hs_fail(err, HS_ERR_USAGE, "hs_variant_describe: NULL out");
    if (out_size < HS_VARIANT_INFO_1_1_SIZE)
        return hs_fail(err, HS_ERR_USAGE, "hs_variant_describe: out_size %zu is smaller than the 1.1 struct (%zu)",
                       out_size, (size_t)HS_VARIANT_INFO_1_1_SIZE);
    if (index >= n) return hs_fail(err, HS_ERR_USAGE, "variant index %zu is out of range (%zu registered)", index, n);
    const hs_variant *v = &all[index];
    /* Filled in a whole struct, copied out as far as the caller's struct goes. */
    hs_variant_info info;
    hs_status st = describe(v, &info, err);
    memcpy(out, &info, out_size < sizeof info ? out_size : sizeof info);
    return st;
}

hs_status hs_variant_describe(size_t index, hs_variant_info *out, hs_error *err) {
    return hs_variant_describe_sized(index, out, HS_VARIANT_INFO_1_1_SIZE, err);
}

void hs_series_sha256(const double *close, size_t n_bars, char hex[65]) {
    hs_sha256_hex(close, n_bars * sizeof(double), hex);
}
