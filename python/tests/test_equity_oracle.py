"""docs/spec.md §9.1-§9.3 against an oracle written from the spec (equity_oracle.py): the library's E
(r.equity) and mtm_max_drawdown agree bit for bit with e[i] rebuilt from the trade log and, independently,
from §4's loop over d, on the default series, real quotes (GOOG daily, EURUSD hourly: backtesting.py's
files), free windows and 2-D grids, at fee 0 and the default fee, for equal periods, given ends and P =
bars (every bar's e); every tier-0 variant x ISA on a short series.  Property: E[P] is pnl bit for bit."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import hmasweep as hs
import equity_oracle as oracle
from conftest import real_quotes

FEES = (0.0, None)  # None: the default fee, 0.0009


def fee_of(fee):
    return hs._core.DEFAULT_FEE if fee is None else fee


def curves_from_logs(close, windows, fee):
    """Per combo, e[0..bars) from its trade log (equity_oracle.equity_from_log)."""
    return [oracle.equity_from_log(close, hs.trade_log(close, windows=w, fee=fee), fee_of(fee)) for w in windows]


def check_against_oracle(close, r, fee, loop_combos=()):
    """r's E and mtm_max_drawdown equal the oracle's bit for bit; for the combos in loop_combos the curve
    from the trade log is also checked against §4's loop over d."""
    curves = curves_from_logs(close, r.windows, fee)
    want = oracle.equity_matrix(curves, r.period_ends)
    assert r.equity.shape == want.shape
    assert r.equity.tobytes() == want.tobytes(), "E differs at %s" % (np.argwhere(r.equity != want)[:3].tolist(),)
    mtm = np.array([oracle.mtm_max_drawdown_vectorised(e) for e in curves])
    assert r.mtm_max_drawdown.tobytes() == mtm.tobytes()
    assert r.equity[-1].tobytes() == r.pnl.tobytes()  # §9.1: e[bars-1] is the pnl
    for c in loop_combos:
        e, pnl, trades = oracle.equity_from_signal(close, hs.signal(close, windows=r.windows[c]), fee_of(fee))
        assert e.tobytes() == curves[c].tobytes()
        assert oracle.mtm_max_drawdown(e) == mtm[c]  # the spec's loop, as written
        assert (pnl, trades) == (r.pnl[c], r.trades[c])
    return curves


@pytest.mark.parametrize("fee", FEES)
def test_default_series_16_periods(default_series, fee):
    r = hs.sweep(default_series, fee=fee, periods=16)
    assert np.array_equal(r.period_ends, oracle.period_ends(default_series.shape[0], 16))
    check_against_oracle(default_series, r, fee, loop_combos=(0,) if fee is None else (79,))  # the loop: ~1.5 s each
    # the oracle is no echo of the library: its mtm drawdown is deeper than §8's closed-trade one somewhere
    assert np.any(r.mtm_max_drawdown > r.max_drawdown)


@pytest.mark.parametrize("fee", FEES)
def test_real_quotes_every_bar(fee):
    for name, close in real_quotes().items():
        lengths = [6, 10, 20, 38, 80]
        r = hs.sweep(close, lengths, fee=fee, periods=close.shape[0])  # P = bars: E holds every e[i]
        assert np.array_equal(r.period_ends, np.arange(close.shape[0]))
        check_against_oracle(close, r, fee, loop_combos=range(len(lengths)))


@pytest.mark.parametrize("fee", FEES)
def test_free_windows_and_given_ends(fee):
    close = hs.series(seed=11, bars=6000)
    rng = np.random.default_rng(5)
    windows = rng.integers(1, 90, size=(24, 6))
    ends = np.sort(rng.choice(close.shape[0] - 1, size=40, replace=False))
    ends = np.append(ends, close.shape[0] - 1)
    r = hs.sweep(close, windows=windows, fee=fee, periods=ends)
    assert np.array_equal(r.period_ends, ends)
    check_against_oracle(close, r, fee, loop_combos=(0, 23))


@pytest.mark.parametrize("fee", FEES)
def test_2d_grid(fee):
    close = hs.series(seed=23, bars=8000)
    r = hs.sweep(close, hma=[6, 17, 40], hma3=[8, 25, 60], fee=fee, periods=100)
    check_against_oracle(close, r, fee, loop_combos=(1, 5))


def test_every_tier0_variant_and_isa_gives_the_same_bits():
    close = hs.series(seed=9, bars=3000)
    lengths = [6, 9, 14, 30, 57]
    want = hs.sweep(close, lengths, periods=close.shape[0], variant="naive")
    check_against_oracle(close, want, None)
    for v in hs.variants():
        if v["tier"] != 0:
            continue
        for isa in v["runnable"]:
            r = hs.sweep(close, lengths, periods=close.shape[0], variant=v["name"], isa=isa)
            assert r.equity.tobytes() == want.equity.tobytes(), (v["name"], isa)
            assert r.mtm_max_drawdown.tobytes() == want.mtm_max_drawdown.tobytes(), (v["name"], isa)


def test_calendar_periods_are_the_last_bar_of_each_day_week_month():
    pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install pandas; CI installs it)")
    index = pd.date_range("2021-12-30 09:00", periods=24 * 70, freq="h")
    s = pd.Series(hs.series(seed=2, bars=index.shape[0]), index=index)
    day = index.normalize()
    for rule, key in (("D", day), ("W", day - pd.to_timedelta(day.day_of_week, unit="D")),
                      ("M", index.to_period("M").to_timestamp())):
        r = hs.sweep(s, [6, 20], periods=rule)
        last = [i for i in range(len(index)) if i == len(index) - 1 or key[i + 1] != key[i]]
        assert list(r.period_ends) == last
        assert list(r.period_index) == list(index[last])
        check_against_oracle(s.to_numpy(), r, None)
        frame = r.equity_frame()
        assert list(frame.index) == list(index[last]) and list(frame.columns) == [6, 20]
        assert frame.to_numpy().tobytes() == r.equity.tobytes()
    assert hs.sweep(s, [6], periods="D").periods_per_year == 252.0
    assert hs.sweep(s, [6], periods="W").periods_per_year == 52.0
    assert hs.sweep(s, [6], periods="M", periods_per_year=11.5).periods_per_year == 11.5
    # P equal periods over timestamps: P / years, years = (last - first) / 365.2425 days
    years = (index[-1] - index[0]).total_seconds() / (365.2425 * 86400)
    assert hs.sweep(s, [6], periods=10).periods_per_year == 10 / years
    assert hs.sweep(s.to_numpy(), [6], periods=10).periods_per_year is None


def test_bad_periods_are_usage_errors_that_name_the_value():
    close = hs.series(seed=1, bars=500)
    pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install pandas; CI installs it)")
    dated = pd.Series(close, index=pd.date_range("2020-01-01", periods=500, freq="D"))
    for periods, message in ((0, "periods = 0"), (501, "periods = 501"), (-2, "periods = -2"),
                             ([10, 10, 499], "period end 10 at index 1"), ([10, 498], "period end 498 at index 1"),
                             ([3.0, 499.0], "float64"), ("Q", "periods='Q' is not a calendar rule")):
        with pytest.raises(ValueError, match=message):
            hs.sweep(dated if isinstance(periods, str) else close, [6], periods=periods)
    with pytest.raises(ValueError, match="periods='D' needs close as a pandas Series with a DatetimeIndex"):
        hs.sweep(close, [6], periods="D")
    for ppy in (float("nan"), float("inf"), 0.0, -4.0):
        with pytest.raises(ValueError, match="periods_per_year must be a finite number > 0, got %s" % ppy):
            hs.sweep(close, [6], periods=5, periods_per_year=ppy)
    with pytest.raises(ValueError, match="periods_per_year=252.0 without periods"):
        hs.sweep(close, [6], periods_per_year=252)
    with pytest.raises(TypeError, match="periods must be an int P"):
        hs.sweep(close, [6], periods=True)
    r = hs.sweep(close, [6])
    assert r.equity is None and r.mtm_max_drawdown is None and r.period_ends is None
    with pytest.raises(ValueError, match="this result has no equity"):
        r.equity_frame()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), bars=st.integers(40, 1500), periods=st.integers(1, 40),
       lengths=st.lists(st.integers(2, 40), min_size=1, max_size=5),
       fee=st.sampled_from([0.0, 0.0009, 0.01, 0.5]))
def test_last_row_of_e_is_the_pnl(seed, bars, periods, lengths, fee):
    close = hs.series(seed=seed, bars=bars, vol=0.01)
    periods = min(periods, bars)
    lengths = [L for L in lengths if L <= bars] or [2]
    r = hs.sweep(close, lengths, fee=fee, periods=periods)
    assert r.equity[-1].tobytes() == r.pnl.tobytes()
    assert np.all(r.mtm_max_drawdown >= 0.0)
