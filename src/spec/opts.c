/* The reader of hs_sweep_options (opts.h): one rule for every entry point that takes the struct (include/hmasweep.h,
 * docs/library.md "One way to extend a call").  In src/spec, the lowest layer, because the live opens
 * (src/live) and the C client (src/engine) read the struct as hs_sweep (src/api) does. */
#include <stddef.h>
#include <string.h>

#include "error.h"
#include "hmasweep.h"
#include "opts.h"

/* The fields past `threads` that a struct_size can leave uncovered, in order; each is checked where the
 * entry point's `reach` covers it (opts.h: HS_OPTIONS_SIZE_1_3 for the callers of the HMASWEEP_1.3
 * symbols, compiled against a header at least that long).  `fee` is not listed: it counts only with has_fee. */
typedef struct {
    const char *name;
    size_t offset, size;
} options_field;
#define OPTIONS_FIELD(f) {#f, offsetof(hs_sweep_options, f), sizeof(((hs_sweep_options *)0)->f)}
static const options_field later_fields[] = {
    OPTIONS_FIELD(report), OPTIONS_FIELD(progress), OPTIONS_FIELD(progress_user), OPTIONS_FIELD(stats),
    OPTIONS_FIELD(has_fee), OPTIONS_FIELD(n_periods), OPTIONS_FIELD(period_ends), OPTIONS_FIELD(equity),
    OPTIONS_FIELD(mtm_max_drawdown),
};
_Static_assert(HS_OPTIONS_SIZE_1_3 == sizeof(hs_sweep_options),
               "a field past 1.3 needs a new symbol version before the check may read it (docs/library.md)");

static int field_is_set(const hs_sweep_options *opt, const options_field *f) {
    const unsigned char *p = (const unsigned char *)opt + f->offset;
    for (size_t i = 0; i < f->size; i++)
        if (p[i]) return 1;
    return 0;
}

/* The bytes struct_size covers: 0 is the three-field form; refused when it is not a size this library
 * reads (smaller than the three fields, larger than this header). */
static hs_status covered_size(const hs_sweep_options *opt, size_t *size, hs_error *err) {
    size_t v1 = offsetof(hs_sweep_options, threads) + sizeof opt->threads;
    *size = opt->struct_size ? opt->struct_size : v1;
    if (*size < v1 || *size > sizeof *opt) {
        return hs_fail(err, HS_ERR_USAGE,
                       "hs_sweep_options.struct_size = %zu: this library knows %zu (use HS_SWEEP_OPTIONS_INIT)",
                       opt->struct_size, sizeof *opt);
    }
    return HS_OK;
}

/* The options as this library reads them (include/hmasweep.h, the extension rule): the fields struct_size
 * covers, the rest zero.  check_later: a field that struct_size leaves out but that is set is refused by
 * name (the 1.3 rule; issue 29 item 4: `= {0}` then `.has_fee = 1` had the fee silently ignored), read up
 * to `reach` (the bytes every caller of the entry point has); without it (the pre-1.3 symbols), nothing
 * past the covered bytes is read. */
static hs_status read_options(const hs_sweep_options *opt, size_t reach, hs_sweep_options *out, int check_later,
                              hs_error *err) {
    *out = (hs_sweep_options){0};
    if (!opt) return HS_OK;
    size_t size;
    hs_status st = covered_size(opt, &size, err);
    if (st != HS_OK) return st;
    for (size_t i = 0; check_later && i < sizeof later_fields / sizeof *later_fields; i++) {
        const options_field *f = &later_fields[i];
        if (f->offset + f->size <= size || f->offset + f->size > reach || !field_is_set(opt, f)) continue;
        return hs_fail(err, HS_ERR_USAGE,
                       "hs_sweep_options.%s is set but struct_size = %zu does not cover it (the field ends at "
                       "byte %zu): initialise the struct with HS_SWEEP_OPTIONS_INIT or hs_sweep_options_init()",
                       f->name, opt->struct_size, f->offset + f->size);
    }
    memcpy(out, opt, size);
    return HS_OK;
}

hs_status hs_read_sweep_options(const hs_sweep_options *opt, size_t reach, hs_sweep_options *out, hs_error *err) {
    return read_options(opt, reach, out, 1, err);
}

/* For the HMASWEEP_1.0 symbols (src/api/abi_compat.c): the caller's struct may end where its struct_size
 * (or, for 0, its 1.0 header) says.  *out has struct_size = sizeof: the 1.3 reader takes it as it is. */
hs_status hs_read_sweep_options_1_0(const hs_sweep_options *opt, hs_sweep_options *out, hs_error *err) {
    hs_status st = read_options(opt, sizeof *opt, out, 0, err);
    if (st == HS_OK && opt) out->struct_size = sizeof *out;
    return st;
}

hs_status hs_options_fee(const hs_sweep_options *known, double *fee, hs_error *err) {
    *fee = known->has_fee ? known->fee : HS_DEFAULT_FEE;
    return hs_check_fee(*fee, err);
}

/* n_periods 0: none of the period fields may be set (they would be silently ignored). */
hs_status hs_check_no_periods(const hs_sweep_options *known, hs_error *err) {
    if (known->equity || known->mtm_max_drawdown || known->period_ends)
        return hs_fail(err, HS_ERR_USAGE, "%s was given with n_periods = 0: ask for periods (n_periods >= 1)",
                       known->equity ? "equity" : known->mtm_max_drawdown ? "mtm_max_drawdown" : "period_ends");
    return HS_OK;
}

