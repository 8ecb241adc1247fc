"""hmasweep: the HMA/HMA3 stop-and-reverse sweep (the kernel spec: docs/spec.md) from Python, in process.

The C library does the work (include/hmasweep.h); this package is a thin CPython binding:

    >>> import hmasweep
    >>> r = hmasweep.sweep(hmasweep.series())      # 150,000 bars x 80 lengths
    >>> r.trades[0], r.pnl[0]                       # combo 0, L = 6: the study's fingerprint
    (57029, -5165.579954235863)

`close` may be any 1-D float64 array-like (ndarray, pandas Series, list); a C-contiguous float64 array is
used in place.  The GIL is released while the kernel runs.  `Client` talks to `hmasweep serve` over the
wire protocol (docs/protocol.md) with the same `sweep()` signature.  docs/python.md has the whole story.
"""

from ._core import (
    __version__,
    STATS_DTYPE,
    SweepResult,
    grid,
    read_series,
    series,
    standard_normal,
    variants,
    windows,
)
from . import _core
from .inputs import FEE_WARN_ABOVE, sweep  # _core.sweep, with errors in the user's terms (inputs.py)
from .client import Client, ServerError
from .trades import TRADE_DTYPE, equity, trade_log, trades
from .indicators import hma, hma3, signal, wma
from .signals import signals
from .plot import heatmap, plot
from .report import report
from .results import STATISTICS, statistic
from .universe import ROW_DTYPE, sweep_many
from .periods import CALENDAR_PERIODS_PER_YEAR
from .validation import PERIOD_STATS, Validation, plot_validation, validate

__all__ = [
    "CALENDAR_PERIODS_PER_YEAR",
    "Client",
    "PERIOD_STATS",
    "ROW_DTYPE",
    "ServerError",
    "SweepResult",
    "TRADE_DTYPE",
    "STATISTICS",
    "STATS_DTYPE",
    "equity",
    "grid",
    "heatmap",
    "hma",
    "hma3",
    "plot",
    "read_series",
    "report",
    "series",
    "signal",
    "signals",
    "standard_normal",
    "statistic",
    "sweep",
    "sweep_many",
    "trade_log",
    "trades",
    "validate",
    "Validation",
    "plot_validation",
    "variants",
    "windows",
    "wma",
]
