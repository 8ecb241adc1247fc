"""The validation library (docs/spec.md §9.5-9.6, §9.4's Sharpe and Sortino) against peers no one here wrote,
on the same period returns, through ctypes.  Where a peer defines a figure differently, the test feeds it the
spec's definition when the peer lets it (purgedcv's pluggable PBO metric, the DSR's inputs) and says what
differs; reports/validation.md states every difference with figures.
- purgedcv (PyPI) probability_of_backtest_overfitting: its CSCV with the spec's metric, and with its own
  default Sharpe, gives the same pbo and the same logits (λ) as hs_cscv.  Its definitions that differ:
  its blocks are divmod-sized (the first P mod S blocks one longer; the spec's group g ends at
  floor((g+1)·P/S)), so the test uses P divisible by S; it counts λ < 0 where the spec counts λ <= 0 (rank
  exactly the median: possible only with ties or an odd N); a NaN metric is an error there, ranks below all
  here; its slope is cov/var with ddof 0, the same line as polyfit.
- purgedcv deflated_sharpe_ratio: the same DSR when given the same SR, skew, kurtosis and variance of trials;
  its own SR uses the population sd (ddof 0) and bias-corrected skew and kurtosis, the spec the sample sd
  (ddof 1) and the plain moment ratios.
- quantstats sharpe and sortino (annualize=False): the spec's period Sharpe and Sortino.
- pypbo (esvhd/pypbo, not on PyPI): its CSCV as its pbo.py (commit ddbc631) does it, written here from reading
  that file (pypbo_cscv below), gives the same pbo, logits, prob_oos_loss and line as hs_cscv where P is a
  multiple of S; where it is not, pypbo drops the first P mod S periods, and hs_cscv on the same trimmed
  returns agrees again.  pypbo's own test values (from the papers' worked examples: PSR, DSR, the expected
  maximum) against hs_deflated_sharpe."""
import math

import numpy as np
import pytest

import validation_support as vs

purgedcv = pytest.importorskip("purgedcv", reason="purgedcv: the PBO and DSR peer (pip install purgedcv)")
scipy_stats = pytest.importorskip("scipy.stats", reason="scipy: purgedcv's moments (pip install scipy)")


def rel_close(a, b, rel):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.all((np.abs(a - b) <= rel * np.maximum(np.abs(a), np.abs(b))) | (a == b)))


def spec_metric(x):
    """§9.5's metric on one slice of returns (the peer's callback): mean / sqrt(var), var with n − 1."""
    n = len(x)
    m1 = float(np.sum(x))
    m2 = float(np.sum(x * x))
    mean = m1 / n
    var = (m2 - m1 * mean) / (n - 1)
    return mean / math.sqrt(var)


@pytest.mark.parametrize("P,N,S,seed", [(64, 10, 8, 1), (48, 20, 6, 2), (60, 24, 10, 3), (40, 8, 4, 4)])
@pytest.mark.parametrize("metric", ["spec", "purgedcv"])
def test_pbo_equals_purgedcv(P, N, S, seed, metric):
    E = vs.random_equity(np.random.default_rng(seed), P, N)
    R = vs.returns_of(E)
    kwargs = {"metric": spec_metric} if metric == "spec" else {}
    peer = purgedcv.probability_of_backtest_overfitting(R.T, n_splits=S, **kwargs)
    got = vs.c_cscv(E, S)
    assert peer.n_combos == got["splits"] == got["kept"]
    # purgedcv walks the OUT-of-sample halves in lexicographic order: its combination k is split splits−1−k
    assert rel_close(peer.logits[::-1], got["lambdas"], 1e-12)
    assert peer.pbo == got["pbo"]
    assert rel_close(peer.is_oos_performance[::-1, 0], got["is_metric"], 1e-12)
    assert rel_close(peer.is_oos_performance[::-1, 1], got["oos_metric"], 1e-12)
    assert rel_close(peer.slope, got["slope"], 1e-9)


def test_dsr_equals_purgedcv_on_the_same_inputs():
    """Give both the same SR, skew, kurtosis, T and variance of the trials' Sharpes: the same DSR."""
    E = vs.random_equity(np.random.default_rng(7), 120, 40)
    E[:, 5] += np.arange(1, 121) * 0.2  # one combo with an edge
    R = vs.returns_of(E)
    _, raw = vs.c_period_stats(E)
    c = 5
    r = R[:, c]
    # purgedcv's own moments of combo c (population sd, bias-corrected skew and kurtosis) into its slot
    raw[c].period_sharpe = float(r.mean() / r.std(ddof=0))
    raw[c].skew = float(scipy_stats.skew(r, bias=False))
    raw[c].kurtosis = float(scipy_stats.kurtosis(r, bias=False, fisher=False))
    got = vs.c_dsr(raw, 40, 120, 0.0, c)
    want = purgedcv.deflated_sharpe_ratio(r, n_trials=40, var_sharpe=got["var_sr"])
    assert rel_close(got["dsr"], want, 1e-12), (got["dsr"], want)
    want_psr = purgedcv.probabilistic_sharpe_ratio(r, benchmark_skill=0.0)
    assert rel_close(got["psr0"], want_psr, 1e-12), (got["psr0"], want_psr)


def test_quantstats_period_sharpe_and_sortino():
    qs = pytest.importorskip("quantstats", reason="quantstats: the Sharpe/Sortino peer (pip install quantstats)")
    pd = pytest.importorskip("pandas", reason="pandas: quantstats' input (pip install pandas)")
    E = vs.random_equity(np.random.default_rng(11), 250, 12, scale=0.8) + np.arange(1, 251)[:, None] * 0.01
    R = vs.returns_of(E)
    stats, _ = vs.c_period_stats(E)
    for c in range(12):
        s = pd.Series(R[:, c], index=pd.date_range("2020-01-01", periods=250, freq="D"))
        assert s.min() < 0  # quantstats reads a series with min >= 0 and max > 1 as PRICES (pct_change)
        assert rel_close(qs.stats.sharpe(s, annualize=False), stats["period_sharpe"][c], 1e-12)
        assert rel_close(qs.stats.sortino(s, annualize=False), stats["sortino"][c], 1e-12)
        # its default annualises with 252 periods a year: the spec's period_sharpe·sqrt(ppy)
        assert rel_close(qs.stats.sharpe(s), stats["period_sharpe"][c] * math.sqrt(252), 1e-12)


# ---- pypbo's algorithm, written from reading esvhd/pypbo's pypbo/pbo.py (commit ddbc631), not copied -------
def pypbo_cscv(R, S, metric, threshold=0.0):
    """pypbo.pbo(M=R, S, metric_func, threshold): drop the first T mod S rows, S equal chunks, every
    combination of S/2 chunks in itertools order as the in-sample rows (concatenated in chunk order), the
    complement out of sample; scipy's average ranks; n* = argmax of the in-sample ranks; w = OOS rank/(N+1);
    pbo = share of logit(w) <= 0; prob_oos_loss = share of OOS metric(n*) < threshold; linregress."""
    import itertools
    from scipy.special import logit
    T, N = R.shape
    R = R[T % S:]
    sub = R.shape[0] // S
    chunks = [R[i * sub:(i + 1) * sub] for i in range(S)]
    logits, is_best, oos_best = [], [], []
    for J in itertools.combinations(range(S), S // 2):
        Jbar = [g for g in range(S) if g not in J]
        r_is = np.array([metric(c) for c in np.concatenate([chunks[g] for g in J]).T])
        r_oos = np.array([metric(c) for c in np.concatenate([chunks[g] for g in Jbar]).T])
        n_star = int(np.argmax(scipy_stats.rankdata(r_is)))
        w = scipy_stats.rankdata(r_oos)[n_star] / (N + 1)
        logits.append(logit(w))
        is_best.append(r_is[n_star])
        oos_best.append(r_oos[n_star])
    logits = np.array(logits)
    line = scipy_stats.linregress(is_best, oos_best)
    return {"pbo": float(np.mean(logits <= 0)), "logits": logits,
            "prob_oos_loss": float(np.mean(np.array(oos_best) < threshold)),
            "slope": line.slope, "intercept": line.intercept}


def pypbo_sharpe_iid(x):
    """pypbo.perf.metrics.sharpe_iid(x, log=True): the mean over the sample sd (ddof 1) of the returns."""
    return x.mean() / x.std(ddof=1)


@pytest.mark.parametrize("P,N,S,seed", [(64, 10, 8, 1), (48, 20, 6, 2), (60, 24, 10, 3), (120, 40, 8, 5)])
@pytest.mark.parametrize("metric", ["spec", "pypbo"])
def test_pbo_equals_pypbos_algorithm(P, N, S, seed, metric):
    E = vs.random_equity(np.random.default_rng(seed), P, N)
    R = vs.returns_of(E)
    peer = pypbo_cscv(R, S, spec_metric if metric == "spec" else pypbo_sharpe_iid)
    got = vs.c_cscv(E, S)
    assert got["kept"] == got["splits"] == len(peer["logits"])
    assert peer["pbo"] == got["pbo"]
    assert peer["prob_oos_loss"] == got["prob_oos_loss"]
    assert rel_close(peer["logits"], got["lambdas"], 1e-12)
    assert rel_close(peer["slope"], got["slope"], 1e-9) and rel_close(peer["intercept"], got["intercept"], 1e-9)


@pytest.mark.parametrize("P,S,seed", [(67, 8, 11), (50, 6, 12)])
def test_pbo_pypbo_drops_the_first_p_mod_s_periods(P, S, seed):
    """pypbo trims the first P mod S periods so that its chunks are equal; the spec keeps them (its groups
    end at floor((g+1)·P/S)).  On the trimmed returns the two agree again."""
    E = vs.random_equity(np.random.default_rng(seed), P, 16)
    R = vs.returns_of(E)
    peer = pypbo_cscv(R, S, spec_metric)
    trimmed = np.cumsum(R[P % S:], axis=0)  # an equity whose returns are the trimmed ones
    got = vs.c_cscv(trimmed, S)
    assert peer["pbo"] == got["pbo"]
    assert rel_close(peer["logits"], got["lambdas"], 1e-9)


def dsr_of(sharpes, chosen_stats, P, n_trials=0.0):
    """hs_deflated_sharpe on combos whose period Sharpes are `sharpes` (the first is chosen), with the chosen
    one's skew and kurtosis."""
    _, raw = vs.c_period_stats(np.cumsum(np.random.default_rng(0).standard_normal((8, len(sharpes))), axis=0))
    for c, sr in enumerate(sharpes):
        raw[c].period_sharpe = float(sr)
    raw[0].skew, raw[0].kurtosis = chosen_stats
    return vs.c_dsr(raw, len(sharpes), P, n_trials, 0)


def test_psr_dsr_and_expected_maximum_on_pypbos_worked_examples():
    """pypbo's tests/test_pbo.py values, from the papers' examples (Bailey & López de Prado): PSR 0.9132343...
    (SR 1.585/sqrt(12), T 24, skew -2.448, kurtosis 10.164), DSR 0.9003968... (SR 2.5/sqrt(250), V 0.5/250,
    N 100, T 1250, skew -3, kurtosis 10), and the expected maximum of 100 normals 2.5306028932..."""
    sr = 1.585 / math.sqrt(12)
    got = dsr_of([sr], (-2.448, 10.164), 24)
    assert rel_close(got["psr0"], 0.91323430688486018, 1e-12), got["psr0"]
    # two combos whose Sharpes' sample variance is V (the chosen one the larger), 100 trials
    sr, V = 2.5 / math.sqrt(250), 0.5 / 250
    got = dsr_of([sr, sr - math.sqrt(2 * V)], (-3.0, 10.0), 1250, n_trials=100.0)
    assert rel_close(got["var_sr"], V, 1e-14), got["var_sr"]
    assert rel_close(got["dsr"], 0.90039683444939034, 1e-12), got["dsr"]
    got = dsr_of([1.0, 1.0 - math.sqrt(2.0)], (0.0, 3.0), 100, n_trials=100.0)
    assert rel_close(got["sr0"], 2.5306028932016846, 1e-12), got["sr0"]
