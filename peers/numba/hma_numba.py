#!/usr/bin/env python3
"""The numba reference peer: the HMA/HMA3 stop-and-reverse sweep as the study wrote it.

This is the in-process rung the IPC-tax article timed (2.010 s on an M2 Max) and the kernel its Rust
server was ported from, line for line.  Written to docs/spec.md (kernel spec v1, and v2's §8), tier 0:

  * wma(x, w): np.full(n, nan) output, s += x[i-w+1+j] * (j+1) in increasing j, one accumulator, each
    product rounded before the add (numba's default fastmath=False gives LLVM no `contract` flag, so no
    FMA), divided by w*(w+1)/2 (a division, not a reciprocal multiply).
  * hma  = wma(2*wma(c, w0) - wma(c, w1), w2)
  * hma3 = wma((3*wma(c, w3) - wma(c, w4)) - wma(c, w5), w5)
  * the event loop and the books of docs/spec.md §4, fee 0.09 % per round trip on the gross return
    (--fee: spec v2's round-trip cost, keep = 1 - fee computed once).
  * spec v2's six statistics (docs/spec.md §8), kept as the loop books each trade, written from §8's table
    (the independent oracle of the C books' statistics: tests/golden/gate_numba.py and
    python/tests/test_numba_oracle.py); `trade_log` returns the trades those books booked, and
    `windows_2d` derives §8's 2-D grid's windows.
  * per-call allocation the way numpy/numba does it: every wma returns a fresh array, every array
    expression (`2*a - b`) allocates its result (numba fuses the expression into one loop, one array).

Two entry points: `sweep` (@njit, single thread: the article's in_process rung) and `sweep_prange`
(@njit(parallel=True), prange across combos: the sister study's top rung).  Both call the same
single-threaded per-combo kernel, so their per-combo results are bit-identical.

Usage (see peers/README.md):
  python3 peers/numba/hma_numba.py [--input FILE.f64] [--seed 42 --bars 150000 --vol 0.0008 --start 100]
                                   [--lengths a,b,..] [--fee 0.0009] [--parallel] [--repeat N] [--output out.json]
                                   [--write-series FILE.f64]
Exit status: 0 ok, 1 bad data (file/series), 2 bad usage (L < 2, window longer than the series, options).
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

import numpy as np

try:
    import numba
    import llvmlite
    from numba import njit, prange
except ImportError as exc:  # pragma: no cover - environment problem, not a kernel problem
    sys.stderr.write("hma_numba.py: numba is not importable (%s); pip install numba\n" % exc)
    sys.exit(2)

FEE = 0.0009  # 0.09 % per round trip (docs/spec.md §4; spec v2's default fee, §8)
STATS = ("wins", "gross_profit", "gross_loss", "sum_sq", "max_drawdown", "bars_held")  # docs/spec.md §8


class DataError(Exception):
    """Bad series: exit 1."""


class UsageError(Exception):
    """Bad request: exit 2."""


# ---- the kernel (numba, as the study wrote it) ----------------------------------------------------

@njit
def wma(x, w):
    n = x.shape[0]
    out = np.full(n, np.nan)
    denom = w * (w + 1) / 2
    for i in range(w - 1, n):
        s = 0.0
        for j in range(w):
            s += x[i - w + 1 + j] * (j + 1)
        out[i] = s / denom
    return out


@njit
def hma(close, w0, w1, w2):
    return wma(2 * wma(close, w0) - wma(close, w1), w2)


@njit
def hma3(close, w3, w4, w5):
    return wma(3 * wma(close, w3) - wma(close, w4) - wma(close, w5), w5)


@njit
def book(state, p, entry_bar, exit_bar):
    """Spec v2 §8: one booked trade's statistics, in booking order.  state = [pnl, peak, gross_profit,
    gross_loss, sum_sq, max_drawdown] (float64) ... and the integer counts are returned by the caller."""
    state[0] += p
    if p > 0.0:
        state[2] += p
    if p < 0.0:
        state[3] += p
    state[4] += p * p
    if state[0] > state[1]:
        state[1] = state[0]
    t = state[1] - state[0]
    if t > state[5]:
        state[5] = t


@njit
def record(log_i, log_f, k, entry_bar, exit_bar, side, entry_price, exit_price, p):
    """Trade k into the log (entry_bar, exit_bar, side | entry_price, exit_price, pnl) when the log has a row
    for it: backtest_v2 passes 0-row arrays, so the timed sweep records nothing."""
    if k < log_i.shape[0]:
        log_i[k, 0] = entry_bar
        log_i[k, 1] = exit_bar
        log_i[k, 2] = side
        log_f[k, 0] = entry_price
        log_f[k, 1] = exit_price
        log_f[k, 2] = p


@njit
def books(close, w0, w1, w2, w3, w4, w5, fee, log_i, log_f):
    """The event loop and books of docs/spec.md §4 with spec v2's six statistics (§8), recording each booked
    trade into log_i/log_f while they have rows."""
    h = hma(close, w0, w1, w2)
    h3 = hma3(close, w3, w4, w5)
    n = close.shape[0]
    keep = 1.0 - fee
    pos = 0
    entry = 0.0
    entry_bar = 0
    prev = 0.0
    trades = 0
    wins = 0
    held = 0
    state = np.zeros(6)  # pnl, peak, gross_profit, gross_loss, sum_sq, max_drawdown
    for i in range(n):
        d = h3[i] - h[i]
        if np.isnan(d):
            continue
        if prev != 0.0 and ((d > 0.0 and prev < 0.0) or (d < 0.0 and prev > 0.0)):
            if pos != 0:
                r = pos * (close[i] / entry - 1.0)
                p = ((1.0 + r) * keep - 1.0) * 100.0
                book(state, p, entry_bar, i)
                record(log_i, log_f, trades, entry_bar, i, pos, entry, close[i], p)
                trades += 1
                wins += 1 if p > 0.0 else 0
                held += i - entry_bar
            pos = 1 if d > 0.0 else -1
            entry = close[i]
            entry_bar = i
        if d != 0.0:
            prev = d
    if pos != 0:
        r = pos * (close[n - 1] / entry - 1.0)
        p = ((1.0 + r) * keep - 1.0) * 100.0
        book(state, p, entry_bar, n - 1)
        record(log_i, log_f, trades, entry_bar, n - 1, pos, entry, close[n - 1], p)
        trades += 1
        wins += 1 if p > 0.0 else 0
        held += (n - 1) - entry_bar
    return state[0], trades, wins, state[2], state[3], state[4], state[5], held


@njit
def backtest_v2(close, w0, w1, w2, w3, w4, w5, fee):
    """pnl, trades and the six statistics of docs/spec.md §8 (wins, gross_profit, gross_loss, sum_sq,
    max_drawdown, bars_held)."""
    return books(close, w0, w1, w2, w3, w4, w5, fee, np.empty((0, 3), dtype=np.int64), np.empty((0, 3)))


@njit
def trade_log(close, w0, w1, w2, w3, w4, w5, fee):
    """One combo's trades in booking order, from the books above: ints (k x 3: entry_bar, exit_bar, side)
    and floats (k x 3: entry_price, exit_price, pnl).  A trade closes at most once per bar, plus the final
    close, so n + 1 rows always suffice."""
    n = close.shape[0]
    log_i = np.zeros((n + 1, 3), dtype=np.int64)
    log_f = np.zeros((n + 1, 3))
    trades = books(close, w0, w1, w2, w3, w4, w5, fee, log_i, log_f)[1]
    return log_i[:trades], log_f[:trades]


@njit
def backtest(close, w0, w1, w2, w3, w4, w5, fee):
    """The study's kernel: pnl and trades (spec v1 with a fee), the books of backtest_v2."""
    r = backtest_v2(close, w0, w1, w2, w3, w4, w5, fee)
    return r[0], r[1]


@njit
def sweep(close, windows, fee):
    m = windows.shape[0]
    pnl = np.zeros(m)
    trades = np.zeros(m, dtype=np.int64)
    for k in range(m):
        p, t = backtest(close, windows[k, 0], windows[k, 1], windows[k, 2],
                        windows[k, 3], windows[k, 4], windows[k, 5], fee)
        pnl[k] = p
        trades[k] = t
    return pnl, trades


@njit
def sweep_stats(close, windows, fee):
    """sweep with spec v2's statistics: pnl, trades, ints (m x 2: wins, bars_held) and floats (m x 4:
    gross_profit, gross_loss, sum_sq, max_drawdown)."""
    m = windows.shape[0]
    pnl = np.zeros(m)
    trades = np.zeros(m, dtype=np.int64)
    ints = np.zeros((m, 2), dtype=np.int64)
    floats = np.zeros((m, 4))
    for k in range(m):
        r = backtest_v2(close, windows[k, 0], windows[k, 1], windows[k, 2],
                        windows[k, 3], windows[k, 4], windows[k, 5], fee)
        pnl[k] = r[0]
        trades[k] = r[1]
        ints[k, 0] = r[2]
        floats[k, 0] = r[3]
        floats[k, 1] = r[4]
        floats[k, 2] = r[5]
        floats[k, 3] = r[6]
        ints[k, 1] = r[7]
    return pnl, trades, ints, floats


def stats_dicts(ints, floats):
    """sweep_stats' arrays as one dict per combo, keyed by STATS."""
    return [{"wins": int(i[0]), "gross_profit": float(f[0]), "gross_loss": float(f[1]), "sum_sq": float(f[2]),
             "max_drawdown": float(f[3]), "bars_held": int(i[1])} for i, f in zip(ints, floats)]


@njit(parallel=True)
def sweep_prange(close, windows, fee):
    m = windows.shape[0]
    pnl = np.zeros(m)
    trades = np.zeros(m, dtype=np.int64)
    for k in prange(m):
        p, t = backtest(close, windows[k, 0], windows[k, 1], windows[k, 2],
                        windows[k, 3], windows[k, 4], windows[k, 5], fee)
        pnl[k] = p
        trades[k] = t
    return pnl, trades


@njit
def _running_sum(z, vol):
    # c[i] = c[i-1] + vol*z[i], c[-1] = 0: a plain sequential loop (docs/spec.md §1).
    c = np.empty(z.shape[0])
    acc = 0.0
    for i in range(z.shape[0]):
        acc = acc + vol * z[i]
        c[i] = acc
    return c


# ---- data and grid (Python side, as the study's driver) -------------------------------------------

def make_close(seed, bars, vol, start):
    """numpy's series: default_rng(seed).standard_normal, sequential cumsum, start*np.exp(c).

    np.exp is not SLEEF's exp (the spec's canonical one); it differs in the last bit for ~20 % of the
    inputs, which does not move the fingerprint (docs/spec.md §1)."""
    z = np.random.default_rng(seed).standard_normal(bars)
    return start * np.exp(_running_sum(z, vol))


def check_series(x):
    if x.size == 0:
        raise DataError("the series is empty")
    bad = ~(np.isfinite(x) & (x > 0.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError("price %d is %r: every price must be finite and > 0 (%d bad values)"
                        % (i, float(x[i]), int(bad.sum())))


def read_series(path):
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise DataError("cannot read %s: %s" % (path, exc.strerror or exc))
    if size % 8 != 0:
        raise DataError("%s: %d bytes is not a whole number of little-endian f64 values" % (path, size))
    try:
        x = np.fromfile(path, dtype="<f8").astype(np.float64, copy=False)
    except OSError as exc:
        raise DataError("cannot read %s: %s" % (path, exc))
    check_series(x)
    return np.ascontiguousarray(x)


def default_grid(lo=6, hi=200, count=80):
    """np.linspace(lo, hi, count).astype(int), checked against the spec's truncation rule."""
    grid = np.linspace(lo, hi, count).astype(int)
    step = (hi - lo) / (count - 1)
    rule = [int(math.trunc(lo + i * step)) for i in range(count - 1)] + [hi]
    if grid.tolist() != rule:  # pragma: no cover - would mean numpy changed linspace
        raise AssertionError("np.linspace grid %s != spec rule %s" % (grid.tolist(), rule))
    return [int(v) for v in grid]


def windows_from_length(length):
    """docs/spec.md §2; round() is Python's round-half-even."""
    if length < 2:
        raise UsageError("length %d: L must be >= 2" % length)
    p = round(length / 2)
    return [length // 2, length, int(math.floor(math.sqrt(length))),
            max(1, round(p / 3)), max(1, round(p / 2)), p]


def windows_2d(hma_lengths, hma3_lengths):
    """docs/spec.md §8's 2-D grid: every (Lh, L3) pair, Lh outer; w0..w2 from Lh and w3..w5 from L3, each by
    §2's rules (windows_from_length)."""
    return [windows_from_length(lh)[:3] + windows_from_length(l3)[3:] for lh in hma_lengths for l3 in hma3_lengths]


def parse_lengths(text):
    out = []
    for tok in text.split(","):
        tok = tok.strip()
        try:
            out.append(int(tok))
        except ValueError:
            raise UsageError("--lengths: %r is not an integer" % tok)
    if not out:
        raise UsageError("--lengths: empty list")
    return out


def prepare(args):
    """The series, the lengths and their windows from the common options (add_series_arguments), checked:
    DataError or UsageError.  Shared with the vectorbt peer (peers/vectorbt), so both read one way."""
    if args.repeat < 1:
        raise UsageError("--repeat must be >= 1")
    if args.input:
        close = read_series(args.input)
    else:
        if args.bars < 1:
            raise UsageError("--bars must be >= 1")
        if args.seed < 0:
            raise UsageError("--seed must be >= 0")
        close = make_close(args.seed, args.bars, args.vol, args.start)
        check_series(close)
    lengths = parse_lengths(args.lengths) if args.lengths else default_grid()
    wins = [windows_from_length(L) for L in lengths]
    n = close.shape[0]
    for L, w in zip(lengths, wins):
        if max(w) > n:
            raise UsageError("length %d: window %d is longer than the series (%d bars)" % (L, max(w), n))
    if not (math.isfinite(args.fee) and 0.0 <= args.fee < 1.0):
        raise UsageError("--fee %r: the round-trip cost must be a finite fraction with 0 <= fee < 1" % args.fee)
    return close, lengths, wins, np.ascontiguousarray(np.array(wins, dtype=np.int64).reshape(-1, 6))


def run(args):
    close, lengths, wins, windows = prepare(args)
    n = close.shape[0]
    if args.write_series:
        close.astype("<f8").tofile(args.write_series)

    fn = sweep_prange if args.parallel else sweep
    # Compile (and warm up) on a tiny series before timing.
    tiny = make_close(1, 64, 0.0008, 100.0)
    fn(tiny, np.array([windows_from_length(6)], dtype=np.int64), FEE)

    times = []
    pnl = trades = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        pnl, trades = fn(close, windows, args.fee)
        times.append(time.perf_counter() - t0)
    _, _, ints, floats = sweep_stats(close, windows, args.fee)  # the same books, untimed
    stats = stats_dicts(ints, floats)

    doc = {
        "variant": "numba_prange" if args.parallel else "numba",
        "bars": int(n),
        "seconds": statistics.median(times),
        "seconds_all": times,
        "numba": numba.__version__,
        "llvmlite": llvmlite.__version__,
        "fee": args.fee,
        "combos": [dict({"length": int(L), "windows": [int(v) for v in w],
                         "trades": int(trades[k]), "pnl": float(pnl[k])}, **stats[k])
                   for k, (L, w) in enumerate(zip(lengths, wins))],
    }
    write_json(doc, args.output)
    return 0


def write_json(doc, path):
    """The peers' JSON to `path`, or to stdout when path is None (both peers)."""
    text = json.dumps(doc, indent=1)  # json uses float.__repr__: round-trip exact
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")


def add_series_arguments(ap):
    """The options both peers take (this one and peers/vectorbt): the series, the lengths, the fee, the runs,
    the JSON."""
    ap.add_argument("--input", help="raw little-endian f64 close series (np.fromfile)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--bars", type=int, default=150000)
    ap.add_argument("--vol", type=float, default=0.0008)
    ap.add_argument("--start", type=float, default=100.0)
    ap.add_argument("--lengths", help="comma-separated lengths (default: the spec's 80-length grid)")
    ap.add_argument("--fee", type=float, default=FEE, help="round-trip cost, 0 <= fee < 1 (default 0.0009)")
    ap.add_argument("--repeat", type=int, default=1, help="timed runs; 'seconds' is their median")
    ap.add_argument("--output", help="write the JSON here instead of stdout")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_series_arguments(ap)
    ap.add_argument("--parallel", action="store_true", help="prange across combos (numba_prange)")
    ap.add_argument("--write-series", help="also write the series used as raw little-endian f64")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors already
        return int(exc.code or 0)
    try:
        return run(args)
    except DataError as exc:
        sys.stderr.write("hma_numba.py: %s\n" % exc)
        return 1
    except UsageError as exc:
        sys.stderr.write("hma_numba.py: %s\n" % exc)
        return 2


if __name__ == "__main__":
    sys.exit(main())
