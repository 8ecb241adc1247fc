"""The numba peer as the independent oracle of spec v2 (docs/spec.md §8) where tests/golden/gate_numba.h does
not reach: real quotes and 2-D grids, on every registered tier-0 variant on every ISA this CPU runs.

The peer (peers/numba/hma_numba.py) is written from the spec and the study, not from the C code: it derives
its own windows (§2's rules, §8's 2-D rule: `windows_2d`), keeps its own books (`books`, from §8's table)
and logs its own trades (`trade_log`).  It runs here, in the test, on the very bytes hmasweep gets; every
comparison is bit for bit: trades, pnl and the six statistics (wins, gross_profit, gross_loss, sum_sq,
max_drawdown, bars_held).

- Real quotes (backtesting.py's GOOG, 2,148 daily closes, and EURUSD, 5,000 hourly closes, read from the
  installed package: conftest.real_quotes) at fees 0, 0.0009 and 0.003: the default 80-length grid and
  free windows (not derived from L), through hmasweep.sweep(..., variant=, isa=, fee=).
- 2-D grids (sweep(close, hma=..., hma3=...)) on the default series (seed 42, its first 20,000 bars) and on
  GOOG, at fees 0.0009 and 0: through the Python API and through the CLI (`hmasweep run --hma-lengths
  --hma3-lengths --format json`), every variant x ISA both ways.
- The trade log (hmasweep.trade_log) of a few combos against the peer's, field for field.

ctest python_numba_oracle runs this file (`--needs numba --needs backtesting`: without numba it is Skipped,
tests/skips.allow; without backtesting it is Skipped, and in CI it fails, since CI installs it)."""
import json
import subprocess

import numpy as np
import pytest

import hmasweep
from conftest import load_source, real_quotes

try:  # ctest python_numba_oracle skips first (tests/skips.allow); this is for a bare pytest run
    import numba  # noqa: F401
except ImportError:
    pytest.skip("numba: numba is not importable (pip install numba; CI installs it)", allow_module_level=True)

# Every registered variant on every ISA this CPU runs.  All are tier 0 (bit-identical by contract); a
# tier-1 variant, were one registered, equals the reference only within 1e-6 and is gated elsewhere.
PAIRS = [(v["name"], isa) for v in hmasweep.variants() if v["tier"] == 0 for isa in v["runnable"]]
FEES = (0.0, 0.0009, 0.003)
FEES_2D = (0.0009, 0.0)
# Free windows (w0..w5 as the wire and hs_sweep take them, not derived from L): w0 > w1, w3 > w4 > w5,
# all ones, long and short mixed, a 200-bar w5 beside 1-bar windows.
FREE = np.array([[3, 6, 2, 9, 2, 3], [10, 3, 7, 2, 9, 4], [1, 1, 1, 1, 1, 1], [40, 1, 1, 1, 1, 40],
                 [25, 4, 9, 3, 18, 11], [1, 200, 14, 150, 2, 200], [97, 13, 5, 1, 60, 7]], dtype=np.int64)
# The 2-D grid: HMA lengths outer, HMA3 lengths inner; the diagonal (13, 13) and both far corners included.
HMA, HMA3 = [6, 13, 41, 200], [5, 13, 33, 120]
FIELDS = ("trades", "pnl") + hmasweep.results.FIELDS
FLOATS = ("pnl", "gross_profit", "gross_loss", "sum_sq", "max_drawdown")  # the f64 columns; the rest are i64


@pytest.fixture(scope="module")
def peer():
    return load_source("peers/numba/hma_numba.py", "hma_numba")


@pytest.fixture(scope="module")
def quotes():
    return real_quotes()


@pytest.fixture(scope="module")
def default_20k():
    """The default series' first 20,000 bars (the running sum is sequential, so a prefix is the same bytes)."""
    return hmasweep.series(bars=20000)


def peer_columns(peer, close, windows, fee):
    """The peer's trades, pnl and six statistics per combo, as the columns FIELDS names."""
    pnl, trades, ints, floats = peer.sweep_stats(np.ascontiguousarray(close), np.ascontiguousarray(windows), fee)
    cols = {"trades": trades, "pnl": pnl, "wins": ints[:, 0], "bars_held": ints[:, 1]}
    cols.update(zip(("gross_profit", "gross_loss", "sum_sq", "max_drawdown"), floats.T))
    return {k: np.ascontiguousarray(v) for k, v in cols.items()}


def result_columns(r):
    """A SweepResult's (or the CLI's JSON combos') FIELDS as columns."""
    if isinstance(r, list):
        return {k: np.array([c[k] for c in r], dtype=np.float64 if k in FLOATS else np.int64) for k in FIELDS}
    return {"trades": r.trades, "pnl": r.pnl, **{k: r.stats[k] for k in hmasweep.results.FIELDS}}


def assert_bits(got, want, what):
    """Every FIELDS column bit for bit; on a difference, the first combo that differs, in hex."""
    for k in FIELDS:
        g = np.ascontiguousarray(got[k], dtype=want[k].dtype)
        if g.tobytes() != want[k].tobytes():
            c = int(np.flatnonzero(g.view(np.int64) != want[k].view(np.int64))[0]) if g.shape == want[k].shape else -1
            show = (lambda v: float(v).hex()) if want[k].dtype == np.float64 else int
            pytest.fail("%s: %s differs from the numba peer at combo %d: %s != %s"
                        % (what, k, c, show(g[c]), show(want[k][c])) if c >= 0 else "%s: %s shape" % (what, k))


@pytest.fixture(scope="module")
def real_expected(peer, quotes):
    """The peer's values on each quote series: the default grid and the free windows, at every fee."""
    grid = peer.default_grid()
    windows = np.array([peer.windows_from_length(L) for L in grid], dtype=np.int64)
    return {name: {"grid": grid, "windows": windows,
                   "default": {fee: peer_columns(peer, close, windows, fee) for fee in FEES},
                   "free": {fee: peer_columns(peer, close, FREE, fee) for fee in FEES}}
            for name, close in quotes.items()}


def test_real_quotes_are_the_files_backtesting_ships(quotes):
    assert {k: v.size for k, v in quotes.items()} == {"GOOG": 2148, "EURUSD": 5000}
    assert all(np.isfinite(v).all() and (v > 0).all() for v in quotes.values())


@pytest.mark.parametrize("name", ["GOOG", "EURUSD"])
@pytest.mark.parametrize("variant,isa", PAIRS)
def test_real_quotes_every_variant_isa(quotes, real_expected, name, variant, isa):
    close, want = quotes[name], real_expected[name]
    for fee in FEES:
        r = hmasweep.sweep(close, variant=variant, isa=isa, fee=fee, threads=2)  # the default grid
        assert r.lengths.tolist() == want["grid"] and np.array_equal(r.windows, want["windows"])
        what = "%s %s/%s fee %r" % (name, variant, isa, fee)
        assert_bits(result_columns(r), want["default"][fee], what + ", default grid")
        r = hmasweep.sweep(close, windows=FREE, variant=variant, isa=isa, fee=fee, threads=2)
        assert_bits(result_columns(r), want["free"][fee], what + ", free windows")


def test_real_quotes_are_not_trivial(real_expected):
    """The gate is only as strong as its data: trades on every combo, winners and losers, fees that move
    the books, and a drawdown on every combo."""
    for name, want in real_expected.items():
        d = want["default"]
        assert (d[0.0]["trades"] > 0).all() and (d[0.0]["wins"] > 0).all(), name
        assert (d[0.0]["gross_loss"] < 0).all() and (d[0.0]["max_drawdown"] > 0).all(), name
        assert np.array_equal(d[0.0]["trades"], d[0.003]["trades"]), name  # the fee changes p, not the trades
        assert (d[0.003]["pnl"] < d[0.0]["pnl"]).all() and (d[0.003]["wins"] <= d[0.0]["wins"]).all(), name
        assert (want["free"][0.0009]["trades"] > 0).all(), name


@pytest.fixture(scope="module")
def grid2d_expected(peer, quotes, default_20k):
    """The peer's 2-D windows (its own §8 rule) and values on the default series' prefix and on GOOG."""
    windows = np.array(peer.windows_2d(HMA, HMA3), dtype=np.int64)
    series = {"default": default_20k, "GOOG": quotes["GOOG"]}
    return windows, series, {name: {fee: peer_columns(peer, close, windows, fee) for fee in FEES_2D}
                             for name, close in series.items()}


@pytest.mark.parametrize("variant,isa", PAIRS)
def test_2d_grid_every_variant_isa(grid2d_expected, variant, isa):
    windows, series, want = grid2d_expected
    for name, close in series.items():
        for fee in FEES_2D:
            r = hmasweep.sweep(close, hma=HMA, hma3=HMA3, variant=variant, isa=isa, fee=fee, threads=2)
            assert np.array_equal(r.windows, windows), (name, variant, isa)
            assert r.hma_lengths.tolist() == [a for a in HMA for _ in HMA3]  # HMA length outer
            assert r.hma3_lengths.tolist() == HMA3 * len(HMA)
            assert_bits(result_columns(r), want[name][fee], "2-D %s %s/%s fee %r" % (name, variant, isa, fee))


@pytest.fixture(scope="module")
def series_files(grid2d_expected, tmp_path_factory):
    """The 2-D series as raw little-endian f64 files for the CLI's --input."""
    out = {}
    for name, close in grid2d_expected[1].items():
        out[name] = tmp_path_factory.mktemp("oracle") / (name + ".f64")
        close.astype("<f8").tofile(out[name])
    return out


@pytest.mark.parametrize("variant,isa", PAIRS)
def test_2d_grid_cli_every_variant_isa(cli, grid2d_expected, series_files, variant, isa):
    windows, _, want = grid2d_expected
    for name, path in series_files.items():
        for fee in FEES_2D:
            out = subprocess.run([cli, "run", "--input", str(path), "--hma-lengths", ",".join(map(str, HMA)),
                                  "--hma3-lengths", ",".join(map(str, HMA3)), "--variant", variant, "--isa", isa,
                                  "--threads", "2", "--fee", repr(fee), "--format", "json"],
                                 capture_output=True, text=True, check=True).stdout
            combos = json.loads(out)["combos"]  # floats printed so that they round-trip (%.17g)
            assert [(c["hma_length"], c["hma3_length"]) for c in combos] == [(a, b) for a in HMA for b in HMA3]
            assert np.array_equal(np.array([c["windows"] for c in combos]), windows), (name, variant, isa)
            assert_bits(result_columns(combos), want[name][fee], "CLI 2-D %s %s/%s fee %r" % (name, variant, isa, fee))


@pytest.mark.parametrize("name,windows", [("GOOG", [10, 20, 4, 3, 5, 10]), ("EURUSD", [20, 41, 6, 22, 33, 66]),
                                          ("EURUSD", [97, 13, 5, 1, 60, 7])])
@pytest.mark.parametrize("fee", FEES)
def test_trade_log_equals_the_peers(peer, quotes, name, windows, fee):
    """hmasweep.trade_log, every field of every trade, against the trades the peer's books booked."""
    close, w = quotes[name], np.array(windows, dtype=np.int64)
    log = hmasweep.trade_log(close, windows=w, fee=fee)
    ints, floats = peer.trade_log(close, *[int(v) for v in w], fee)
    assert log.shape[0] == ints.shape[0] > 10, (name, windows, fee)
    assert np.array_equal(log["entry_bar"], ints[:, 0]) and np.array_equal(log["exit_bar"], ints[:, 1])
    assert np.array_equal(log["side"].astype(np.int64), ints[:, 2])
    for k, field in enumerate(("entry_price", "exit_price", "pnl")):
        got, want = np.ascontiguousarray(log[field]), np.ascontiguousarray(floats[:, k])
        assert got.tobytes() == want.tobytes(), (field, name, windows, fee)
    # the peer's log is its own books: the trades add up to its sweep's pnl and trade count
    want = peer_columns(peer, close, w.reshape(1, 6), fee)
    assert ints.shape[0] == want["trades"][0]
    total = 0.0
    for p in floats[:, 2].tolist():
        total += p
    assert total == want["pnl"][0]
