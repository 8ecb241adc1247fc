/* live_lanes — one live bar for a group of combos in vector lanes (src/live/live_lanes.h).
 *
 * The arithmetic of src/live/live.c's scalar path (the `sliding` variant's, run forward), lane by lane: each
 * running sum slides by S2 += w·x_new − S1; S1 += x_new − x_old, with the leaving value gathered per lane
 * (lanes have different windows), and is re-anchored by a direct sum every SLIDE_BLOCK bars.  The sums'
 * values differ from the scalar path's only within the a-priori bound of certify.h (the anchors fall on
 * other bars), and a sign is trusted only where that bound certifies it, so the books see the
 * reference's signs: bit-identical to batch, on every ISA.  live.c does the rest (uncertified lanes,
 * books, warm-up). */
#include <string.h>

#include "certify.h"
#include "live_lanes.h"
#include "vec.h"

int HS_CAT3(hs_live_lanes_width__, HS_ISA_SUFFIX, )(void) { return HS_VN; }

static inline void vslide(live_group *g, int k, hs_vd x_new, hs_vd x_old) {
    hs_vd s1 = vd_loadu(g->s1[k]), s2 = vd_loadu(g->s2[k]);
    s2 = vd_add(s2, vd_sub(vd_mul(vd_loadu(g->wd[k]), x_new), s1));
    s1 = vd_add(s1, vd_sub(x_new, x_old));
    vd_storeu(g->s1[k], s1);
    vd_storeu(g->s2[k], s2);
}

static inline hs_vd vvalue(const live_group *g, int k) { return vd_mul(vd_loadu(g->s2[k]), vd_loadu(g->inv[k])); }

/* Direct sums over an interleaved tail: the w entries ending at entry e, lane l. */
static slide_sums anchor_interleaved(const double *p, size_t e, int64_t w, int l) {
    slide_sums s = {0.0, 0.0};
    const double *base = p + (e + 1 - (size_t)w) * HS_VN + (size_t)l;
    for (int64_t j = 0; j < w; j++) {
        double v = base[(size_t)j * HS_VN];
        s.s1 += v;
        s.s2 += v * (double)(j + 1);
    }
    return s;
}

/* Push one entry (HS_VN doubles) onto an interleaved tail; returns the new entry's index. */
static inline size_t push_entry(double *p, size_t *len, size_t keep, hs_vd v) {
    if (*len == 2 * keep) {
        memmove(p, p + (*len - keep) * HS_VN, keep * HS_VN * sizeof *p);
        *len = keep;
    }
    vd_storeu(p + *len * HS_VN, v);
    return (*len)++;
}

unsigned HS_CAT3(hs_live_lanes_step__, HS_ISA_SUFFIX, )(live_group *g, const double *close, size_t last, double m,
                                                      int anchor, unsigned *signs) {
    if (anchor) {
        for (int k = SUM_W0; k <= SUM_W5; k++)
            for (int l = 0; l < HS_VN; l++) {
                slide_sums a = slide_anchor(close, last, g->w[k][l]);
                g->s1[k][l] = a.s1;
                g->s2[k][l] = a.s2;
            }
    } else {
        hs_vd x_new = vd_set1(close[last]);
        const double *newest = close + last;
        for (int k = SUM_W0; k <= SUM_W5; k++) vslide(g, k, x_new, vd_gather(newest, vi_loadu(g->back_close[k])));
    }
    hs_vd raw = vd_sub(vd_mul(vd_set1(2.0), vvalue(g, SUM_W0)), vvalue(g, SUM_W1));
    hs_vd raw3 = vd_sub(vd_sub(vd_mul(vd_set1(3.0), vvalue(g, SUM_W3)), vvalue(g, SUM_W4)), vvalue(g, SUM_W5));
    size_t e = push_entry(g->raw, &g->raw_len, g->raw_keep, raw);
    size_t e3 = push_entry(g->raw3, &g->raw3_len, g->raw3_keep, raw3);
    if (anchor) {
        for (int l = 0; l < HS_VN; l++) {
            slide_sums a = anchor_interleaved(g->raw, e, g->w[SUM_HMA][l], l);
            slide_sums b = anchor_interleaved(g->raw3, e3, g->w[SUM_HMA3][l], l);
            g->s1[SUM_HMA][l] = a.s1, g->s2[SUM_HMA][l] = a.s2;
            g->s1[SUM_HMA3][l] = b.s1, g->s2[SUM_HMA3][l] = b.s2;
        }
    } else {
        vslide(g, SUM_HMA, raw, vd_gather(g->raw + e * HS_VN, vi_loadu(g->back_raw[0])));
        vslide(g, SUM_HMA3, raw3, vd_gather(g->raw3 + e3 * HS_VN, vi_loadu(g->back_raw[1])));
    }
    hs_vd d = vd_sub(vvalue(g, SUM_HMA3), vvalue(g, SUM_HMA));
    vd_storeu(g->d, d);
    if (m != g->tau_m) { /* the local maximum moved: every lane's threshold (certify_threshold_eps) */
        for (int l = 0; l < HS_VN; l++)
            g->tau[l] = m >= 0x1p-900 && m <= g->range_max[l] ? 4.0 * (g->coef[l] * m) : INFINITY;
        g->tau_m = m;
    }
    *signs = vd_signbits(d);
    return vd_certain_bits(d, vd_loadu(g->tau));
}
