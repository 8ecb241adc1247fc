/* hmasweep — internal: a small SHA-256 (FIPS 180-4), used to fingerprint close series in tests and the
 * CLI (docs/spec.md §1 gives the default series' hash). */
#ifndef HS_SHA256_H
#define HS_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];
    uint64_t total_bytes;
    uint8_t block[64];
    size_t block_used;
} hs_sha256_ctx;

void hs_sha256_init(hs_sha256_ctx *ctx);
void hs_sha256_update(hs_sha256_ctx *ctx, const void *data, size_t len);
void hs_sha256_final(hs_sha256_ctx *ctx, uint8_t digest[32]);

/* The SHA-256 of data[0..len) as 64 lowercase hex digits plus NUL. */
void hs_sha256_hex(const void *data, size_t len, char out[65]);

#endif
