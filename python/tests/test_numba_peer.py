"""Agreement with the numba peer (peers/numba/hma_numba.py, written from the spec and the study, not from
the C code): the same series bytes through both give the same trades and bit-identical PnL."""
import numpy as np
import pytest

import hmasweep
from conftest import load_source

try:  # ctest python_numba_peer skips first (tests/skips.allow); this is for a bare pytest run
    import numba  # noqa: F401
except ImportError:
    pytest.skip("numba: numba is not importable (pip install numba; CI installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def peer():
    return load_source("peers/numba/hma_numba.py", "hma_numba")


@pytest.mark.parametrize("seed,bars", [(42, 20000), (2024, 5000)])
def test_numba_peer_agrees(peer, seed, bars):
    close = hmasweep.series(seed=seed, bars=bars)
    r = hmasweep.sweep(close)  # the default grid, variant "best"
    pnl, trades = peer.sweep(close, r.windows, peer.FEE)  # the very same bytes
    np.testing.assert_array_equal(trades, r.trades)
    assert np.asarray(pnl).tobytes() == r.pnl.tobytes()


def test_indicators_equal_the_peers_arrays(peer):
    """hmasweep.wma/hma/hma3/signal against the peer's own @njit wma/hma/hma3, bit for bit, on every combo of
    the default grid and on free windows: the arrays the kernel walks are the arrays numba computes."""
    close = hmasweep.series(bars=20000)
    combos = list(hmasweep.windows(hmasweep.grid())) + [np.array([3, 6, 2, 9, 2, 3]), np.array([12, 5, 1, 2, 17, 4])]
    for w in combos:
        h, h3 = peer.hma(close, *w[:3]), peer.hma3(close, *w[3:])
        assert hmasweep.hma(close, windows=w[:3]).tobytes() == h.tobytes(), w
        assert hmasweep.hma3(close, windows=w[3:]).tobytes() == h3.tobytes(), w
        assert hmasweep.signal(close, windows=w).tobytes() == (h3 - h).tobytes(), w  # the peer's d
        assert hmasweep.wma(close, int(w[1])).tobytes() == peer.wma(close, int(w[1])).tobytes(), w
