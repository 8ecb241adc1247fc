"""hs.validate() and hs.plot_validation() (docs/python.md "Validation"): on a real sweep's equity matrix the
figures are the numpy oracle's (validation_support.py, written from docs/spec.md §9.4-§9.7): tier 0 bit for
bit, λ and the DSR within 1e-12; the walk-forward curve is the sum of the chosen combos' period returns; bad
input is a usage error that names the value."""
import math

import numpy as np
import pytest

import hmasweep as hs
import validation_support as vs

pytest.importorskip("scipy", reason="scipy: the DSR oracle's norm.cdf/ppf (pip install scipy)")


@pytest.fixture(scope="module")
def result():
    close = hs.series(seed=7, bars=12000)
    return hs.sweep(close, [6, 9, 14, 22, 35, 50, 80, 120], fee=0.0, periods=48)


def rel_close(a, b, rel=1e-12):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return bool(np.all((np.isnan(a) & np.isnan(b)) | (np.abs(a - b) <= rel * np.maximum(np.abs(a), np.abs(b)))))


@pytest.mark.parametrize("anchored", [False, True])
def test_validate_is_the_oracle(result, anchored):
    v = hs.validate(result, groups=8, walk_forward=(12, 6), anchored=anchored)
    want = vs.o_cscv(result.equity, 8)
    assert (v.groups, v.splits, v.kept) == (8, math.comb(8, 4), want["kept"])
    assert (v.pbo, v.prob_oos_loss) == (want["pbo"], want["prob_oos_loss"])
    assert list(v.split_choices) == [int(c) for c in want["chosen"]]
    assert v.is_sharpe.tobytes() == want["is_metric"].tobytes() and v.oos_sharpe.tobytes() == want["oos_metric"].tobytes()
    assert rel_close(v.lambdas, want["lambdas"]) and rel_close(v.degradation, (want["slope"], want["intercept"]))
    stats = vs.o_period_stats(result.equity)
    for k, name in enumerate(hs.PERIOD_STATS):
        assert v.stats[:, k].tobytes() == np.asarray(stats[name], dtype=np.float64).tobytes(), name
    dsr = vs.o_dsr(stats, result.equity.shape[0])
    assert (v.chosen, v.sharpe, v.trials, v.var_sharpe) == (dsr["chosen"], dsr["sr"], dsr["trials"], dsr["var_sr"])
    assert rel_close([v.sr0, v.dsr, v.psr0], [dsr["sr0"], dsr["dsr"], dsr["psr0"]])
    wf = vs.o_walk_forward(result.equity, 12, 6, anchored)
    assert list(v.wf_choices) == wf["choices"] and v.wf_equity.tobytes() == wf["oos_curve"].tobytes()
    assert v.wf_sharpe == wf["oos_sharpe"]


def test_walk_forward_curve_is_the_sum_of_the_chosen_period_returns(result):
    v = hs.validate(result, groups=4, walk_forward=(10, 7))
    E = result.equity
    R = np.diff(np.vstack([np.zeros(E.shape[1]), E]), axis=0)  # R[k-1] = E[k] - E[k-1], E[0] = 0
    combos = np.repeat(v.wf_choices, 7)
    assert list(v.wf_periods) == list(range(11, 11 + 7 * len(v.wf_choices)))
    assert np.array_equal(v.wf_equity, np.cumsum(R[v.wf_periods - 1, combos]))
    assert np.array_equal(v.best_equity, np.cumsum(R[v.wf_periods - 1, v.chosen]))


def test_explicit_trials_and_choice(result):
    v = hs.validate(result, groups=4, n_trials=1000.0, chosen=3)
    stats = vs.o_period_stats(result.equity)
    dsr = vs.o_dsr(stats, result.equity.shape[0], n_trials=1000.0, chosen=3)
    assert v.chosen == 3 and v.trials == 1000.0 and rel_close([v.dsr, v.sr0], [dsr["dsr"], dsr["sr0"]])
    assert v.wf_equity is None and v.wf_choices is None


def test_to_frame_and_annualised_figures(result):
    pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install pandas; CI installs it)")
    v = hs.validate(result, groups=4)
    frame = v.to_frame()
    assert list(frame.index) == list(result.lengths)
    assert "sharpe_annualised" not in frame.columns and v.annualised_sharpe is None  # bare prices: no year
    assert frame["chosen"].sum() == 1 and bool(frame["chosen"].iloc[v.chosen])
    assert frame["mtm_max_drawdown"].to_numpy().tobytes() == result.mtm_max_drawdown.tobytes()
    dated = pd.Series(hs.series(seed=7, bars=12000), index=pd.date_range("2001-01-01", periods=12000, freq="D"))
    r = hs.sweep(dated, [6, 9, 14, 22], fee=0.0, periods="M")
    w = hs.validate(r, groups=4)
    f = w.to_frame()
    assert r.periods_per_year == 12.0
    assert f["sharpe_annualised"].to_numpy().tobytes() == (f["sharpe_per_period"].to_numpy() * math.sqrt(12.0)).tobytes()
    assert f["annual_return"].to_numpy().tobytes() == (f["mean"].to_numpy() * 12.0).tobytes()
    assert f["calmar"].to_numpy().tobytes() == (f["annual_return"].to_numpy() / r.mtm_max_drawdown).tobytes()
    assert "annualised" in w.summary() and "PBO" in w.summary()


def test_bad_input_names_the_value(result):
    bare = hs.sweep(hs.series(seed=7, bars=3000), [6, 9])
    with pytest.raises(ValueError, match="validate\\(\\) needs a sweep with periods"):
        hs.validate(bare)
    for kwargs, message in (({"groups": 7}, "S = 7 is odd"), ({"groups": 50}, "S = 50"),
                            ({"groups": 22}, "S = 22 is above the cap"),
                            ({"groups": 4, "walk_forward": (0, 5)}, "train is 0 periods"),
                            ({"groups": 4, "walk_forward": (40, 9)}, "40"),
                            ({"groups": 4, "walk_forward": (5, 0)}, "test is 0"),
                            ({"groups": 4, "walk_forward": 5}, "walk_forward must be \\(train, test\\)"),
                            ({"groups": 4, "n_trials": float("nan")}, "n_trials must be a finite number > 0, got nan"),
                            ({"groups": 4, "n_trials": 0}, "n_trials must be a finite number > 0, got 0.0"),
                            ({"groups": 4, "chosen": 8}, "chosen = 8 is not a combo index")):
        with pytest.raises(ValueError, match=message):
            hs.validate(result, **kwargs)


def test_plot_validation_draws_three_panels(result, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib: not installed (pip install matplotlib; CI installs it)")
    v = hs.validate(result, groups=8, walk_forward=(12, 6))
    fig = hs.plot_validation(v, path=str(tmp_path / "v.png"))
    assert len(fig.axes) == 3 and (tmp_path / "v.png").stat().st_size > 10000
    hist, scatter, wf = fig.axes
    assert sum(p.get_height() for p in hist.patches) == np.isfinite(v.lambdas).sum()
    assert np.array_equal(wf.lines[0].get_ydata(), v.wf_equity)
    assert "PBO %.2f" % v.pbo in hist.get_title()
    import matplotlib.pyplot as plt
    plt.close(fig)
    assert len(hs.plot_validation(hs.validate(result, groups=4)).axes) == 2  # no walk-forward: two panels
