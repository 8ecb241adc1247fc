"""ctest `python_report_browser`: hmasweep.report()'s page in a real browser, headless Chromium (Debian
package `chromium`), with no DevTools protocol:

- `--dump-dom` of the page with a probe script put first in its <head>: the probe records uncaught
  errors, unhandled rejections and console.error calls, and after the load event writes them, the number
  of drawn Plotly figures and every resource the page requested (performance resource timing) into a
  <pre id="hs-check"> that the dumped DOM shows.  Chromium's own log (--enable-logging=stderr) is read
  too, for console lines that say Uncaught.
- `--screenshot` of the page as it is: a blank or half-drawn page has a handful of colours, the drawn
  page thousands (PIL counts them).
Each check is shown able to fail: a page that throws, and one that loads an image from the network,
are caught; about:blank's screenshot is blank.  Without chromium the ctest is skipped (ctest_driver.py
--needs chromium); chromium is not on tests/skips.allow, so in CI (which installs it) that fails."""
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import hmasweep as hs

pytest.importorskip("plotly", reason="plotly: not importable (pip install plotly, the [plot] extra)")
PIL_Image = pytest.importorskip("PIL.Image", reason="pillow: not importable (pip install pillow; matplotlib brings it)")

LENGTHS = [6, 10, 20, 38, 80, 120]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

PROBE = """<script>
window.__hs_errors = [];
window.addEventListener('error', function (e) { window.__hs_errors.push('error: ' + e.message); });
window.addEventListener('unhandledrejection', function (e) { window.__hs_errors.push('unhandledrejection: ' + e.reason); });
(function () { var ce = console.error; console.error = function () {
  window.__hs_errors.push('console.error: ' + Array.prototype.join.call(arguments, ' ')); return ce.apply(console, arguments); }; })();
window.addEventListener('load', function () { setTimeout(function () {
  var d = document.createElement('pre'); d.id = 'hs-check';
  d.textContent = JSON.stringify({errors: window.__hs_errors,
    plots: document.querySelectorAll('.js-plotly-plot').length,
    drawn: document.querySelectorAll('.js-plotly-plot svg.main-svg').length,
    points: document.querySelectorAll('.js-plotly-plot .scatterlayer .point').length,
    resources: performance.getEntriesByType('resource').map(function (r) { return r.name; })});
  document.body.appendChild(d); }, 1000); });
</script>"""


def _chromium(tmp_path, *args):
    if CHROMIUM is None:
        pytest.skip("chromium: not on PATH (apt-get install chromium)")
    cmd = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--disable-extensions", "--user-data-dir=%s" % (tmp_path / "profile"),
           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=20000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240)


def _probe(tmp_path, page, name):
    path = tmp_path / name
    path.write_text(page.replace("<head>", "<head>\n" + PROBE, 1), encoding="utf-8")
    p = _chromium(tmp_path, "--dump-dom", path.as_uri())
    m = re.search(r'<pre id="hs-check">(.*?)</pre>', p.stdout, re.S)
    assert m, "the probe never reported (chromium rc %d): %s" % (p.returncode, p.stderr[-2000:])
    check = json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                       .replace("&amp;", "&"))
    console = [line for line in p.stderr.splitlines() if ":CONSOLE" in line and "Uncaught" in line]
    return check, console


@pytest.fixture(scope="module")
def close():
    return hs.series(bars=20000)


@pytest.fixture(scope="module")
def page(close):
    return hs.report(close, None, lengths=LENGTHS)


def test_page_loads_without_errors_and_fetches_nothing(tmp_path, page, close):
    check, console = _probe(tmp_path, page, "sweep.html")
    assert check["errors"] == [] and console == [], (check, console)
    assert check["plots"] == 3 and check["drawn"] >= 3, check
    assert check["resources"] == [], check  # nothing fetched: plotly.js and the data are in the page
    # the markers of figures 1-3 are drawn: 6 + 1 (figure 1), 6 + 6 (figure 2), every entry and exit
    r = hs.sweep(close, LENGTHS)
    log = hs.trade_log(close, int(r.lengths[np.argmax(r.pnl)]))  # the chosen combo: best by pnl
    assert check["points"] == 7 + 12 + 2 * len(log), (check["points"], len(log))  # 601 here


def test_probe_catches_an_error_and_a_fetch(tmp_path, page):
    bad = page.replace("</body>", "<script>throw new Error('hs-negative-control')</script>"
                                  "<img src='http://127.0.0.1:9/hs.png'></body>", 1)
    check, console = _probe(tmp_path, bad, "bad.html")
    assert any("hs-negative-control" in e for e in check["errors"]), check
    assert any("hs-negative-control" in line for line in console), console
    assert check["resources"] == ["http://127.0.0.1:9/hs.png"], check
    assert check["plots"] == 3  # the figures drew before the bad script ran


def _colours(png):
    img = PIL_Image.open(png).convert("RGB")
    pixels = np.asarray(img).reshape(-1, 3)
    background = np.all(pixels == pixels[0], axis=1).mean()  # the share of the top-left pixel's colour
    return len(img.getcolors(1 << 24)), background, img.size


def test_screenshot_is_not_blank(tmp_path, page):
    path = tmp_path / "sweep.html"
    path.write_text(page, encoding="utf-8")
    png = tmp_path / "sweep.png"
    p = _chromium(tmp_path, "--hide-scrollbars", "--window-size=1400,1900", "--screenshot=%s" % png, path.as_uri())
    assert png.exists(), p.stderr[-2000:]
    colours, background, size = _colours(png)
    assert size == (1400, 1900)
    # measured on this page: 7,025 colours, 52% of the pixels the background's (about:blank: 1 and 100%)
    assert colours >= 500 and background < 0.9, (colours, background)
    if os.environ.get("HS_REPORT_SCREENSHOT"):
        shutil.copy(png, os.environ["HS_REPORT_SCREENSHOT"])


def test_blank_screenshot_is_seen_as_blank(tmp_path):
    png = tmp_path / "blank.png"
    _chromium(tmp_path, "--window-size=400,300", "--screenshot=%s" % png, "about:blank")
    colours, background, _ = _colours(png)
    assert colours < 500 and background > 0.9, (colours, background)


def test_dated_series_screenshot(tmp_path):
    """Issue 28 item 4: the page of a dated Series (the combo figure's axis and hovers in dates), drawn by
    the browser without errors and not blank; HS_REPORT_SCREENSHOT_DATED=PATH keeps the screenshot."""
    pd = pytest.importorskip("pandas", reason="pandas: not installed (pip install '.[pandas]')")
    s = pd.Series(hs.series(bars=3000), index=pd.date_range("2015-01-01", periods=3000, freq="D"), name="Close")
    page = hs.report(s, None, lengths=LENGTHS, span=("2019-01-01", "2019-12-31"), title="dated series")
    check, console = _probe(tmp_path, page, "dated.html")
    assert check["errors"] == [] and console == [] and check["drawn"] >= 3, (check, console)
    path = tmp_path / "dated.html"
    path.write_text(page, encoding="utf-8")
    png = tmp_path / "dated.png"
    p = _chromium(tmp_path, "--hide-scrollbars", "--window-size=1400,2300", "--screenshot=%s" % png, path.as_uri())  # down to the date axis
    assert png.exists(), p.stderr[-2000:]
    colours, background, _ = _colours(png)
    assert colours >= 500 and background < 0.9, (colours, background)
    if os.environ.get("HS_REPORT_SCREENSHOT_DATED"):
        shutil.copy(png, os.environ["HS_REPORT_SCREENSHOT_DATED"])


def test_page_with_periods_draws_its_validation_figure(tmp_path, close):
    # the fourth figure (λ histogram, IS/OOS scatter, walk-forward): drawn, without errors, nothing fetched
    r = hs.sweep(close, LENGTHS, periods=32)
    v = hs.validate(r, groups=8, walk_forward=(8, 4))
    page = hs.report(r, None, close=close, stat="pnl", groups=8)
    check, console = _probe(tmp_path, page, "validation.html")
    assert check["errors"] == [] and console == [], (check, console)
    assert check["plots"] == 4 and check["drawn"] >= 4 and check["resources"] == [], check
    log = hs.trade_log(close, int(r.lengths[np.argmax(r.pnl)]))
    scatter = int((np.isfinite(v.is_sharpe) & np.isfinite(v.oos_sharpe)).sum())
    # figures 1-3 as above, then one marker per split in the scatter (the lines and bars are no points)
    assert check["points"] == 7 + 12 + 2 * len(log) + scatter, (check["points"], scatter)
