"""One self-contained interactive HTML page of a sweep (issue 17 §5): Plotly, imported only when report()
is called, with plotly.js written into the page, so the page fetches nothing when it is viewed.

The page holds three figures, each with hover values:
1. the statistic over the grid: a heatmap over (HMA length, HMA3 length) for a 2-D result, or the
   statistic against L for a 1-D one; a menu switches between the statistics the result carries;
2. PnL and the statistic against L (for a 2-D result: against the HMA length, at the chosen combo's
   HMA3 length);
3. the chosen combo (best by the statistic, or given): its close with its entries and exits, above its
   mark-to-market equity (hmasweep.trades() and hmasweep.equity());
4. for a sweep with periods (sweep(..., periods=...)), the validation (docs/spec.md §9.5-§9.7,
   hmasweep.validate()): the λ histogram with the PBO, the in-sample/out-of-sample Sharpe scatter with its
   degradation line, and the walk-forward's out-of-sample curve against the in-sample best's, under a table
   with the deflated Sharpe ratio.

"Max drawdown" on the page is the mark-to-market one (docs/spec.md §9.2: the fall of the per-bar equity
the combo figure draws); §8's closed-trade figure is labelled "closed-trade max drawdown".  Every Sharpe
says what it is per: trade (§8), period (§9.4) or year (annualised).
"""
from __future__ import annotations

import html
import os
import math
import sys
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _core
from .dates import datetime_values, span_bars
from .plot import _check_span

# Statistics where a smaller value is the better one: report() picks its default combo by the minimum.
# The two drawdowns (closed-trade, §8; mark-to-market, §9.2) and the per-trade standard deviation.
# (gross_loss is <= 0, so its largest value, the smallest loss, is the best: it is not here.)
LOWER_IS_BETTER = frozenset({"max_drawdown", "mtm_max_drawdown", "std_trade"})

# What the page calls a statistic (menu, axes, table) where its name alone would mislead: the drawdown a
# reader means is the mark-to-market one, and a Sharpe ratio means nothing without its unit of time.
LABELS = {
    "max_drawdown": "closed-trade max drawdown (pp)",
    "mtm_max_drawdown": "max drawdown (pp, mark-to-market)",
    "sharpe": "sharpe (per trade)",
    "period_sharpe": "sharpe (per period)",
    "sharpe_annualised": "sharpe (annualised)",
}


def label(name: str) -> str:
    """The page's name for statistic `name` (LABELS, else the name itself)."""
    return LABELS.get(name, name)

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
        self._add_equity_statistics(result)
        hma, hma3 = self._lengths(result, frame)
        self.two_d = hma3 is not None
        self.hma: np.ndarray = hma
        self.hma3: np.ndarray = hma3 if hma3 is not None else hma
        self.variant = getattr(result, "variant", None)
        self.fee = getattr(result, "fee", None)
        self.bars = bars

    def _add_equity_statistics(self, result: Any) -> None:
        """The mark-to-market drawdown next to the closed-trade one, and the per-period Sharpe (annualised
        too, when the periods per year are known) of a result with periods."""
        mtm = getattr(result, "mtm_max_drawdown", None)
        if mtm is not None:
            self._add_after("max_drawdown", "mtm_max_drawdown", np.asarray(mtm, dtype=np.float64))
        if getattr(result, "equity", None) is not None:
            from .validation import PERIOD_STATS

            stats = _core._period_stats(result.equity)
            self.stats["period_sharpe"] = stats[:, PERIOD_STATS.index("period_sharpe")]
            ppy = getattr(result, "periods_per_year", None)
            if ppy is not None:
                self.stats["sharpe_annualised"] = self.stats["period_sharpe"] * math.sqrt(ppy)

    def _add_after(self, before: str, name: str, values: np.ndarray) -> None:
        """stats[name] = values, placed right after stats[before] (at the end without it)."""
        items = [(k, v) for k, v in self.stats.items() if k != name]
        at = [k for k, _ in items].index(before) + 1 if before in self.stats else len(items)
        self.stats = dict(items[:at] + [(name, values)] + items[at:])

    def add_mtm(self, close: np.ndarray) -> None:
        """A result without periods: its combos' mark-to-market drawdown from one sweep with one period
        (the drawdown runs over every bar whatever the periods), placed after the closed-trade one."""
        if "mtm_max_drawdown" in self.stats or "max_drawdown" not in self.stats:
            return
        fee = {} if self.fee is None else {"fee": self.fee}
        mtm = _core.sweep(close, windows=self.windows, periods=1, **fee).mtm_max_drawdown
        self._add_after("max_drawdown", "mtm_max_drawdown", np.asarray(mtm, dtype=np.float64))

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
            reversescale=stat in LOWER_IS_BETTER, colorbar=dict(title=dict(text=label(stat))),
            hovertemplate=("HMA3 length %{x}<br>HMA length %{y}<br>" + label(stat) + " %{z:.6g}<br>"
                           "pnl %{customdata[0]:.6g} pp<br>trades %{customdata[1]}<extra>combo %{customdata[2]}</extra>")))
        fig.add_trace(go.Scatter(x=[table.hma3[chosen]], y=[table.hma[chosen]], mode="markers",
                                 marker=dict(symbol="star", size=14, color="black", line=dict(color="white", width=1)),
                                 name="chosen combo", hovertemplate="chosen: " + table.label(chosen) + "<extra></extra>"))
        fig.update_xaxes(title_text="HMA3 length")
        fig.update_yaxes(title_text="HMA length")
        buttons = [dict(label=label(name), method="restyle",
                        args=[{"z": [z_of(name)], "reversescale": [name in LOWER_IS_BETTER],
                               "colorbar.title.text": [label(name)],
                               "hovertemplate": [("HMA3 length %{x}<br>HMA length %{y}<br>" + label(name) + " %{z:.6g}<br>"
                                                  "pnl %{customdata[0]:.6g} pp<br>trades %{customdata[1]}"
                                                  "<extra>combo %{customdata[2]}</extra>")]}, [0]])
                   for name in names]
        title = "%s over (HMA3 length, HMA length): %d combos" % (label(stat), table.n)
    else:
        order = np.argsort(table.hma, kind="stable")
        x = table.hma[order]
        fig.add_trace(go.Scatter(x=x, y=_json_values(table.stats[stat][order]), mode="lines+markers", name=label(stat),
                                 customdata=np.column_stack([table.stats["pnl"][order], table.stats["trades"][order], order]),
                                 hovertemplate="L %{x}<br>value %{y:.6g}<br>pnl %{customdata[0]:.6g} pp<br>"
                                               "trades %{customdata[1]}<extra>combo %{customdata[2]}</extra>"))
        fig.add_trace(go.Scatter(x=[table.hma[chosen]], y=_json_values(table.stats[stat][[chosen]]), mode="markers",
                                 marker=dict(symbol="star", size=14, color="black"), name="chosen combo",
                                 hovertemplate="chosen: " + table.label(chosen) + "<extra></extra>"))
        fig.update_xaxes(title_text="HMA length L")
        fig.update_yaxes(title_text="value")
        buttons = [dict(label=label(name), method="restyle",
                        args=[{"y": [_json_values(table.stats[name][order]), _json_values(table.stats[name][[chosen]])],
                               "name": [label(name), "chosen combo"]}, [0, 1]])
                   for name in names]
        title = "%s against L: %d combos" % (label(stat), table.n)
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
    fig.add_trace(go.Scatter(x=x, y=_json_values(table.stats[right][sel]), mode="lines+markers", name=label(right),
                             customdata=custom,
                             hovertemplate="L %{x}<br>" + label(right) + " %{y:.6g}<br>trades %{customdata[0]}"
                                           "<extra>combo %{customdata[1]}</extra>"), secondary_y=True)
    fig.update_yaxes(title_text=label(right), secondary_y=True)
    fig.add_hline(y=0.0, line=dict(color="grey", width=0.6))
    fig.update_xaxes(title_text="HMA length L")
    fig.update_yaxes(title_text="pnl (percentage points)", secondary_y=False)
    fig.update_layout(title=dict(text="PnL and %s against L%s" % (label(right), where)), height=420,
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
    cells = "".join("<tr><th>%s</th><td>%s</td></tr>" % (html.escape(label(name)), _fmt(values[chosen]))
                    for name, values in table.stats.items())
    return ("<table class='stats'><caption>%s, windows %s</caption>%s</table>"
            % (html.escape(table.label(chosen)), " ".join(str(int(w)) for w in table.windows[chosen]), cells))


def _validation_choices(periods: int, groups: Optional[int], walk_forward: Any) -> Tuple[Optional[int], Any]:
    """The CSCV groups and walk-forward report() uses over P periods: as given, else S = 16 (or the largest
    even S <= P) and a walk-forward training on P // 4 periods and testing on the next P // 8."""
    if groups is None:
        groups = min(16, periods - periods % 2) if periods >= 2 else None
    if walk_forward is None and periods >= 4:
        walk_forward = (periods // 4, max(1, periods // 8))
    return groups, walk_forward


def _validation_figure(go: Any, make_subplots: Any, v: Any) -> Any:
    """Figure 4: the λ histogram (PBO), the in-sample/out-of-sample scatter with its line, the walk-forward."""
    titles = ["λ over %d splits: PBO %.3f" % (v.kept, v.pbo),
              "in-sample best: OOS against IS sharpe (per period)",
              "walk-forward out of sample" if v.wf_equity is not None else "no walk-forward"]
    fig = make_subplots(rows=1, cols=3, subplot_titles=titles, horizontal_spacing=0.07)
    lam = v.lambdas[np.isfinite(v.lambdas)]
    fig.add_trace(go.Histogram(x=lam, nbinsx=40, name="λ per split", marker=dict(color="steelblue"),
                               hovertemplate="λ %{x}<br>%{y} splits<extra></extra>"), row=1, col=1)
    fig.add_vline(x=0.0, line=dict(color="crimson", width=1.2), row=1, col=1)
    ok = np.isfinite(v.is_sharpe) & np.isfinite(v.oos_sharpe)
    fig.add_trace(go.Scatter(x=v.is_sharpe[ok], y=v.oos_sharpe[ok], mode="markers", name="splits",
                               marker=dict(size=3, opacity=0.4, color="steelblue"),
                               hovertemplate="IS %{x:.4g}<br>OOS %{y:.4g}<extra>split</extra>"), row=1, col=2)
    slope, intercept = v.degradation
    if ok.any() and math.isfinite(slope) and math.isfinite(intercept):
        x = np.array([float(v.is_sharpe[ok].min()), float(v.is_sharpe[ok].max())])
        fig.add_trace(go.Scatter(x=x, y=slope * x + intercept, mode="lines", name="degradation line",
                                 line=dict(color="crimson"),
                                 hovertemplate="OOS = %.4g · IS %+.4g<extra></extra>" % (slope, intercept)), row=1, col=2)
    if v.wf_equity is not None:
        fig.add_trace(go.Scatter(x=v.wf_periods, y=_json_values(v.wf_equity), mode="lines", name="walk-forward (pp)",
                                 line=dict(color="darkgreen"),
                                 hovertemplate="period %{x}<br>%{y:.6g} pp<extra>walk-forward</extra>"), row=1, col=3)
        fig.add_trace(go.Scatter(x=v.wf_periods, y=_json_values(v.best_equity), mode="lines",
                                 name="in-sample best (pp)", line=dict(color="grey", dash="dash"),
                                 hovertemplate="period %{x}<br>%{y:.6g} pp<extra>in-sample best</extra>"), row=1, col=3)
    fig.update_xaxes(title_text="λ (≤ 0: at or below the OOS median)", row=1, col=1)
    fig.update_yaxes(title_text="splits", row=1, col=1)
    fig.update_xaxes(title_text="in-sample sharpe (per period)", row=1, col=2)
    fig.update_yaxes(title_text="out-of-sample sharpe (per period)", row=1, col=2)
    fig.update_xaxes(title_text="period", row=1, col=3)
    fig.update_yaxes(title_text="equity change over the test periods (pp)", row=1, col=3)
    fig.update_layout(title=dict(text="Validation: %d periods, S = %d groups, %d combos"
                                 % (v.periods, v.groups, v.stats.shape[0])),
                      height=440, legend=dict(orientation="h", y=-0.25, x=0.0))
    return fig


def _validation_table(v: Any, table: _Table) -> str:
    """The validation's figures, with the plain-words summary under them."""
    annualised = v.annualised_sharpe
    rows = [("PBO (share of splits with λ ≤ 0)", _fmt(v.pbo)),
            ("P(out-of-sample loss) of the in-sample best", _fmt(v.prob_oos_loss)),
            ("splits kept / made (S = %d groups)" % v.groups, "%d / %d" % (v.kept, v.splits)),
            ("degradation line (OOS = slope · IS + intercept)", "%s · IS %+.6g" % (_fmt(v.degradation[0]),
                                                                                  v.degradation[1])),
            ("chosen combo (largest sharpe per period)", table.label(v.chosen) if v.chosen >= 0 else "none"),
            ("sharpe (per period) of the chosen combo", _fmt(v.sharpe)),
            ("sharpe (annualised) of the chosen combo", "unknown (no periods per year)" if annualised is None
             else _fmt(annualised)),
            ("deflated sharpe ratio (DSR)", _fmt(v.dsr)),
            ("trials N / expected best sharpe (per period) of N under the null", "%s / %s" % (_fmt(v.trials),
                                                                                             _fmt(v.sr0))),
            ("probabilistic sharpe ratio against 0 (PSR)", _fmt(v.psr0))]
    if v.wf_equity is not None:
        rows.append(("walk-forward (train %d, test %d periods%s): sharpe (per period) out of sample"
                     % (v.wf_train, v.wf_test, ", anchored" if v.anchored else ""), _fmt(v.wf_sharpe)))
    cells = "".join("<tr><th>%s</th><td>%s</td></tr>" % (html.escape(a), html.escape(b)) for a, b in rows)
    words = "".join("<p>%s</p>" % html.escape(line) for line in v.summary().splitlines())
    return "<h2 id='validation'>Validation</h2><table class='stats validation'>%s</table>%s" % (cells, words)


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
           title: Optional[str] = None, lengths: Any = None, periods: Any = None, groups: Optional[int] = None,
           walk_forward: Optional[Tuple[int, int]] = None, anchored: bool = False,
           n_trials: Optional[float] = None) -> str:
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
    periods  for report(close): sweep with periods (as sweep(..., periods=)); a result has its own.  With
             periods the page has a validation section (hmasweep.validate(result, groups, walk_forward,
             anchored=anchored, n_trials=n_trials)); groups default 16 (or the largest even number <= P),
             walk_forward default (P // 4, P // 8).

    Nothing is fetched when the page is viewed: plotly.js is written into it (about 4.6 MB).
    """
    go, make_subplots = _plotly()
    if hasattr(result_or_close, "windows") and hasattr(result_or_close, "pnl"):
        if close is None:
            raise ValueError("report(result) needs the series it was swept on: report(result, close=close)")
        if lengths is not None or periods is not None:
            raise ValueError("lengths and periods are for report(close): a result has its own")
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
    if result is None:  # a pandas series itself when it has periods: calendar periods read its timestamps
        result = _core.sweep(series if periods is not None else series_values, lengths, periods=periods)
    table = _Table(result, series_values.shape[0])
    table.add_mtm(series_values)
    validation = None
    if getattr(result, "equity", None) is not None:
        from .validation import validate

        s, wf = _validation_choices(result.equity.shape[0], groups, walk_forward)
        if s is not None:
            validation = validate(result, groups=s, walk_forward=wf, anchored=anchored, n_trials=n_trials)
    stat = _choose_stat(table, stat)
    chosen = _choose_combo(table, stat, combo, length)

    figs = [_stat_figure(go, table, stat, chosen), _against_l_figure(go, make_subplots, table, stat, chosen)]
    combo_fig, log = _combo_figure(go, make_subplots, series_values, table, chosen, span, dates)
    figs.append(combo_fig)
    if validation is not None:
        figs.append(_validation_figure(go, make_subplots, validation))
    parts = []
    for k, fig in enumerate(figs):
        if k == 2:
            parts.append(_summary_table(table, chosen))
        if k == 3:
            parts.append(_validation_table(validation, table))
        parts.append(fig.to_html(full_html=False, include_plotlyjs=(k == 0), div_id="hs-figure-%d" % (k + 1),
                                 config={"displaylogo": False, "responsive": True}))
    how = "2-D grid" if table.two_d else "1-D grid"
    meta = ("%d bars, %d combos (%s), variant %s%s. Chosen combo: %s (%s), %d trades. Hover for values; "
            "drag to zoom, double-click to reset." % (table.bars, table.n, how, table.variant,
                                                       "" if table.fee is None else ", fee %r" % table.fee,
                                                       table.label(chosen),
                                                       "given" if combo is not None or length is not None
                                                       else "best by " + label(stat), len(log)))
    page = _PAGE.format(title=html.escape(title or "hmasweep sweep report"), meta=html.escape(meta),
                        figures="\n".join(parts))
    if path is not None:
        # the library's one writer (hs_write_file): temporary file + rename, the old file's mode and owner
        # kept, a symlink another user owns refused (issue 29 item 6: open(path, "w") followed it and
        # truncated in place); "-" is stdout
        sys.stdout.flush()
        _core._write_file(os.fspath(path), page.encode("utf-8"))
    return page
