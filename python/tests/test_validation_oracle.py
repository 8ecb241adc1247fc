"""The C validation library (docs/spec.md §9.4-9.7) against the numpy oracle written from SPEC.md §9's text
(validation_support.py): the tier-0 figures bit for bit, the tier-1 ones within 1e-12 relative."""
import numpy as np
import pytest

import validation_support as vs


def needs_scipy():
    pytest.importorskip("scipy", reason="scipy: the DSR oracle's norm.cdf/ppf (pip install scipy)")


def bits_equal(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def close(a, b, rel=1e-12):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    ok = both_nan | (np.abs(a - b) <= rel * np.maximum(np.abs(a), np.abs(b))) | (a == b)
    return bool(ok.all())


def matrices():
    rng = np.random.default_rng(20261205)
    yield "random 48x23", vs.random_equity(rng, 48, 23)
    yield "random 37x9 (P odd)", vs.random_equity(rng, 37, 9, scale=3.0)
    yield "ties 60x16", vs.tied_equity(rng, 60, 16)
    yield "ties 31x11 (P odd)", vs.tied_equity(rng, 31, 11)
    drift = vs.random_equity(rng, 40, 12) + np.arange(1, 41)[:, None] * np.linspace(-0.5, 0.5, 12)
    yield "drift 40x12", drift


MATRICES = list(matrices())


@pytest.mark.parametrize("name,E", MATRICES, ids=[m[0] for m in MATRICES])
def test_period_stats_bit_for_bit(name, E):
    got, _ = vs.c_period_stats(E)
    want = vs.o_period_stats(E)
    for f in want:
        assert bits_equal(got[f], want[f]), (name, f, got[f], want[f])


@pytest.mark.parametrize("name,E", MATRICES, ids=[m[0] for m in MATRICES])
@pytest.mark.parametrize("S", [2, 4, 6, 10])
def test_cscv_against_oracle(name, E, S):
    got, want = vs.c_cscv(E, S), vs.o_cscv(E, S)
    assert got["splits"] == want["splits"] and got["kept"] == want["kept"]
    assert np.array_equal(got["chosen"], want["chosen"]), name
    for f in ("is_metric", "oos_metric"):  # the spec's metric, computed once each way: same bits
        assert bits_equal(got[f], want[f]), (name, f)
    assert bits_equal(got["pbo"], want["pbo"]) and bits_equal(got["prob_oos_loss"], want["prob_oos_loss"])
    assert close(got["lambdas"], want["lambdas"]), name
    assert close(got["slope"], want["slope"], 1e-11) and close(got["intercept"], want["intercept"], 1e-11), \
        (got["slope"], want["slope"], got["intercept"], want["intercept"])


def test_cscv_sixteen_groups():
    E = vs.random_equity(np.random.default_rng(16), 64, 7)
    got, want = vs.c_cscv(E, 16), vs.o_cscv(E, 16)
    assert got["splits"] == 12870 == want["splits"]
    assert np.array_equal(got["chosen"], want["chosen"])
    assert bits_equal(got["pbo"], want["pbo"]) and bits_equal(got["prob_oos_loss"], want["prob_oos_loss"])
    assert close(got["lambdas"], want["lambdas"])


def test_cscv_all_nan_splits_are_dropped():
    """S = P: each group holds one period, so every metric has n = S/2 periods; with S = 2 that is one period,
    n < 2, and every split is dropped."""
    E = vs.random_equity(np.random.default_rng(2), 2, 5)
    got = vs.c_cscv(E, 2)
    assert got["kept"] == 0 and np.isnan(got["pbo"]) and np.isnan(got["prob_oos_loss"])
    assert np.isnan(got["lambdas"]).all() and (got["chosen"] == vs.SIZE_MAX).all()


@pytest.mark.parametrize("name,E", MATRICES, ids=[m[0] for m in MATRICES])
@pytest.mark.parametrize("train,test,anchored", [(10, 5, False), (10, 5, True), (7, 3, False), (1, 1, True),
                                                 (20, 11, False)])
def test_walk_forward_against_oracle(name, E, train, test, anchored):
    got, want = vs.c_walk_forward(E, train, test, anchored), vs.o_walk_forward(E, train, test, anchored)
    assert got["folds"] == want["folds"] > 0
    assert got["choices"] == want["choices"], name
    assert bits_equal(got["oos_curve"], want["oos_curve"])
    assert bits_equal(got["oos_sharpe"], want["oos_sharpe"])


@pytest.mark.parametrize("name,E", MATRICES, ids=[m[0] for m in MATRICES])
def test_dsr_against_scipy(name, E):
    needs_scipy()
    P, N = E.shape
    stats, raw = vs.c_period_stats(E)
    for n_trials, chosen in ((0.0, None), (100.0, None), (2.5, 1), (0.0, N - 1)):
        got = vs.c_dsr(raw, N, P, n_trials, vs.SIZE_MAX if chosen is None else chosen)
        want = vs.o_dsr(stats, P, n_trials or None, chosen)
        assert got["chosen"] == want["chosen"]
        for f in ("sr", "trials", "var_sr"):
            assert bits_equal(got[f], want[f]), (f, got[f], want[f])
        for f in ("sr0", "dsr", "psr0"):
            assert close(got[f], want[f]), (name, f, got[f], want[f])


def test_normal_quantiles_in_the_tails():
    """Φ⁻¹ through the DSR's SR0 over a wide range of trial counts: SR0/sqrt(V) is the expected maximum z."""
    needs_scipy()
    from scipy.stats import norm
    E = vs.random_equity(np.random.default_rng(5), 30, 6)
    stats, raw = vs.c_period_stats(E)
    for n in (2.0, 2.000001, 3.0, 10.0, 1e3, 1e6, 1e9, 1e12, 1e15):
        got = vs.c_dsr(raw, 6, 30, n)
        z = (1 - 0.5772156649015329) * norm.ppf(1 - 1 / n) + 0.5772156649015329 * norm.ppf(1 - 1 / (n * np.e))
        assert close(got["sr0"], np.sqrt(got["var_sr"]) * z), (n, got["sr0"], np.sqrt(got["var_sr"]) * z)
