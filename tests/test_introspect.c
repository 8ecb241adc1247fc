/* Introspection and host-process hygiene (docs/library.md):
 *   - hs_version; hs_variant_describe's default ISA is the ISA hs_sweep runs (its report says so), with
 *     $HMASWEEP_ISA honoured by both (the CLI's `variants` once showed avx512 while `run` used sse2);
 *   - the sweep report (variant, ISA, threads) and the options extension rule (struct_size);
 *   - the environment is read once: changing it after the first call changes nothing;
 *   - the caller's OpenMP schedule (omp_set_schedule) is left as it was;
 *   - hs_series_sha256 gives docs/spec.md §1's hash of the default series;
 *   - hs_variant_describe_sized fills `kernel` (1.2), hs_variant_describe writes only the 1.1 fields. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#ifdef HS_HAVE_OPENMP
#include <omp.h>
#endif

#include "check.h"
#include "hmasweep.h"

static double close_[3000];
static hs_windows combos[3];

static int has_isa(const char *list, const char *isa) {
    char l[80], k[24];
    snprintf(l, sizeof l, ",%s,", list);
    snprintf(k, sizeof k, ",%s,", isa);
    return strstr(l, k) != NULL;
}

/* Every variant: what describe says is the default is what a sweep with isa = NULL reports it ran. */
static void describe_matches_sweep(const char *cap) {
    size_t n = hs_variant_count();
    CHECK(n >= 8, "only %zu variants", n);
    int capped = 0;
    for (size_t k = 0; k < n; k++) {
        hs_variant_info v;
        hs_error err;
        CHECK(hs_variant_describe(k, &v, &err) == HS_OK, "%zu: %s", k, err.msg);
        CHECK(has_isa(v.isas_built, "scalar"), "%s: built %s", v.name, v.isas_built);
        CHECK(has_isa(v.isas_runnable, v.default_isa), "%s: default %s not runnable (%s)", v.name, v.default_isa,
              v.isas_runnable);
        hs_sweep_report ran = {0};
        hs_result r[3];
        hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
        opt.variant = v.name, opt.threads = 2, opt.report = &ran;
        CHECK(hs_sweep(close_, 3000, combos, 3, r, &opt, &err) == HS_OK, "%s: %s", v.name, err.msg);
        CHECK(strcmp(ran.variant, v.name) == 0, "report variant %s for %s", ran.variant, v.name);
        CHECK(strcmp(ran.isa, v.default_isa) == 0, "%s: describe says %s, the sweep ran %s", v.name, v.default_isa, ran.isa);
        CHECK_EQ_I(ran.threads, v.threaded ? 2 : 1);
        if (has_isa(v.isas_built, cap)) {
            CHECK(strcmp(v.default_isa, cap) == 0, "%s: HMASWEEP_ISA=%s but default %s", v.name, cap, v.default_isa);
            capped++;
        }
    }
    CHECK(capped > 0 || strcmp(cap, "scalar") == 0, "no variant is built for %s", cap);
}

/* The struct grows at the end: a 1.1 caller's struct ends before `kernel`, and nothing past it is written. */
static void describe_sizes(void) {
    hs_error err;
    size_t simd_wma = hs_variant_count(), omp = simd_wma;
    for (size_t k = 0; k < hs_variant_count(); k++) {
        hs_variant_info v;
        hs_variant_describe_sized(k, &v, sizeof v, NULL);
        CHECK(v.kernel && *v.kernel, "%s: no kernel", v.name);
        if (!strcmp(v.name, "simd_wma")) simd_wma = k;
        if (!strcmp(v.name, "simd_wma_omp")) omp = k;
    }
    hs_variant_info a, b;
    CHECK(simd_wma < hs_variant_count() && omp < hs_variant_count(), "simd_wma or simd_wma_omp is not registered");
    hs_variant_describe_sized(simd_wma, &a, sizeof a, NULL);
    hs_variant_describe_sized(omp, &b, sizeof b, NULL);
    CHECK(!strcmp(a.kernel, "simd_wma") && !strcmp(b.kernel, "simd_wma"), "kernels %s, %s", a.kernel, b.kernel);
    const char *marker = "untouched";
    b.kernel = marker;
    CHECK(hs_variant_describe(omp, &b, &err) == HS_OK, "%s", err.msg);
    CHECK(b.kernel == marker && !strcmp(b.name, "simd_wma_omp"), "hs_variant_describe wrote past the 1.1 fields");
    CHECK(hs_variant_describe_sized(omp, &b, 8, &err) == HS_ERR_USAGE, "a struct smaller than 1.1's was filled");
}

static void options_rule(void) {
    hs_result r[3];
    hs_error err;
    hs_sweep_report ran = {"untouched", "untouched", -7};
    /* struct_size 0: the three-field form; a report set past it is refused by name (since 1.3), not ignored */
    hs_sweep_options v1 = {.variant = "sliding", .isa = "scalar", .threads = 1, .report = &ran};
    CHECK(hs_sweep(close_, 3000, combos, 3, r, &v1, &err) == HS_ERR_USAGE && strstr(err.msg, ".report is set"),
          "struct_size 0 with report: %s", err.msg);
    CHECK(strcmp(ran.variant, "untouched") == 0 && ran.threads == -7, "struct_size 0 wrote the report");
    v1.report = NULL;
    CHECK(hs_sweep(close_, 3000, combos, 3, r, &v1, &err) == HS_OK, "the three-field form: %s", err.msg);
    hs_sweep_options bad = HS_SWEEP_OPTIONS_INIT;
    bad.struct_size = sizeof bad + 8; /* from a newer header */
    CHECK(hs_sweep(close_, 3000, combos, 3, r, &bad, &err) == HS_ERR_USAGE, "a larger struct_size is refused");
    CHECK(strstr(err.msg, "struct_size") != NULL, "message: %s", err.msg);
    bad.struct_size = 4; /* not even the three fields */
    CHECK(hs_sweep(close_, 3000, combos, 3, r, &bad, &err) == HS_ERR_USAGE, "a tiny struct_size is refused");
    hs_sweep_options full = HS_SWEEP_OPTIONS_INIT;
    full.variant = "unchecked", full.isa = "scalar", full.report = &ran;
    CHECK(hs_sweep(close_, 3000, combos, 3, r, &full, &err) == HS_OK, "%s", err.msg);
    CHECK(strcmp(ran.variant, "unchecked") == 0 && strcmp(ran.isa, "scalar") == 0 && ran.threads == 1,
          "report %s/%s/%d", ran.variant, ran.isa, ran.threads);
    CHECK(hs_sweep(close_, 3000, combos, 3, r, NULL, &err) == HS_OK, "NULL options: %s", err.msg);
}

static void openmp_state_untouched(void) {
#ifdef HS_HAVE_OPENMP
    omp_set_schedule(omp_sched_guided, 7);
    hs_result r[3];
    hs_error err;
    const char *threaded[] = {"simd_wma_omp", "sliding_omp", "sliding_lanes_omp"};
    for (int k = 0; k < 3; k++) {
        hs_sweep_options opt = {.variant = threaded[k], .isa = NULL, .threads = 2};
        CHECK(hs_sweep(close_, 3000, combos, 3, r, &opt, &err) == HS_OK, "%s", err.msg);
        omp_sched_t kind;
        int chunk;
        omp_get_schedule(&kind, &chunk);
        CHECK(kind == omp_sched_guided && chunk == 7, "%s changed the caller's schedule to (%d, %d)", threaded[k],
              (int)kind, chunk);
    }
#endif
}

int main(void) {
    /* Set before the library's first call; it is read then, once. */
#if defined(__x86_64__) || defined(__i386__)
    const char *cap = "sse2";
#else
    const char *cap = "scalar";
#endif
    setenv("HMASWEEP_ISA", cap, 1);
    CHECK(strcmp(hs_version(), "1.4.0") == 0, "version %s", hs_version());
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", HS_VERSION_MAJOR, HS_VERSION_MINOR, HS_VERSION_PATCH);
    CHECK(strcmp(hs_version(), v) == 0, "hs_version %s != header %s", hs_version(), v);

    hs_error err;
    CHECK(hs_make_close(5, 3000, 0.002, 100.0, close_, &err) == HS_OK, "%s", err.msg);
    const int64_t lengths[3] = {6, 23, 90};
    for (int c = 0; c < 3; c++) hs_windows_from_length(lengths[c], &combos[c], NULL);

    describe_matches_sweep(cap);
    setenv("HMASWEEP_ISA", "no_such_isa", 1); /* read once: this is never seen */
    describe_matches_sweep(cap);
    options_rule();
    describe_sizes();
    openmp_state_untouched();

    hs_variant_info info;
    CHECK(hs_variant_describe(hs_variant_count(), &info, &err) == HS_ERR_USAGE, "index past the end");

    double *big = malloc(HS_DEFAULT_BARS * sizeof *big);
    char hex[65];
    CHECK(hs_make_close(HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START, big, &err) == HS_OK, "%s",
          err.msg);
    hs_series_sha256(big, HS_DEFAULT_BARS, hex);
    CHECK(strcmp(hex, "88e4ef5a5921d8d7c6983fa7d54f4b3e1bd3f4254d8b7def5d1da9fa1430c028") == 0, "sha %s", hex);
    free(big);
    return hs_check_summary("test_introspect");
}
