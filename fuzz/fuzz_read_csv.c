/* Any bytes through the in-memory csv reader (hs_parse_series, the parser behind hs_read_series): a
 * checked series (at least one bar, every price finite and > 0) or an error with a message, never a
 * crash, an out-of-bounds read or undefined behaviour. */
#include "fuzz_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_read(data, size, "csv"); }
