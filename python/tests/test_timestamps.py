"""A pandas series' timestamps must be strictly increasing (docs/spec.md §9.3, issue 27 §3): sweep(), trades()
and equity() refuse an unsorted or repeated DatetimeIndex with a ValueError that names the first offending
position and its timestamp.  Before, a shuffled series gave trades that exit years before they enter."""
import numpy as np
import pytest

import hmasweep as hs

pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install pandas; CI installs it)")

CALLS = {
    "sweep": lambda s: hs.sweep(s, [6, 10]),
    "trades": lambda s: hs.trades(s, 10),
    "equity": lambda s: hs.equity(s, 10),
    "trade_log": lambda s: hs.trade_log(s, 10),
}


def dated(n=600, seed=4, freq="D"):
    return pd.Series(hs.series(seed=seed, bars=n), index=pd.date_range("2004-08-19", periods=n, freq=freq))


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_shuffled_series_is_refused_naming_the_first_step_back(call):
    s = dated()
    shuffled = s.sample(frac=1.0, random_state=0)
    k = int(np.flatnonzero(np.diff(shuffled.index.asi8) <= 0)[0]) + 1  # the first position not after its neighbour
    want = (r"close's timestamps must be strictly increasing: position %d \(%s\) is before position %d \(%s\)"
            % (k, shuffled.index[k], k - 1, shuffled.index[k - 1]))
    with pytest.raises(ValueError, match=want):
        CALLS[call](shuffled)
    CALLS[call](shuffled.sort_index())  # sorted, it runs


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_repeated_timestamp_is_refused(call):
    s = dated()
    twice = pd.concat([s.iloc[:300], s.iloc[299:]])  # bar 299's timestamp again at position 300
    with pytest.raises(ValueError, match=r"position 300 \(2005-06-14 00:00:00\) repeats position 299 "
                                         r"\(2005-06-14 00:00:00\)"):
        CALLS[call](twice)


def test_a_missing_timestamp_is_refused():
    s = dated()
    index = s.index.to_series().copy()
    index.iloc[17] = pd.NaT
    s.index = pd.DatetimeIndex(index)
    with pytest.raises(ValueError, match="position 17 is NaT"):
        hs.sweep(s, [6])


def test_sorted_series_run_as_before_and_other_indexes_are_not_timestamps():
    s = dated(freq="h").tz_localize("Europe/Berlin", nonexistent="shift_forward", ambiguous="NaT")
    s = s[s.index.notna()]  # the autumn's repeated hour is NaT here: dropped
    ref = hs.sweep(s.to_numpy(), [6, 10])
    assert hs.sweep(s, [6, 10]).pnl.tobytes() == ref.pnl.tobytes()
    backwards = s.reset_index(drop=True).iloc[::-1]  # a RangeIndex, descending: positions, not timestamps
    assert hs.sweep(backwards, [6, 10]).pnl.tobytes() == hs.sweep(s.to_numpy()[::-1], [6, 10]).pnl.tobytes()


def test_sweep_many_checks_each_symbol_and_the_frame():
    s = dated()
    bad = s.sample(frac=1.0, random_state=1)
    with pytest.raises(ValueError, match="symbol B's timestamps must be strictly increasing: position 1 "):
        hs.sweep_many({"A": s, "B": bad}, [6])
    frame = pd.DataFrame({"A": s, "B": s * 2}).sample(frac=1.0, random_state=1)
    with pytest.raises(ValueError, match="the frame's timestamps must be strictly increasing: position 1 "):
        hs.sweep_many(frame, [6])
    assert len(hs.sweep_many(frame.sort_index(), [6])) == 2
