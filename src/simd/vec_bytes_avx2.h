/* vb_lane_bits64 with AVX2 byte movemasks, for the AVX2 and AVX-512 headers (AVX-512 builds include
 * AVX2).  A 64-bit shift by 7 − lane puts each byte's bit `lane` in that byte's top bit (a shift below 8
 * never carries another byte's bit there) and a byte movemask collects them: 2 shifts and 2 movemasks
 * per 64 bytes against the generic form's 8 multiply steps of 6 operations each (segments' books 6.0 ->
 * 4.1 ms, reports/segments.md, frontier4).  Integer bits only: the same result on every ISA. */
#ifndef HS_VEC_BYTES_AVX2_H
#define HS_VEC_BYTES_AVX2_H
#include <immintrin.h>
#include <stdint.h>
#define HS_HAVE_VB_LANE_BITS64 1
static inline uint64_t vb_lane_bits64(const unsigned char *bytes, int lane) {
    const __m128i by = _mm_cvtsi32_si128(7 - lane);
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)bytes);
    __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(bytes + 32));
    uint32_t a = (uint32_t)_mm256_movemask_epi8(_mm256_sll_epi64(lo, by));
    uint32_t b = (uint32_t)_mm256_movemask_epi8(_mm256_sll_epi64(hi, by));
    return (uint64_t)b << 32 | a;
}
#endif
