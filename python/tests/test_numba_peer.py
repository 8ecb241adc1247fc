"""Agreement with the numba peer (peers/numba/hma_numba.py, written from the spec and the study, not from
the C code): the same series bytes through both give the same trades and bit-identical PnL."""
import importlib.util

import numpy as np
import pytest

import hmasweep
from conftest import SOURCE_DIR

try:  # ctest python_numba_peer skips first (tests/skips.allow); this is for a bare pytest run
    import numba  # noqa: F401
except ImportError:
    pytest.skip("numba: numba is not importable (pip install numba; CI installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def peer():
    spec = importlib.util.spec_from_file_location("hma_numba", SOURCE_DIR / "peers" / "numba" / "hma_numba.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("seed,bars", [(42, 20000), (2024, 5000)])
def test_numba_peer_agrees(peer, seed, bars):
    close = hmasweep.series(seed=seed, bars=bars)
    r = hmasweep.sweep(close)  # the default grid, variant "best"
    pnl, trades = peer.sweep(close, r.windows, peer.FEE)  # the very same bytes
    np.testing.assert_array_equal(trades, r.trades)
    assert np.asarray(pnl).tobytes() == r.pnl.tobytes()
