"""hmasweep.signals (issue 28 item 5): every combo's entries, checked against the reference kernel's own
trade log (hmasweep.trade_log, src/api/trades.c: the port of `unchecked`), one combo at a time."""
import numpy as np
import pytest

import hmasweep as hs


def expected(close, windows):
    """(entries, short_entries) (bars, combos) from each combo's trade log: its entry bars by side."""
    n = len(close)
    longs, shorts = np.zeros((n, len(windows)), bool), np.zeros((n, len(windows)), bool)
    for c, w in enumerate(windows):
        log = hs.trade_log(close, windows=w)
        longs[log["entry_bar"][log["side"] == 1], c] = True
        shorts[log["entry_bar"][log["side"] == -1], c] = True
    return longs, shorts


@pytest.mark.parametrize("make", [
    lambda: hs.series(bars=20000),
    lambda: np.repeat(hs.series(seed=7, bars=600), 25),              # flat stretches: d exactly 0, certified
    lambda: 1.0 + 1e-12 * (np.arange(4000) % 2),                     # ulp-scale alternation
    lambda: np.round(hs.series(seed=3, bars=8000), 2),               # quote-like ticks
])
def test_entries_are_the_trade_logs(make):
    close = make()
    lengths = hs.grid(6, 120, 25)
    entries, shorts = hs.signals(close, lengths)
    want_long, want_short = expected(close, hs.windows(lengths))
    assert entries.shape == (len(close), 25) and entries.dtype == bool
    assert np.array_equal(entries, want_long) and np.array_equal(shorts, want_short)
    # and the sweep's trade count: every trade has one entry
    r = hs.sweep(close, lengths)
    assert np.array_equal(entries.sum(0) + shorts.sum(0), r.trades)


def test_2d_grid_columns_and_windows_follow_sweep():
    close = hs.series(bars=5000)
    entries, shorts = hs.signals(close, hma=[6, 20, 38], hma3=[10, 30])
    r = hs.sweep(close, hma=[6, 20, 38], hma3=[10, 30])
    want_long, want_short = expected(close, r.windows)
    assert np.array_equal(entries, want_long) and np.array_equal(shorts, want_short)


def test_threads_do_not_change_them():
    close = hs.series(bars=30000)
    one = hs.signals(close, threads=1)
    two = hs.signals(close, threads=2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two))


def test_a_series_gives_frames_on_its_index():
    pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install '.[pandas]')")
    s = pd.Series(hs.series(bars=3000), index=pd.date_range("2020-01-01", periods=3000, freq="h"))
    entries, shorts = hs.signals(s, [6, 38])
    assert list(entries.columns) == [6, 38] and entries.index.equals(s.index) and entries.dtypes.eq(bool).all()
    e2, _ = hs.signals(s, hma=[6, 8], hma3=[10])
    assert list(e2.columns) == [(6, 10), (8, 10)]
    bad = s.copy()
    bad.iloc[5] = np.nan
    with pytest.raises(ValueError, match=r"close\[5\] \(at 2020-01-01 05:00:00\) is NaN"):
        hs.signals(bad, [6])


def test_bad_requests():
    close = hs.series(bars=500)
    with pytest.raises(ValueError, match="one of them"):
        hs.signals(close, [6], windows=[[3, 6, 2, 1, 2, 3]])
    with pytest.raises(ValueError, match="both hma= and hma3="):
        hs.signals(close, hma=[6])
    with pytest.raises(ValueError, match="does not fit"):
        hs.signals(close, [600])
    with pytest.raises(TypeError, match="dtype"):
        hs.signals(close.astype(str), [6])
