"""Property tests (hypothesis): random positive series and random lengths; every variant on every ISA
this CPU runs gives the reference's result (tier 0 bit for bit; tier 1 equal trades, |dPnL| <= 1e-6)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hmasweep

RUNNABLE = [(v["name"], isa, v["tier"]) for v in hmasweep.variants() for isa in v["runnable"]]


@st.composite
def series_and_lengths(draw):
    n = draw(st.integers(min_value=4, max_value=600))
    kind = draw(st.sampled_from(["walk", "raw"]))
    if kind == "walk":  # a random walk in log space, like prices
        steps = draw(st.lists(st.floats(-0.05, 0.05, allow_nan=False), min_size=n, max_size=n))
        close = 100.0 * np.exp(np.cumsum(steps))
    else:  # any positive numbers: plateaus, jumps, tiny and huge values
        close = np.array(draw(st.lists(st.floats(1e-3, 1e6, allow_nan=False, allow_infinity=False),
                                       min_size=n, max_size=n)))
    lengths = draw(st.lists(st.integers(2, n), min_size=1, max_size=6))
    return close, lengths


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(series_and_lengths())
def test_every_variant_equals_reference(case):
    close, lengths = case
    ref = hmasweep.sweep(close, lengths, variant="unchecked", isa="scalar")
    assert np.all(ref.trades >= 0)
    for name, isa, tier in RUNNABLE:
        r = hmasweep.sweep(close, lengths, variant=name, isa=isa, threads=2)
        np.testing.assert_array_equal(r.trades, ref.trades, err_msg="%s/%s" % (name, isa))
        if tier == 0:
            assert r.pnl.tobytes() == ref.pnl.tobytes(), (name, isa, r.pnl, ref.pnl)
        else:
            assert np.max(np.abs(r.pnl - ref.pnl)) <= 1e-6, (name, isa)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(1e-3, 1e6, allow_nan=False, allow_infinity=False), min_size=1, max_size=50),
       st.integers(0, 49), st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -1.0]))
def test_one_bad_price_is_named(values, where, bad):
    close = np.array(values)
    where %= close.size
    close[where] = bad
    with pytest.raises(ValueError, match=r"close\[%d\]" % where):
        hmasweep.sweep(close, [2], variant="unchecked")
