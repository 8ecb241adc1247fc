/* §9.2's drawdown over a held stretch, exact without e at every bar (equity.h).
 *
 * Over bars [a, b) held at a constant (pnl, pos, entry), e[j] = F(close[j]) with F(c) = pnl +
 * hs_trade_pnl(pos, entry, c, keep).  Every operation of F is monotone in c under IEEE rounding (c/entry
 * with entry > 0, ± that, 1 + r, ·keep with keep > 0, − 1, ·100, pnl + x): F is non-decreasing for a long
 * position and non-increasing for a short one.  fl(peak − x) is non-increasing in x.  So, with "best" the
 * close that maximises F (the highest for long, the lowest for short) and "worst" the one that minimises it:
 *   - if F(best) <= peak, no bar of the stretch raises the peak, and the largest fall is peak − F(worst);
 *   - otherwise, the peak only changes at a record (a close better than every one before it in the
 *     stretch), to max(peak, F(record)), and between two records the largest fall is peak − F(the worst
 *     close since the record).  F is evaluated at the records and at each run's worst close only.
 * Both give the per-bar loop's mdd = max(mdd, t_j) and final peak bit for bit (NaN falls are never
 * taken, as `t > mdd` never takes them).  At most two F per bar: no input makes it slower than a small
 * multiple of the per-bar loop.
 */
#include "equity.h"

static inline double mtm_at(const hs_mtm *m, double c) {
    return m->pnl + hs_trade_pnl((double)m->pos, m->entry, c, m->keep);
}

static inline void mtm_fall(hs_mtm *m, double e) {
    double t = m->peak - e;
    if (t > m->mdd) m->mdd = t;
}

/* The records of [a, b) in order; `sign` +1 long (better = higher), −1 short (better = lower). */
static void held_records(hs_mtm *m, size_t a, size_t b, double sign) {
    const double *c = m->close;
    double best = c[a], worst = c[a], e = mtm_at(m, best);
    if (e > m->peak) m->peak = e;
    for (size_t j = a + 1; j < b; j++) {
        double x = c[j];
        if (sign * x > sign * best) {
            mtm_fall(m, worst == best ? e : mtm_at(m, worst));
            best = worst = x;
            e = mtm_at(m, x);
            if (e > m->peak) m->peak = e;
        } else if (sign * x < sign * worst) {
            worst = x;
        }
    }
    mtm_fall(m, worst == best ? e : mtm_at(m, worst));
}

void hs_mtm_held(hs_mtm *m, size_t a, size_t b) {
    const double *c = m->close;
    double hi = c[a], lo = c[a];
    for (size_t j = a + 1; j < b; j++) {
        hi = c[j] > hi ? c[j] : hi;
        lo = c[j] < lo ? c[j] : lo;
    }
    double best = m->pos > 0 ? hi : lo, worst = m->pos > 0 ? lo : hi;
    if (!(mtm_at(m, best) > m->peak)) {
        mtm_fall(m, mtm_at(m, worst));
        return;
    }
    held_records(m, a, b, m->pos > 0 ? 1.0 : -1.0);
}
