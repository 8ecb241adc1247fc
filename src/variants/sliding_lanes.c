/* sliding_lanes — the certified running-sum kernel (src/variants/sliding.c) vectorised ACROSS COMBOS: each lane
 * of a vector is one combo, all lanes walk the same bars.
 *
 * Why across combos: one combo's running sums are serial chains (each bar adds to the previous sum), so
 * within a combo there is nothing to put in lanes; different combos are independent.  Lanes have
 * different windows, so the value leaving each lane's window is a gather (close[i − w_lane]); the
 * smoothed stage reads the interleaved raw series (raw[i·V + lane]) with a contiguous load for the new
 * value and a gather for the old.  Everything else — anchors every SLIDE_BLOCK bars, the error bound,
 * the tier-0 recompute of ambiguous bars, the books — is the scalar kernel's, per lane (certify.h), so
 * the PnL is bit-identical to the reference (gated as tier 0).
 *
 * The driver hands this kernel up to HS_BATCH_MAX combos at a time, costliest first, so a vector's
 * lanes have similar windows.  Lanes beyond `count`, and lanes whose windows leave no valid d, are
 * filled with a live lane's windows and their results discarded.
 */
#include <string.h>

#include "pipeline.h"
#include "vec.h"

/* scratch layout (HS_SCRATCH below): raw, raw3 and d interleaved (V per bar), then
 * one contiguous d buffer for a lane that needs the slow (certifying) path, one for the certification's
 * tables (the chunk maxima, each lane's tau per chunk, the fallback's work), and the four buffers of the
 * bounded fallback's tier-0 pipeline (pipeline.h: certified_books_bounded). */
typedef struct {
    double *raw, *raw3, *d, *lane_d, *chunk_max, *tau, *work, *pipe;
    size_t chunks;
} lanes_scratch;

static lanes_scratch split_scratch(double *scratch, size_t n) {
    size_t stride = hs_scratch_stride(n), nc = cert_chunks(n);
    double *tables = scratch + (3 * HS_VN + 1) * stride;
    return (lanes_scratch){scratch,          scratch + HS_VN * stride,   scratch + 2 * HS_VN * stride,
                           scratch + 3 * HS_VN * stride, tables, tables + nc, tables + (HS_VN + 1) * nc,
                           tables + stride, nc};
}

size_t HS_SCRATCH(sliding_lanes)(size_t n) {
    size_t nc = cert_chunks(n); /* the tables: chunk maxima, V taus and the work per chunk */
    return hs_scratch_sum((3 * HS_VN + 1) * hs_scratch_stride(n), certified_tail_doubles(n, (HS_VN + 2) * nc));
}

/* Direct sums over an interleaved series (element i of lane l at x[i·V + l]). */
static slide_sums anchor_lane(const double *x, size_t i, int64_t w, int lane) {
    slide_sums s = {0.0, 0.0};
    for (int64_t j = 0; j < w; j++) {
        double v = x[(i - (size_t)(w - 1) + (size_t)j) * HS_VN + (size_t)lane];
        s.s1 += v;
        s.s2 += v * (double)(j + 1);
    }
    return s;
}

typedef struct {
    hs_vd s1, s2, w, inv;
} vslide;

static inline void vslide_step(vslide *s, hs_vd x_new, hs_vd x_old) {
    s->s2 = vd_add(s->s2, vd_sub(vd_mul(s->w, x_new), s->s1));
    s->s1 = vd_add(s->s1, vd_sub(x_new, x_old));
}

static inline hs_vd vslide_value(const vslide *s) { return vd_mul(s->s2, s->inv); }

/* Load per-lane anchors (computed by scalar loops) into a vector state. */
static vslide vslide_from(const slide_sums *a, const int64_t *w) {
    double s1[HS_VN], s2[HS_VN], wd[HS_VN], inv[HS_VN];
    for (int l = 0; l < HS_VN; l++) {
        s1[l] = a[l].s1;
        s2[l] = a[l].s2;
        wd[l] = (double)w[l];
        inv[l] = 1.0 / hs_wma_denom(w[l]);
    }
    return (vslide){vd_loadu(s1), vd_loadu(s2), vd_loadu(wd), vd_loadu(inv)};
}

/* First level, bars [from, n): the five WMAs of close and the two raw series, interleaved. */
static void first_level(const double *close, size_t n, size_t from, int64_t (*w)[HS_VN], lanes_scratch *s) {
    for (size_t blk = from; blk < n; blk += SLIDE_BLOCK) {
        size_t end = blk + SLIDE_BLOCK < n ? blk + SLIDE_BLOCK : n;
        vslide st[5];
        const int stage_window[5] = {0, 1, 3, 4, 5};
        hs_vi old_idx[5];
        for (int k = 0; k < 5; k++) {
            slide_sums a[HS_VN];
            int64_t idx[HS_VN];
            for (int l = 0; l < HS_VN; l++) {
                a[l] = slide_anchor(close, blk, w[stage_window[k]][l]);
                idx[l] = (int64_t)blk - w[stage_window[k]][l]; /* the value that leaves at bar blk + 1 */
            }
            st[k] = vslide_from(a, w[stage_window[k]]);
            old_idx[k] = vi_add(vi_loadu(idx), vi_set1(1));
        }
        hs_vd two = vd_set1(2.0), three = vd_set1(3.0);
        for (size_t i = blk;; i++) {
            hs_vd a = vslide_value(&st[0]), b = vslide_value(&st[1]);
            hs_vd t = vslide_value(&st[2]), h = vslide_value(&st[3]), f = vslide_value(&st[4]);
            vd_storeu(s->raw + i * HS_VN, vd_sub(vd_mul(two, a), b));
            vd_storeu(s->raw3 + i * HS_VN, vd_sub(vd_sub(vd_mul(three, t), h), f));
            if (i + 1 >= end) break;
            hs_vd x_new = vd_set1(close[i + 1]);
            for (int k = 0; k < 5; k++) {
                vslide_step(&st[k], x_new, vd_gather(close, old_idx[k]));
                old_idx[k] = vi_add(old_idx[k], vi_set1(1));
            }
        }
    }
}

/* Second level, bars [from, n): HMA over raw (w2) and HMA3 over raw3 (w5), d interleaved. */
static void second_level(size_t n, size_t from, int64_t (*w)[HS_VN], lanes_scratch *s) {
    for (size_t blk = from; blk < n; blk += SLIDE_BLOCK) {
        size_t end = blk + SLIDE_BLOCK < n ? blk + SLIDE_BLOCK : n;
        slide_sums a[HS_VN], b[HS_VN];
        int64_t ia[HS_VN], ib[HS_VN];
        for (int l = 0; l < HS_VN; l++) {
            a[l] = anchor_lane(s->raw, blk, w[2][l], l);
            b[l] = anchor_lane(s->raw3, blk, w[5][l], l);
            ia[l] = ((int64_t)blk + 1 - w[2][l]) * HS_VN + l;
            ib[l] = ((int64_t)blk + 1 - w[5][l]) * HS_VN + l;
        }
        vslide hma = vslide_from(a, w[2]), hma3 = vslide_from(b, w[5]);
        hs_vi old_a = vi_loadu(ia), old_b = vi_loadu(ib), step = vi_set1(HS_VN);
        for (size_t i = blk;; i++) {
            vd_storeu(s->d + i * HS_VN, vd_sub(vslide_value(&hma3), vslide_value(&hma)));
            if (i + 1 >= end) break;
            vslide_step(&hma, vd_loadu(s->raw + (i + 1) * HS_VN), vd_gather(s->raw, old_a));
            vslide_step(&hma3, vd_loadu(s->raw3 + (i + 1) * HS_VN), vd_gather(s->raw3, old_b));
            old_a = vi_add(old_a, step);
            old_b = vi_add(old_b, step);
        }
    }
}

/* The books of every lane, read straight from the interleaved d.  First the certification: a lane with
 * any bar where |d| <= its TAU, or d is not finite, takes the slow path — its d copied out, ambiguous bars recomputed
 * in tier-0 order, certified_books.  Every other lane has no zero and no NaN, so (as in hs_books_over) a
 * cross is exactly a sign change between neighbours: one vector compare per bar finds the lanes whose
 * sign flipped, and only their books are visited, with the same hs_book_step as the reference. */
static inline __attribute__((always_inline)) void lanes_books(const double *close, size_t n, double keep, const lanes_scratch *s, int64_t (*w)[HS_VN],
                        const size_t *start, size_t second, int live, hs_outcome *out, hs_mtm *mtm) {
    hs_windows wl[HS_VN];
    size_t nc = s->chunks;
    for (int l = 0; l < HS_VN; l++) {
        for (int k = 0; k < 6; k++) wl[l].w[k] = w[k][l];
        certify_tau_from_max(s->chunk_max, nc, wl[l].w, eps_slide, certify_lookback(wl[l].w, SLIDE_BLOCK),
                             s->tau + (size_t)l * nc);
    }
    unsigned all = (1u << HS_VN) - 1, ambiguous = 0;
    for (int l = 0; l < HS_VN; l++)
        for (size_t i = start[l]; i < second; i++)
            ambiguous |= (unsigned)!certify_sure(s->d[i * HS_VN + l], s->tau[(size_t)l * nc + i / CERT_CHUNK]) << l;
    for (size_t c = second / CERT_CHUNK; c < nc; c++) {
        double tau[HS_VN];
        for (int l = 0; l < HS_VN; l++) tau[l] = s->tau[(size_t)l * nc + c];
        hs_vd vtau = vd_loadu(tau);
        size_t lo = c * CERT_CHUNK > second ? c * CERT_CHUNK : second, hi = c * CERT_CHUNK + CERT_CHUNK;
        for (size_t i = lo; i < hi && i < n; i++) ambiguous |= ~vd_certain_bits(vd_loadu(s->d + i * HS_VN), vtau) & all;
    }

    hs_book book[HS_VN];
    for (int l = 0; l < HS_VN; l++) {
        book[l] = hs_book_new(keep);
        if (l >= live || !(ambiguous >> l & 1)) continue;
        for (size_t i = start[l]; i < n; i++) s->lane_d[i] = s->d[i * HS_VN + l];
        out[l] = certified_books_bounded(s->lane_d, close, start[l], n, keep, &wl[l], s->tau + (size_t)l * nc, s->work,
                                         s->pipe, mtm ? &mtm[l] : NULL);
    }
    unsigned fast = ~ambiguous & all & ((1u << live) - 1);
    for (int l = 0; l < HS_VN; l++)
        if (fast >> l & 1)
            for (size_t i = start[l]; i <= second && i < n; i++)
                hs_book_step_mtm(&book[l], s->d[i * HS_VN + l], close[i], i, NULL, NULL, mtm ? &mtm[l] : NULL);
    unsigned prev = second < n ? vd_signbits(vd_loadu(s->d + second * HS_VN)) : 0;
    for (size_t i = second + 1; i < n; i++) {
        unsigned signs = vd_signbits(vd_loadu(s->d + i * HS_VN)), flips = (signs ^ prev) & fast;
        prev = signs;
        while (flips) {
            int l = __builtin_ctz(flips);
            flips &= flips - 1;
            hs_book_step_mtm(&book[l], s->d[i * HS_VN + l], close[i], i, NULL, NULL, mtm ? &mtm[l] : NULL);
        }
    }
    for (int l = 0; l < live; l++)
        if (fast >> l & 1) out[l] = hs_book_finish(&book[l], close[n - 1], n - 1);
}

/* One vector's worth of combos: `live` lanes carry real combos; the rest repeat lane 0's windows. */
static void sliding_lanes(const double *close, size_t n, const hs_windows *win, int live, double keep,
                          hs_outcome *out, lanes_scratch *s, hs_mtm *mtm) {
    int64_t w[6][HS_VN];
    size_t raw_from[HS_VN], raw3_from[HS_VN], start[HS_VN], first = 0, second = 0;
    for (int l = 0; l < HS_VN; l++) {
        const int64_t *src = win[l < live ? l : 0].w;
        for (int k = 0; k < 6; k++) w[k][l] = src[k];
        hs_first_bars f = hs_first_bars_of(src);
        raw_from[l] = f.raw;
        raw3_from[l] = f.raw3;
        start[l] = f.start;
        size_t lane_first = raw_from[l] > raw3_from[l] ? raw_from[l] : raw3_from[l];
        first = lane_first > first ? lane_first : first;
        second = start[l] > second ? start[l] : second;
    }
    /* Before the common starts, each lane's raw values and d come from direct (tier-0 order) sums. */
    for (int l = 0; l < HS_VN; l++) {
        for (size_t i = raw_from[l]; i < first && i < n; i++)
            s->raw[i * HS_VN + l] = hs_hma_raw(wma_tier0_at(close, i, w[0][l]), wma_tier0_at(close, i, w[1][l]));
        for (size_t i = raw3_from[l]; i < first && i < n; i++)
            s->raw3[i * HS_VN + l] = hs_hma3_raw(wma_tier0_at(close, i, w[3][l]), wma_tier0_at(close, i, w[4][l]),
                                                 wma_tier0_at(close, i, w[5][l]));
    }
    first_level(close, n, first, w, s);
    for (int l = 0; l < HS_VN; l++)
        for (size_t i = start[l]; i < second && i < n; i++) {
            slide_sums h = anchor_lane(s->raw, i, w[2][l], l), h3 = anchor_lane(s->raw3, i, w[5][l], l);
            s->d[i * HS_VN + l] = h3.s2 / hs_wma_denom(w[5][l]) - h.s2 / hs_wma_denom(w[2][l]);
        }
    second_level(n, second, w, s);
    /* Two copies of the books: without periods, mtm is the constant NULL there (the code before §9). */
    if (mtm) lanes_books(close, n, keep, s, w, start, second, live, out, mtm);
    else lanes_books(close, n, keep, s, w, start, second, live, out, NULL);
}

void HS_BATCH(sliding_lanes)(const double *close, size_t n, const hs_windows *win, size_t count,
                             double keep, hs_outcome *out, double *scratch, hs_mtm *mtm) {
    lanes_scratch s = split_scratch(scratch, n);
    certify_chunk_max(close, n, s.chunk_max);
    for (size_t c = 0; c < count;) {
        /* Lanes are filled with combos that leave some valid d; the others have no trades at all. */
        hs_windows lane_win[HS_VN];
        hs_mtm lane_mtm[HS_VN];
        size_t lane_of[HS_VN];
        int live = 0;
        for (; c < count && live < HS_VN; c++) {
            if (hs_first_bars_of(win[c].w).start >= n) {
                out[c] = hs_outcome_empty();
                continue;
            }
            lane_win[live] = win[c];
            if (mtm) lane_mtm[live] = mtm[c];
            lane_of[live++] = c;
        }
        if (!live) continue;
        hs_outcome r[HS_VN];
        sliding_lanes(close, n, lane_win, live, keep, r, &s, mtm ? lane_mtm : NULL);
        for (int l = 0; l < live; l++) {
            out[lane_of[l]] = r[l];
            if (mtm) mtm[lane_of[l]] = lane_mtm[l];
        }
    }
}

hs_outcome HS_COMBO(sliding_lanes)(const double *close, size_t n, const hs_windows *win, double keep, double *scratch,
                                   hs_mtm *mtm) {
    hs_outcome r;
    HS_BATCH(sliding_lanes)(close, n, win, 1, keep, &r, scratch, mtm);
    return r;
}
