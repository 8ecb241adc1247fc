"""The fee and the statistics from Python (issue 17, docs/spec.md §8): sweep(close, lengths, fee=...),
r.stats / r.wins ..., r.to_frame(), statistic(), sweep_many and trades with fee=.  The oracle for the six
statistics is the trade log (hs_trade_log, the reference's own event loop): summed here in booking order,
in plain Python floats, as §8 writes them; the derived figures are §8's formulas written again in numpy."""
import math

import numpy as np
import pytest

import hmasweep

pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install '.[pandas]')")


def stats_from_log(log):
    """docs/spec.md §8's six fields from one combo's trade log, left to right."""
    wins, gp, gl, sq, pnl, peak, mdd, held = 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0
    for row in log.itertuples():
        p = row.pnl
        wins += p > 0
        gp += p if p > 0 else 0.0
        gl += p if p < 0 else 0.0
        sq += p * p
        pnl += p
        peak = max(peak, pnl)
        mdd = max(mdd, peak - pnl)
        held += row.exit_bar - row.entry_bar
    return (wins, gp, gl, sq, mdd, held), pnl


@pytest.mark.parametrize("fee", [None, 0.0, 0.0009, 0.003])
def test_stats_equal_the_trade_log(fee):
    close = hmasweep.series(seed=21, bars=5000)
    lengths = [2, 6, 13, 40, 200]
    r = hmasweep.sweep(close, lengths, fee=fee)
    assert r.fee == (0.0009 if fee is None else fee) and r.bars == 5000
    for k, L in enumerate(lengths):
        log = hmasweep.trades(close, L, fee=fee)
        want, pnl = stats_from_log(log)
        got = tuple(r.stats[k].item())
        assert got == want, (L, got, want)
        assert len(log) == r.trades[k] and pnl == r.pnl[k]  # bit for bit: the same sum in the same order
        assert r.wins[k] == want[0] and r.bars_held[k] == want[5] and r.max_drawdown[k] == want[4]
    # fee 0 and the default keep the trades; a fee only moves the books
    assert np.array_equal(hmasweep.sweep(close, lengths, fee=0.0).trades, r.trades)


def test_default_run_combos_0_to_2(default_series, golden):
    r = hmasweep.sweep(default_series, [6, 8, 10])
    assert r.pnl.tobytes() == golden["pnl"][:3].tobytes()  # the default fee is §4's bits
    for k, L in enumerate((6, 8, 10)):
        want, _ = stats_from_log(hmasweep.trades(default_series, L))
        assert tuple(r.stats[k].item()) == want
    assert r.wins.tolist() == [11471, 10024, 8544] and r.bars_held.tolist() == [149992, 149990, 149984]


def test_to_frame_columns_and_derived():
    close = hmasweep.series(seed=2, bars=3000)
    r = hmasweep.sweep(close, [6, 9, 2999], fee=0.001)
    df = r.to_frame()
    assert list(df.columns) == ["length", "hma_length", "hma3_length", "w0", "w1", "w2", "w3", "w4", "w5", "trades",
                                "pnl", "wins", "gross_profit", "gross_loss", "sum_sq", "max_drawdown", "bars_held",
                                "win_rate", "profit_factor", "mean_trade", "std_trade", "sharpe", "exposure"]
    assert len(df) == 3 and df["pnl"].to_numpy().tobytes() == r.pnl.tobytes()
    t = r.trades.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(t > 0, r.pnl / t, np.nan)
        std = np.where(t > 1, np.sqrt((r.sum_sq - t * (mean * mean)) / (t - 1)), np.nan)
        want = {
            "win_rate": np.where(t > 0, r.wins / t, np.nan),
            "profit_factor": np.where(r.gross_loss < 0, r.gross_profit / -r.gross_loss,
                                      np.where(r.gross_profit > 0, np.inf, np.nan)),
            "mean_trade": mean, "std_trade": std, "sharpe": mean / std, "exposure": r.bars_held / 3000.0,
        }
    for name, values in want.items():
        assert df[name].to_numpy().tobytes() == values.tobytes(), name
        assert hmasweep.statistic(r, name).tobytes() == values.tobytes()
    # L = 2999 (w1 = bars): no cross, no trade: the ratios are NaN, exposure 0
    assert r.trades[2] == 0 and math.isnan(df["win_rate"][2]) and math.isnan(df["sharpe"][2])
    assert math.isnan(df["profit_factor"][2]) and df["exposure"][2] == 0.0


def test_profit_factor_is_infinite_without_a_loss():
    # a rising series: every long wins; fee 0 so no trade is pulled below zero
    close = np.linspace(100.0, 200.0, 400) + np.where(np.arange(400) % 40 < 20, 0.0, 3.0)
    r = hmasweep.sweep(close, windows=[[1, 1, 1, 1, 1, 1], [2, 4, 2, 1, 2, 3]], fee=0.0)
    df = r.to_frame()
    no_loss = r.gross_loss == 0
    assert ((r.trades > 0) & no_loss & (r.gross_profit > 0)).any() or not no_loss.any()
    for k in np.flatnonzero((r.trades > 0) & no_loss & (r.gross_profit > 0)):
        assert df["profit_factor"][k] == np.inf


def test_2d_stats_and_heatmap_of_a_derived_stat(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib: not installed (pip install '.[plot]')")
    import matplotlib

    matplotlib.use("Agg")
    close = hmasweep.series(seed=8, bars=6000)
    r = hmasweep.sweep(close, hma=[6, 20, 41], hma3=[8, 30], fee=0.0005)
    df = r.to_frame()
    assert "length" not in df.columns and df["hma_length"].tolist() == [6, 6, 20, 20, 41, 41]
    ref = hmasweep.sweep(close, windows=r.windows, fee=0.0005)
    assert ref.stats.tobytes() == r.stats.tobytes()
    for stat in ("sharpe", "profit_factor", "max_drawdown", "win_rate", "exposure", "bars_held"):
        cells = hmasweep.heatmap(r, stat).axes[0].images[0].get_array()
        values = np.asarray(hmasweep.statistic(r, stat), dtype=float).reshape(3, 2)
        finite = np.isfinite(values)
        assert np.array_equal(np.ma.getdata(cells)[finite], values[finite]) and cells.mask[~finite].all()


@pytest.mark.parametrize("fee, message", [(-0.1, "fee = -0.1"), (1.0, "fee = 1"), (float("nan"), "fee = nan"),
                                          (float("inf"), "fee = inf")])
def test_bad_fee_is_valueerror(fee, message):
    close = hmasweep.series(bars=500)
    for call in (lambda: hmasweep.sweep(close, [6], fee=fee), lambda: hmasweep.trades(close, 6, fee=fee),
                 lambda: hmasweep.sweep_many({"A": close}, [6], fee=fee)):
        with pytest.raises(ValueError, match=message):
            call()
    with pytest.raises(TypeError, match="fee must be a float"):
        hmasweep.sweep(close, [6], fee="0.1")


def test_sweep_many_and_trades_take_the_fee():
    a, b = hmasweep.series(seed=1, bars=3000), hmasweep.series(seed=2, bars=2500)
    rows = hmasweep.sweep_many({"A": a, "B": b, "BAD": [1.0, float("nan")]}, [6, 20], fee=0.002, as_frame=False)
    for sym, close in (("A", a), ("B", b)):
        mine = rows[rows["symbol"] == sym]
        r = hmasweep.sweep(close, [6, 20], fee=0.002)
        for name in hmasweep.STATS_DTYPE.names:
            assert mine[name].tobytes() == r.stats[name].tobytes(), (sym, name)
        assert mine["pnl"].tobytes() == r.pnl.tobytes()
    bad = rows[rows["symbol"] == "BAD"]
    assert len(bad) == 1 and bad["wins"][0] == 0 and bad["max_drawdown"][0] == 0.0
    log = hmasweep.trades(a, 20, fee=0.002)
    assert float(np.cumsum(log["pnl"].to_numpy())[-1]) == hmasweep.sweep(a, [20], fee=0.002).pnl[0]
    eq = hmasweep.equity(a, 20, fee=0.002)
    assert eq[-1] == hmasweep.sweep(a, [20], fee=0.002).pnl[0]
    # this series reverses on its last bar: two trades close there (equity[-1] used to keep only one)
    assert log["exit_bar"].iloc[-1] == log["exit_bar"].iloc[-2] == 2999
    assert hmasweep.equity(a, 20)[-1] == hmasweep.sweep(a, [20]).pnl[0]
