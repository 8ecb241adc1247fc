/* The data generator (docs/spec.md §1): numpy's normal stream bit for bit, the canonical close series, and the
 * argument and series checks around it.
 *
 * Reference numbers come from three places: docs/spec.md §1 itself (five normals, the PCG64 state for seed 42,
 * close[0], the SHA-256 of the default series), and tests/fixtures/normals.txt, written by numpy through
 * tests/fixtures/make_fixtures.py (first 16 normals and a SHA-256 of 150,000 for three seeds, and a few
 * default close values).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hmasweep.h"
#include "rng.h"
#include "sha256.h"

#ifndef HS_SOURCE_DIR
#define HS_SOURCE_DIR "."
#endif

#define SPEC_DEFAULT_SHA256 "88e4ef5a5921d8d7c6983fa7d54f4b3e1bd3f4254d8b7def5d1da9fa1430c028"

/* The SHA-256 of x[0..n) as little-endian float64 bytes, whatever the host's byte order. */
static void sha256_of_f64(const double *x, size_t n, char hex[65]) {
    hs_sha256_ctx ctx;
    uint8_t digest[32];
    hs_sha256_init(&ctx);
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        uint8_t le[8];
        memcpy(&bits, &x[i], sizeof bits);
        for (int b = 0; b < 8; b++)
            le[b] = (uint8_t)(bits >> (8 * b));
        hs_sha256_update(&ctx, le, sizeof le);
    }
    hs_sha256_final(&ctx, digest);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

static void check_spec_seed_state(void) {
    hs_pcg64 rng;
    hs_pcg64_seed(&rng, 42);
    CHECK(rng.state_hi == UINT64_C(0xcea44f6798798f2a) && rng.state_lo == UINT64_C(0xacbc7c9d68860ac8),
          "seed 42 state %016" PRIx64 "%016" PRIx64, rng.state_hi, rng.state_lo);
    CHECK(rng.inc_hi == UINT64_C(0xfa505436c9a8416e) && rng.inc_lo == UINT64_C(0x66caf2e28d25abff),
          "seed 42 inc %016" PRIx64 "%016" PRIx64, rng.inc_hi, rng.inc_lo);
}

static void check_spec_normals(void) {
    static const double spec[5] = {0.30471707975443135, -1.0399841062404955, 0.7504511958064572,
                                   0.9405647163912139, -1.9510351886538364};
    double z[5];
    hs_standard_normal(42, 5, z);
    for (int i = 0; i < 5; i++)
        CHECK_BITS(z[i], spec[i]);
}

static void check_spec_close(void) {
    double *close = malloc(HS_DEFAULT_BARS * sizeof *close);
    hs_error err = {{0}};
    CHECK(close != NULL, "malloc");
    if (!close)
        return;
    hs_status status = hs_make_close(HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err);
    CHECK_EQ_I(status, HS_OK);
    CHECK_BITS(close[0], 100.02438033790177);
    char hex[65];
    sha256_of_f64(close, HS_DEFAULT_BARS, hex);
    CHECK(strcmp(hex, SPEC_DEFAULT_SHA256) == 0, "default series SHA-256 %s, docs/spec.md §1 says %s", hex,
          SPEC_DEFAULT_SHA256);
    CHECK_EQ_I(hs_check_series(close, HS_DEFAULT_BARS, &err), HS_OK);
    free(close);
}

/* A stream is a stream: the first k of n draws are the k draws. */
static void check_prefix_property(void) {
    double long_run[1000], short_run[10];
    hs_standard_normal(2024, 1000, long_run);
    hs_standard_normal(2024, 10, short_run);
    CHECK(memcmp(long_run, short_run, sizeof short_run) == 0, "prefix of the stream differs");
}

/* ---- tests/fixtures/normals.txt ----------------------------------------------------------------------- */

typedef struct {
    uint64_t seed;
    double *normals; /* HASH_COUNT values, generated once per seed */
} seed_cache;

enum { MAX_SEEDS = 8, FIXTURE_HASH_COUNT = 150000 };

static const double *normals_for_seed(seed_cache cache[MAX_SEEDS], uint64_t seed) {
    for (int i = 0; i < MAX_SEEDS; i++) {
        if (cache[i].normals && cache[i].seed == seed)
            return cache[i].normals;
        if (!cache[i].normals) {
            cache[i].normals = malloc(FIXTURE_HASH_COUNT * sizeof(double));
            if (!cache[i].normals)
                return NULL;
            cache[i].seed = seed;
            hs_standard_normal(seed, FIXTURE_HASH_COUNT, cache[i].normals);
            return cache[i].normals;
        }
    }
    return NULL;
}

typedef struct {
    seed_cache seeds[MAX_SEEDS];
    double *close; /* the default series, made on first use */
    int normals_checked, hashes_checked, closes_checked;
} fixture_state;

static void check_fixture_normal(fixture_state *st, const char *line) {
    uint64_t seed;
    size_t index;
    char hex[64];
    CHECK(sscanf(line, "normal %" SCNu64 " %zu %63s", &seed, &index, hex) == 3, "bad fixture line: %s", line);
    const double *z = normals_for_seed(st->seeds, seed);
    CHECK(z != NULL && index < FIXTURE_HASH_COUNT, "fixture seed/index: %s", line);
    if (!z || index >= FIXTURE_HASH_COUNT)
        return;
    CHECK(memcmp(&z[index], &(double){strtod(hex, NULL)}, sizeof(double)) == 0,
          "seed %" PRIu64 " normal[%zu] = %a, numpy %s", seed, index, z[index], hex);
    st->normals_checked++;
}

static void check_fixture_hash(fixture_state *st, const char *line) {
    uint64_t seed;
    size_t count;
    char expected[80], got[65];
    CHECK(sscanf(line, "normals_sha256 %" SCNu64 " %zu %79s", &seed, &count, expected) == 3, "bad line: %s", line);
    const double *z = normals_for_seed(st->seeds, seed);
    CHECK(z != NULL && count <= FIXTURE_HASH_COUNT, "fixture hash line: %s", line);
    if (!z || count > FIXTURE_HASH_COUNT)
        return;
    sha256_of_f64(z, count, got);
    CHECK(strcmp(got, expected) == 0, "seed %" PRIu64 ": SHA-256 of %zu normals %s, numpy %s", seed, count, got,
          expected);
    st->hashes_checked++;
}

static const double *default_close(fixture_state *st) {
    if (!st->close) {
        hs_error err;
        st->close = malloc(HS_DEFAULT_BARS * sizeof(double));
        if (st->close && hs_make_close(HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START,
                                       st->close, &err) != HS_OK) {
            free(st->close);
            st->close = NULL;
        }
    }
    return st->close;
}

static void check_fixture_close(fixture_state *st, const char *line) {
    size_t value;
    char hex[64];
    if (sscanf(line, "close_bars %zu", &value) == 1) {
        CHECK_EQ_I(value, HS_DEFAULT_BARS);
        return;
    }
    CHECK(sscanf(line, "close %zu %63s", &value, hex) == 2, "bad fixture line: %s", line);
    const double *close = default_close(st);
    CHECK(close != NULL && value < HS_DEFAULT_BARS, "default close / index: %s", line);
    if (!close || value >= HS_DEFAULT_BARS)
        return;
    CHECK(memcmp(&close[value], &(double){strtod(hex, NULL)}, sizeof(double)) == 0, "close[%zu] = %a, fixture %s",
          value, close[value], hex);
    st->closes_checked++;
}

static void check_fixture_file(void) {
    char path[4096];
    const char *dir = getenv("HS_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/tests/fixtures/normals.txt", dir && *dir ? dir : HS_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f)
        return;
    fixture_state st = {0};
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "normal ", 7) == 0)
            check_fixture_normal(&st, line);
        else if (strncmp(line, "normals_sha256 ", 15) == 0)
            check_fixture_hash(&st, line);
        else if (strncmp(line, "close", 5) == 0)
            check_fixture_close(&st, line);
    }
    fclose(f);
    /* The file must really have been read: 3 seeds x 16 normals, 3 hashes, some closes. */
    CHECK(st.normals_checked >= 48, "only %d fixture normals checked", st.normals_checked);
    CHECK(st.hashes_checked >= 3, "only %d fixture hashes checked", st.hashes_checked);
    CHECK(st.closes_checked >= 4, "only %d fixture closes checked", st.closes_checked);
    for (int i = 0; i < MAX_SEEDS; i++)
        free(st.seeds[i].normals);
    free(st.close);
}

/* ---- argument and series checks ------------------------------------------------------------------------ */

static void check_make_close_rejects(size_t bars, double vol, double start, const char *needle) {
    double out[4];
    hs_error err = {{0}};
    hs_status status = hs_make_close(42, bars, vol, start, out, &err);
    CHECK_EQ_I(status, HS_ERR_USAGE);
    CHECK(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg, needle);
}

static void check_make_close_arguments(void) {
    check_make_close_rejects(0, 0.0008, 100.0, "bars");
    check_make_close_rejects(4, NAN, 100.0, "vol");
    check_make_close_rejects(4, INFINITY, 100.0, "vol");
    check_make_close_rejects(4, 0.0008, NAN, "start");
    check_make_close_rejects(4, 0.0008, INFINITY, "start");
    check_make_close_rejects(4, 0.0008, 0.0, "start must be positive");
    check_make_close_rejects(4, 0.0008, -1.0, "start must be positive");
    check_make_close_rejects(4, 1e6, 100.0, "vol"); /* exp overflows: a bad request, said so */
    double one;
    CHECK_EQ_I(hs_make_close(42, 1, 0.0008, 100.0, &one, NULL), HS_OK);
    CHECK_BITS(one, 100.02438033790177);
}

static void check_series_rejects(const double *x, size_t n, const char *expected_message) {
    hs_error err = {{0}};
    CHECK_EQ_I(hs_check_series(x, n, &err), HS_ERR_DATA);
    CHECK(strstr(err.msg, expected_message) != NULL, "message '%s' lacks '%s'", err.msg, expected_message);
}

static void check_series_checks(void) {
    double x[20];
    for (int i = 0; i < 20; i++)
        x[i] = 100.0 + i;
    CHECK_EQ_I(hs_check_series(x, 20, NULL), HS_OK);
    check_series_rejects(x, 0, "empty");
    x[17] = NAN;
    check_series_rejects(x, 20, "close[17] is NaN");
    x[5] = INFINITY;
    check_series_rejects(x, 20, "close[5] is inf");
    x[5] = -INFINITY;
    check_series_rejects(x, 20, "close[5] is -inf");
    x[3] = -1.0;
    check_series_rejects(x, 20, "close[3] = -1 is not positive");
    x[0] = 0.0;
    check_series_rejects(x, 20, "close[0] = 0 is not positive");
    x[0] = 1e-300; /* tiny but positive is a price */
    x[3] = x[5] = x[17] = 1.0;
    CHECK_EQ_I(hs_check_series(x, 20, NULL), HS_OK);
}

int main(void) {
    check_spec_seed_state();
    check_spec_normals();
    check_spec_close();
    check_prefix_property();
    check_fixture_file();
    check_make_close_arguments();
    check_series_checks();
    return hs_check_summary("test_rng");
}
