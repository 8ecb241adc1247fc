"""Skill or luck?  The validation statistics of a sweep with periods (docs/spec.md §9.4-§9.7; docs/python.md
"Validation"), computed by the C library (src/validate/) on the result's equity matrix E:

    >>> r = hs.sweep(close, periods=160, fee=0.0)
    >>> v = hs.validate(r, groups=16, walk_forward=(40, 20))
    >>> v.pbo, v.dsr, v.wf_choices

- CSCV (§9.5): every split of the S groups into halves; `pbo` is the share of splits where the in-sample
  best is at or below the out-of-sample median (λ ≤ 0), `lambdas` the logit per split, `degradation` the
  least-squares line of out-of-sample on in-sample Sharpe;
- the deflated Sharpe ratio of the chosen combo (§9.6): `dsr`, `psr0`, against `n_trials` trials;
- the walk-forward (§9.7): `wf_choices` per fold and `wf_equity`, the stitched out-of-sample curve.

Every Sharpe here is per period (the periods of the sweep); the annualised ones multiply by
sqrt(periods_per_year) when the result knows it (r.periods_per_year)."""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

from . import _core

#: §9.4's figures per combo, in hs_period_stats order (Validation.stats' columns).
PERIOD_STATS = ("mean", "sd", "period_sharpe", "sortino", "skew", "kurtosis")

_F64 = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Validation:
    """What validate() found.  Sharpe ratios are per period unless the name says annualised."""

    groups: int                      #: S, the CSCV groups
    splits: int                      #: C(S, S/2)
    kept: int                        #: splits with a finite in-sample best (the others are dropped, §9.5)
    pbo: float                       #: probability of backtest overfitting: share of kept splits with λ <= 0
    prob_oos_loss: float             #: share of kept splits where the in-sample best lost out of sample
    degradation: Tuple[float, float]  #: (slope, intercept) of OOS Sharpe on IS Sharpe over the splits
    lambdas: _F64                    #: λ per split (NaN for a dropped split), split order
    is_sharpe: _F64                  #: the in-sample best's in-sample per-period Sharpe, per split
    oos_sharpe: _F64                 #: its out-of-sample per-period Sharpe, per split
    split_choices: _I64              #: the in-sample best per split (-1 for a dropped split)
    chosen: int                      #: the combo the DSR judges: the largest per-period Sharpe (or given)
    sharpe: float                    #: its per-period Sharpe
    trials: float                    #: N, the number of trials the DSR deflates by
    var_sharpe: float                #: the variance of the combos' per-period Sharpes
    sr0: float                       #: the expected maximum per-period Sharpe of N trials under the null
    dsr: float                       #: deflated Sharpe ratio: P(true Sharpe > sr0)
    psr0: float                      #: probabilistic Sharpe ratio against 0
    stats: _F64                      #: (N, 6): PERIOD_STATS per combo
    periods: int                     #: P
    periods_per_year: Optional[float]  #: for the annualised figures (None: unknown)
    wf_train: Optional[int] = None   #: walk-forward training length, periods
    wf_test: Optional[int] = None    #: walk-forward test length, periods
    anchored: bool = False
    wf_choices: Optional[_I64] = None  #: the combo chosen in each fold
    wf_equity: Optional[_F64] = None   #: the stitched out-of-sample curve, one value per test period
    wf_periods: Optional[_I64] = None  #: the period (1..P) of each wf_equity value
    wf_sharpe: Optional[float] = None  #: the stitched curve's per-period Sharpe
    best_equity: Optional[_F64] = None  #: the in-sample best (chosen) combo's curve over the same test periods
    mtm_max_drawdown: Optional[_F64] = field(default=None, repr=False)
    labels: Any = field(default=None, repr=False)  #: per combo: length, (Lh, L3) or index

    @property
    def annualised_sharpe(self) -> Optional[float]:
        """The chosen combo's per-period Sharpe times sqrt(periods per year); None when that is unknown."""
        return None if self.periods_per_year is None else self.sharpe * math.sqrt(self.periods_per_year)

    def to_frame(self) -> Any:
        """One row per combo: §9.4's per-period figures, the annualised ones when the periods per year are
        known (sharpe_annualised, annual_return, calmar), mtm_max_drawdown, and `chosen` (the DSR's combo)."""
        import pandas as pd  # type: ignore[import-untyped, unused-ignore]

        columns = {name: self.stats[:, k] for k, name in enumerate(PERIOD_STATS)}
        columns["sharpe_per_period"] = columns.pop("period_sharpe")
        if self.mtm_max_drawdown is not None:
            columns["mtm_max_drawdown"] = self.mtm_max_drawdown
        if self.periods_per_year is not None:
            ppy = self.periods_per_year
            columns["sharpe_annualised"] = columns["sharpe_per_period"] * math.sqrt(ppy)
            columns["annual_return"] = columns["mean"] * ppy
            if self.mtm_max_drawdown is not None:
                with np.errstate(divide="ignore", invalid="ignore"):
                    columns["calmar"] = columns["annual_return"] / self.mtm_max_drawdown
        chosen = np.zeros(self.stats.shape[0], dtype=bool)
        if self.chosen >= 0:
            chosen[self.chosen] = True
        columns["chosen"] = chosen
        frame = pd.DataFrame(columns)
        if self.labels is not None:
            frame.index = self.labels
        return frame

    def summary(self) -> str:
        """The verdict in plain words (the CLI's table ends with the same sentences)."""
        lines = ["PBO %.2f over %d splits (S = %d): the in-sample best was at or below the out-of-sample median in "
                 "%.0f%% of them; it lost money out of sample in %.0f%%."
                 % (self.pbo, self.kept, self.groups, 100 * self.pbo, 100 * self.prob_oos_loss),
                 "Chosen: %s, Sharpe %.4g per period%s; deflated Sharpe %.3f against %d trials (expected best "
                 "of %d under the null: %.4g per period); PSR against 0: %.3f."
                 % (self._label(self.chosen), self.sharpe,
                    "" if self.annualised_sharpe is None else " (%.3g annualised)" % self.annualised_sharpe,
                    self.dsr, int(self.trials), int(self.trials), self.sr0, self.psr0)]
        if self.wf_equity is not None:
            lines.append("Walk-forward (train %d, test %d periods, %s): out-of-sample Sharpe %.4g per period against "
                         "the in-sample best's %.4g per period over the same periods."
                         % (self.wf_train or 0, self.wf_test or 0, "anchored" if self.anchored else "rolling",
                            self.wf_sharpe if self.wf_sharpe is not None else float("nan"), _sharpe(self.best_equity)))
        return "\n".join(lines)

    def _label(self, c: int) -> str:
        if self.labels is None or c < 0:
            return "combo %d" % c
        label = self.labels[c]
        if isinstance(label, tuple):
            return "HMA %d, HMA3 %d (combo %d)" % (label[0], label[1], c)
        return "L = %d (combo %d)" % (label, c)


def _sharpe(curve: Optional[_F64]) -> float:
    """§9.4's per-period Sharpe of a curve's changes (the curve starting from 0.0), by the library."""
    if curve is None or len(curve) == 0:
        return float("nan")
    return float(_core._period_stats(np.asarray(curve, dtype=np.float64).reshape(-1, 1))[0, 2])


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    return int(value)


def _labels(result: Any) -> Any:
    lengths = getattr(result, "lengths", None)
    hma, hma3 = getattr(result, "hma_lengths", None), getattr(result, "hma3_lengths", None)
    if lengths is not None:
        return np.asarray(lengths)
    if hma is not None and hma3 is not None:
        return [(int(a), int(b)) for a, b in zip(hma, hma3)]
    return None


def validate(result: Any, groups: int = 16, walk_forward: Optional[Tuple[int, int]] = None, anchored: bool = False,
             n_trials: Optional[float] = None, chosen: Optional[int] = None) -> Validation:
    """PBO (CSCV over `groups` groups), the deflated Sharpe ratio and, given walk_forward=(train, test) in
    periods, the walk-forward of a sweep with periods (sweep(..., periods=...)); docs/python.md "Validation".

    n_trials: the effective number of independent trials for the DSR (None: the combos with a finite Sharpe).
    chosen:   the combo the DSR judges (None: the largest per-period Sharpe).
    A result without periods, an odd or too large `groups`, a walk-forward longer than the periods and a
    non-finite or non-positive n_trials are ValueErrors naming the value."""
    equity = getattr(result, "equity", None)
    if equity is None:
        raise ValueError("validate() needs a sweep with periods: hs.sweep(close, ..., periods=P, 'D', 'W', 'M' or "
                         "the ends) (this result has no equity matrix)")
    equity = np.ascontiguousarray(equity, dtype=np.float64)
    periods = equity.shape[0]
    groups = _positive_int(groups, "groups")
    if n_trials is None:
        trials = 0.0
    else:
        if isinstance(n_trials, bool) or not isinstance(n_trials, numbers.Real):
            raise TypeError(f"n_trials must be a number, got {type(n_trials).__name__}")
        trials = float(n_trials)
        if not math.isfinite(trials) or trials <= 0.0:
            raise ValueError(f"n_trials must be a finite number > 0, got {trials!r}")
    pick = -1
    if chosen is not None:
        pick = _positive_int(chosen, "chosen")
        if not 0 <= pick < equity.shape[1]:
            raise ValueError(f"chosen = {pick} is not a combo index: need 0 <= chosen < {equity.shape[1]}")
    (s, splits, kept, pbo, loss, slope, intercept, lambdas, is_metric, oos_metric,
     split_choices) = _core._cscv(equity, groups)
    stats = _core._period_stats(equity)
    c, sr, n, var_sr, sr0, dsr, psr0 = _core._deflated_sharpe(stats, periods, trials, pick)
    wf: dict = {}
    if walk_forward is not None:
        try:
            train, test = walk_forward
        except (TypeError, ValueError):
            raise ValueError(f"walk_forward must be (train, test) in periods, got {walk_forward!r}") from None
        train, test = _positive_int(train, "walk_forward's train"), _positive_int(test, "walk_forward's test")
        choices, curve, wf_sharpe = _core._walk_forward(equity, train, test, bool(anchored))
        # fold f tests periods f·test + train < k <= f·test + train + test (§9.7): train + 1 onwards, in order
        test_periods = np.arange(train + 1, train + 1 + curve.shape[0], dtype=np.int64)
        best = np.full(curve.shape[0], np.nan)
        if c >= 0:  # the in-sample best's changes over the same test periods, summed from 0.0 in order
            column = equity[:, c]
            before = np.concatenate([[0.0], column])[test_periods - 1]
            best = np.cumsum(column[test_periods - 1] - before)
        wf = dict(wf_train=train, wf_test=test, anchored=bool(anchored), wf_choices=choices, wf_equity=curve,
                  wf_periods=test_periods, wf_sharpe=float(wf_sharpe), best_equity=best)
    return Validation(groups=s, splits=splits, kept=kept, pbo=pbo, prob_oos_loss=loss, degradation=(slope, intercept),
                      lambdas=lambdas, is_sharpe=is_metric, oos_sharpe=oos_metric, split_choices=split_choices,
                      chosen=c, sharpe=sr, trials=n, var_sharpe=var_sr, sr0=sr0, dsr=dsr, psr0=psr0, stats=stats,
                      periods=periods, periods_per_year=getattr(result, "periods_per_year", None),
                      mtm_max_drawdown=getattr(result, "mtm_max_drawdown", None), labels=_labels(result), **wf)


def plot_validation(v: Validation, *, path: Optional[str] = None, title: Optional[str] = None) -> Any:
    """Three panels (matplotlib): the λ histogram with the PBO, the in-sample/out-of-sample Sharpe scatter
    with its degradation line, and the walk-forward's out-of-sample curve against the in-sample best's over
    the same periods.  Returns the Figure; writes it to `path` when given."""
    import matplotlib  # type: ignore[import-untyped, unused-ignore]

    if path is not None:
        matplotlib.use("Agg", force=False)  # as plot() does: a file needs no display
    import matplotlib.pyplot as plt  # type: ignore[import-untyped, unused-ignore]

    panels = 3 if v.wf_equity is not None else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.2 * panels, 4.2))
    lam = v.lambdas[np.isfinite(v.lambdas)]
    ax = axes[0]
    ax.hist(lam, bins=min(40, max(5, int(np.sqrt(max(lam.size, 1))))), color="steelblue", edgecolor="white")
    ax.axvline(0.0, color="crimson", linewidth=1.2)
    ax.set_xlabel("λ = logit of the in-sample best's out-of-sample rank")
    ax.set_ylabel("splits")
    ax.set_title("PBO %.2f (%d splits, S = %d)" % (v.pbo, v.kept, v.groups))
    ax = axes[1]
    ok = np.isfinite(v.is_sharpe) & np.isfinite(v.oos_sharpe)
    ax.scatter(v.is_sharpe[ok], v.oos_sharpe[ok], s=4, alpha=0.35, color="steelblue")
    slope, intercept = v.degradation
    if ok.any() and math.isfinite(slope) and math.isfinite(intercept):
        x = np.array([v.is_sharpe[ok].min(), v.is_sharpe[ok].max()])
        ax.plot(x, slope * x + intercept, color="crimson", linewidth=1.2,
                label="OOS = %.3g · IS %+.3g" % (slope, intercept))
        ax.legend(loc="best", fontsize=8)
    ax.axhline(0.0, color="grey", linewidth=0.6)
    ax.set_xlabel("in-sample Sharpe (per period) of the in-sample best")
    ax.set_ylabel("its out-of-sample Sharpe (per period)")
    ax.set_title("Degradation; DSR %.3f, PSR(0) %.3f" % (v.dsr, v.psr0))
    if v.wf_equity is not None and v.wf_periods is not None:
        ax = axes[2]
        ax.plot(v.wf_periods, v.wf_equity, color="darkgreen", label="walk-forward, out of sample")
        if v.best_equity is not None:
            ax.plot(v.wf_periods, v.best_equity, color="grey", linestyle="--",
                    label="in-sample best, %s" % v._label(v.chosen))
        ax.axhline(0.0, color="grey", linewidth=0.6)
        ax.set_xlabel("period")
        ax.set_ylabel("equity change (pp)")
        ax.set_title("Walk-forward %d/%d%s: Sharpe %.3g per period"
                     % (v.wf_train or 0, v.wf_test or 0, " anchored" if v.anchored else "",
                        v.wf_sharpe if v.wf_sharpe is not None else float("nan")))
        ax.legend(loc="best", fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=90)
    return fig
