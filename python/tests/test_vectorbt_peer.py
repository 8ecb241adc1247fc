"""The vectorbt peer (peers/vectorbt/hma_vectorbt.py, issue 17 §4) against hmasweep, on the very same bytes:
the default series (150,000 bars) and grid (80 combos).  vectorbt's Portfolio.from_signals, fed the sign
flips of the user's numba d, must book every trade ours books: the same count per combo (473,381 in all),
and per trade the same entry and exit bar, side and prices.  The spec's PnL booked from vectorbt's trades
equals sweep()'s bit for bit, and at fee 0 vectorbt's winning trades are our winning trades and equal SPEC §8's
`wins` statistic (hmasweep run --fee 0).
ctest python_vectorbt_peer runs this file (skipped without vectorbt: tests/skips.allow)."""
import hashlib
import json
import subprocess

import numpy as np
import pytest

import hmasweep
from conftest import load_source

try:  # ctest python_vectorbt_peer skips first (tests/skips.allow); this is for a bare pytest run
    import vectorbt  # noqa: F401
except ImportError:
    pytest.skip("vectorbt: vectorbt is not importable (pip install vectorbt; CI installs it)", allow_module_level=True)

TOTAL_TRADES = 473381  # the default sweep's trades over all 80 combos (tests/golden/default_run.json)


@pytest.fixture(scope="module")
def peer():
    return load_source("peers/vectorbt/hma_vectorbt.py", "hma_vectorbt")


@pytest.fixture(scope="module")
def default_run(peer):
    close = hmasweep.series()
    r = hmasweep.sweep(close)
    return close, r, peer.run(close, r.windows)


def test_every_trade_equal(peer, default_run, golden):
    close, r, rec = default_run
    assert int(r.trades.sum()) == TOTAL_TRADES == int(golden["trades"].sum())
    cols = rec["col"].to_numpy()
    assert np.bincount(cols, minlength=len(r.trades)).tolist() == r.trades.tolist()
    for k, w in enumerate(r.windows):
        ours = hmasweep.trade_log(close, windows=w)
        theirs = rec[cols == k]
        assert theirs["entry_idx"].tolist() == ours["entry_bar"].tolist(), k
        assert theirs["exit_idx"].tolist() == ours["exit_bar"].tolist(), k
        assert np.where(theirs["direction"] == 0, 1, -1).tolist() == ours["side"].tolist(), k
        assert theirs["entry_price"].to_numpy().tobytes() == ours["entry_price"].tobytes(), k
        assert theirs["exit_price"].to_numpy().tobytes() == ours["exit_price"].tobytes(), k


def test_pnl_and_wins(peer, default_run, golden):
    close, r, rec = default_run
    trades, pnl, wins_fee0 = peer.book(rec, len(r.trades))
    assert trades.tolist() == r.trades.tolist()
    assert pnl.tobytes() == r.pnl.tobytes()  # the spec's booking of vectorbt's trades, summed in order
    assert pnl.tobytes() == golden["pnl"].tobytes()
    # At fee 0 a trade wins when it books p > 0: vectorbt's pnl > 0 must pick the same trades.
    ours_fee0 = []
    for w in r.windows:
        log = hmasweep.trade_log(close, windows=w)
        gross = log["side"] * (log["exit_price"] / log["entry_price"] - 1.0)
        ours_fee0.append(int((((1.0 + gross) * 1.0 - 1.0) * 100.0 > 0).sum()))  # docs/spec.md §8, fee 0
    assert wins_fee0.tolist() == ours_fee0
    assert sum(ours_fee0) > 0


def test_wins_at_fee_0_equal_the_statistic(peer, default_run, cli):
    """SPEC §8's `wins` at fee 0 (the library's statistic, `hmasweep run --fee 0`, on the same default series)
    equals vectorbt's winning-trade count (record pnl > 0) for every combo."""
    close, r, rec = default_run
    run = json.loads(subprocess.run([cli, "run", "--fee", "0", "--format", "json"], check=True, capture_output=True,
                                    text=True).stdout)
    assert run["fee"] == 0 and run["series_sha256"] == hashlib.sha256(close.tobytes()).hexdigest()  # the same bytes
    assert [c["windows"] for c in run["combos"]] == r.windows.tolist()
    assert [c["trades"] for c in run["combos"]] == r.trades.tolist()
    _, _, wins_fee0 = peer.book(rec, len(r.trades))
    assert [c["wins"] for c in run["combos"]] == wins_fee0.tolist()
