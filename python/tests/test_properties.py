"""Property tests (hypothesis): random positive series and random lengths; every variant on every ISA
this CPU runs gives the reference's result (tier 0 bit for bit; tier 1 equal trades, |dPnL| <= 1e-6)."""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hmasweep

RUNNABLE = [(v["name"], isa, v["tier"]) for v in hmasweep.variants() for isa in v["runnable"]]

# A plateau then steps (found by test_every_variant_equals_reference, 2026-12-03: `segments` built for the
# scalar ISA booked 3 trades where the reference books 2; fixed by fdd08ad, whose reversal fast path no
# longer runs after an uncertain bar): pinned here for every variant and ISA.
PLATEAU_CASE = (np.array([100.0] * 60 + [103.17434074991027, 106.44944589178593, 106.44944589178593, 109.82851403078257, 109.82851403078257]), [2])


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


def check_against_reference(close, lengths, pairs):
    ref = hmasweep.sweep(close, lengths, variant="unchecked", isa="scalar")
    assert np.all(ref.trades >= 0)
    for name, isa, tier in pairs:
        r = hmasweep.sweep(close, lengths, variant=name, isa=isa, threads=2)
        np.testing.assert_array_equal(r.trades, ref.trades, err_msg="%s/%s" % (name, isa))
        if tier == 0:
            assert r.pnl.tobytes() == ref.pnl.tobytes(), (name, isa, r.pnl, ref.pnl)
        else:
            assert np.max(np.abs(r.pnl - ref.pnl)) <= 1e-6, (name, isa)


# derandomize: the same examples on every run, so that main stays deterministic for everyone landing;
# run with HS_HYPOTHESIS_RANDOM=1 to search afresh.
RANDOM = bool(os.environ.get("HS_HYPOTHESIS_RANDOM"))


@settings(max_examples=300 if RANDOM else 60, deadline=None, derandomize=not RANDOM, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(series_and_lengths())
def test_every_variant_equals_reference(case):
    close, lengths = case
    check_against_reference(close, lengths, RUNNABLE)


@pytest.mark.parametrize("name,isa,tier", RUNNABLE)
def test_plateau_case(name, isa, tier):
    check_against_reference(*PLATEAU_CASE, [(name, isa, tier)])


@settings(max_examples=40, deadline=None, derandomize=not RANDOM, database=None)
@given(st.lists(st.floats(1e-3, 1e6, allow_nan=False, allow_infinity=False), min_size=1, max_size=50),
       st.integers(0, 49), st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -1.0]))
def test_one_bad_price_is_named(values, where, bad):
    close = np.array(values)
    where %= close.size
    close[where] = bad
    with pytest.raises(ValueError, match=r"close\[%d\]" % where):
        hmasweep.sweep(close, [2], variant="unchecked")
