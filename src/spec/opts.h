/* The reader of hs_sweep_options (src/spec/opts.c), for every entry point of the library that takes them:
 * hs_sweep, hs_sweep_many, the trade log, the live opens and the C client (src/engine/client.c), which thus
 * read one struct by one rule (include/hmasweep.h, docs/library.md "One way to extend a call"). */
#ifndef HS_SPEC_OPTS_H
#define HS_SPEC_OPTS_H

#include <stddef.h>

#include "hmasweep.h"

/* The options as this library reads them: the fields the caller's struct_size covers, the rest zero
 * (include/hmasweep.h, the extension rule); a struct_size it cannot read is HS_ERR_USAGE, and so is a field
 * that struct_size leaves out but that is set, read up to `reach`: the bytes every caller of the entry point
 * has.  HS_OPTIONS_SIZE_1_3, the whole 1.3 struct (spec v3's n_periods .. mtm_max_drawdown included), for
 * hs_sweep, hs_sweep_many and hs_trade_log_opt, whose callers before 1.3 bind to the HMASWEEP_1.0
 * symbols; HS_OPTIONS_SIZE_1_2 (up to has_fee) for the live opens, which have one symbol, called by
 * binaries built against the 1.2 header too. */
#define HS_OPTIONS_SIZE_1_2 (offsetof(hs_sweep_options, has_fee) + sizeof(int))
#define HS_OPTIONS_SIZE_1_3 (offsetof(hs_sweep_options, mtm_max_drawdown) + sizeof(double *))
hs_status hs_read_sweep_options(const hs_sweep_options *opt, size_t reach, hs_sweep_options *out, hs_error *err);
/* The pre-1.3 rule, for binaries linked against the unversioned 1.0-1.2 symbols (abi_compat.c): nothing
 * past struct_size is read; *out comes back with struct_size = sizeof (covering all). */
hs_status hs_read_sweep_options_1_0(const hs_sweep_options *opt, hs_sweep_options *out, hs_error *err);

/* The fee of options read by hs_read_sweep_options (the default when has_fee is 0), checked (hs_check_fee). */
hs_status hs_options_fee(const hs_sweep_options *known, double *fee, hs_error *err);

/* n_periods 0 with a period field set (equity, mtm_max_drawdown, period_ends): HS_ERR_USAGE naming it. */
hs_status hs_check_no_periods(const hs_sweep_options *known, hs_error *err);

#endif
