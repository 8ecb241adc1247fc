"""The 2-D grid (docs/spec.md §8): sweep(close, hma=..., hma3=...), each combo's (Lh, L3), the CLI's
--hma-lengths/--hma3-lengths, and heatmap().  The windows are checked against §2's rules written here
again in plain Python (round() is round-half-even, math.isqrt is floor(sqrt)), not the library's."""
import json
import math
import subprocess

import numpy as np
import pytest

import hmasweep


def hma_windows(L):  # docs/spec.md §2, w0..w2
    return [L // 2, L, math.isqrt(L)]


def hma3_windows(L):  # docs/spec.md §2, w3..w5
    p = round(L / 2)
    return [max(1, round(p / 3)), max(1, round(p / 2)), p]


def expected_windows(hma, hma3):
    return np.array([hma_windows(a) + hma3_windows(b) for a in hma for b in hma3], dtype=np.int64)


@pytest.fixture(scope="module")
def close():
    return hmasweep.series(seed=7, bars=6000)


HMA, HMA3 = [6, 9, 20, 41], [5, 8, 33]


def test_pairs_windows_and_results(close):
    r = hmasweep.sweep(close, hma=HMA, hma3=HMA3, variant="unchecked")
    want = expected_windows(HMA, HMA3)
    assert np.array_equal(r.windows, want)
    assert r.lengths is None
    assert r.hma_lengths.tolist() == [a for a in HMA for _ in HMA3]  # HMA length outer
    assert r.hma3_lengths.tolist() == HMA3 * len(HMA)
    ref = hmasweep.sweep(close, windows=want, variant="unchecked")
    assert np.array_equal(r.trades, ref.trades) and np.array_equal(r.pnl, ref.pnl)
    assert r.hma_lengths is not None and (r.trades > 0).all()
    # the production default gives the same bits
    best = hmasweep.sweep(close, hma=np.array(HMA), hma3=tuple(HMA3))
    assert np.array_equal(best.trades, r.trades) and best.pnl.tobytes() == r.pnl.tobytes()


def test_the_1d_grid_is_the_diagonal(close):
    lengths = [6, 8, 13, 40]
    one = hmasweep.sweep(close, lengths)
    assert one.hma_lengths.tolist() == lengths and one.hma3_lengths.tolist() == lengths
    for k, L in enumerate(lengths):
        two = hmasweep.sweep(close, hma=L, hma3=L)
        assert two.trades[0] == one.trades[k] and two.pnl[0].tobytes() == one.pnl[k].tobytes()
        assert np.array_equal(two.windows[0], one.windows[k])
    assert hmasweep.sweep(close, windows=one.windows).hma_lengths is None


@pytest.mark.parametrize("kwargs, message", [
    (dict(hma=[6, 8]), "hma needs hma3 too"),
    (dict(hma3=[6, 8]), "hma3 needs hma too"),
    (dict(hma=[], hma3=[6]), "the HMA list of lengths is empty"),
    (dict(hma=[6], hma3=[]), "the HMA3 list of lengths is empty"),
    (dict(hma=[6], hma3=[1]), "HMA3 length L = 1 is out of range"),
    (dict(hma=[0], hma3=[6]), "HMA length L = 0 is out of range"),
    (dict(hma=[6], hma3=[-3]), "HMA3 length L = -3"),
    (dict(hma=[6.5], hma3=[6]), "hma must be integers"),
    (dict(hma=[6], hma3=[[6, 8]]), "hma3 must be an int or a 1-D sequence"),
    (dict(hma=[6], hma3=[6], lengths=[6]), "replace lengths"),
    (dict(hma=[6], hma3=[6], windows=[3, 6, 2, 1, 2, 3]), "replace windows"),
    (dict(hma=[6], hma3=[5000]), "w5 = 2500 does not fit"),
])
def test_bad_2d_input_is_valueerror(kwargs, message):
    with pytest.raises(ValueError, match=message):
        hmasweep.sweep(hmasweep.series(bars=2000), **kwargs)


def test_2d_grid_is_capped_before_allocating():
    """Issue 29 item 8: hma=range(2, 10**9) tried to allocate about 24 GB (MemoryError under a 4 GB
    address-space limit, the OOM killer without one).  The CLI's limit, 1,000,000 pairs, is refused with the
    sizes and the memory it would need, before anything is converted (arrays and lists too); exactly 1,000 x 1,000 passes the cap (and fails only on this short series' windows)."""
    import resource
    close = hmasweep.series(bars=50)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, hard))  # a 24 GB attempt fails fast instead of paging
    try:
        with pytest.raises(ValueError, match=r"999999998 x 1 = 999999998 combos is more than 1000000 .*about 144\.0 GB"):
            hmasweep.sweep(close, hma=range(2, 10**9), hma3=[6])
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    with pytest.raises(ValueError, match="1001 x 1000 = 1001000 combos is more than 1000000"):
        hmasweep.sweep(close, hma=np.arange(2, 1003), hma3=list(range(2, 1002)))
    with pytest.raises(ValueError, match="does not fit"):
        hmasweep.sweep(close, hma=range(2, 1002), hma3=range(2, 1002))


def test_cli_2d_json_equals_python(cli, close, tmp_path):
    path = tmp_path / "s.f64"
    close.tofile(path)
    out = subprocess.run([cli, "run", "--input", str(path), "--hma-lengths", "6,9,20,41", "--hma3-lengths",
                          "5,8,33", "--format", "json", "--variant", "unchecked"],
                         capture_output=True, text=True, check=True).stdout
    combos = json.loads(out)["combos"]
    r = hmasweep.sweep(close, hma=HMA, hma3=HMA3)
    assert [c["hma_length"] for c in combos] == r.hma_lengths.tolist()
    assert [c["hma3_length"] for c in combos] == r.hma3_lengths.tolist()
    assert all("length" not in c for c in combos)
    assert np.array_equal(np.array([c["windows"] for c in combos]), r.windows)
    assert [c["trades"] for c in combos] == r.trades.tolist()
    assert np.array([c["pnl"] for c in combos]).tobytes() == r.pnl.tobytes()  # %.17g round-trips
    # the range form is the grid's linspace
    out = subprocess.run([cli, "run", "--input", str(path), "--hma-lengths", "6:200:5", "--hma3-lengths", "8:30:3",
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    combos = json.loads(out)["combos"]
    assert [(c["hma_length"], c["hma3_length"]) for c in combos] == [
        (a, b) for a in hmasweep.grid(6, 200, 5).tolist() for b in hmasweep.grid(8, 30, 3).tolist()]


def test_heatmap_cells_are_the_statistic(close, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib: not installed (pip install '.[plot]')")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    r = hmasweep.sweep(close, hma=HMA, hma3=HMA3)
    for stat in ("pnl", "trades"):
        fig = hmasweep.heatmap(r, stat=stat, path=tmp_path / f"{stat}.png")
        assert isinstance(fig, Figure) and (tmp_path / f"{stat}.png").stat().st_size > 1000
        cells = fig.axes[0].images[0].get_array()
        want = np.asarray(getattr(r, stat), dtype=np.float64).reshape(len(HMA), len(HMA3))  # rows Lh, cols L3
        assert np.array_equal(np.ma.getdata(cells), want)
        assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [str(v) for v in sorted(HMA3)]
        assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [str(v) for v in sorted(HMA)]
    # a 1-D sweep fills the diagonal; the rest is masked (grey)
    one = hmasweep.sweep(close, [6, 8, 13])
    cells = hmasweep.heatmap(one, "pnl").axes[0].images[0].get_array()
    assert cells.mask.tolist() == [[False, True, True], [True, False, True], [True, True, False]]
    assert np.array_equal(np.diag(np.ma.getdata(cells)), one.pnl)
    with pytest.raises(ValueError, match="unknown statistic 'nope'"):
        hmasweep.heatmap(r, "nope")
    with pytest.raises(ValueError, match="not raw windows"):
        hmasweep.heatmap(hmasweep.sweep(close, windows=r.windows), "pnl")
