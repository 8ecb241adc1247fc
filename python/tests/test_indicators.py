"""hmasweep.wma / hma / hma3 / signal: the tier-0 series as arrays (docs/python.md, "Indicators").

The values are checked against sources outside this code: the trade log (the sign flips of signal() are
the combo's entries), hand-worked WMAs, and TA-Lib's WMA (an indicator library no one here wrote) on the
default series and on real quotes.  The numba peer's own hma/hma3 (bit for bit) are checked in
test_numba_peer.py, which ctest runs as python_numba_peer."""
import numpy as np
import pytest

import hmasweep
from conftest import real_quotes

try:
    import talib
except ImportError:  # CI installs it (tests/deps.sh); a skip there fails (tests/skips.allow)
    talib = None


def flips(d):
    """docs/spec.md §4 written out here: (bar, side) at every strict sign change against the last non-zero d."""
    prev, out = 0.0, []
    for i, v in enumerate(d.tolist()):
        if v != v:
            continue
        if (prev > 0 and v < 0) or (prev < 0 and v > 0):
            out.append((i, 1 if v > 0 else -1))
        if v != 0:
            prev = v
    return out


def test_wma_by_hand():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    out = hmasweep.wma(x, 2)
    assert np.isnan(out[0]) and out.dtype == np.float64 and out.shape == x.shape
    assert out[1:].tolist() == [5 / 3, 8 / 3, 11 / 3, 14 / 3]
    assert hmasweep.wma(x, 1).tobytes() == x.tobytes()
    assert np.isnan(hmasweep.wma(x, 5)[:4]).all() and hmasweep.wma(x, 5)[4] == 55 / 15
    assert hmasweep.wma([-1.0, 0.0, 2.5], 2)[2] == 5 / 3  # any finite numbers, not only prices


@pytest.mark.parametrize("length", [6, 13, 200])
def test_signal_flips_are_the_trades(length):
    close = hmasweep.series(bars=20000)
    d = hmasweep.signal(close, length)
    w = hmasweep.windows(length)
    # explicit windows give the same bits; hma3 - hma is the signal; the look-back is all NaN, then values
    assert hmasweep.signal(close, windows=w).tobytes() == d.tobytes()
    h, h3 = hmasweep.hma(close, windows=w[:3]), hmasweep.hma3(close, windows=w[3:])
    assert (h3 - h).tobytes() == d.tobytes()
    assert hmasweep.hma(close, length).tobytes() == h.tobytes()
    nan = np.isnan(d)
    first = int(np.argmin(nan))
    assert nan[:first].all() and not nan[first:].any() and first > 0
    log = hmasweep.trade_log(close, length)
    entries = flips(d)
    assert [(int(b), int(s)) for b, s in zip(log["entry_bar"], log["side"])] == entries
    assert log["exit_bar"].tolist() == [b for b, _ in entries[1:]] + [len(close) - 1]
    assert len(log) == hmasweep.sweep(close, [length]).trades[0]


def test_free_windows_look_back():
    close = hmasweep.series(bars=500)
    d = hmasweep.signal(close, windows=[3, 6, 2, 9, 2, 3])  # w3 > w5: issue 10's shape
    assert int(np.argmin(np.isnan(d))) == max(6 - 1 + 2 - 1, 9 - 1 + 3 - 1)
    assert int(np.argmin(np.isnan(hmasweep.hma3(close, windows=[9, 2, 3])))) == 10


def test_pandas_in_pandas_out():
    pd = pytest.importorskip("pandas", reason="pandas: not installed (CI installs it)")
    idx = pd.date_range("2024-01-01", periods=300, freq="h")
    s = pd.Series(hmasweep.series(bars=300), index=idx, name="close")
    for fn, arg in ((hmasweep.wma, 10), (hmasweep.hma, 20), (hmasweep.hma3, 20), (hmasweep.signal, 20)):
        out = fn(s, arg)
        assert isinstance(out, pd.Series) and out.index.equals(idx) and out.dtype == np.float64
        assert out.to_numpy().tobytes() == fn(s.to_numpy(), arg).tobytes()


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda x: hmasweep.wma(x, 0), ValueError, "^wma: window w = 0 does not fit a series of 50 bars"),  # the Python name (issue 28)
        (lambda x: hmasweep.wma(x, 51), ValueError, "window w = 51"),
        (lambda x: hmasweep.wma(x, 2.0), TypeError, "wma: w must be an int"),
        (lambda x: hmasweep.wma(x, True), TypeError, "got a bool"),
        (lambda x: hmasweep.hma(x, 1), ValueError, "L"),
        (lambda x: hmasweep.hma(x, windows=[2, 60, 1]), ValueError, "^hma: window w1 = 60"),
        (lambda x: hmasweep.hma3(x, windows=[2, 3]), ValueError, "hma3: windows must be 3 ints"),
        (lambda x: hmasweep.signal(x), ValueError, "give length or windows"),
        (lambda x: hmasweep.signal(x, 6, windows=[1] * 6), ValueError, "exactly one"),
        (lambda x: hmasweep.wma(np.where(np.arange(50) == 7, np.nan, x), 3), ValueError, "x[7] = nan is not a finite"),
        (lambda x: hmasweep.wma(np.stack([x, x]), 3), ValueError, "wma: x must be a 1-D series, got a 2-D array"),
        (lambda x: hmasweep.signal(x[:0], 6), ValueError, "empty"),
    ],
)
def test_bad_input(call, exc, message):
    with pytest.raises(exc, match=message.replace("[", r"\[").replace("]", r"\]")):
        call(hmasweep.series(bars=50))


# ---- TA-Lib's WMA ---------------------------------------------------------------------------------
# TA-Lib computes WMA with running sums (ta_WMA.c: periodSum += x·w; periodSum -= periodSub, over the whole
# series), the spec with one direct dot product per bar, so the last bits differ.  First-order bound of
# the difference: each bar rounds periodSum three times (<= eps/2 · |periodSum| <= eps/2 · denom · max|x|
# each) and the error is carried to every later bar, so after n bars TA-Lib's WMA is within
# 1.5·n·eps·max|x| of the exact value; the direct sum is within (w + 1)·eps·max|x|.  Measured (AMD EPYC,
# numpy 2.4, TA-Lib 0.8.2, every window >= 2 of the default grid): default series 5.85e-12 (412 ulps of the
# value), GOOG 1.35e-11 (184 ulps), EURUSD 4.0e-14 (180 ulps) — 44 to 1,100 times inside the bound,
# while any wrong weight, index or window moves the WMA by ~1e-4·max|x| or more.  The ulps check (4,096,
# ten times the largest measured) is a tripwire for a change in either library, not a bound.
EPS = np.finfo(np.float64).eps


def talib_bound(x, w):
    return (1.5 * len(x) + w + 1) * EPS * np.abs(x).max()


def windows_of_default_grid():
    return sorted({int(v) for v in hmasweep.windows(hmasweep.grid()).ravel()} - {1})  # TA-Lib needs >= 2


def check_against_talib(x, max_ulps):
    worst_abs = worst_ulps = 0.0
    for w in windows_of_default_grid():
        if w > len(x):
            continue
        ours, theirs = hmasweep.wma(x, w), talib.WMA(x, timeperiod=w)
        assert np.array_equal(np.isnan(ours), np.isnan(theirs)), w  # the same look-back
        m = ~np.isnan(ours)
        diff = np.abs(ours[m] - theirs[m])
        assert diff.max() <= talib_bound(x, w), (w, diff.max(), talib_bound(x, w))
        worst_abs = max(worst_abs, diff.max())
        worst_ulps = max(worst_ulps, (diff / np.spacing(np.abs(ours[m]))).max())
    assert 0 < worst_ulps <= max_ulps, worst_ulps  # 0 would mean TA-Lib was not consulted at all
    return worst_abs, worst_ulps


@pytest.mark.skipif(talib is None, reason="ta-lib: not installed (pip install ta-lib; CI installs it)")
def test_wma_against_talib_default_series():
    worst_abs, worst_ulps = check_against_talib(hmasweep.series(), max_ulps=4096)
    print(f"TA-Lib WMA vs hmasweep.wma, default series: max |diff| {worst_abs:.3g}, {worst_ulps:.0f} ulps")


@pytest.mark.skipif(talib is None, reason="ta-lib: not installed (pip install ta-lib; CI installs it)")
@pytest.mark.parametrize("name", ["GOOG", "EURUSD"])
def test_wma_against_talib_real_quotes(name):
    worst_abs, worst_ulps = check_against_talib(real_quotes()[name], max_ulps=4096)
    print(f"TA-Lib WMA vs hmasweep.wma, {name}: max |diff| {worst_abs:.3g}, {worst_ulps:.0f} ulps")
