"""hmasweep in process: the golden file, the study's fingerprint, every variant against `unchecked`, the data
layer against numpy, inputs of every kind, bad input, zero-copy, and the GIL released during a sweep."""
import hashlib
import threading
import time
import tracemalloc

import numpy as np
import pytest

import hmasweep
from hmasweep import _core


def runnable():
    """(variant, isa, tier) for every registered variant on every ISA this build has and this CPU runs."""
    return [(v["name"], isa, v["tier"]) for v in hmasweep.variants() for isa in v["runnable"]]


# ---- the study's numbers ------------------------------------------------------------------------------
def test_fingerprint_default_call(default_series):
    """The issue's one-liner: combo 0 of the default sweep is the article's 57,029 trades, -5165.58 pp."""
    r = hmasweep.sweep(default_series, [6])
    assert r.trades[0] == 57029
    assert r.pnl[0] == -5165.5799542358627  # the golden file's %.17g value, bit for bit
    assert r.lengths.tolist() == [6] and r.windows.tolist() == [[3, 6, 2, 1, 2, 3]]


def test_golden_file(default_series, golden):
    assert hashlib.sha256(default_series.tobytes()).hexdigest() == golden["sha256"]
    r = hmasweep.sweep(default_series, variant="sliding_lanes_omp")  # fastest tier 0: bit-identical
    np.testing.assert_array_equal(r.lengths, golden["lengths"])
    np.testing.assert_array_equal(r.windows, golden["windows"])
    np.testing.assert_array_equal(r.trades, golden["trades"])
    assert r.pnl.tobytes() == golden["pnl"].tobytes()
    assert int(r.trades.sum()) == 473381  # docs/spec.md §5


def test_golden_reference_variant_subset(default_series, golden):
    """The reference itself (unchecked, scalar) on a few golden combos, by windows rather than lengths."""
    pick = [0, 1, 2, 40, 79]
    r = hmasweep.sweep(default_series, windows=golden["windows"][pick], variant="unchecked", isa="scalar")
    assert r.lengths is None
    np.testing.assert_array_equal(r.trades, golden["trades"][pick])
    assert r.pnl.tobytes() == golden["pnl"][pick].tobytes()


@pytest.fixture(scope="module")
def small_case():
    close = hmasweep.series(seed=7, bars=4000)
    lengths = hmasweep.grid(2, 400, 30)
    return close, lengths, hmasweep.sweep(close, lengths, variant="unchecked", isa="scalar")


@pytest.mark.parametrize("name,isa,tier", runnable())
def test_every_variant_equals_unchecked(small_case, name, isa, tier):
    close, lengths, ref = small_case
    r = hmasweep.sweep(close, lengths, variant=name, isa=isa, threads=2)
    assert r.variant == name
    np.testing.assert_array_equal(r.trades, ref.trades)
    if tier == 0:
        assert r.pnl.tobytes() == ref.pnl.tobytes()
    else:
        assert np.max(np.abs(r.pnl - ref.pnl)) <= 1e-6


def test_best_is_a_tier0_choice(small_case):
    close, lengths, ref = small_case
    r = hmasweep.sweep(close, lengths)  # variant="best"
    assert r.variant in {v["name"] for v in hmasweep.variants()}
    assert r.pnl.tobytes() == ref.pnl.tobytes()


# ---- the data layer -------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed,n", [(42, 1000), (0, 1), (123456789, 20001), (2**63 + 5, 17)])
def test_standard_normal_is_numpy(seed, n):
    assert hmasweep.standard_normal(seed, n).tobytes() == np.random.default_rng(seed).standard_normal(n).tobytes()


def test_series_formula():
    """close = start * exp(cumsum(vol * z)); SLEEF's exp equals libm's to 1 ulp, so compare to 1e-12."""
    z = np.random.default_rng(3).standard_normal(5000)
    expect = 50.0 * np.exp(np.cumsum(0.002 * z))
    got = hmasweep.series(seed=3, bars=5000, vol=0.002, start=50.0)
    np.testing.assert_allclose(got, expect, rtol=1e-12)


def test_grid_and_windows():
    np.testing.assert_array_equal(hmasweep.grid(), np.trunc(np.linspace(6, 200, 80)).astype(np.int64))
    np.testing.assert_array_equal(hmasweep.grid(2, 9, 3), [2, 5, 9])
    assert hmasweep.windows(6).tolist() == [3, 6, 2, 1, 2, 3]  # docs/spec.md §2, combo 0
    assert hmasweep.windows([6, 15]).tolist() == [[3, 6, 2, 1, 2, 3], [7, 15, 3, 3, 4, 8]]


def test_read_series_formats(tmp_path):
    x = hmasweep.series(seed=11, bars=777)
    x.tofile(tmp_path / "s.f64")
    np.save(tmp_path / "s.npy", x)
    np.savetxt(tmp_path / "s.csv", x, fmt="%.17g", header="close", comments="")
    for name in ("s.f64", "s.npy", "s.csv"):
        assert hmasweep.read_series(tmp_path / name).tobytes() == x.tobytes(), name


def test_variants_registry():
    vs = hmasweep.variants()
    names = [v["name"] for v in vs]
    assert "unchecked" in names and "naive" in names and len(names) == len(set(names))
    # the gap study's instruments (role "experiment": x_*) are left out; every entry names its kernel
    assert not [n for n in names if n.startswith("x_")], names
    assert {v["kernel"] for v in vs if v["name"] in ("simd_wma", "simd_wma_omp")} == {"simd_wma"}
    for v in vs:
        assert set(v["runnable"]) <= set(v["isas"]) and v["tier"] in (0, 1)


# ---- inputs -------------------------------------------------------------------------------------------
def test_inputs_of_every_kind(small_case):
    close, lengths, ref = small_case
    L = lengths[:6]
    expect = hmasweep.sweep(close, L)
    same = [close.tolist(), close.astype(">f8"), np.asfortranarray(close), memoryview(close),
            np.repeat(close, 2)[::2], tuple(close)]
    try:
        import pandas as pd
        same.append(pd.Series(close, index=np.arange(close.size) * 3))
    except ImportError:
        pass
    for x in same:
        r = hmasweep.sweep(x, L)
        assert r.pnl.tobytes() == expect.pnl.tobytes(), type(x)
        np.testing.assert_array_equal(r.trades, expect.trades)
    # float32 is one conversion to float64 (values as float32 holds them, so a different series)
    r32 = hmasweep.sweep(close.astype(np.float32), L)
    assert r32.pnl.tobytes() == hmasweep.sweep(close.astype(np.float32).astype(np.float64), L).pnl.tobytes()
    # one length as a plain int, windows as one row of six
    assert hmasweep.sweep(close, 6).trades.tolist() == hmasweep.sweep(close, windows=[3, 6, 2, 1, 2, 3]).trades.tolist()


def test_result_owns_its_lengths(small_case):
    """r.lengths (and r.hma_lengths, r.hma3_lengths, the same array for a 1-D grid) is the result's own, as
    r.windows is: changing the argument after the sweep leaves the result as it was.  An int64 array, or an
    array over someone's buffer, was the result's lengths itself (review-bbff220)."""
    close, _, _ = small_case
    given = [lambda: np.array([6, 8, 10], dtype=np.int64), lambda: np.frombuffer(bytearray(np.array([6, 8, 10]).tobytes()),
                                                                                   dtype=np.int64)]
    for make in given:
        lengths = make()
        r = hmasweep.sweep(close, lengths)
        lengths[:] = 99
        assert r.lengths.tolist() == [6, 8, 10], type(lengths)
        assert r.hma_lengths.tolist() == [6, 8, 10] and r.hma3_lengths.tolist() == [6, 8, 10]
    windows = np.array([[3, 6, 2, 1, 2, 3]], dtype=np.int64)
    r = hmasweep.sweep(close, windows=windows)
    windows[:] = 1
    assert r.windows.tolist() == [[3, 6, 2, 1, 2, 3]]


BAD = [
    (lambda s: hmasweep.sweep(np.r_[s[:5], np.nan, s[5:]], [6]), "close[5] is NaN"),
    (lambda s: hmasweep.sweep(np.r_[s[:9], np.inf, s[9:]], [6]), "close[9]"),
    (lambda s: hmasweep.sweep(np.r_[s[:3], 0.0, s[3:]], [6]), "close[3] = 0 is not positive"),
    (lambda s: hmasweep.sweep(-s, [6]), "is not positive"),
    (lambda s: hmasweep.sweep(np.vstack([s, s]), [6]), "1-D"),
    (lambda s: hmasweep.sweep(s[:50], [60]), "does not fit a series of 50 bars"),
    (lambda s: hmasweep.sweep(s, windows=[3, 6, 2, 1, 2, 10**9]), "w5"),
    (lambda s: hmasweep.sweep(s, windows=[3, 6, 0, 1, 2, 3]), "w2 = 0"),
    (lambda s: hmasweep.sweep(s, windows=[3, -6, 2, 1, 2, 3]), "w1 = -6"),
    (lambda s: hmasweep.sweep(s, windows=[[3, 6, 2]]), "shape (n, 6)"),
    (lambda s: hmasweep.sweep(s, [6], variant="fastest"), "unknown variant 'fastest'"),
    (lambda s: hmasweep.sweep(s, [6], isa="mmx"), "unknown ISA 'mmx'"),
    (lambda s: hmasweep.sweep(s, [1]), "L = 1 is out of range"),
    (lambda s: hmasweep.sweep(s, 2**70), "out of range"),
    (lambda s: hmasweep.sweep(s, [6.5]), "integers"),
    (lambda s: hmasweep.sweep(s, [6], windows=[1] * 6), "not both"),
    (lambda s: hmasweep.sweep([], [6]), "empty"),
    (lambda s: hmasweep.sweep([b"a", b"b"], [2]), "not numbers"),  # a TypeError since issue 28: see below
    (lambda s: hmasweep.sweep(s, [6], threads=-1), "negative"),
    (lambda s: hmasweep.series(bars=0), "bars"),
    (lambda s: hmasweep.series(seed=-1), "seed"),
    (lambda s: hmasweep.grid(200, 6, 5), "impossible"),
    (lambda s: hmasweep.windows(1), "L = 1 is out of range"),
    (lambda s: hmasweep.read_series("/nonexistent/x.f64"), "cannot open"),
]


@pytest.mark.parametrize("call,message", BAD, ids=[m for _, m in BAD])
def test_bad_input_is_valueerror(call, message):
    s = hmasweep.series(seed=1, bars=200)
    with pytest.raises(TypeError if message == "not numbers" else ValueError) as e:  # strings: TypeError naming them
        call(s)
    assert message in str(e.value)


def test_unsupported_isa_is_valueerror():
    built = {i for v in hmasweep.variants() for i in v["isas"]}
    runs = {i for v in hmasweep.variants() for i in v["runnable"]}
    foreign = sorted(built - runs)
    if not foreign:
        pytest.skip("cpu-isa: every ISA built into this library runs on this CPU")  # tests/skips.allow
    with pytest.raises(ValueError, match="cannot run"):
        hmasweep.sweep(hmasweep.series(bars=100), [6], variant="simd_wma", isa=foreign[0])


def test_bad_data_file(tmp_path):
    (tmp_path / "bad.csv").write_text("close\n1.0\n-2.0\n")
    with pytest.raises(ValueError, match="not positive"):
        hmasweep.read_series(tmp_path / "bad.csv")
    (tmp_path / "empty.f64").write_bytes(b"")
    with pytest.raises(ValueError):
        hmasweep.read_series(tmp_path / "empty.f64")


# ---- zero copy ------------------------------------------------------------------------------------------
def test_large_contiguous_array_is_not_copied():
    """numpy reports its buffers to tracemalloc: a sweep over a 16 MB contiguous series allocates only the
    small result arrays, while a strided view is converted once (one copy of its size)."""
    big = np.exp(np.cumsum(np.full(2_000_000, 1e-7))) * 100.0  # 16 MB
    tracemalloc.start()
    try:
        hmasweep.sweep(big, [6], variant="sliding")
        _, peak = tracemalloc.get_traced_memory()
        assert peak < 64 * 1024, peak
        tracemalloc.reset_peak()
        strided = big[::2]
        hmasweep.sweep(strided, [6], variant="sliding")
        _, peak = tracemalloc.get_traced_memory()
        assert peak >= strided.nbytes, peak
    finally:
        tracemalloc.stop()


# ---- the GIL --------------------------------------------------------------------------------------------
def test_gil_released_during_sweep():
    """While one thread is inside sweep(), another thread runs Python code.  If sweep() held the GIL the
    main thread could not run at all while the sweep ran: at most a couple of 1 ms sleeps would complete
    with `inside` set (the instants just before and after the C call).  The assertion counts sleeps,
    it asserts no time."""
    close = hmasweep.series(seed=5, bars=150000)
    lengths = [100] * 24  # ~0.3-0.6 s of unchecked work on this machine
    state = {"inside": False, "done": False}
    started = threading.Event()

    def worker():
        state["inside"] = True
        started.set()
        hmasweep.sweep(close, lengths, variant="unchecked")
        state["inside"] = False
        state["done"] = True

    t = threading.Thread(target=worker)
    t.start()
    started.wait()
    ticks = 0
    while not state["done"]:
        time.sleep(0.001)
        if state["inside"]:
            ticks += 1
    t.join()
    assert ticks >= 10, ticks


def test_two_threads_sweep_at_once():
    """Two threads sweep at once (as a research notebook with a thread pool does): both results are right,
    and the overlap of their calls is reported (not asserted: 2 shared vCPUs)."""
    close = hmasweep.series(seed=9, bars=150000)
    lengths = [60] * 12
    ref = hmasweep.sweep(close, lengths, variant="unchecked")
    spans, results = [None, None], [None, None]
    barrier = threading.Barrier(2)

    def worker(k):
        barrier.wait()
        t0 = time.perf_counter()
        results[k] = hmasweep.sweep(close, lengths, variant="unchecked")
        spans[k] = (t0, time.perf_counter())

    t_serial = time.perf_counter()
    hmasweep.sweep(close, lengths, variant="unchecked")
    t_serial = time.perf_counter() - t_serial
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    t_par = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    t_par = time.perf_counter() - t_par
    for r in results:
        assert r.pnl.tobytes() == ref.pnl.tobytes()
        np.testing.assert_array_equal(r.trades, ref.trades)
    print("two threads: one sweep %.3f s, two at once %.3f s (%.2fx the work in %.2fx the time)"
          % (t_serial, t_par, 2.0, t_par / t_serial))


def test_argument_errors_are_typeerrors():
    s = hmasweep.series(bars=100)
    for call in (lambda: hmasweep.sweep(), lambda: hmasweep.sweep(s, [6], 3), lambda: hmasweep.sweep(s, foo=1),
                 lambda: hmasweep.sweep(s, [6], lengths=[6]), lambda: hmasweep.sweep(s, variant=3)):
        with pytest.raises(TypeError):
            call()
    assert hmasweep.sweep(close=s, lengths=[6], variant=None, isa=None, threads=1).trades.shape == (1,)


@pytest.mark.parametrize("call,message", [
    (lambda s: _core.sweep(), "sweep() missing required argument 'close'"),
    (lambda s: _core.sweep(s, [6], 3), "sweep() takes at most 2 positional arguments (3 given)"),
    (lambda s: _core.sweep(s, foo=1), "sweep() got an unexpected keyword argument 'foo'"),
    (lambda s: _core.sweep(s, [6], lengths=[6]), "sweep() got multiple values for argument 'lengths'"),
    (lambda s: _core.sweep(s, variant=3), "sweep(): variant must be a str or None"),
    (lambda s: _core.sweep(lengths=[6], **{"clo" + "se": s}, windows=None, hma=None, fee=None, zzz=0),
     "sweep() got an unexpected keyword argument 'zzz'")])
def test_argument_error_messages(call, message):
    """The C parser's messages (python/src/args.c parse_args), as CPython's own would word them; hmasweep.sweep,
    the Python wrapper (inputs.py), has its own."""
    with pytest.raises(TypeError) as e:
        call(hmasweep.series(bars=100))
    assert str(e.value) == message
    # a keyword made at run time (not interned) is found by its text
    assert _core.sweep(hmasweep.series(bars=100), **{"".join(["len", "gths"]): [6]}).trades.shape == (1,)


def test_version_is_the_projects(source_dir):
    """hmasweep.__version__ is the C library's hs_version(), and it is include/hmasweep.h's HS_VERSION_*,
    the version's one source (CMakeLists.txt's project(VERSION) and the wheel's metadata are read from it)."""
    import re
    header = (source_dir / "include" / "hmasweep.h").read_text()
    parts = [re.search(r"^#define HS_VERSION_%s ([0-9]+)$" % p, header, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    assert all(parts), "include/hmasweep.h has no HS_VERSION_MAJOR/MINOR/PATCH"
    assert hmasweep.__version__ == ".".join(m.group(1) for m in parts)
