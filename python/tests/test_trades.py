"""trades() and plot(): one combo's trade log from the library (hs_trade_log).  Summing its PnL in order
gives sweep()'s PnL bit for bit and its row count equals sweep()'s trades."""
import importlib.util

import numpy as np
import pytest

import hmasweep
from hmasweep.trades import trade_log


def in_order(values):
    total = 0.0
    for v in values:  # left to right, as the kernel books (np.sum would sum pairwise)
        total += float(v)
    return total


@pytest.mark.parametrize("seed,bars,length", [(42, 150000, 6), (42, 150000, 197), (3, 2000, 31), (8, 50, 2)])
def test_trade_log_reproduces_the_sweep(seed, bars, length):
    close = hmasweep.series(seed=seed, bars=bars)
    r = hmasweep.sweep(close, [length], variant="unchecked")
    log = trade_log(close, length)
    assert log.dtype == hmasweep.TRADE_DTYPE
    assert len(log) == r.trades[0]
    assert in_order(log["pnl"]) == r.pnl[0]
    if len(log):
        assert set(np.unique(log["side"])) <= {-1, 1}
        assert np.all(log["entry_bar"] <= log["exit_bar"]) and np.all(np.diff(log["entry_bar"]) > 0)
        np.testing.assert_array_equal(log["entry_price"], close[log["entry_bar"]])
        np.testing.assert_array_equal(log["exit_price"], close[log["exit_bar"]])
        # stop and reverse: each trade opens where the previous one closed, on the other side
        np.testing.assert_array_equal(log["entry_bar"][1:], log["exit_bar"][:-1])
        assert np.all(log["side"][1:] == -log["side"][:-1])


def test_fingerprint_trades():
    log = trade_log(hmasweep.series(), 6)
    assert len(log) == 57029 and in_order(log["pnl"]) == -5165.5799542358627


def test_trades_any_windows_and_errors():
    close = hmasweep.series(seed=4, bars=3000)
    w = [3, 6, 2, 9, 2, 3]
    r = hmasweep.sweep(close, windows=w, variant="unchecked")
    log = trade_log(close, windows=w)
    assert len(log) == r.trades[0] and in_order(log["pnl"]) == r.pnl[0]
    with pytest.raises(ValueError):
        trade_log(close, 1)
    with pytest.raises(ValueError):
        trade_log(close)
    bad = close.copy()
    bad[5] = np.nan
    with pytest.raises(ValueError, match=r"close\[5\]"):
        trade_log(bad, 6)


@pytest.mark.skipif(importlib.util.find_spec("pandas") is None, reason="pandas is not installed")
def test_trades_is_a_dataframe_with_pandas():
    import pandas as pd

    df = hmasweep.trades(hmasweep.series(seed=2, bars=5000), 20)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["entry_bar", "exit_bar", "side", "entry_price", "exit_price", "pnl"]


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed")
def test_plot_writes_both_figures(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    close = hmasweep.series(seed=2, bars=5000)
    out = tmp_path / "fig.png"
    sweep_fig, combo_fig = hmasweep.plot(close, hmasweep.grid(6, 60, 12), span=(1000, 1500), path=out)
    assert out.stat().st_size > 10000
    assert len(sweep_fig.axes) == 2 and len(combo_fig.axes) == 2


def test_trade_log_inputs():
    close = hmasweep.series(seed=6, bars=800)
    ref = trade_log(close, 12)
    for x in (close.tolist(), close.astype(">f8"), np.repeat(close, 2)[::2]):
        got = trade_log(x, 12)  # compare fields: the padding after `side` is not data
        assert all(got[f].tobytes() == ref[f].tobytes() for f in ref.dtype.names)
    with pytest.raises(ValueError, match="integers"):
        trade_log(close, 6.5)
    with pytest.raises(ValueError, match="1-D"):
        trade_log(np.vstack([close, close]), 6)
    with pytest.raises(ValueError, match="does not fit"):
        trade_log(close[:10], 12)
