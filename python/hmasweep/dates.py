"""Dates of a dated series (a pandas Series with a DatetimeIndex) for the pictures: the report's time axis
and hovers, and a `span` given as dates (issue 28 item 4; docs/python.md "The page")."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

from .trades import _datetime_index


def datetime_values(series: Any) -> Optional[npt.NDArray[np.datetime64]]:
    """The series' DatetimeIndex as datetime64 values, or None when it has none."""
    index = _datetime_index(series)
    return None if index is None else index.to_numpy()


def _is_date(x: Any) -> bool:
    """A date as span may give it: a string, a datetime/date, a numpy datetime64 or a pandas Timestamp."""
    import datetime

    return isinstance(x, (str, datetime.date, np.datetime64))  # pd.Timestamp is a datetime.datetime


def span_bars(span: Optional[Tuple[Any, Any]], dates: Optional[npt.NDArray[np.datetime64]]) -> Any:
    """span as (first_bar, last_bar): bars stay as they are; dates (str, datetime, numpy or pandas
    timestamps) become the first bar at or after the first date and the last bar at or before the last.
    ValueError when dates are given for a series without dates, or hold no bar of it."""
    if span is None:
        return None
    try:
        first, last = span
    except (TypeError, ValueError):
        return span  # plot's _check_span names the problem
    if not (_is_date(first) or _is_date(last)):
        return span  # bars, or something plot's _check_span refuses by name
    if dates is None:
        raise ValueError("span = %r gives dates, but the series has none: pass a pandas Series with a "
                         "DatetimeIndex, or give span as (first_bar, last_bar)" % (span,))
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]  # there are dates: pandas is there

    try:
        lo_t, hi_t = (np.datetime64(pd.Timestamp(x).to_datetime64(), "ns") for x in (first, last))
    except (TypeError, ValueError) as e:
        raise ValueError("span = %r: not two dates or two bar numbers (%s)" % (span, e)) from None
    values = dates.astype("datetime64[ns]")
    lo = int(np.searchsorted(values, lo_t, side="left"))
    hi = int(np.searchsorted(values, hi_t, side="right")) - 1
    if lo > hi:
        raise ValueError("span = %r holds no bar of the series (its dates run from %s to %s)"
                         % (span, pd.Timestamp(values[0]), pd.Timestamp(values[-1])))
    return lo, hi
