#!/usr/bin/env python3
"""The skip policy for Python tests (tests/skips.allow says it in full).  Standard library only, so a
test can consult it before it imports anything that may be absent.

    skip(tool, reason)       print "SKIPPED: TOOL: reason" and exit 77 (ctest: Skipped); in CI, when TOOL
                             is not on the allow-list, print why and exit 1 (the test fails)
    unexpected(reasons)      the pytest skip reasons ("TOOL: ...") that CI must not accept
    python3 skip_policy.py needs TOOL -- COMMAND...
                             run COMMAND when TOOL is present (TOOLS below says how to tell), else skip(TOOL)
    python3 skip_policy.py report CTEST_JUNIT.xml
                             list every test ctest skipped, with its reason (its SKIPPED: line); ctest's
                             own summary names them without one (tests/run.sh runs this after ctest)
"""
import importlib
import importlib.util
import os
import shutil
import sys

ALLOW_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "skips.allow")


def allowed_tools():
    with open(ALLOW_FILE) as f:
        return {line.split()[0] for line in f if line.strip() and not line.startswith("#")}


def in_ci():
    return os.environ.get("CI", "") not in ("", "false", "0")


def tool_of(reason):
    """'Skipped: numba: not installed' or 'numba: not installed' -> 'numba'."""
    reason = reason.strip()
    if reason.startswith("Skipped: "):
        reason = reason[len("Skipped: "):]
    return reason.split(":", 1)[0].strip() if ":" in reason else ""


def unexpected(reasons):
    if not in_ci():
        return []
    allowed = allowed_tools()
    return [r for r in reasons if tool_of(r) not in allowed]


def skip(tool, reason):
    if in_ci() and tool not in allowed_tools():
        print("FAIL: unexpected skip in CI (CI=%s): %s: %s ('%s' is not on tests/skips.allow)"
              % (os.environ["CI"], tool, reason, tool), flush=True)
        sys.exit(1)
    print("SKIPPED: %s: %s" % (tool, reason), flush=True)
    sys.exit(77)


def _module(name):
    def present():
        try:
            importlib.import_module(name)
            return True
        except ImportError:
            return False
    return present


# How to tell that a tool is there, for `needs`.
TOOLS = {"numba": (_module("numba"), "numba is not importable (pip install numba)"),
         "vectorbt": (_module("vectorbt"), "vectorbt is not importable (pip install vectorbt)"),
         # the real quotes' files only (conftest.real_quotes): found, not imported
         "backtesting": (lambda: importlib.util.find_spec("backtesting") is not None,
                         "backtesting is not installed (pip install backtesting: the real quotes it ships)"),
         "cargo": (lambda: shutil.which("cargo") is not None, "cargo is not on PATH (https://rustup.rs)"),
         "chromium": (lambda: shutil.which("chromium") is not None or shutil.which("chromium-browser") is not None,
                      "chromium is not on PATH (apt-get install chromium)")}


def report(junit):
    import xml.etree.ElementTree as ET
    cases = [c for c in ET.parse(junit).getroot().iter("testcase") if c.find("skipped") is not None]
    print("skipped tests (%d), with their reasons (tests/skips.allow):" % len(cases))
    for c in cases:
        out = c.findtext("system-out") or ""
        why = [line for line in out.splitlines() if line.startswith("SKIPPED: ")]
        print("  %-28s %s" % (c.get("name"), why[-1] if why else "(no SKIPPED: line; %s)" % c.find("skipped").get("message")))


def main(argv):
    if len(argv) == 2 and argv[0] == "report":
        return report(argv[1])
    if len(argv) < 4 or argv[0] != "needs" or argv[2] != "--" or argv[1] not in TOOLS:
        sys.exit("usage: skip_policy.py needs {%s} -- COMMAND..." % ",".join(sorted(TOOLS)))
    present, why = TOOLS[argv[1]]
    if not present():
        skip(argv[1], why)
    os.execvp(argv[3], argv[3:])


if __name__ == "__main__":
    main(sys.argv[1:])
