"""Pictures (matplotlib, imported only when plot() is called): a sweep's PnL and trade count against L,
and one combo's equity curve with its entries and exits over the close."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from . import _core


def _check_span(span, n_bars):
    """(first_bar, last_bar) as ints inside the series, or ValueError naming what is wrong."""
    try:
        lo, hi = span
    except (TypeError, ValueError):
        raise ValueError("span must be (first_bar, last_bar), got %r" % (span,)) from None
    if not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) for b in (lo, hi)):
        raise ValueError("span must be two integer bar indices, got %r" % (span,))
    if not 0 <= lo <= hi < n_bars:
        raise ValueError("span = (%d, %d) is outside the series: need 0 <= first_bar <= last_bar < %d (its bars)"
                         % (lo, hi, n_bars))
    return int(lo), int(hi)


def plot(close: npt.ArrayLike, lengths: Optional[Sequence[int]] = None, *, result: Optional[_core.SweepResult] = None,
         length: Optional[int] = None, span: Optional[Tuple[Any, Any]] = None, path: Optional[str] = None,
         title: Optional[str] = None) -> Tuple[Any, Any]:
    """Draw the two figures of issue 8 §2 and return them as (sweep_figure, combo_figure).

    close    the series (any 1-D float64 array-like).
    lengths  the sweep's lengths (None = the default grid); or pass a finished `result` of sweep().
    length   the combo for the equity curve (default: the sweep's best-PnL length).
    span     (first_bar, last_bar) to zoom the equity figure into (markers are unreadable over 150,000 bars):
             two integers with 0 <= first_bar <= last_bar < len(close), else ValueError; for a dated
             pandas Series also two dates (hmasweep.dates.span_bars).
    path     when given, both figures are saved side by side into this one file (png, svg, pdf...).
    """
    from .dates import datetime_values, span_bars

    span = span_bars(span, datetime_values(close))
    close = np.ascontiguousarray(close, dtype=np.float64)
    if span is not None:
        span = _check_span(span, close.shape[0])
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from .trades import trade_log

    r = result if result is not None else _core.sweep(close, lengths)
    if r.lengths is None:
        raise ValueError("plot() needs a sweep over lengths (its x axis is L), not raw windows")
    if length is None:
        length = int(r.lengths[int(np.argmax(r.pnl))])

    if path is not None:
        fig = plt.figure(figsize=(13, 4.6), constrained_layout=True)
        figures: Any = fig.subfigures(1, 2, width_ratios=[1, 1.4])  # an array of two SubFigures
        sweep_fig, combo_fig = figures
    else:
        sweep_fig, combo_fig = plt.figure(figsize=(6, 4.5)), plt.figure(figsize=(9, 4.5))

    # 1. PnL and trade count against L.
    ax = sweep_fig.subplots()
    ax.plot(r.lengths, r.pnl, "o-", ms=3, color="tab:blue")
    ax.axhline(0.0, color="grey", lw=0.6)
    ax.set_xlabel("HMA length L")
    ax.set_ylabel("PnL (percentage points)", color="tab:blue")
    ax2 = ax.twinx()
    ax2.plot(r.lengths, r.trades, "s-", ms=2.5, color="tab:orange")
    ax2.set_ylabel("trades", color="tab:orange")
    ax2.set_yscale("log")
    ax.set_title("sweep: %d bars, %d lengths (%s)" % (close.shape[0], len(r.lengths), r.variant), fontsize=10)

    # 2. One combo: close with entries/exits, and the equity curve (cumulative booked PnL).
    log = trade_log(close, length)
    lo, hi = span if span is not None else (0, close.shape[0] - 1)
    bars = np.arange(lo, hi + 1)
    top, bottom = combo_fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    top.plot(bars, close[lo:hi + 1], color="black", lw=0.7, label="close")
    inside = (log["entry_bar"] >= lo) & (log["entry_bar"] <= hi)
    for side, marker, colour, name in ((1, "^", "tab:green", "long entry"), (-1, "v", "tab:red", "short entry")):
        sel = inside & (log["side"] == side)
        top.scatter(log["entry_bar"][sel], log["entry_price"][sel], marker=marker, s=22, color=colour,
                    label=name, zorder=3)
    out = (log["exit_bar"] >= lo) & (log["exit_bar"] <= hi)
    top.scatter(log["exit_bar"][out], log["exit_price"][out], marker="x", s=14, color="grey", label="exit", zorder=3)
    top.set_ylabel("close")
    top.legend(fontsize=7, loc="best", ncol=4)
    top.set_title("L = %d: %d trades, PnL %.2f pp" % (length, len(log), float(np.sum(log["pnl"]))), fontsize=10)
    equity = np.cumsum(log["pnl"])
    bottom.step(log["exit_bar"], equity, where="post", color="tab:blue", lw=0.9)
    bottom.set_xlim(lo, hi)
    # y range: the equity over the span (the step held before the span's first exit included)
    k0, k1 = np.searchsorted(log["exit_bar"], [lo, hi], side="right")
    seen = equity[max(k0 - 1, 0):max(k1, 1)]
    if seen.size:
        pad = max(float(np.ptp(seen)) * 0.1, 0.5)
        bottom.set_ylim(float(seen.min()) - pad, float(seen.max()) + pad)
    bottom.set_xlabel("bar")
    bottom.set_ylabel("equity (pp)")
    if title:
        (fig if path is not None else combo_fig).suptitle(title)
    if path is not None:
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return sweep_fig, combo_fig


def _heatmap_grid(result, stat):
    """(the sorted HMA lengths, the sorted HMA3 lengths, the (len(hma), len(hma3)) values, NaN where no combo)."""
    from .results import statistic

    if getattr(result, "hma_lengths", None) is None or getattr(result, "hma3_lengths", None) is None:
        raise ValueError("heatmap() needs a sweep over lengths (its axes are the HMA and HMA3 lengths), "
                         "not raw windows")
    values = np.asarray(statistic(result, stat), dtype=np.float64)
    hma, rows = np.unique(result.hma_lengths, return_inverse=True)
    hma3, cols = np.unique(result.hma3_lengths, return_inverse=True)
    grid = np.full((hma.size, hma3.size), np.nan)
    grid[rows, cols] = values
    return hma, hma3, grid


def _tick_positions(n, most=16):
    return np.arange(0, n, max(1, -(-n // most)))


def heatmap(result: _core.SweepResult, stat: str = "sharpe", *, ax: Any = None, path: Optional[str] = None,
            title: Optional[str] = None) -> Any:
    """A statistic over (HMA length, HMA3 length): one cell per combo of `result` (a sweep over
    hma=/hma3=, or over lengths, which fills the diagonal).  Returns the matplotlib Figure.

    stat   any name of hmasweep.STATISTICS: "pnl", "trades", the six statistics of docs/spec.md §8 or the
           derived "win_rate", "profit_factor", "mean_trade", "std_trade", "sharpe", "exposure".
    ax     draw into this Axes (else a new figure); path: save the figure there (png, svg, pdf...).
    Cells with no combo, or whose value is NaN or infinite (a profit factor with no loss), are grey.
    """
    hma, hma3, grid = _heatmap_grid(result, stat)
    import matplotlib

    if path is not None and ax is None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig = ax.figure if ax is not None else plt.figure(figsize=(7.5, 6), constrained_layout=True)
    if ax is None:
        ax = fig.subplots()
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="lightgrey")
    image = ax.imshow(np.ma.masked_invalid(grid), origin="lower", aspect="auto", cmap=cmap, interpolation="nearest")
    xt, yt = _tick_positions(hma3.size), _tick_positions(hma.size)
    ax.set_xticks(xt, [str(v) for v in hma3[xt]])
    ax.set_yticks(yt, [str(v) for v in hma[yt]])
    ax.set_xlabel("HMA3 length L3 (w3..w5)")
    ax.set_ylabel("HMA length Lh (w0..w2)")
    fig.colorbar(image, ax=ax, label=stat)
    auto = "%s over (HMA length, HMA3 length), %d combos" % (stat, len(result.pnl))
    finite = np.isfinite(grid)
    if finite.any():  # the best cell, starred and named in the title
        best = np.unravel_index(np.argmax(np.where(finite, grid, -np.inf)), grid.shape)
        ax.plot(best[1], best[0], marker="*", color="red", ms=12, ls="none")
        auto += "\nmax %.6g at Lh = %d, L3 = %d (red star)" % (grid[best], hma[best[0]], hma3[best[1]])
    ax.set_title(title or auto, fontsize=10)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig
