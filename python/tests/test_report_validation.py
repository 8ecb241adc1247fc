"""The report page's drawdowns, Sharpe units and validation section (issue 27 §3): "max drawdown" is the
mark-to-market one, the fall of the equity curve the page draws; the closed-trade one says so; every Sharpe
says per trade / per period / annualised; a sweep with periods gets the validation section (PBO with its λ
histogram, the scatter with its line, the DSR, the walk-forward curve), read back from the page."""
import html
import math
import re

import numpy as np
import pytest

import hmasweep as hs
import report_page

pytest.importorskip("plotly", reason="plotly: not importable (pip install plotly, the [plot] extra)")

LENGTHS = [6, 10, 20, 38, 80, 120]


def table_cells(page):
    return {html.unescape(k): html.unescape(v) for k, v in re.findall(r"<tr><th>([^<]*)</th><td>([^<]*)</td></tr>", page)}


def drawdown_of(curve):
    peak = np.maximum.accumulate(np.concatenate([[0.0], curve]))[1:]
    return max(0.0, float(np.max(peak - curve)))


@pytest.fixture(scope="module")
def dated():
    pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install pandas; CI installs it)")
    return pd.Series(hs.series(seed=31, bars=3000, vol=0.01), index=pd.date_range("2010-01-01", periods=3000, freq="D"))


def test_max_drawdown_is_the_one_the_equity_chart_shows():
    close = hs.series(seed=8, bars=20000)
    page = hs.report(close, None, lengths=LENGTHS, length=80, stat="pnl")
    cells = table_cells(page)
    eq = report_page.values(report_page.trace(report_page.figure(page, 3)[0], "equity (pp)")["y"])
    r = hs.sweep(close, LENGTHS, periods=1)
    k = LENGTHS.index(80)
    assert float(cells["max drawdown (pp, mark-to-market)"]) == pytest.approx(drawdown_of(eq), rel=1e-5)  # %.6g
    assert float(cells["max drawdown (pp, mark-to-market)"]) == pytest.approx(r.mtm_max_drawdown[k], rel=1e-5)
    assert float(cells["closed-trade max drawdown (pp)"]) == pytest.approx(r.max_drawdown[k], rel=1e-5)
    assert r.mtm_max_drawdown[k] > r.max_drawdown[k]  # the two differ here, so the labels matter
    assert "max_drawdown" not in cells and "sharpe" not in cells  # no bare name is left on the page's table
    assert "sharpe (per trade)" in cells
    # the menu carries the mark-to-market drawdown for every combo, bit for bit
    _, layout = report_page.figure(page, 1)
    buttons = {b["label"]: b for b in layout["updatemenus"][0]["buttons"]}
    y = np.array(buttons["max drawdown (pp, mark-to-market)"]["args"][0]["y"][0], dtype=np.float64)
    assert y.tobytes() == r.mtm_max_drawdown.tobytes()
    # smaller is better: choosing by it picks the smallest
    best = hs.report(close, None, lengths=LENGTHS, stat="mtm_max_drawdown")
    assert "L = %d (best by max drawdown (pp, mark-to-market))" % LENGTHS[int(np.argmin(r.mtm_max_drawdown))] in best


def test_a_sweep_with_periods_gets_the_validation_section(dated):
    r = hs.sweep(dated, LENGTHS, periods="M")
    page = hs.report(r, None, close=dated, stat="pnl")
    assert page.count("Plotly.newPlot") == 4 and "<h2 id='validation'>Validation</h2>" in page
    P = r.equity.shape[0]
    v = hs.validate(r, groups=16, walk_forward=(P // 4, P // 8))
    data, layout = report_page.figure(page, 4)
    hist = report_page.trace(data, "λ per split")
    assert np.array_equal(report_page.values(hist["x"]), v.lambdas[np.isfinite(v.lambdas)])
    scatter = report_page.trace(data, "splits")
    ok = np.isfinite(v.is_sharpe) & np.isfinite(v.oos_sharpe)
    assert np.array_equal(report_page.values(scatter["x"]), v.is_sharpe[ok])
    assert np.array_equal(report_page.values(scatter["y"]), v.oos_sharpe[ok])
    line = report_page.values(report_page.trace(data, "degradation line")["y"])
    assert line[0] == v.degradation[0] * v.is_sharpe[ok].min() + v.degradation[1]
    wf = report_page.trace(data, "walk-forward (pp)")
    assert np.array_equal(report_page.values(wf["y"]), v.wf_equity)
    assert np.array_equal(report_page.values(wf["x"]), v.wf_periods)
    assert np.array_equal(report_page.values(report_page.trace(data, "in-sample best (pp)")["y"]), v.best_equity)
    cells = table_cells(page)
    assert float(cells["PBO (share of splits with λ ≤ 0)"]) == pytest.approx(v.pbo, rel=1e-5)
    assert float(cells["deflated sharpe ratio (DSR)"]) == pytest.approx(v.dsr, rel=1e-5)
    assert float(cells["sharpe (annualised) of the chosen combo"]) == pytest.approx(v.sharpe * math.sqrt(12), rel=1e-5)
    shown = int(np.argmax(r.pnl))  # the page's combo (best by pnl): its row of the table
    assert float(cells["sharpe (per period)"]) == pytest.approx(v.stats[shown, 2], rel=1e-5)
    assert float(cells["sharpe (annualised)"]) == pytest.approx(v.stats[shown, 2] * math.sqrt(12), rel=1e-5)
    assert html.escape(v.summary().splitlines()[0]) in page
    # the subplot titles (layout annotations; read from the JSON: an encoder may write λ as \u03bb)
    titles = [a["text"] for a in layout["annotations"]]
    assert "λ over %d splits: PBO %.3f" % (v.kept, v.pbo) in titles
    # the same page from the series: report(close, periods=...) sweeps with them
    assert hs.report(dated, None, lengths=LENGTHS, periods="M", stat="pnl") == page


def test_validation_arguments(dated):
    r = hs.sweep(dated, LENGTHS, periods=12)
    page = hs.report(r, None, close=dated, groups=4, walk_forward=(6, 3), n_trials=50)
    v = hs.validate(r, groups=4, walk_forward=(6, 3), n_trials=50)
    assert "over %d splits (S = 4)" % v.splits in html.unescape(page)
    assert np.array_equal(report_page.values(report_page.trace(report_page.figure(page, 4)[0], "walk-forward (pp)")["y"]),
                          v.wf_equity)
    with pytest.raises(ValueError, match="S = 5 is odd"):
        hs.report(r, None, close=dated, groups=5)
    with pytest.raises(ValueError, match="lengths and periods are for report\\(close\\)"):
        hs.report(r, None, close=dated, periods=6)
    plain = hs.report(hs.sweep(dated, LENGTHS), None, close=dated)
    assert plain.count("Plotly.newPlot") == 3 and "id='validation'" not in plain


def test_cli_report_with_periods(cli, tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, HMASWEEP_PYTHON=sys.executable)
    out = tmp_path / "v.html"
    args = ["--bars", "6000", "--lengths", "6,10,20,38", "--stat", "pnl", "--periods", "40", "--groups", "8",
            "--walk-forward", "10:5:anchored", "--periods-per-year", "10", "--output", str(out)]
    p = subprocess.run([cli, "report", *args], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    close = hs.series(bars=6000)
    r = hs.sweep(close, [6, 10, 20, 38], periods=40, periods_per_year=10)
    want = hs.report(r, None, close=close, stat="pnl", groups=8, walk_forward=(10, 5), anchored=True)
    assert out.read_text(encoding="utf-8") == want and "anchored" in want
    for bad, message in ((["--groups", "8"], "--groups needs --periods P"),
                         (["--periods", "40", "--walk-forward", "10:5:x"], "expected TRAIN:TEST or TRAIN:TEST:anchored")):
        p = subprocess.run([cli, "report", "--bars", "600", "--lengths", "6", *bad, "--output", str(out)],
                           capture_output=True, text=True, timeout=300, env=env)
        assert p.returncode == 2 and message in p.stderr, p.stderr
