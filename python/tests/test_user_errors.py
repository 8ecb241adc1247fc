"""Errors and warnings in the user's terms (issue 28 item 7; python/hmasweep/inputs.py, docs/python.md
"Errors").  Each expected text is written from the input the test builds (its NaN's position and date)."""
import re
import warnings

import numpy as np
import pytest

import hmasweep as hs

pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install '.[pandas]')")


def dated(n=400, nan_at=None):
    close = hs.series(bars=n)
    if nan_at is not None:
        close[nan_at] = np.nan
    return pd.Series(close, index=pd.date_range("2020-01-01", periods=n, freq="D"), name="Close")


def test_signal_nan_error_names_the_python_function_not_the_c_one():
    x = hs.series(bars=300)
    x[50] = np.nan
    with pytest.raises(ValueError) as e:
        hs.signal(x, 10)
    assert "hs_signal" not in str(e.value) and str(e.value).startswith("signal: x[50]"), str(e.value)
    with pytest.raises(ValueError, match=r"^wma: x\[50\]"):
        hs.wma(x, 5)


@pytest.mark.parametrize("call", [
    lambda s: hs.sweep(s, [6, 20]),
    lambda s: hs.signal(s, 10),
    lambda s: hs.trades(s, 10),
])
def test_a_dated_series_error_gives_the_timestamp(call):
    s = dated(nan_at=61)  # 2020-01-01 + 61 days = 2020-03-02
    with pytest.raises(ValueError) as e:
        call(s)
    assert "[61] (at 2020-03-02)" in str(e.value), str(e.value)


def test_an_undated_array_error_is_unchanged():
    x = hs.series(bars=300)
    x[7] = np.nan
    with pytest.raises(ValueError, match=r"^close\[7\] is NaN$"):
        hs.sweep(x, [6])


@pytest.mark.parametrize("make, dtype_text", [
    (lambda c: pd.Series(c.astype(str)), "(object|str)"),  # pandas 3: str
    (lambda c: c.astype(str), "<U"),
    (lambda c: c.astype(object), "object"),
    (lambda c: c > 100, "bool"),
    (lambda c: pd.Series(pd.date_range("2020-01-01", periods=len(c))), "datetime64"),
])
def test_non_numeric_input_is_refused_naming_its_dtype(make, dtype_text):
    bad = make(hs.series(bars=300))
    for call in (lambda: hs.sweep(bad, [6]), lambda: hs.signal(bad, 10), lambda: hs.trades(bad, 10)):
        with pytest.raises(TypeError, match="dtype " + dtype_text):
            call()


def test_a_list_of_strings_is_refused():
    with pytest.raises(TypeError, match="str values"):
        hs.sweep([str(v) for v in hs.series(bars=300)], [6])


def test_integers_are_still_taken():
    assert hs.sweep(np.arange(100, 400), [6]).trades[0] >= 0


def test_fee_above_the_threshold_warns_saying_what_it_means():
    close = hs.series(bars=2000)
    for call in (lambda: hs.sweep(close, [6], fee=0.09), lambda: hs.trades(close, 6, fee=0.09),
                 lambda: hs.sweep_many({"A": close}, [6], fee=0.09, as_frame=False)):
        with pytest.warns(UserWarning, match=r"fee=0\.09 is a round-trip cost of 9% .* pass fee=0\.0009"):
            call()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hs.sweep(close, [6], fee=hs.FEE_WARN_ABOVE)  # at the threshold: no warning
        hs.sweep(close, [6], fee=0.0009)


def test_sweep_many_progress_draws_no_zero_total_line(capsys):
    pytest.importorskip("tqdm", reason="tqdm: not installed (pip install tqdm)")
    hs.sweep_many({"A": hs.series(bars=3000), "B": hs.series(bars=2000)}, [6, 20, 38], progress=True,
                  as_frame=False)
    err = capsys.readouterr().err
    # tqdm(total=0) drew "sweep_many: 0pair [...]"; a rate such as "127745.30pair/s" is not that line
    assert not re.search(r"sweep_many: +0pair", err), err
    assert "6/6" in err, err
