/* splitmix64 for the tests' random cases: a state the caller keeps, its next 64 bits, and a double in [0, 1). */
#ifndef HS_TEST_SPLITMIX_H
#define HS_TEST_SPLITMIX_H
#include <stdint.h>
static inline uint64_t splitmix_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static inline double splitmix_unit(uint64_t *s) { return (double)(splitmix_next(s) >> 11) * 0x1p-53; }
#endif
