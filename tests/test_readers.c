/* hs_read_series / hs_write_series: bit-exact round trips in all three formats, and bad files of every
 * kind, each rejected with the right status and a message that names the problem.  All files live in a
 * mkdtemp directory that is removed at the end. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "hmasweep.h"

#define MAX_TEMP_FILES 128

static char temp_dir[256];
static char temp_files[MAX_TEMP_FILES][320];
static int n_temp_files;

/* A path inside the temp directory, remembered for clean-up. */
static const char *temp_path(const char *name) {
    if (n_temp_files == MAX_TEMP_FILES) {
        fprintf(stderr, "too many temp files\n");
        exit(2);
    }
    char *path = temp_files[n_temp_files++];
    snprintf(path, sizeof temp_files[0], "%s/%s", temp_dir, name);
    return path;
}

static void remove_temp_files(void) {
    for (int i = 0; i < n_temp_files; i++)
        remove(temp_files[i]);
    rmdir(temp_dir);
}

static const char *write_bytes(const char *name, const void *data, size_t len) {
    const char *path = temp_path(name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot create %s", path);
    if (f) {
        CHECK(fwrite(data, 1, len, f) == len, "short write to %s", path);
        fclose(f);
    }
    return path;
}

static const char *write_text(const char *name, const char *text) { return write_bytes(name, text, strlen(text)); }

/* A .npy file by hand: any version, any header dict, any payload. */
static const char *write_npy_bytes(const char *name, int major, const char *dict, const void *payload,
                                   size_t payload_len) {
    size_t preamble = major == 1 ? 10 : 12, dict_len = strlen(dict);
    size_t header_len = ((preamble + dict_len + 1 + 63) / 64 * 64) - preamble;
    size_t total = preamble + header_len + payload_len;
    unsigned char *buf = malloc(total);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t i = 0; i < preamble - 8; i++)
        buf[8 + i] = (unsigned char)(header_len >> (8 * i));
    memset(buf + preamble, ' ', header_len);
    memcpy(buf + preamble, dict, dict_len);
    buf[preamble + header_len - 1] = '\n';
    if (payload_len)
        memcpy(buf + preamble + header_len, payload, payload_len);
    const char *path = write_bytes(name, buf, total);
    free(buf);
    return path;
}

static void expect_read_error(const char *path, hs_status expected, const char *needle) {
    static double sentinel;
    double *x = &sentinel; /* non-NULL: the reader must reset it */
    size_t n = 99;
    hs_error err = {{0}};
    hs_status status = hs_read_series(path, &x, &n, &err);
    CHECK(status == expected, "%s: status %d, expected %d (%s)", path, (int)status, (int)expected, err.msg);
    CHECK(strstr(err.msg, needle) != NULL, "%s: message '%s' lacks '%s'", path, err.msg, needle);
    CHECK(x == NULL && n == 0, "%s: outputs not reset on error", path);
    /* Every message about a file names the file. */
    const char *base = strrchr(path, '/');
    CHECK(strstr(err.msg, base ? base + 1 : path) != NULL, "message '%s' does not name the file", err.msg);
}

static int same_bits(const double *a, const double *b, size_t n) { return memcmp(a, b, n * sizeof *a) == 0; }

/* ---- round trips --------------------------------------------------------------------------------------- */

static const double TRICKY[] = {100.02438033790177, 0.1, 1.0 / 3.0, 5e-324, 2.2250738585072014e-308,
                                1.7976931348623157e308, 123456789.125, 99.99999999999999, 1e-300, 7.0};
#define N_TRICKY (sizeof TRICKY / sizeof *TRICKY)

static void check_round_trip(const char *name, const char *format, const double *x, size_t n) {
    const char *path = temp_path(name);
    hs_error err = {{0}};
    CHECK_EQ_I(hs_write_series(path, format, x, n, &err), HS_OK);
    double *back = NULL;
    size_t n_back = 0;
    hs_status status = hs_read_series(path, &back, &n_back, &err);
    CHECK(status == HS_OK, "%s: %s", path, err.msg);
    CHECK(n_back == n, "%s: %zu values back, wrote %zu", path, n_back, n);
    CHECK(back && n_back == n && same_bits(back, x, n), "%s: values differ after the round trip", path);
    free(back);
}

static void check_round_trips(void) {
    check_round_trip("tricky.f64", "f64", TRICKY, N_TRICKY);
    check_round_trip("tricky.csv", "csv", TRICKY, N_TRICKY);
    check_round_trip("tricky.npy", "npy", TRICKY, N_TRICKY);
    check_round_trip("tricky_no_extension", "f64", TRICKY, N_TRICKY);
    check_round_trip("tricky.bin", "f64", TRICKY, N_TRICKY);
    check_round_trip("TRICKY.CSV", "csv", TRICKY, N_TRICKY);
    check_round_trip("one.npy", "npy", TRICKY, 1);

    double *close = malloc(HS_DEFAULT_BARS * sizeof *close);
    hs_error err;
    CHECK(close && hs_make_close(HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START, close,
                                 &err) == HS_OK, "default series");
    if (close) {
        check_round_trip("default.f64", "f64", close, HS_DEFAULT_BARS);
        check_round_trip("default.csv", "csv", close, HS_DEFAULT_BARS);
        check_round_trip("default.npy", "npy", close, HS_DEFAULT_BARS);
    }
    free(close);
}

/* The written .npy is numpy's own layout: version 1.0, '<f8', data aligned to 64 bytes. */
static void check_npy_layout(void) {
    const char *path = temp_path("layout.npy");
    hs_error err;
    CHECK_EQ_I(hs_write_series(path, "npy", TRICKY, 3, &err), HS_OK);
    FILE *f = fopen(path, "rb");
    unsigned char head[128] = {0};
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    CHECK_EQ_I(got, 128); /* the file is a 128-byte header, then 24 data bytes */
    size_t header_len = (size_t)head[8] | ((size_t)head[9] << 8);
    CHECK(memcmp(head, "\x93NUMPY\x01\x00", 8) == 0, "magic/version");
    CHECK_EQ_I(header_len, 118); /* what np.save writes for a 1-D float64 array */
    CHECK(strstr((const char *)head + 10, "'descr': '<f8'") != NULL, "descr");
    CHECK(strstr((const char *)head + 10, "'shape': (3,)") != NULL, "shape");
    CHECK_EQ_I(head[10 + header_len - 1], '\n');
}

/* Files written by other tools: numpy's v2.0/v3.0 headers, double-quoted keys, CSV variants. */
static void check_foreign_files(void) {
    unsigned char payload[3 * 8];
    for (int i = 0; i < 3; i++) {
        uint64_t bits;
        memcpy(&bits, &TRICKY[i], sizeof bits);
        for (int b = 0; b < 8; b++)
            payload[8 * i + b] = (unsigned char)(bits >> (8 * b));
    }
    const char *dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
    const char *paths[] = {
        write_npy_bytes("v1.npy", 1, dict, payload, sizeof payload),
        write_npy_bytes("v2.npy", 2, dict, payload, sizeof payload),
        write_npy_bytes("v3.npy", 3, dict, payload, sizeof payload),
        write_npy_bytes("quoted.npy", 1, "{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<f8\"}", payload,
                        sizeof payload),
        write_text("crlf.csv", "close\r\n100.02438033790177\r\n0.1\r\n0.33333333333333331\r\n\r\n\r\n"),
        write_text("named.csv", "price\n100.02438033790177\n0.1\n0.33333333333333331\n"),
        write_text("columns.csv", "date,open,Close,volume\n2020-01-01,1,100.02438033790177,5\n"
                                  "2020-01-02,2, 0.1 ,6\n2020-01-03,3,\"0.33333333333333331\",7\n\n"),
        write_text("bare.csv", "100.02438033790177\n0.1\n0.33333333333333331"),
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        double *x = NULL;
        size_t n = 0;
        hs_error err = {{0}};
        hs_status status = hs_read_series(paths[i], &x, &n, &err);
        CHECK(status == HS_OK, "%s: %s", paths[i], err.msg);
        CHECK(n == 3 && x && same_bits(x, TRICKY, 3), "%s: wrong values", paths[i]);
        free(x);
    }
}

/* ---- bad files ----------------------------------------------------------------------------------------- */

static void check_empty_and_missing(void) {
    expect_read_error(write_text("empty.f64", ""), HS_ERR_DATA, "empty file");
    expect_read_error(write_text("empty.csv", ""), HS_ERR_DATA, "empty file");
    expect_read_error(write_text("empty.npy", ""), HS_ERR_DATA, "empty file");
    expect_read_error(write_text("blank.csv", "\n\n  \n"), HS_ERR_DATA, "empty file");
    expect_read_error(temp_path("does_not_exist.f64"), HS_ERR_DATA, "cannot open");
}

static void check_bad_raw(void) {
    unsigned char twelve[12] = {0};
    expect_read_error(write_bytes("twelve.f64", twelve, sizeof twelve), HS_ERR_DATA, "truncated");
    expect_read_error(write_bytes("seven.raw", twelve, 7), HS_ERR_DATA, "not a multiple of 8");
}

static void check_bad_npy(void) {
    unsigned char payload[6 * 8] = {0};
    expect_read_error(write_bytes("magic_only.npy", "\x93NUMPY\x01", 7), HS_ERR_DATA, "truncated .npy header");
    /* The preamble promises a 118-byte header; only 20 bytes follow. */
    expect_read_error(write_bytes("short_header.npy", "\x93NUMPY\x01\x00\x76\x00{'descr': '<f8', 'fo", 30),
                      HS_ERR_DATA, "truncated .npy header");
    expect_read_error(write_text("not_npy.npy", "close\n1.0\n"), HS_ERR_DATA, "not a .npy file");
    expect_read_error(write_npy_bytes("v4.npy", 4, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                                      payload, 8),
                      HS_ERR_DATA, "unsupported .npy format version 4.0");
    expect_read_error(write_npy_bytes("f4.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                                      payload, 8),
                      HS_ERR_DATA, "wrong dtype '<f4'");
    expect_read_error(write_npy_bytes("i8.npy", 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
                                      payload, 8),
                      HS_ERR_DATA, "wrong dtype '<i8'");
    expect_read_error(write_npy_bytes("be.npy", 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
                                      payload, 8),
                      HS_ERR_DATA, "big-endian");
    expect_read_error(write_npy_bytes("two_d.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                                      payload, sizeof payload),
                      HS_ERR_DATA, "2-D (shape (2, 3))");
    expect_read_error(write_npy_bytes("zero_d.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                                      payload, 8),
                      HS_ERR_DATA, "0-D");
    expect_read_error(write_npy_bytes("fortran.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (1,), }",
                                      payload, 8),
                      HS_ERR_DATA, "fortran_order");
    expect_read_error(write_npy_bytes("short_data.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (10,), }",
                                      payload, sizeof payload),
                      HS_ERR_DATA, "truncated data");
    expect_read_error(write_npy_bytes("long_data.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }",
                                      payload, sizeof payload),
                      HS_ERR_DATA, "8 unexpected bytes");
    expect_read_error(write_npy_bytes("no_descr.npy", 1, "{'fortran_order': False, 'shape': (1,), }", payload, 8),
                      HS_ERR_DATA, "no 'descr'");
    expect_read_error(write_npy_bytes("empty_shape.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }",
                                      payload, 0),
                      HS_ERR_DATA, "empty");
}

static void check_bad_csv(void) {
    expect_read_error(write_text("text.csv", "close\n1.5\nabc\n2.5\n"), HS_ERR_DATA,
                      "line 3, column 1 (close): 'abc' is not a number");
    expect_read_error(write_text("text_col.csv", "date,close\nd1,1.5\nd2,1.5x\n"), HS_ERR_DATA,
                      "line 3, column 2 (close): '1.5x' is not a number");
    expect_read_error(write_text("empty_cell.csv", "date,close\nd1,1.5\nd2,\n"), HS_ERR_DATA,
                      "line 3, column 2 (close): '' is not a number");
    expect_read_error(write_text("no_close.csv", "date,open,high\nd1,1,2\n"), HS_ERR_DATA,
                      "no 'close' column among the 3 columns of the header (date, open, high)");
    expect_read_error(write_text("no_header.csv", "1,2\n3,4\n"), HS_ERR_DATA, "no header");
    expect_read_error(write_text("ragged.csv", "date,close\nd1,1.5\nd2\n"), HS_ERR_DATA, "line 3 has 1 columns");
    expect_read_error(write_text("gap.csv", "close\n1.5\n\n2.5\n"), HS_ERR_DATA, "line 3 is blank");
    expect_read_error(write_text("header_only.csv", "close\n"), HS_ERR_DATA, "no values");
}

/* NaN, inf, 0 and a negative price, in each format: rejected by the series check, file named. */
static void check_bad_values(void) {
    static const struct {
        double value;
        const char *message;
    } bad[] = {{NAN, "close[2] is NaN"},
               {INFINITY, "close[2] is inf"},
               {-INFINITY, "close[2] is -inf"},
               {0.0, "close[2] = 0 is not positive"},
               {-2.5, "close[2] = -2.5 is not positive"}};
    static const char *formats[] = {"f64", "csv", "npy"};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        for (size_t f = 0; f < 3; f++) {
            double x[4] = {1.0, 2.0, bad[b].value, 4.0};
            char name[64];
            snprintf(name, sizeof name, "bad%zu.%s", b, formats[f]);
            const char *path = temp_path(name);
            hs_error err;
            CHECK_EQ_I(hs_write_series(path, formats[f], x, 4, &err), HS_OK); /* the writer writes anything */
            expect_read_error(path, HS_ERR_DATA, bad[b].message);
        }
    }
}

static void check_writer_errors(void) {
    hs_error err = {{0}};
    CHECK_EQ_I(hs_write_series(temp_path("x.parquet"), "parquet", TRICKY, 3, &err), HS_ERR_USAGE);
    CHECK(strstr(err.msg, "unknown series format 'parquet'") != NULL, "message: %s", err.msg);
    char path[400];
    snprintf(path, sizeof path, "%s/no_such_dir/x.f64", temp_dir);
    CHECK_EQ_I(hs_write_series(path, "f64", TRICKY, 3, &err), HS_ERR_DATA);
    CHECK(strstr(err.msg, "cannot create") != NULL && strstr(err.msg, "no_such_dir") != NULL, "message: %s", err.msg);
}

int main(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/hs_test_readers_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(temp_dir)) {
        perror("mkdtemp");
        return 2;
    }
    check_round_trips();
    check_npy_layout();
    check_foreign_files();
    check_empty_and_missing();
    check_bad_raw();
    check_bad_npy();
    check_bad_csv();
    check_bad_values();
    check_writer_errors();
    remove_temp_files();
    return hs_check_summary("test_readers");
}
