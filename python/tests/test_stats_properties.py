"""Properties of spec v2's statistics (docs/spec.md §8; Hypothesis), each checked against the trade log of the
same combo: random positive series (random walks, arbitrary prices with plateaus), random free windows and
random fees.  The statistics come from the sweep's books (hmasweep.sweep(..., fee=)), the trade log from
hmasweep.trade_log(..., fee=), so these tie the two surfaces together with §8's definitions:

  * wins is the count of positive trade PnLs;
  * max_drawdown follows from the running sum of the trade PnLs (its largest fall below its running high,
    the flat start counting as a high);
  * bars_held is the sum of the durations exit_bar - entry_bar;
  * fee 0 and fee 0.0009 make the same trades (count, bars and sides).
(tests/test_stats.c checks the same in C on 300 cases of its own.)"""
import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hmasweep

RANDOM = bool(os.environ.get("HS_HYPOTHESIS_RANDOM"))  # as test_properties.py: deterministic unless asked


@st.composite
def cases(draw):
    n = draw(st.integers(min_value=4, max_value=500))
    if draw(st.booleans()):  # a random walk in log space
        steps = draw(st.lists(st.floats(-0.05, 0.05, allow_nan=False), min_size=n, max_size=n))
        close = 100.0 * np.exp(np.cumsum(steps))
    else:  # any positive prices, rounded to cents: plateaus, jumps
        close = np.round(np.array(draw(st.lists(st.floats(0.01, 1e4, allow_nan=False), min_size=n, max_size=n))), 2)
        close[close <= 0] = 0.01
    w = draw(st.lists(st.integers(1, min(n, 40)), min_size=6, max_size=6))
    fee = draw(st.one_of(st.just(0.0), st.just(0.0009), st.floats(0.0, 0.05, allow_nan=False)))
    return close, np.array([w], dtype=np.int64), fee


@settings(max_examples=300 if RANDOM else 80, deadline=None, derandomize=not RANDOM, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_statistics_follow_from_the_trade_log(case):
    close, windows, fee = case
    r = hmasweep.sweep(close, windows=windows, fee=fee, variant="best")
    log = hmasweep.trade_log(close, windows=windows[0], fee=fee)
    p = log["pnl"]
    assert r.trades[0] == len(log)
    assert r.wins[0] == int(np.count_nonzero(p > 0))
    assert r.bars_held[0] == int(np.sum(log["exit_bar"] - log["entry_bar"]))
    run, peak, dd = 0.0, 0.0, 0.0
    for x in p:  # in booking order, plain doubles: §8's running sum
        run += x
        peak = max(peak, run)
        dd = max(dd, peak - run)
    assert r.max_drawdown[0] == dd
    assert r.pnl[0] == run


@settings(max_examples=300 if RANDOM else 80, deadline=None, derandomize=not RANDOM, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_the_fee_keeps_the_trades(case):
    close, windows, _ = case
    free = hmasweep.trade_log(close, windows=windows[0], fee=0.0)
    paid = hmasweep.trade_log(close, windows=windows[0], fee=0.0009)
    assert len(free) == len(paid)
    for k in ("entry_bar", "exit_bar", "side"):
        assert np.array_equal(free[k], paid[k]), k
    r0 = hmasweep.sweep(close, windows=windows, fee=0.0)
    r9 = hmasweep.sweep(close, windows=windows, fee=0.0009)
    assert r0.trades[0] == r9.trades[0] and r0.bars_held[0] == r9.bars_held[0]
