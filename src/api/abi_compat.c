/* The HMASWEEP_1.0 symbols of libhmasweep.so.1: what binaries linked before 1.3 call (docs/library.md,
 * "Extending the options").  Only the shared library has them (cmake/library.cmake, with the version
 * script cmake/hmasweep.map); a static link is compiled against this header, so it has the 1.3 rule.
 *
 * Why two symbols: since 1.3, a set field that struct_size leaves out is refused (issue 29 item 4), which
 * means reading the fields up to has_fee whatever struct_size says.  A binary compiled against the 1.0 or
 * 1.1 header with struct_size 0 has a shorter struct (40 bytes at 1.0), so reading them would go past its
 * end.  Its calls bind to these (the dynamic linker gives an unversioned reference the oldest version),
 * which keep the pre-1.3 rule: nothing past struct_size is read, a field past it is ignored.  The
 * functions taking options that existed before 1.2 are here; the 1.2 ones (hs_live_open_opt,
 * hs_live_open_many_opt) have only ever had callers with the whole 1.2 struct. */
#include "hmasweep.h"
#include "variant.h"

#if defined(__ELF__) && defined(HS_SYMBOL_VERSIONS)
#define HS_COMPAT __attribute__((visibility("default")))
__asm__(".symver hmasweep_1_0_sweep, hs_sweep@HMASWEEP_1.0");
__asm__(".symver hmasweep_1_0_sweep_many, hs_sweep_many@HMASWEEP_1.0");
__asm__(".symver hmasweep_1_0_trade_log_opt, hs_trade_log_opt@HMASWEEP_1.0");

HS_COMPAT hs_status hmasweep_1_0_sweep(const double *close, size_t n_bars, const hs_windows *combos,
                                       size_t n_combos, hs_result *out, const hs_sweep_options *opt,
                                       hs_error *err);
HS_COMPAT hs_status hmasweep_1_0_sweep_many(const hs_series_ref *series, size_t n_series,
                                            const hs_windows *combos, size_t n_combos, hs_result *out,
                                            hs_status *series_status, hs_error *series_err, size_t *n_failed,
                                            const hs_sweep_options *opt, hs_error *err);
HS_COMPAT hs_status hmasweep_1_0_trade_log_opt(const double *close, size_t n_bars, const hs_windows *combo,
                                               hs_trade *out, size_t cap, size_t *n_trades,
                                               const hs_sweep_options *opt, hs_error *err);

hs_status hmasweep_1_0_sweep(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                             hs_result *out, const hs_sweep_options *opt, hs_error *err) {
    hs_sweep_options known;
    hs_status st = hs_read_sweep_options_1_0(opt, &known, err);
    if (st != HS_OK) return st;
    return hs_sweep(close, n_bars, combos, n_combos, out, opt ? &known : NULL, err);
}

hs_status hmasweep_1_0_sweep_many(const hs_series_ref *series, size_t n_series, const hs_windows *combos,
                                  size_t n_combos, hs_result *out, hs_status *series_status, hs_error *series_err,
                                  size_t *n_failed, const hs_sweep_options *opt, hs_error *err) {
    hs_sweep_options known;
    hs_status st = hs_read_sweep_options_1_0(opt, &known, err);
    if (st != HS_OK) return st;
    return hs_sweep_many(series, n_series, combos, n_combos, out, series_status, series_err, n_failed,
                         opt ? &known : NULL, err);
}

hs_status hmasweep_1_0_trade_log_opt(const double *close, size_t n_bars, const hs_windows *combo, hs_trade *out,
                                     size_t cap, size_t *n_trades, const hs_sweep_options *opt, hs_error *err) {
    hs_sweep_options known;
    hs_status st = hs_read_sweep_options_1_0(opt, &known, err);
    if (st != HS_OK) return st;
    return hs_trade_log_opt(close, n_bars, combo, out, cap, n_trades, opt ? &known : NULL, err);
}
#endif
