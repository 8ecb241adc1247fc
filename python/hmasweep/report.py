"""One self-contained interactive HTML page of a sweep (issue 17 §5): Plotly, imported only when report()
is called, with plotly.js written into the page, so the page fetches nothing when it is viewed.

The page holds three figures, each with hover values:
1. the statistic over the grid: a heatmap over (HMA length, HMA3 length) for a 2-D result, or the
   statistic against L for a 1-D one; a menu switches between the statistics the result carries;
2. PnL and the statistic against L (for a 2-D result: against the HMA length, at the chosen combo's
   HMA3 length);
3. the chosen combo (best by the statistic, or given): its close with its entries and exits, above its
   mark-to-market equity (hmasweep.trades() and hmasweep.equity()).
"""
from __future__ import annotations

import html
import math
import sys
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _core
from .dates import datetime_values, span_bars
from .plot import _check_span

# Statistics where a smaller value is the better one: report() picks its default combo by the minimum.
LOWER_IS_BETTER = frozenset({"max_drawdown", "std_trade", "gross_loss_abs"})

# Columns of a result's table that say which combo it is, not how it did.
_ID_COLUMNS = ("length", "lengths", "hma_length", "hma3_length", "hma", "hma3", "combo",
               "w0", "w1", "w2", "w3", "w4", "w5")


def _plotly():
    try:
        import plotly.graph_objects as go  # type: ignore[import-untyped, unused-ignore]
        from plotly.subplots import make_subplots  # type: ignore[import-untyped, unused-ignore]
    except ImportError as e:  # the [plot] extra
        raise ImportError("hmasweep.report needs plotly: pip install plotly (or pip install 'hmasweep[plot]')") from e
    return go, make_subplots


class _Table:
    """What report() reads from a result: per combo, the lengths (hma, hma3; hma3 == hma for a 1-D
    result, which two_d says), the windows, and the numeric statistics, in the result's combo order."""

    def __init__(self, result: Any, bars: int):
        if getattr(result, "windows", None) is None or getattr(result, "pnl", None) is None:
            raise TypeError("report() takes a close series or the result of hmasweep.sweep(), got %s"
                            % type(result).__name__)
        self.windows = np.asarray(result.windows, dtype=np.int64).reshape(-1, 6)
        self.n = self.windows.shape[0]
        if self.n == 0:
            raise ValueError("report() needs a sweep of at least one combo (this result has none)")
        # pnl and trades first, whatever else the result carries (the menu's order)
        self.stats: Dict[str, np.ndarray] = {"pnl": np.asarray(result.pnl, dtype=np.float64),
                                             "trades": np.asarray(result.trades, dtype=np.float64)}
        frame = None
        package = sys.modules[__package__ or "hmasweep"]
        names = getattr(package, "STATISTICS", None)
        if names is not None and getattr(result, "wins", None) is not None:
            for name in names:  # hmasweep.statistic: SPEC §8's fields and the derived ones, without pandas
                self.stats[str(name)] = np.asarray(package.statistic(result, name), dtype=np.float64)
        elif hasattr(result, "to_frame"):
            frame = result.to_frame()
            for name in frame.columns:
                col = frame[name]
                if name in _ID_COLUMNS or not np.issubdtype(col.dtype, np.number):
                    continue
                self.stats[str(name)] = col.to_numpy(dtype=np.float64)
        hma, hma3 = self._lengths(result, frame)
        self.two_d = hma3 is not None
        self.hma: np.ndarray = hma
        self.hma3: np.ndarray = hma3 if hma3 is not None else hma
        self.variant = getattr(result, "variant", None)
        self.fee = getattr(result, "fee", None)
        self.bars = bars

    def _lengths(self, result: Any, frame: Any) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        hma = getattr(result, "hma_lengths", None)
        hma3 = getattr(result, "hma3_lengths", None)
        if hma is None and frame is not None and "hma_length" in frame.columns and "hma3_length" in frame.columns:
            hma, hma3 = frame["hma_length"].to_numpy(), frame["hma3_length"].to_numpy()
        if hma is not None and hma3 is not None:
            hma, hma3 = np.asarray(hma, dtype=np.int64), np.asarray(hma3, dtype=np.int64)
            if hma.shape != (self.n,) or hma3.shape != (self.n,):
                raise ValueError("the result's hma/hma3 lengths do not match its %d combos" % self.n)
            if np.array_equal(hma, hma3):
                return hma, None  # the diagonal: a 1-D sweep
            return hma, hma3
        lengths = getattr(result, "lengths", None)
        if lengths is None:
            raise ValueError("report() needs a sweep over lengths (its axes are L), not raw windows")
        lengths = np.asarray(lengths, dtype=np.int64)
        if lengths.ndim == 2 and lengths.shape == (self.n, 2):
            if np.array_equal(lengths[:, 0], lengths[:, 1]):
                return lengths[:, 0].copy(), None
            return lengths[:, 0].copy(), lengths[:, 1].copy()
        if lengths.shape != (self.n,):
            raise ValueError("the result's lengths (shape %s) do not match its %d combos" % (lengths.shape, self.n))
        return lengths, None

    def label(self, i: int) -> str:
        if self.two_d:
            return "HMA %d, HMA3 %d" % (self.hma[i], self.hma3[i])
        return "L = %d" % self.hma[i]


def _choose_stat(table: _Table, stat: Optional[str]) -> str:
    if stat is None:
        return "sharpe" if "sharpe" in table.stats else "pnl"
    if stat not in table.stats:
        raise ValueError("stat %r is not in this result; it has: %s" % (stat, ", ".join(table.stats)))
    return stat


def _best(values: np.ndarray, stat: str) -> int:
    """The combo with the best value of stat (NaN never wins; ties go to the first combo)."""
    v = np.where(np.isfinite(values), values, np.nan)
    if np.all(np.isnan(v)):
        return 0
    return int(np.nanargmin(v) if stat in LOWER_IS_BETTER else np.nanargmax(v))


def _choose_combo(table: _Table, stat: str, combo: Optional[int], length: Any) -> int:
    if combo is not None and length is not None:
        raise ValueError("give combo (an index) or length, not both")
    if combo is not None:
        if isinstance(combo, bool) or not isinstance(combo, (int, np.integer)) or not 0 <= combo < table.n:
            raise ValueError("combo = %r is not a combo index: need 0 <= combo < %d" % (combo, table.n))
        return int(combo)
    if length is not None:
        if table.two_d:
            try:
                lh, l3 = (int(x) for x in length)
            except (TypeError, ValueError):
                raise ValueError("length for a 2-D result is (hma_length, hma3_length), got %r" % (length,)) from None
            hit = np.flatnonzero((table.hma == lh) & (table.hma3 == l3))
        else:
            hit = np.flatnonzero(table.hma == int(length))
        if hit.size == 0:
            raise ValueError("length %r is not in this sweep" % (length,))
        return int(hit[0])
    return _best(table.stats[stat], stat)


def _fmt(v: float) -> str:
    if isinstance(v, (float, np.floating)) and not math.isfinite(v):
        return str(v)
    if float(v).is_integer() and abs(v) < 1e15:
        return "%d" % v
    return "%.6g" % v


def _grid_matrix(table: _Table, values: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x = HMA3 lengths, y = HMA lengths, z[y, x], combo index[y, x] or -1) of a 2-D result: the axes of
    hmasweep.heatmap()."""
    xs, ix = np.unique(table.hma3, return_inverse=True)
    ys, iy = np.unique(table.hma, return_inverse=True)
    z = np.full((ys.size, xs.size), np.nan)
    idx = np.full((ys.size, xs.size), -1, dtype=np.int64)
    z[iy, ix] = values
    idx[iy, ix] = np.arange(table.n)
    return xs, ys, z, idx


def _json_values(v: np.ndarray) -> List[Optional[float]]:
    """A list for plotly's JSON with inf/NaN as None (a gap), which JSON can carry."""
    return [float(x) if math.isfinite(x) else None for x in np.asarray(v, dtype=np.float64).ravel()]


def _stat_figure(go: Any, table: _Table, stat: str, chosen: int) -> Any:
    """Figure 1: the statistic over the grid, with a menu over every statistic the result carries."""
    names = list(table.stats)
    fig = go.Figure()
    if table.two_d:
        xs, ys, _, idx = _grid_matrix(table, table.stats[stat])
        pnl = _grid_matrix(table, table.stats["pnl"])[2]
        trades = _grid_matrix(table, table.stats["trades"])[2]
        custom = np.dstack([pnl, trades, idx])

        def z_of(name: str) -> List[List[Optional[float]]]:
            z = _grid_matrix(table, table.stats[name])[2]
            return [_json_values(row) for row in z]

        fig.add_trace(go.Heatmap(
            x=xs, y=ys, z=z_of(stat), customdata=custom, colorscale="RdYlGn",
            reversescale=stat in LOWER_IS_BETTER, colorbar=dict(title=dict(text=stat)),
            hovertemplate=("HMA3 length %{x}<br>HMA length %{y}<br>" + stat + " %{z:.6g}<br>"
                           "pnl %{customdata[0]:.6g} pp<br>trades %{customdata[1]}<extra>combo %{customdata[2]}</extra>")))
        fig.add_trace(go.Scatter(x=[table.hma3[chosen]], y=[table.hma[chosen]], mode="markers",
                                 marker=dict(symbol="star", size=14, color="black", line=dict(color="white", width=1)),
                                 name="chosen combo", hovertemplate="chosen: " + table.label(chosen) + "<extra></extra>"))
        fig.update_xaxes(title_text="HMA3 length")
        fig.update_yaxes(title_text="HMA length")
        buttons = [dict(label=name, method="restyle",
                        args=[{"z": [z_of(name)], "reversescale": [name in LOWER_IS_BETTER],
                               "colorbar.title.text": [name],
                               "hovertemplate": [("HMA3 length %{x}<br>HMA length %{y}<br>" + name + " %{z:.6g}<br>"
                                                  "pnl %{customdata[0]:.6g} pp<br>trades %{customdata[1]}"
                                                  "<extra>combo %{customdata[2]}</extra>")]}, [0]])
                   for name in names]
        title = "%s over (HMA3 length, HMA length): %d combos" % (stat, table.n)
    else:
        order = np.argsort(table.hma, kind="stable")
        x = table.hma[order]
        fig.add_trace(go.Scatter(x=x, y=_json_values(table.stats[stat][order]), mode="lines+markers", name=stat,
                                 customdata=np.column_stack([table.stats["pnl"][order], table.stats["trades"][order], order]),
                                 hovertemplate="L %{x}<br>value %{y:.6g}<br>pnl %{customdata[0]:.6g} pp<br>"
                                               "trades %{customdata[1]}<extra>combo %{customdata[2]}</extra>"))
        fig.add_trace(go.Scatter(x=[table.hma[chosen]], y=_json_values(table.stats[stat][[chosen]]), mode="markers",
                                 marker=dict(symbol="star", size=14, color="black"), name="chosen combo",
                                 hovertemplate="chosen: " + table.label(chosen) + "<extra></extra>"))
        fig.update_xaxes(title_text="HMA length L")
        fig.update_yaxes(title_text="value")
        buttons = [dict(label=name, method="restyle",
                        args=[{"y": [_json_values(table.stats[name][order]), _json_values(table.stats[name][[chosen]])],
                               "name": [name, "chosen combo"]}, [0, 1]])
                   for name in names]
        title = "%s against L: %d combos" % (stat, table.n)
    fig.update_layout(
        title=dict(text=title), height=540, margin=dict(t=110),
        updatemenus=[dict(buttons=buttons, active=names.index(stat), x=1.0, xanchor="right", y=1.2, yanchor="top")],
        annotations=[dict(text="statistic:", x=1.0, xref="paper", y=1.21, yref="paper", showarrow=False,
                          xanchor="right", yanchor="bottom")])
    return fig


def _against_l_figure(go: Any, make_subplots: Any, table: _Table, stat: str, chosen: int) -> Any:
    """Figure 2: PnL (left axis) and the statistic (right axis) against the HMA length."""
    if table.two_d:
        sel = np.flatnonzero(table.hma3 == table.hma3[chosen])
        where = " at HMA3 length %d (the chosen combo's)" % table.hma3[chosen]
    else:
        sel = np.arange(table.n)
        where = ""
    sel = sel[np.argsort(table.hma[sel], kind="stable")]
    x = table.hma[sel]
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    custom = np.column_stack([table.stats["trades"][sel], sel])
    fig.add_trace(go.Scatter(x=x, y=_json_values(table.stats["pnl"][sel]), mode="lines+markers", name="pnl (pp)",
                             customdata=custom,
                             hovertemplate="L %{x}<br>pnl %{y:.6g} pp<br>trades %{customdata[0]}"
                                           "<extra>combo %{customdata[1]}</extra>"), secondary_y=False)
    right = stat if stat != "pnl" else "trades"  # with pnl chosen, the right axis shows the trade count
    fig.add_trace(go.Scatter(x=x, y=_json_values(table.stats[right][sel]), mode="lines+markers", name=right,
                             customdata=custom,
                             hovertemplate="L %{x}<br>" + right + " %{y:.6g}<br>trades %{customdata[0]}"
                                           "<extra>combo %{customdata[1]}</extra>"), secondary_y=True)
    fig.update_yaxes(title_text=right, secondary_y=True)
    fig.add_hline(y=0.0, line=dict(color="grey", width=0.6))
    fig.update_xaxes(title_text="HMA length L")
    fig.update_yaxes(title_text="pnl (percentage points)", secondary_y=False)
    fig.update_layout(title=dict(text="PnL and %s against L%s" % (right, where)), height=420,
                      legend=dict(orientation="h", y=1.12, x=0.0))
    return fig


def _combo_figure(go: Any, make_subplots: Any, close: np.ndarray, table: _Table, chosen: int,
                  span: Optional[Tuple[int, int]], dates: Optional[np.ndarray] = None) -> Any:
    """Figure 3: the chosen combo's close with entries and exits, above its mark-to-market equity.  With
    dates (a dated Series), the x axis is time and the hovers give each point's date and bar."""
    from .trades import equity as equity_of, trade_log

    windows = table.windows[chosen]
    # the result's own fee (a result from before spec v2 has none: the default)
    fee = {} if table.fee is None else {"fee": table.fee}
    log = trade_log(close, windows=windows, **fee)
    equity = np.asarray(equity_of(close, windows=windows, **fee))
    lo, hi = span if span is not None else (0, close.shape[0] - 1)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.64, 0.36], vertical_spacing=0.04)
    # x0/dx instead of an x array: the bars are consecutive, and 150,000 of them cost 1.6 MB of page each;
    # dates need the array (and the bar numbers, for the hover)
    bars = np.arange(lo, hi + 1)
    line_x: Dict[str, Any] = (dict(x0=lo, dx=1) if dates is None else dict(x=dates[lo:hi + 1], customdata=bars))
    at = "bar %{x}" if dates is None else "%{x}, bar %{customdata}"
    fig.add_trace(go.Scatter(y=close[lo:hi + 1], mode="lines", name="close", line=dict(color="black", width=1),
                             hovertemplate=at + "<br>close %{y:.6g}<extra></extra>", **line_x), row=1, col=1)
    x_of = (lambda b: b) if dates is None else (lambda b: dates[b])
    number = np.arange(len(log))
    inside = (log["entry_bar"] >= lo) & (log["entry_bar"] <= hi)
    for side, symbol, colour, name in ((1, "triangle-up", "green", "long entry"), (-1, "triangle-down", "red", "short entry")):
        sel = inside & (log["side"] == side)
        fig.add_trace(go.Scatter(
            x=x_of(log["entry_bar"][sel]), y=log["entry_price"][sel], mode="markers", name=name,
            marker=dict(symbol=symbol, size=9, color=colour),
            customdata=np.column_stack([number[sel], log["exit_bar"][sel], log["exit_price"][sel], log["pnl"][sel],
                                        log["entry_bar"][sel]]),
            hovertemplate=("trade %{customdata[0]} " + name + "<br>" +
                           ("bar %{x}" if dates is None else "%{x}, bar %{customdata[4]}") + ", price %{y:.6g}<br>"
                           "exit bar %{customdata[1]}, price %{customdata[2]:.6g}<br>pnl %{customdata[3]:.4f} pp<extra></extra>")),
            row=1, col=1)
    out = (log["exit_bar"] >= lo) & (log["exit_bar"] <= hi)
    fig.add_trace(go.Scatter(
        x=x_of(log["exit_bar"][out]), y=log["exit_price"][out], mode="markers", name="exit",
        marker=dict(symbol="x-thin", size=8, line=dict(color="grey", width=1.5)),
        customdata=np.column_stack([number[out], log["side"][out], log["entry_bar"][out], log["pnl"][out],
                                    log["exit_bar"][out]]),
        hovertemplate=("trade %{customdata[0]} exit (side %{customdata[1]})<br>" +
                       ("bar %{x}" if dates is None else "%{x}, bar %{customdata[4]}") + ", price %{y:.6g}<br>"
                       "entered at bar %{customdata[2]}<br>pnl %{customdata[3]:.4f} pp<extra></extra>")),
        row=1, col=1)
    fig.add_trace(go.Scatter(y=equity[lo:hi + 1], mode="lines", name="equity (pp)",
                             line=dict(color="royalblue", width=1),
                             hovertemplate=at + "<br>equity %{y:.6g} pp<extra></extra>", **line_x), row=2, col=1)
    if span is None:  # over a span, a zero line would stretch the equity axis to it
        fig.add_hline(y=0.0, line=dict(color="grey", width=0.6), row=2, col=1)
    fig.update_yaxes(title_text="close", row=1, col=1)
    fig.update_yaxes(title_text="equity (pp)", row=2, col=1)
    fig.update_xaxes(title_text="bar" if dates is None else "date", row=2, col=1)
    fig.update_layout(
        title=dict(text="%s: %d trades, PnL %.2f pp (mark-to-market equity below)"
                   % (table.label(chosen), len(log), float(np.sum(log["pnl"])))),
        height=720, hovermode="closest", legend=dict(orientation="h", y=1.06, x=0.0))
    return fig, log


def _summary_table(table: _Table, chosen: int) -> str:
    cells = "".join("<tr><th>%s</th><td>%s</td></tr>" % (html.escape(name), _fmt(values[chosen]))
                    for name, values in table.stats.items())
    return ("<table class='stats'><caption>%s, windows %s</caption>%s</table>"
            % (html.escape(table.label(chosen)), " ".join(str(int(w)) for w in table.windows[chosen]), cells))


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1.2em 2em; color: #222; }}
h1 {{ font-size: 1.3em; }} p.meta {{ color: #555; }}
table.stats {{ border-collapse: collapse; margin: 0.6em 0 1.2em 0; font-size: 0.9em; }}
table.stats caption {{ text-align: left; white-space: nowrap; font-weight: bold; padding-bottom: 0.3em; }}
table.stats th, table.stats td {{ border: 1px solid #ccc; padding: 2px 8px; text-align: right; }}
table.stats th {{ background: #f4f4f4; text-align: left; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p class="meta">{meta}</p>
{figures}
</body>
</html>
"""


def report(result_or_close: Any, path: Optional[str] = "sweep.html", *, close: Any = None, stat: Optional[str] = None,
           combo: Optional[int] = None, length: Any = None, span: Optional[Tuple[Any, Any]] = None,
           title: Optional[str] = None, lengths: Any = None) -> str:
    """Write one self-contained interactive HTML page of a sweep to `path` and return the page's text.

    result_or_close  a close series (it is swept: `lengths`, default grid), or a result of sweep();
                     a result needs the series it was swept on as `close=`.
    stat     the statistic the page opens on (its menu has the others): any column of the result's table,
             default "sharpe" when the result has statistics, else "pnl".
    combo    the combo shown with its trades and equity, as an index into the result; or `length`
             (L, or (hma_length, hma3_length) for a 2-D result); default: the best by `stat` (the
             largest, or the smallest for max_drawdown).
    span     (first_bar, last_bar): the bars the combo figure shows (default: all); for a dated Series also
             (first_date, last_date), as strings, datetimes or timestamps (its axis and hovers show dates).
    path     where to write the page (None: only return it).

    Nothing is fetched when the page is viewed: plotly.js is written into it (about 4.6 MB).
    """
    go, make_subplots = _plotly()
    if hasattr(result_or_close, "windows") and hasattr(result_or_close, "pnl"):
        if close is None:
            raise ValueError("report(result) needs the series it was swept on: report(result, close=close)")
        if lengths is not None:
            raise ValueError("lengths is for report(close): a result has its own")
        result = result_or_close
        series = close
    else:
        if close is not None:
            raise ValueError("give the series once: report(close) or report(result, close=close)")
        series = result_or_close
        result = None
    series_values = np.ascontiguousarray(series, dtype=np.float64)
    if series_values.ndim != 1:
        raise ValueError("close must be 1-D, got %d dimensions" % series_values.ndim)
    dates = datetime_values(series)
    if span is not None:
        span = _check_span(span_bars(span, dates), series_values.shape[0])
    if result is None:
        result = _core.sweep(series_values, lengths)
    table = _Table(result, series_values.shape[0])
    stat = _choose_stat(table, stat)
    chosen = _choose_combo(table, stat, combo, length)

    figs = [_stat_figure(go, table, stat, chosen), _against_l_figure(go, make_subplots, table, stat, chosen)]
    combo_fig, log = _combo_figure(go, make_subplots, series_values, table, chosen, span, dates)
    figs.append(combo_fig)
    parts = []
    for k, fig in enumerate(figs):
        if k == 2:
            parts.append(_summary_table(table, chosen))
        parts.append(fig.to_html(full_html=False, include_plotlyjs=(k == 0), div_id="hs-figure-%d" % (k + 1),
                                 config={"displaylogo": False, "responsive": True}))
    how = "2-D grid" if table.two_d else "1-D grid"
    meta = ("%d bars, %d combos (%s), variant %s%s. Chosen combo: %s (%s), %d trades. Hover for values; "
            "drag to zoom, double-click to reset." % (table.bars, table.n, how, table.variant,
                                                       "" if table.fee is None else ", fee %r" % table.fee,
                                                       table.label(chosen),
                                                       "given" if combo is not None or length is not None
                                                       else "best by " + stat, len(log)))
    page = _PAGE.format(title=html.escape(title or "hmasweep sweep report"), meta=html.escape(meta),
                        figures="\n".join(parts))
    if path is not None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
    return page
