"""Errors and warnings in the user's terms (issue 28 item 7; docs/python.md "Errors"): what the Python
functions check before the library sees the input, and how they restate the library's messages.

- A series that is not numbers (strings, objects, dates, bools) is refused with TypeError naming its
  dtype; numpy would otherwise convert "1.5" strings silently.
- A fee above FEE_WARN_ABOVE warns (UserWarning) saying what the value means: fee is a fraction per round
  trip, so fee=0.09 is 9% per trade, probably meant as 0.09% (fee=0.0009).
- The library's messages name positions (`close[5] is NaN`) and, from the indicators, the C function
  (`hs_signal: x[5] = nan ...`).  For a pandas Series the position gets its index label too (a dated
  Series: the timestamp), and the C function's name becomes the Python one (`signal: ...`).
"""
from __future__ import annotations

import functools
import re
import warnings
from typing import TYPE_CHECKING, Any, Optional

from . import _core

#: A fee above this (1% per round trip) warns: it is probably a percentage given as a fraction.
FEE_WARN_ABOVE = 0.01

_NUMERIC_KINDS = "fiu"  # float, signed and unsigned integer dtypes
_POSITION = re.compile(r"\b(close|x)\[(\d+)\]")
_C_FUNCTION = re.compile(r"^hs_(wma|hma3|hma|signal): ")


def check_numeric(close: Any, where: str) -> None:
    """TypeError naming the dtype when close is not numbers (dtype kind other than float or integer, or a
    list/tuple whose first element is a str or bytes)."""
    dtype = getattr(close, "dtype", None)
    kind = getattr(dtype, "kind", None)
    if kind is not None and kind not in _NUMERIC_KINDS:
        raise TypeError(f"{where}: the series has dtype {dtype}, not numbers; convert it first "
                        f"(pandas: pd.to_numeric(s) or s.astype(float); numpy: a.astype(np.float64))")
    if isinstance(close, (list, tuple)) and close and isinstance(close[0], (str, bytes)):
        raise TypeError(f"{where}: the series holds {type(close[0]).__name__} values ({close[0]!r} first), not "
                        f"numbers; convert them first (e.g. [float(v) for v in values])")


def check_fee(fee: Optional[float], where: str, stacklevel: int = 3) -> None:
    """Warn when fee > FEE_WARN_ABOVE, saying what it means."""
    if fee is None:
        return
    try:
        value = float(fee)
    except (TypeError, ValueError, OverflowError):  # 10**400: "fee is too large for a double" (issue 29 item 10)
        return  # the library refuses it, naming it
    if value > FEE_WARN_ABOVE:
        warnings.warn(f"{where}: fee={fee!r} is a round-trip cost of {value * 100:g}% of each trade (fee is a "
                      f"fraction: the default 0.0009 is 0.09%); if you meant {value:g}%, pass fee={value / 100:g}. "
                      f"hmasweep warns above fee={FEE_WARN_ABOVE:g} (docs/python.md)", UserWarning,
                      stacklevel=stacklevel)


def _label(close: Any, position: int) -> Optional[str]:
    """The index label of a pandas object's row at position, when it says more than the position."""
    index = getattr(close, "index", None)
    if index is None or not hasattr(close, "iloc") or not 0 <= position < len(index):
        return None
    label = index[position]
    if isinstance(label, (int,)) and label == position:
        return None
    text = str(label)
    return text[:-9] if text.endswith(" 00:00:00") else text  # a date at midnight: the date


def restate(message: str, close: Any) -> str:
    """The library's message in the user's terms: the Python function's name, and index labels."""
    message = _C_FUNCTION.sub(r"\1: ", message)

    def with_label(m: "re.Match[str]") -> str:
        label = _label(close, int(m.group(2)))
        return m.group(0) if label is None else f"{m.group(0)} (at {label})"
    return _POSITION.sub(with_label, message)


if TYPE_CHECKING:
    from ._core import sweep as sweep
else:
    @functools.wraps(_core.sweep)  # its signature and docstring (inspect.signature follows __wrapped__)
    def sweep(close, lengths=None, **options):
        check_numeric(close, "sweep")
        check_fee(options.get("fee"), "sweep")
        try:
            return _core.sweep(close, lengths, **options)
        except ValueError as e:
            raise ValueError(restate(str(e), close)) from None
