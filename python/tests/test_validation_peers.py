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
- quantstats sharpe and sortino (annualize=False): the spec's period Sharpe and Sortino."""
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
