"""pandas-native (issue 18 §2): sweep() of a Series, trades() with entry_time/exit_time from a
DatetimeIndex, equity() per bar checked against the trade log, sweep_many() of a wide DataFrame."""
import numpy as np
import pytest

import hmasweep

pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install pandas; CI installs it)")


def dated(close, start="2020-01-01", freq="h"):
    return pd.Series(close, index=pd.date_range(start, periods=len(close), freq=freq), name="close")


def test_sweep_accepts_a_series():
    close = hmasweep.series(seed=3, bars=4000)
    ref = hmasweep.sweep(close, [6, 38], variant="unchecked")
    for s in (dated(close), pd.Series(close), dated(np.repeat(close, 2))[::2]):
        r = hmasweep.sweep(s, [6, 38], variant="unchecked")
        assert r.pnl.tobytes() == ref.pnl.tobytes() and list(r.trades) == list(ref.trades)
    bad = dated(close)
    bad.iloc[7] = np.nan
    with pytest.raises(ValueError, match=r"close\[7\] \(at %s\) is NaN" % bad.index[7]):  # the timestamp too
        hmasweep.sweep(bad, [6])


def test_trades_carry_the_datetime_index():
    s = dated(hmasweep.series(seed=5, bars=3000), start="2021-03-01 09:00", freq="min")
    log = hmasweep.trades(s, 12)
    plain = hmasweep.trade_log(s.to_numpy(), 12)
    assert list(log.columns) == ["entry_bar", "exit_bar", "entry_time", "exit_time", "side", "entry_price",
                                 "exit_price", "pnl"]
    assert len(log) == len(plain) > 10
    # the timestamps are the index at the (positional) bars: minute k after the start
    start = pd.Timestamp("2021-03-01 09:00")
    assert list(log["entry_time"]) == [start + pd.Timedelta(minutes=int(b)) for b in plain["entry_bar"]]
    assert list(log["exit_time"]) == [start + pd.Timedelta(minutes=int(b)) for b in plain["exit_bar"]]
    assert log["entry_time"].dtype.kind == "M"
    # a plain ndarray or a RangeIndex Series: no time columns
    assert "entry_time" not in hmasweep.trades(s.to_numpy(), 12).columns
    assert "entry_time" not in hmasweep.trades(s.reset_index(drop=True), 12).columns


def equity_by_loop(close, log):
    """The definition in docs/python.md, bar by bar from the trade log: booked PnL through bar i plus the
    open trade's PnL if it were closed at close[i]."""
    out = np.zeros(len(close))
    booked, k = 0.0, 0
    for i in range(len(close)):
        while k < len(log) and log["exit_bar"][k] <= i:
            booked += float(log["pnl"][k])
            k += 1
        value = booked
        if k < len(log) and log["entry_bar"][k] <= i:
            r = float(log["side"][k]) * (float(close[i]) / float(log["entry_price"][k]) - 1.0)
            value += ((1.0 + r) * (1.0 - 0.0009) - 1.0) * 100.0
        out[i] = value
    return out


@pytest.mark.parametrize("seed,bars,length", [(42, 20000, 6), (7, 3000, 31), (8, 50, 2), (9, 400, 120)])
def test_equity_against_the_trade_log(seed, bars, length):
    close = hmasweep.series(seed=seed, bars=bars)
    log = hmasweep.trade_log(close, length)
    eq = hmasweep.equity(close, length)
    assert isinstance(eq, np.ndarray) and eq.dtype == np.float64 and eq.shape == (bars,)
    np.testing.assert_allclose(eq, equity_by_loop(close, log), rtol=0, atol=1e-9)
    # the last bar closes everything: sweep()'s PnL, bit for bit
    assert eq[-1] == hmasweep.sweep(close, [length], variant="unchecked").pnl[0]
    if len(log):
        # flat before the first entry; at a trade's exit bar the library's own booked PnL
        assert not eq[:log["entry_bar"][0]].any()
        booked = np.cumsum(log["pnl"])
        reopened = np.isin(log["exit_bar"], log["entry_bar"])  # stop and reverse: the next trade's -fee
        fee = ((1.0 * (1.0 - 0.0009)) - 1.0) * 100.0
        np.testing.assert_allclose(eq[log["exit_bar"]], booked + np.where(reopened, fee, 0.0), rtol=0, atol=1e-9)


def test_equity_of_a_series_is_a_series():
    s = dated(hmasweep.series(seed=2, bars=1500))
    eq = hmasweep.equity(s, 20)
    assert isinstance(eq, pd.Series) and eq.index.equals(s.index) and eq.name == "equity"
    np.testing.assert_array_equal(eq.to_numpy(), hmasweep.equity(s.to_numpy(), 20))
    w = hmasweep.windows(20)
    np.testing.assert_array_equal(hmasweep.equity(s.to_numpy(), windows=w), eq.to_numpy())


def test_sweep_many_wide_frame_trims_nan():
    a = hmasweep.series(seed=1, bars=900)
    b = hmasweep.series(seed=2, bars=700)
    c = hmasweep.series(seed=3, bars=900)
    frame = pd.DataFrame({"A": a, "B": np.concatenate([np.full(150, np.nan), b, np.full(50, np.nan)]),
                          "C": c.copy(), "D": np.full(900, np.nan)},
                         index=pd.date_range("2022-01-01", periods=900, freq="D"))
    frame.loc[frame.index[400], "C"] = np.nan  # inside the column: C's error
    frame.iloc[:10, 2] = np.nan                # and leading NaN before it
    df = hmasweep.sweep_many(frame, [6, 50], variant="unchecked")
    assert list(df.columns) == list(hmasweep.ROW_DTYPE.names)
    for sym, close, first in (("A", a, 0), ("B", b, 150)):
        mine = df[df.symbol == sym]
        ref = hmasweep.sweep(close, [6, 50], variant="unchecked")
        assert mine["pnl"].to_numpy().tobytes() == ref.pnl.tobytes()
        assert list(mine["trades"]) == list(ref.trades) and mine["error"].isna().all()
        assert set(mine["first_bar"]) == {first} and set(mine["bars"]) == {len(close)}
    c_row = df[df.symbol == "C"]
    assert len(c_row) == 1 and c_row["trades"].iloc[0] == -1
    assert c_row["error"].iloc[0].startswith("close[400] is NaN"), c_row["error"].iloc[0]
    assert c_row["first_bar"].iloc[0] == 10 and c_row["bars"].iloc[0] == 890
    d_row = df[df.symbol == "D"]
    assert len(d_row) == 1 and "NaN" in d_row["error"].iloc[0] and d_row["bars"].iloc[0] == 0


def test_sweep_many_mapping_reports_whole_series():
    rows = hmasweep.sweep_many({"X": hmasweep.series(bars=500)}, [6], as_frame=False)
    assert rows["first_bar"][0] == 0 and rows["bars"][0] == 500
