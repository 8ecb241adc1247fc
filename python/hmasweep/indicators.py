"""The indicators as arrays: the tier-0 series the kernel walks (docs/spec.md §3-§4), from the C library's
hs_wma / hs_hma / hs_hma3 / hs_signal (include/hmasweep.h), which run the reference kernel's own code.

Each returns a float64 array aligned with the input, NaN over the look-back; a pandas Series in gives a
Series out on the same index.  The values are the kernel's bit for bit: the sign flips of signal() are
the sweep's trades (docs/python.md, "Indicators").
"""
from __future__ import annotations

import operator
from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import _core, inputs

Windows = Union[Sequence[int], npt.NDArray[np.integer[Any]]]

# Which of a length's six windows (docs/spec.md §2) each indicator reads.
_PICK = {"hma": slice(0, 3), "hma3": slice(3, 6), "signal": slice(0, 6)}


def _window(w: Any, what: str) -> int:
    """An int window; a float, bool or string is a TypeError naming it (3.0 would be ambiguous)."""
    if isinstance(w, (bool, np.bool_)):
        raise TypeError(f"{what} must be an int, got a bool")
    try:
        return operator.index(w)
    except TypeError:
        raise TypeError(f"{what} must be an int, got {type(w).__name__} {w!r}") from None


def _series(x: Any, fn: str) -> npt.NDArray[np.float64]:
    inputs.check_numeric(x, fn)
    a = np.asarray(x, dtype=np.float64)  # no copy for a float64 ndarray or Series
    if a.ndim != 1:
        raise ValueError(f"{fn}: x must be a 1-D series, got a {a.ndim}-D array of shape {a.shape}")
    return a


def _wrap(x: Any, values: npt.NDArray[np.float64], name: str) -> Any:
    """values as a pandas Series on x's index when x is a Series, else the ndarray."""
    index = getattr(x, "index", None)
    if index is None or not hasattr(x, "iloc"):
        return values
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]  # x is a pandas object

    return pd.Series(values, index=index, name=name)


def _windows_of(kind: str, length: Optional[int], windows: Optional[Windows]) -> npt.NDArray[np.int64]:
    count = _PICK[kind].stop - _PICK[kind].start
    if (length is None) == (windows is None):
        raise ValueError(f"{kind}: give length or windows ({count} ints), exactly one")
    if windows is not None:
        w = [_window(v, f"{kind}: windows[{k}]") for k, v in enumerate(windows)]
        if len(w) != count:
            raise ValueError(f"{kind}: windows must be {count} ints, got {len(w)}")
        return np.asarray(w, dtype=np.int64)
    return _core.windows(_window(length, f"{kind}: length"))[_PICK[kind]].copy()


def wma(x: npt.ArrayLike, w: int) -> Any:
    """WMA(x, w) (docs/spec.md §3): float64, NaN over the first w - 1 bars; WMA(x, 1) is x.

    x: a 1-D series of finite numbers (ndarray, list or pandas Series; a Series gives a Series back).
    1 <= w <= len(x), else ValueError.
    """
    a = _series(x, "wma")
    return _wrap(x, _compute("wma", x, a, np.asarray([_window(w, "wma: w")], dtype=np.int64)), "wma")


def _compute(kind: str, x: Any, a: npt.NDArray[np.float64], w: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """The library's indicator; its error restated in Python's terms (inputs.restate)."""
    try:
        return _core._indicator(kind, a, w)
    except ValueError as e:
        raise ValueError(inputs.restate(str(e), x)) from None


def _indicator(kind: str, x: Any, length: Optional[int], windows: Optional[Windows]) -> Any:
    a = _series(x, kind)
    return _wrap(x, _compute(kind, x, a, _windows_of(kind, length, windows)), kind)


def hma(x: npt.ArrayLike, length: Optional[int] = None, *, windows: Optional[Windows] = None) -> Any:
    """HMA = WMA(2·WMA(x, w0) − WMA(x, w1), w2) of length L (w0, w1, w2 from L, docs/spec.md §2) or of
    windows=(w0, w1, w2)."""
    return _indicator("hma", x, length, windows)


def hma3(x: npt.ArrayLike, length: Optional[int] = None, *, windows: Optional[Windows] = None) -> Any:
    """HMA3 = WMA((3·WMA(x, w3) − WMA(x, w4)) − WMA(x, w5), w5) of length L or of windows=(w3, w4, w5)."""
    return _indicator("hma3", x, length, windows)


def signal(x: npt.ArrayLike, length: Optional[int] = None, *, windows: Optional[Windows] = None) -> Any:
    """d = HMA3 − HMA of length L or of windows=(w0, ..., w5): the series whose strict sign changes against
    the last non-zero d are the combo's trades (docs/spec.md §4), bit for bit the kernel's."""
    return _indicator("signal", x, length, windows)
