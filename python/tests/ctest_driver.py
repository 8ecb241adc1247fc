#!/usr/bin/env python3
"""ctest `python_package` and `python_numba_peer`: run pytest on the build tree's package.

usage: ctest_driver.py BUILD_PYTHON_DIR [--needs TOOL] PYTEST_ARGS...

The skip policy (tests/skips.allow, tests/skip_policy.py) holds inside pytest too:
- a missing test tool (pytest, hypothesis, numpy; TOOL for --needs) is a ctest skip (exit 77, with the
  reason), or, in CI, a failure unless the tool is on the allow-list;
- pytest runs with -rs, so every skip is listed with its reason; a skip reason names its tool first
  ("numba: ...").  In CI a pytest skip whose tool is not on the allow-list fails the ctest, so a skipped
  test never counts as a pass there."""
import importlib.util
import os
import sys

sys.path.insert(0, os.path.join(os.environ.get("HS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                                "tests"))
import skip_policy  # noqa: E402  tests/skip_policy.py: standard library only

build_dir, *args = sys.argv[1:]
needs = []
while args[:1] == ["--needs"]:
    needs.append(args[1])
    args = args[2:]
for tool in ("pytest", "hypothesis", "numpy"):
    if importlib.util.find_spec(tool) is None:
        skip_policy.skip(tool, "%s is not importable (pip install pytest hypothesis numpy pandas)" % tool)
for tool in needs:
    present, why = skip_policy.TOOLS[tool]
    if not present():
        skip_policy.skip(tool, why)
sys.path.insert(0, build_dir)
os.environ["PYTHONPATH"] = build_dir + os.pathsep + os.environ.get("PYTHONPATH", "")
import pytest  # noqa: E402


class SkipReasons:
    """Collects the reason of every skipped test and of every module skipped at collection."""

    def __init__(self):
        self.reasons = []

    def _add(self, report):
        if report.skipped:
            longrepr = report.longrepr
            self.reasons.append(longrepr[2] if isinstance(longrepr, tuple) else str(longrepr))

    def pytest_runtest_logreport(self, report):
        self._add(report)

    def pytest_collectreport(self, report):
        self._add(report)


skips = SkipReasons()
rc = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", "-o", "console_output_style=classic", *args], plugins=[skips])
bad = skip_policy.unexpected(skips.reasons)
if bad:
    print("FAIL: %d pytest skip(s) in CI for a reason not on tests/skips.allow (a skip reason names its tool "
          "first, 'numba: ...'):" % len(bad))
    for r in bad:
        print("  " + r)
    sys.exit(1)
sys.exit(rc)
