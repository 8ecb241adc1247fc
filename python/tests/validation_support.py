"""The C validation calls (docs/spec.md §9.4-9.7) through ctypes, and an oracle for them in numpy written from
SPEC.md §9's text alone (python/tests/test_validation*.py).

The oracle's sums are plain left-to-right double sums (a Python loop over the periods or groups, adding whole
rows, so each combo's sum runs in order), every product is rounded before its add (numpy never fuses), and
sqrt and division are IEEE: its tier-0 figures must equal the C library's bit for bit."""
import ctypes
import glob
import itertools
import math
import os

import numpy as np

# ---- the C library ---------------------------------------------------------------------------------------


def _library_path():
    """libhmasweep.so of the build under test: $HS_LIBHMASWEEP, else next to $HS_CLI (ctest sets it), else
    the release build of the source tree."""
    if os.environ.get("HS_LIBHMASWEEP"):
        return os.environ["HS_LIBHMASWEEP"]
    candidates = []
    if os.environ.get("HS_CLI"):
        candidates.append(os.path.dirname(os.environ["HS_CLI"].split()[-1]))
    source = os.environ.get("HS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    candidates.append(os.path.join(source, "build", "release"))
    for d in candidates:
        found = sorted(glob.glob(os.path.join(d, "libhmasweep.so*")))
        if found:
            return found[0]
    raise FileNotFoundError("libhmasweep.so not found (set HS_LIBHMASWEEP, or build the release preset)")


class PeriodStats(ctypes.Structure):
    _fields_ = [(f, ctypes.c_double) for f in ("mean", "sd", "period_sharpe", "sortino", "skew", "kurtosis")]


class CscvResult(ctypes.Structure):
    _fields_ = [("groups", ctypes.c_size_t), ("splits", ctypes.c_size_t), ("kept", ctypes.c_size_t),
                ("pbo", ctypes.c_double), ("prob_oos_loss", ctypes.c_double), ("slope", ctypes.c_double),
                ("intercept", ctypes.c_double)]


class DsrResult(ctypes.Structure):
    _fields_ = [("chosen", ctypes.c_size_t)] + [(f, ctypes.c_double) for f in
                                                ("sr", "trials", "var_sr", "sr0", "dsr", "psr0")]


class WalkForwardResult(ctypes.Structure):
    _fields_ = [("train", ctypes.c_size_t), ("test", ctypes.c_size_t), ("folds", ctypes.c_size_t),
                ("anchored", ctypes.c_int), ("oos_sharpe", ctypes.c_double)]


class Error(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * 320)]


class UsageError(Exception):
    def __init__(self, status, message):
        super().__init__("status %d: %s" % (status, message))
        self.status = status
        self.message = message


_lib = None
SIZE_MAX = ctypes.c_size_t(-1).value


def lib():
    global _lib
    if _lib is None:
        L = ctypes.CDLL(_library_path())
        dp, sz = ctypes.POINTER(ctypes.c_double), ctypes.c_size_t
        L.hs_period_stats_of.argtypes = [dp, sz, sz, ctypes.POINTER(PeriodStats), ctypes.POINTER(Error)]
        L.hs_cscv_splits.argtypes = [sz]
        L.hs_cscv_splits.restype = sz
        L.hs_cscv.argtypes = [dp, sz, sz, sz, ctypes.POINTER(CscvResult), dp, dp, dp, ctypes.POINTER(sz),
                              ctypes.POINTER(Error)]
        L.hs_deflated_sharpe.argtypes = [ctypes.POINTER(PeriodStats), sz, sz, ctypes.c_double, sz,
                                         ctypes.POINTER(DsrResult), ctypes.POINTER(Error)]
        L.hs_walk_forward_folds.argtypes = [sz, sz, sz]
        L.hs_walk_forward_folds.restype = sz
        L.hs_walk_forward.argtypes = [dp, sz, sz, sz, sz, ctypes.c_int, ctypes.POINTER(sz), dp,
                                      ctypes.POINTER(WalkForwardResult), ctypes.POINTER(Error)]
        for f in (L.hs_period_stats_of, L.hs_cscv, L.hs_deflated_sharpe, L.hs_walk_forward):
            f.restype = ctypes.c_int
        _lib = L
    return _lib


def _dp(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double)) if a is not None else None


def _check(status, err):
    if status != 0:
        raise UsageError(status, err.msg.decode())


def c_period_stats(E):
    E = np.ascontiguousarray(E, dtype=np.float64)
    P, N = E.shape
    out = (PeriodStats * max(N, 1))()
    err = Error()
    _check(lib().hs_period_stats_of(_dp(E), P, N, out, ctypes.byref(err)), err)
    return {f: np.array([getattr(out[c], f) for c in range(N)]) for f, _ in PeriodStats._fields_}, out


def c_cscv(E, groups):
    E = np.ascontiguousarray(E, dtype=np.float64)
    P, N = E.shape
    n = lib().hs_cscv_splits(groups)
    lam, ism, oosm = (np.full(max(n, 1), -7.0) for _ in range(3))
    chosen = (ctypes.c_size_t * max(n, 1))()
    res, err = CscvResult(), Error()
    _check(lib().hs_cscv(_dp(E), P, N, groups, ctypes.byref(res), _dp(lam), _dp(ism), _dp(oosm), chosen,
                         ctypes.byref(err)), err)
    return {"groups": res.groups, "splits": res.splits, "kept": res.kept, "pbo": res.pbo,
            "prob_oos_loss": res.prob_oos_loss, "slope": res.slope, "intercept": res.intercept,
            "lambdas": lam[:n], "is_metric": ism[:n], "oos_metric": oosm[:n],
            "chosen": np.array([chosen[i] for i in range(n)], dtype=np.uint64)}


def c_dsr(stats_array, N, P, n_trials=0.0, chosen=SIZE_MAX):
    res, err = DsrResult(), Error()
    _check(lib().hs_deflated_sharpe(stats_array, N, P, n_trials, chosen, ctypes.byref(res), ctypes.byref(err)), err)
    return {f: getattr(res, f) for f, _ in DsrResult._fields_}


def c_walk_forward(E, train, test, anchored):
    E = np.ascontiguousarray(E, dtype=np.float64)
    P, N = E.shape
    folds = lib().hs_walk_forward_folds(P, train, test)
    choices = (ctypes.c_size_t * max(folds, 1))()
    curve = np.full(max(folds * test, 1), -7.0)
    res, err = WalkForwardResult(), Error()
    _check(lib().hs_walk_forward(_dp(E), P, N, train, test, int(anchored), choices, _dp(curve), ctypes.byref(res),
                                 ctypes.byref(err)), err)
    return {"folds": res.folds, "oos_sharpe": res.oos_sharpe, "choices": [choices[i] for i in range(folds)],
            "oos_curve": curve[:folds * test]}


# ---- the oracle, from SPEC.md §9's text ---------------------------------------------------------------------


def returns_of(E):
    """§9.3: R[k] = E[k] − E[k−1], E[0] = 0.0 (rows of E are periods 1..P)."""
    E = np.asarray(E, dtype=np.float64)
    prev = np.vstack([np.zeros((1, E.shape[1])), E[:-1]])
    return E - prev


def o_period_stats(E):
    """§9.4 for every combo."""
    R = returns_of(E)
    P, N = R.shape
    with np.errstate(all="ignore"):
        s = np.zeros(N)
        for k in range(P):
            s = s + R[k]
        mean = s / P
        d2 = np.zeros(N); d3 = np.zeros(N); d4 = np.zeros(N); neg = np.zeros(N)
        for k in range(P):
            d = R[k] - mean
            dd = d * d
            d2 = d2 + dd
            d3 = d3 + dd * d
            d4 = d4 + dd * dd
            m = np.minimum(R[k], 0.0)
            neg = neg + m * m
        sd = np.sqrt(d2 / (P - 1)) if P >= 2 else np.full(N, np.nan)
        sharpe = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.nan)
        root = np.sqrt(neg / P)
        sortino = np.where(root != 0, mean / np.where(root != 0, root, 1.0), np.nan)
        m2, m3, m4 = d2 / P, d3 / P, d4 / P
        skew = m3 / (m2 * np.sqrt(m2))
        kurt = m4 / (m2 * m2)
    return {"mean": mean, "sd": sd, "period_sharpe": sharpe, "sortino": sortino, "skew": skew, "kurtosis": kurt}


def o_metric(n, m1, m2):
    """§9.5's metric: mean/sqrt(var) when n >= 2 and var > 0, else NaN."""
    with np.errstate(all="ignore"):
        if n < 2:
            return np.full(np.shape(m1), np.nan)
        mean = m1 / n
        var = (m2 - m1 * mean) / (n - 1)
        return np.where(var > 0, mean / np.sqrt(np.where(var > 0, var, 1.0)), np.nan)


def o_argmax(m):
    """The largest (NaN below every number), ties the lowest index; None when all are NaN."""
    ok = ~np.isnan(m)
    if not ok.any():
        return None
    top = np.max(m[ok])
    return int(np.flatnonzero(ok & (m == top))[0])


def o_groups(P, S):
    """Group g: the periods k (1-based) with floor(g·P/S) < k <= floor((g+1)·P/S), as 0-based rows."""
    return [range(g * P // S, (g + 1) * P // S) for g in range(S)]


def o_cscv(E, S):
    R = returns_of(E)
    P, N = R.shape
    groups = o_groups(P, S)
    s1 = []; s2 = []
    for rows in groups:
        a = np.zeros(N); b = np.zeros(N)
        for k in rows:
            a = a + R[k]
            b = b + R[k] * R[k]
        s1.append(a); s2.append(b)
    sizes = [len(r) for r in groups]

    def side(G):
        m1 = np.zeros(N); m2 = np.zeros(N)
        for g in G:
            m1 = m1 + s1[g]
            m2 = m2 + s2[g]
        return sum(sizes[g] for g in G), m1, m2

    lam, ism, oosm, chosen, overfit, loss = [], [], [], [], [], []
    for J in itertools.combinations(range(S), S // 2):
        Jc = [g for g in range(S) if g not in J]
        n_in, m1_in, m2_in = side(J)
        n_out, m1_out, m2_out = side(Jc)
        mi, mo = o_metric(n_in, m1_in, m2_in), o_metric(n_out, m1_out, m2_out)
        best = o_argmax(mi)
        if best is None:
            lam.append(np.nan); ism.append(np.nan); oosm.append(np.nan); chosen.append(SIZE_MAX)
            continue
        v = mo[best]
        if np.isnan(v):
            less, equal = 0, int(np.isnan(mo).sum())
        else:
            less = int((np.isnan(mo) | (mo < v)).sum())
            equal = int((mo == v).sum())
        rank = 1 + less + (equal - 1) / 2
        omega = rank / (N + 1)
        lam.append(math.log(omega / (1 - omega)))
        ism.append(mi[best]); oosm.append(v); chosen.append(best)
        overfit.append(2 * rank <= N + 1)
        loss.append(m1_out[best] < 0)
    kept = len(overfit)
    ism, oosm = np.array(ism), np.array(oosm)
    ok = np.isfinite(ism) & np.isfinite(oosm)
    slope = intercept = np.nan
    if ok.sum() >= 2 and np.ptp(ism[ok]) > 0:
        slope, intercept = np.polyfit(ism[ok], oosm[ok], 1)
    return {"splits": math.comb(S, S // 2), "kept": kept,
            "pbo": sum(overfit) / kept if kept else np.nan, "prob_oos_loss": sum(loss) / kept if kept else np.nan,
            "lambdas": np.array(lam), "is_metric": ism, "oos_metric": oosm,
            "chosen": np.array(chosen, dtype=np.uint64), "slope": slope, "intercept": intercept}


def o_walk_forward(E, train, test, anchored):
    R = returns_of(E)
    P, N = R.shape
    choices, rets = [], []
    f = 0
    while f * test + train + test <= P:
        lo = 0 if anchored else f * test
        hi = f * test + train
        m1 = np.zeros(N); m2 = np.zeros(N)
        for k in range(lo, hi):
            m1 = m1 + R[k]
            m2 = m2 + R[k] * R[k]
        m = o_metric(hi - lo, m1, m2)
        best = o_argmax(m)
        best = 0 if best is None else best
        choices.append(best)
        rets.extend(R[hi:hi + test, best])
        f += 1
    curve = []
    acc = 0.0
    for r in rets:
        acc = acc + r
        curve.append(acc)
    sharpe = o_period_stats(np.array(curve).reshape(-1, 1))["period_sharpe"][0] if rets else np.nan
    return {"folds": f, "choices": choices, "oos_curve": np.array(curve), "oos_sharpe": sharpe}


def o_dsr(stats, P, n_trials=None, chosen=None):
    """§9.6 with scipy's norm (López de Prado's formula)."""
    from scipy.stats import norm
    sr_all = stats["period_sharpe"]
    fin = np.isfinite(sr_all)
    if chosen is None:
        if not fin.any():
            return None
        top = np.max(sr_all[fin])
        chosen = int(np.flatnonzero(fin & (sr_all == top))[0])
    K = int(fin.sum())
    vals = sr_all[fin]
    s = 0.0
    for x in vals:
        s = s + x
    mean = s / K if K else np.nan
    ss = 0.0
    for x in vals:
        ss = ss + (x - mean) * (x - mean)
    V = ss / (K - 1) if K >= 2 else np.nan
    N = n_trials if n_trials else K
    g = 0.5772156649015329
    SR = sr_all[chosen]
    g3, g4 = stats["skew"][chosen], stats["kurtosis"][chosen]
    sr0 = math.sqrt(V) * ((1 - g) * norm.ppf(1 - 1 / N) + g * norm.ppf(1 - 1 / (N * math.e))) if N >= 2 else np.nan
    arg = 1 - g3 * SR + (g4 - 1) / 4 * SR * SR
    ok = P >= 2 and arg > 0
    dsr = norm.cdf((SR - sr0) * math.sqrt(P - 1) / math.sqrt(arg)) if ok and N >= 2 else np.nan
    psr0 = norm.cdf(SR * math.sqrt(P - 1) / math.sqrt(arg)) if ok else np.nan
    return {"chosen": chosen, "sr": SR, "trials": N, "var_sr": V, "sr0": sr0, "dsr": dsr, "psr0": psr0}


# ---- matrices ---------------------------------------------------------------------------------------------


def random_equity(rng, P, N, scale=1.0):
    """A random walk per combo: E = running sum of normal returns (left to right)."""
    R = rng.standard_normal((P, N)) * scale
    return np.cumsum(R, axis=0)


def tied_equity(rng, P, N):
    """Returns from {-1, 0, 1, 2}: many combos share metrics exactly (ties in every rank), plus duplicated
    columns, an all-zero column (NaN metric everywhere) and a constant-return column."""
    R = rng.integers(-1, 3, size=(P, N)).astype(np.float64)
    R[:, 1] = R[:, 0]
    R[:, 2] = 0.0
    R[:, 3] = 0.25
    return np.cumsum(R, axis=0)
