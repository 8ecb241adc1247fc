"""sweep_many: a universe in one call.  The independent source for every row is sweep() of that series
alone with the reference variant (`unchecked`), and the study's fingerprint for the default series."""
import functools

import numpy as np
import pytest

import hmasweep


def universe():
    bad = hmasweep.series(seed=5, bars=3000)
    bad[100] = np.nan
    return {
        "DEFAULT": hmasweep.series(),
        "A": hmasweep.series(seed=1, bars=4000),
        "NAN": bad,
        "SHORT": hmasweep.series(seed=2, bars=50),  # too short for L up to 200
        "B": list(hmasweep.series(seed=3, bars=2500)),  # a list: converted once
    }


@functools.lru_cache(maxsize=None)
def alone(sym):
    """The reference variant on one series alone (computed once: the default series costs seconds)."""
    return hmasweep.sweep(np.asarray(universe()[sym], dtype=np.float64), hmasweep.grid(6, 200, 80), variant="unchecked")


@pytest.mark.parametrize("variant,threads", [("best", 1), ("best", 2), ("sliding_lanes_omp", 2), ("sliding", 0)])
def test_rows_equal_each_series_alone(variant, threads):
    u = universe()
    rows = hmasweep.sweep_many(u, variant=variant, threads=threads, as_frame=False)
    lengths = hmasweep.grid(6, 200, 80)
    for sym in ("DEFAULT", "A", "B"):
        mine = rows[rows["symbol"] == sym]
        ref = alone(sym)
        np.testing.assert_array_equal(mine["length"], lengths)
        np.testing.assert_array_equal(mine["trades"], ref.trades)
        assert mine["pnl"].tobytes() == ref.pnl.tobytes(), sym  # bit for bit
    first = rows[rows["symbol"] == "DEFAULT"][0]
    assert (first["trades"], first["pnl"]) == (57029, -5165.5799542358627)  # tests/golden/default_run.json


def test_bad_series_are_error_rows():
    rows = hmasweep.sweep_many(universe(), as_frame=False)
    errors = {r["symbol"]: r["error"] for r in rows if r["error"] is not None}
    assert set(errors) == {"NAN", "SHORT"}
    assert "close[100] is NaN" in errors["NAN"]
    assert "does not fit a series of 50 bars" in errors["SHORT"]
    assert len(rows) == 3 * 80 + 2
    bad = rows[rows["symbol"] == "NAN"][0]
    assert bad["trades"] == -1 and np.isnan(bad["pnl"])


def test_windows_and_pairs():
    w = [[3, 6, 2, 9, 2, 3], [10, 3, 7, 2, 9, 4]]  # not derived from any L
    pairs = [("X", hmasweep.series(seed=7, bars=3000)), ("Y", hmasweep.series(seed=8, bars=2000))]
    rows = hmasweep.sweep_many(pairs, windows=w, as_frame=False)
    for sym, close in pairs:
        ref = hmasweep.sweep(close, windows=w, variant="unchecked")
        mine = rows[rows["symbol"] == sym]
        np.testing.assert_array_equal(mine["trades"], ref.trades)
        assert mine["pnl"].tobytes() == ref.pnl.tobytes()
        assert list(mine["length"]) == [-1, -1]


def test_bad_requests_raise():
    with pytest.raises(ValueError, match="no_such_variant"):
        hmasweep.sweep_many({"A": hmasweep.series(bars=500)}, [6], variant="no_such_variant")
    with pytest.raises(ValueError, match="not both"):
        hmasweep.sweep_many({"A": hmasweep.series(bars=500)}, [6], windows=[[1] * 6])
    with pytest.raises(ValueError, match="1-D"):
        hmasweep.sweep_many({"A": np.ones((3, 3))}, [2])


def test_dataframe_and_parquet(tmp_path):
    pd = pytest.importorskip("pandas")
    df = hmasweep.sweep_many(universe(), [6, 50])
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == list(hmasweep.ROW_DTYPE.names)
    assert df.loc[df.symbol == "DEFAULT", "trades"].iloc[0] == 57029
    pytest.importorskip("pyarrow")
    path = tmp_path / "universe.parquet"
    df.to_parquet(path)
    back = pd.read_parquet(path)
    assert back["pnl"].equals(df["pnl"]) and list(back["error"].dropna()) == list(df["error"].dropna())
