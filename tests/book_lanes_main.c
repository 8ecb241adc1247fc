/* test_book_lanes_<isa> (tests/CMakeLists.txt): the books' lane form against the book and the deferred drawdown against
 * the scalar tracker, for one ISA (book_lanes_check.c and mtm_defer_check.c, built with
 * that ISA's flags).  This half is built without them, so that a CPU without the ISA gets exit 77 (ctest:
 * Skipped, with the reason) before any of its instructions run. */
#include <stdio.h>

#include "book_lanes_check.h"
#include "isa.h"

#define STR_(x) #x
#define STR(x) STR_(x)

int main(void) {
    hs_isa isa;
    hs_error err;
    if (hs_isa_parse(STR(HS_TEST_ISA), &isa, &err) != HS_OK) {
        fprintf(stderr, "test_book_lanes: %s\n", err.msg);
        return 1;
    }
    if (!hs_isa_supported(isa)) {
        printf("SKIPPED: cpu-isa: this CPU cannot run %s\n", hs_isa_name(isa)); /* tests/skips.allow */
        return 77;
    }
    int equity = mtm_defer_check();
    return book_lanes_check() || equity;
}
