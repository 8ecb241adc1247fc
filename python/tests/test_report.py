"""hmasweep.report() and `hmasweep report`: the page is self-contained, and what its figures draw is the
library's own numbers (read back from the page).  The page in a real browser: test_report_browser.py."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import hmasweep as hs
import importlib

import report_page

report = importlib.import_module("hmasweep.report")  # the module (hmasweep.report is the function)

pytest.importorskip("plotly", reason="plotly: not importable (pip install plotly, the [plot] extra)")

LENGTHS = [6, 10, 20, 38, 80, 120]


@pytest.fixture(scope="module")
def close():
    return hs.series(bars=20000)


@pytest.fixture(scope="module")
def page(close, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "sweep.html"
    text = hs.report(close, str(path), lengths=LENGTHS, stat="pnl")  # the page opens on pnl
    assert path.read_text(encoding="utf-8") == text
    return text


def test_page_is_self_contained(page):
    # plotly.js is inside, once, and nothing names a file or address to load: no <script src>, <link>,
    # <iframe>, <img> or CSS url()  (the browser test also counts the page's network requests: none)
    assert page.count("Plotly.newPlot") == 3
    assert re.search(r"plotly\.js v\d+\.\d+", page)
    assert not re.search(r"<script[^>]*\bsrc\s*=", page, re.I)
    assert not re.search(r"<(link|iframe|img|embed|object)\b", page, re.I)
    assert not re.search(r"url\(\s*['\"]?https?:", page, re.I)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")


def test_stat_against_l_is_the_sweep(page, close):
    r = hs.sweep(close, LENGTHS)
    data, layout = report_page.figure(page, 1)
    line = report_page.trace(data, "pnl")  # stat="pnl": the page opens on pnl
    assert np.array_equal(report_page.values(line["x"]), r.lengths)
    assert np.array_equal(report_page.values(line["y"]), r.pnl)  # JSON floats round-trip: bit for bit
    best = int(np.argmax(r.pnl))
    star = report_page.trace(data, "chosen combo")
    assert list(report_page.values(star["x"])) == [r.lengths[best]]
    labels = [b["label"] for b in layout["updatemenus"][0]["buttons"]]
    # pnl, trades, SPEC §8's six, the mark-to-market drawdown after the closed-trade one, and the derived ones,
    # each under its page label (a drawdown says which, a Sharpe its unit of time)
    names = list(hs.STATISTICS)
    names.insert(names.index("max_drawdown") + 1, "mtm_max_drawdown")
    assert labels == [report.label(n) for n in names]
    assert "closed-trade max drawdown (pp)" in labels and "sharpe (per trade)" in labels
    # the menu's "trades" and "wins" buttons carry the trade counts and the winning trades
    for name, want in (("trades", r.trades), ("wins", r.wins)):
        y = layout["updatemenus"][0]["buttons"][labels.index(name)]["args"][0]["y"][0]
        assert np.array_equal(np.array(y), want)
    data2, _ = report_page.figure(page, 2)
    assert np.array_equal(report_page.values(report_page.trace(data2, "pnl (pp)")["y"]), r.pnl)
    assert np.array_equal(report_page.values(report_page.trace(data2, "trades")["y"]), r.trades)


def test_combo_figure_is_the_trade_log_and_equity(page, close):
    r = hs.sweep(close, LENGTHS)
    length = int(r.lengths[np.argmax(r.pnl)])
    log = hs.trade_log(close, length)
    data, layout = report_page.figure(page, 3)
    price = report_page.trace(data, "close")
    assert price["x0"] == 0 and price["dx"] == 1
    assert np.array_equal(report_page.values(price["y"]), close)
    eq = report_page.trace(data, "equity (pp)")
    equity = report_page.values(eq["y"])
    assert np.array_equal(equity, hs.equity(close, length))
    assert equity[-1] == r.pnl[np.argmax(r.pnl)]  # the last bar's equity is the sweep's PnL, bit for bit
    for name, side in (("long entry", 1), ("short entry", -1)):
        t = report_page.trace(data, name)
        sel = log["side"] == side
        assert np.array_equal(report_page.values(t["x"]), log["entry_bar"][sel])
        assert np.array_equal(report_page.values(t["y"]), log["entry_price"][sel])
        assert np.array_equal(report_page.values(t["customdata"])[:, 3], log["pnl"][sel])
    exits = report_page.trace(data, "exit")
    assert np.array_equal(report_page.values(exits["x"]), log["exit_bar"])
    assert "L = %d: %d trades" % (length, len(log)) in layout["title"]["text"]
    assert "Chosen combo: L = %d (best by pnl), %d trades" % (length, len(log)) in page


def test_default_stat_is_sharpe(close):
    """A result of hmasweep.sweep() carries the statistics (docs/python.md "Statistics"): the page opens on
    the per-trade Sharpe, and chooses the combo by it."""
    r = hs.sweep(close, LENGTHS)
    sharpe = hs.statistic(r, "sharpe")
    page = hs.report(r, None, close=close)
    best = int(np.nanargmax(sharpe))
    assert "Chosen combo: L = %d (best by sharpe (per trade))" % r.lengths[best] in page
    data, _ = report_page.figure(page, 1)
    assert np.array_equal(report_page.values(report_page.trace(data, "sharpe (per trade)")["y"]), sharpe)


def test_given_combo_and_span(close):
    page = hs.report(close, None, lengths=LENGTHS, length=38, span=(1000, 2999), title="t<&>", stat="pnl")
    data, _ = report_page.figure(page, 3)
    price = report_page.trace(data, "close")
    assert price["x0"] == 1000 and np.array_equal(report_page.values(price["y"]), close[1000:3000])
    log = hs.trade_log(close, 38)
    inside = (log["entry_bar"] >= 1000) & (log["entry_bar"] <= 2999)
    shown = sum(len(report_page.values(report_page.trace(data, n)["x"])) for n in ("long entry", "short entry"))
    assert 0 < shown == int(inside.sum()) < len(log)
    assert "<title>t&lt;&amp;&gt;</title>" in page and "L = 38 (given)" in page
    r = hs.sweep(close, LENGTHS)
    same = hs.report(r, None, close=close, combo=3, span=(1000, 2999), title="t<&>", stat="pnl")
    assert same == page  # combo index 3 is L = 38; a result gives the same page as the series


def test_bad_arguments(close):
    r = hs.sweep(close, LENGTHS)
    with pytest.raises(ValueError, match="needs the series it was swept on"):
        hs.report(r, None)
    with pytest.raises(ValueError, match="give the series once"):
        hs.report(close, None, close=close)
    with pytest.raises(ValueError, match=r"stat 'sharpee' is not in this result; it has: pnl, trades, wins, "):
        hs.report(r, None, close=close, stat="sharpee")
    with pytest.raises(ValueError, match=r"combo = 6 is not a combo index: need 0 <= combo < 6"):
        hs.report(r, None, close=close, combo=6)
    with pytest.raises(ValueError, match="length 7 is not in this sweep"):
        hs.report(r, None, close=close, length=7)
    with pytest.raises(ValueError, match="not both"):
        hs.report(r, None, close=close, combo=1, length=38)
    with pytest.raises(ValueError, match=r"span = \(5, 20000\) is outside the series"):
        hs.report(r, None, close=close, span=(5, 20000))
    with pytest.raises(ValueError, match="not raw windows"):
        hs.report(hs.sweep(close, windows=[[3, 6, 2, 9, 2, 3]]), None, close=close)
    with pytest.raises(ValueError, match="close must be 1-D"):
        hs.report(np.ones((3, 3)), None)
    with pytest.raises(ValueError, match="NaN"):
        hs.report(np.array([1.0, np.nan] * 100), None)


def _cli(cli, *args, env=None):
    # this Python (so the same plotly as the in-process page), unless the test says otherwise
    env = dict(os.environ, **dict({"HMASWEEP_PYTHON": sys.executable}, **(env or {})))
    return subprocess.run([cli, "report", *args], capture_output=True, text=True, timeout=300, env=env)


def test_cli_report_writes_the_same_page(cli, close, tmp_path):
    out = tmp_path / "cli.html"
    p = _cli(cli, "--bars", "20000", "--lengths", ",".join(map(str, LENGTHS)), "--length", "38",
             "--span", "1000:2999", "--title", "t<&>", "--output", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stdout == "hmasweep report: wrote %s\n" % out
    r = hs.sweep(close, LENGTHS)
    # the CLI runs the same code: the same page, byte for byte, as the call with the same arguments
    expected = hs.report(r, None, close=close, length=38, span=(1000, 2999), title="t<&>")
    assert out.read_text(encoding="utf-8") == expected


def test_cli_report_dash_is_stdout(cli, tmp_path):
    """Issue 29 item 10: `report -o -` wrote a file named "-"; it is stdout now, holding the page alone."""
    p = subprocess.run([cli, "report", "--bars", "3000", "--lengths", "6,9", "-o", "-"], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path, env=dict(os.environ, HMASWEEP_PYTHON=sys.executable))
    assert p.returncode == 0, p.stderr
    assert p.stdout.lstrip().lower().startswith("<!doctype html") and p.stdout.rstrip().endswith("</html>")
    assert "wrote" not in p.stdout and not (tmp_path / "-").exists()


def test_fee_too_large_for_a_double_is_valueerror():
    """Issue 29 item 10: fee=10**400 raised OverflowError; the docs promise ValueError for a bad fee."""
    close = hs.series(bars=500)
    for fee in (10**400, -(10**400)):
        with pytest.raises(ValueError, match="fee is too large for a double"):
            hs.sweep(close, [6], fee=fee)


@pytest.mark.parametrize("args, code, message", [
    (["--lengths", "6,x"], 2, "--lengths '6,x': expected comma-separated integers"),
    (["--grid", "6:200"], 2, "--grid '6:200': expected LO:HI:COUNT"),
    (["--grid", "6:200:8", "--lengths", "6"], 2, "give one of --grid, --lengths, or --hma-lengths with --hma3-lengths"),
    (["--hma-lengths", "6,8"], 2, "the 2-D grid needs both --hma-lengths and --hma3-lengths"),
    (["--hma-lengths", "6:200", "--hma3-lengths", "6"], 2, "--hma-lengths '6:200': expected LO:HI:COUNT"),
    (["--span", "5"], 2, "--span '5': expected A:B"),
    (["--nonsense"], 2, "unrecognized arguments: --nonsense"),
    (["--bars", "500", "--lengths", "6", "--stat", "nope"], 1, "stat 'nope' is not in this result"),
    (["--input", "/nonexistent/prices.csv"], 1, "/nonexistent/prices.csv"),
    (["--bars", "50", "--lengths", "60"], 1, "does not fit a series of 50 bars"),
])
def test_cli_report_errors(cli, tmp_path, args, code, message):
    p = _cli(cli, *args, "--output", str(tmp_path / "x.html"))
    assert p.returncode == code and message in p.stderr, (p.returncode, p.stderr)
    assert not (tmp_path / "x.html").exists()


def test_cli_report_without_python(cli):
    p = _cli(cli, "--bars", "100", env={"HMASWEEP_PYTHON": "/nonexistent/python3"})
    assert p.returncode == 1
    assert "hmasweep report: cannot run /nonexistent/python3 (No such file or directory)" in p.stderr
    assert "pip install '.[plot]'" in p.stderr


def _grid_2d(close, hma, hma3):
    """A 2-D grid's result built from windows (SPEC §8: w0-w2 from the HMA length, w3-w5 from the HMA3
    length), HMA length outer, with the attributes a 2-D sweep carries (hma_lengths, hma3_lengths)."""
    import types

    pairs = [(a, b) for a in hma for b in hma3]
    windows = np.array([np.concatenate([hs.windows(a)[:3], hs.windows(b)[3:]]) for a, b in pairs])
    r = hs.sweep(close, windows=windows)
    return types.SimpleNamespace(pnl=r.pnl, trades=r.trades, windows=r.windows, lengths=None, variant=r.variant,
                                 hma_lengths=np.array([a for a, _ in pairs]), hma3_lengths=np.array([b for _, b in pairs]))


def test_2d_heatmap(close):
    hma, hma3 = [6, 20, 38, 80], [10, 30, 60]
    r = _grid_2d(close, hma, hma3)
    page = hs.report(r, None, close=close)
    data, layout = report_page.figure(page, 1)
    heat = [t for t in data if t["type"] == "heatmap"][0]
    assert np.array_equal(report_page.values(heat["x"]), hma3) and np.array_equal(report_page.values(heat["y"]), hma)
    z = report_page.values(heat["z"])
    assert z.shape == (4, 3) and np.array_equal(z, r.pnl.reshape(4, 3))  # HMA length outer: row = HMA length
    best = int(np.argmax(r.pnl))
    star = report_page.trace(data, "chosen combo")
    assert (star["x"][0], star["y"][0]) == (r.hma3_lengths[best], r.hma_lengths[best])
    trades_z = layout["updatemenus"][0]["buttons"][1]["args"][0]["z"][0]
    assert np.array_equal(np.array(trades_z), r.trades.reshape(4, 3))
    # figure 2: PnL against the HMA length at the chosen combo's HMA3 length
    data2, layout2 = report_page.figure(page, 2)
    column = best % 3
    assert np.array_equal(report_page.values(report_page.trace(data2, "pnl (pp)")["y"]), r.pnl.reshape(4, 3)[:, column])
    assert "at HMA3 length %d" % hma3[column] in layout2["title"]["text"]
    # figure 3: the chosen combo's own windows
    data3, layout3 = report_page.figure(page, 3)
    eq = report_page.values(report_page.trace(data3, "equity (pp)")["y"])
    assert np.array_equal(eq, hs.equity(close, windows=r.windows[best])) and eq[-1] == r.pnl[best]
    assert layout3["title"]["text"].startswith("HMA %d, HMA3 %d:" % (r.hma_lengths[best], r.hma3_lengths[best]))
    given = hs.report(r, None, close=close, length=(38, 60))
    assert "Chosen combo: HMA 38, HMA3 60 (given)" in given
    with pytest.raises(ValueError, match=r"length \(38, 61\) is not in this sweep"):
        hs.report(r, None, close=close, length=(38, 61))
    with pytest.raises(ValueError, match=r"length for a 2-D result is \(hma_length, hma3_length\), got 38"):
        hs.report(r, None, close=close, length=38)
    # the library's own 2-D grid (sweep(hma=, hma3=)) draws the same cells and equity as the grid built
    # from windows (its page may differ elsewhere: a result with statistics has more of them in the menu)
    real = hs.report(hs.sweep(close, hma=hma, hma3=hma3), None, close=close, stat="pnl")
    real_heat = [t for t in report_page.figure(real, 1)[0] if t["type"] == "heatmap"][0]
    for axis in ("x", "y", "z"):
        assert np.array_equal(report_page.values(real_heat[axis]), report_page.values(heat[axis]))
    real_eq = report_page.trace(report_page.figure(real, 3)[0], "equity (pp)")
    assert np.array_equal(report_page.values(real_eq["y"]), eq)


def test_menu_order_does_not_follow_the_table(close):
    # a result whose to_frame() lists trades before pnl (hmasweep's own for a 1-D result without
    # statistics): the menu still opens with pnl, then trades
    import types

    pd = pytest.importorskip("pandas", reason="pandas: not importable (pip install pandas)")
    r = hs.sweep(close, LENGTHS)
    frame = pd.DataFrame({"length": r.lengths, "trades": r.trades, "pnl": r.pnl})
    fake = types.SimpleNamespace(pnl=r.pnl, trades=r.trades, windows=r.windows, lengths=r.lengths,
                                 variant=r.variant, to_frame=lambda: frame)
    _, layout = report_page.figure(hs.report(fake, None, close=close), 1)
    assert [b["label"] for b in layout["updatemenus"][0]["buttons"]] == ["pnl", "trades"]


def test_page_is_written_by_the_librarys_writer(close, tmp_path):
    """Issue 29 item 6: report(path=) writes as `gen` does (hs_write_file): a replaced page keeps its mode
    (and, as root, its owner); a symlink another user owns is refused and its target untouched (before:
    open(path, "w") followed it and truncated the 0600 target in place); no temporary file is left."""
    r = hs.sweep(close[:3000], [6, 10])
    out = tmp_path / "page.html"
    out.write_text("old")
    os.chmod(out, 0o640)
    root = os.geteuid() == 0
    if root:
        os.chown(out, 1234, 5678)
    text = hs.report(r, str(out), close=close[:3000], stat="pnl")
    st = os.stat(out)
    assert out.read_text(encoding="utf-8") == text and (st.st_mode & 0o7777) == 0o640
    if root:
        assert (st.st_uid, st.st_gid) == (1234, 5678)
        victim = tmp_path / "victim"
        victim.write_text("secret")
        os.chmod(victim, 0o600)
        link = tmp_path / "planted.html"
        os.symlink("victim", link)
        os.lchown(link, 1234, 1234)
        with pytest.raises(OSError, match="symlink owned by uid 1234"):
            hs.report(r, str(link), close=close[:3000], stat="pnl")
        assert victim.read_text() == "secret" and (os.stat(victim).st_mode & 0o7777) == 0o600 and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["page.html", "planted.html", "victim"] if root else ["page.html"])


# ---- issue 28 item 4: a dated Series gives the page dates, and span takes dates ---------------------------
def _dated(n=3000):
    pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install '.[pandas]')")
    return pd.Series(hs.series(bars=n), index=pd.date_range("2015-01-01", periods=n, freq="D"), name="Close")


def _combo_traces(page):
    import json as _json
    import re as _re
    specs = _re.findall(r'Plotly\.newPlot\(\s*"hs-figure-3",\s*(\[.*?\]),\s*\{', page, _re.S)
    assert specs, "figure 3 not found"
    return _json.loads(specs[0])


def test_dated_series_page_has_dates_on_the_axis_and_in_the_hovers():
    s = _dated()
    page = hs.report(s, None, lengths=[6, 20, 38])
    traces = _combo_traces(page)
    close_trace = next(t for t in traces if t.get("name") == "close")
    assert close_trace["x"][0].startswith("2015-01-01") and close_trace["x"][-1].startswith(str(s.index[-1].date()))
    assert "bar %{customdata}" in close_trace["hovertemplate"]
    entries = [t for t in traces if t.get("name") in ("long entry", "short entry")]
    assert sum(len(t["x"]) for t in entries) > 10
    assert all(str(x).startswith("20") for t in entries for x in t["x"])  # dates, not bar numbers
    assert all("bar %{customdata[4]}" in t["hovertemplate"] for t in entries)
    assert '"title":{"text":"date"}' in page.replace(" ", "")


def test_span_takes_dates_and_equals_the_bars_it_covers():
    s = _dated()
    by_date = hs.report(s, None, lengths=[6, 20, 38], span=("2016-03-01", "2016-05-31"))
    first, last = s.index.get_loc("2016-03-01"), s.index.get_loc("2016-05-31")
    by_bars = hs.report(s, None, lengths=[6, 20, 38], span=(first, last))
    assert _combo_traces(by_date) == _combo_traces(by_bars)
    close_trace = next(t for t in _combo_traces(by_date) if t.get("name") == "close")
    assert close_trace["x"][0].startswith("2016-03-01") and close_trace["x"][-1].startswith("2016-05-31")
    with pytest.raises(ValueError, match="holds no bar"):
        hs.report(s, None, lengths=[6], span=("1990-01-01", "1990-02-01"))
    with pytest.raises(ValueError, match="series has none"):
        hs.report(s.to_numpy(), None, lengths=[6], span=("2016-03-01", "2016-05-31"))
